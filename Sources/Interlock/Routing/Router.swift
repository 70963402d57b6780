import Synchronization

/// How a router compares and normalizes.
public struct RouterOptions: OptionSet, Sendable {
    /// The options as bits, one per option (the C interface maps its `ILK_*` flags to them).
    public let rawValue: UInt32
    /// Options from their bits.
    ///
    /// - Parameter rawValue: The bits, one per option.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Literal segments compare ASCII case-insensitively.
    public static let caseInsensitive = RouterOptions(rawValue: 1 << 0)
    /// A trailing slash is significant: `/a/` and `/a` are different paths.
    public static let strictSlash = RouterOptions(rawValue: 1 << 1)
}

/// The route slots of one router (the slots an id can name; see ``RouteID``): it holds at most
/// this many routes less the 4,096 slots kept free once all are in use.
public let maximumRoutes = 1 << 22

/// A route table. Routes are added, removed and replaced at any time, from any thread; lookups on
/// other threads see the table before or after a change, never half of it. The regexes are
/// compiled lazily, on the first lookup after a change (or by ``compile()``), and only the part of
/// the table that changed is recompiled.
public final class Router: @unchecked Sendable {
    /// The options the router was made with.
    public let options: RouterOptions
    /// Tells this router apart from every other, for matchers that cache its table.
    let serial = Router.nextSerial()
    /// Bumped on every change; matchers compare it with the table they hold.
    let generation = Atomic<UInt64>(0)
    /// How many steps each regex a lookup runs may take: a constraint on its segment, or a
    /// subtree compiled to one regex (PCRE2's match limit). Past it the lookup fails with a
    /// `.limit` error naming the route whose constraint ran out. See ``setMatchLimit(_:)``.
    let matchLimit = Atomic<UInt32>(defaultMatchLimit)
    /// Units compiled so far, for ``compiledUnits``.
    let unitCounter = Atomic<Int>(0)
    /// Entries of the compiled table's hash tables built or copied so far (dispatch nodes' literal
    /// buckets, the all-literal table's paths, bucket pointers and filter words, pages of them
    /// listed): with `unitCounter`, the work changes cost (tests compare it across table sizes).
    let entryCounter = Atomic<Int>(0)
    let state: Mutex<State>
    /// Held while the tree changes or compiles (then before `state`): lookups take only `state`,
    /// so a compile does not make them wait while a previous table can answer.
    let treeLock = Mutex<Void>(())
    /// Every compiled constraint's code, one per source, shared by the units of the router's
    /// tables; touched only by compiles, under `treeLock`.
    let constraintCache = ConstraintCache()
    #if DEBUG
    /// Called during a compile, outside `state` (tests hold a compile open with it).
    nonisolated(unsafe) var compileHook: (() -> Void)? = nil
    #endif

    struct State {
        var tree: RouteTree
        /// The routes, in slots that removals free and additions reuse (see `RouteSlots`).
        var slots: RouteSlots
        /// How many routes were added: the next route's place in the order added (the tie rule's).
        var added: UInt64 = 0
        /// The last revision given to a route in a reused slot or to a replaced pattern (see
        /// `Route.revision`).
        var revisions: UInt64 = 0
        var liveCount: Int { slots.count }
        var routesByName: [String: Route] = [:]
        var compiled: CompiledTable? = nil
        /// How many spare matchers, and spare resolve runs, a router keeps.
        static let spareLimit = 16
        /// Matchers handed to one caller at a time: `match(_:method:)`'s, and a new resolve run's;
        /// the matchers of runs a change left stale come back here. A matcher here may still
        /// hold the table it last used, until its next lookup takes the current one.
        var pool: [PooledMatcher] = []
        /// Spare resolve runs, all of the current global pipeline (see `beginResolve`).
        var runs: [PipelineRun] = []
        var pipeline = PipelineConfiguration()
        /// One C copy of each method the routes name.
        var methodTexts: [String: CText] = [:]
        var pendingLink: PendingLink? = nil
    }

    /// Creates an empty router.
    ///
    /// - Parameter options: How it compares and normalizes; none by default.
    public convenience init(options: RouterOptions = []) {
        self.init(options: options, walkUnits: true)
    }

    /// A router that compiles every subtree to a regex (`walkUnits` false), that always or never
    /// tries the all-literal table first, or whose regexes are at most `unitBudget` bytes (small:
    /// dispatch nodes where a table would be one regex): tests compare these matchers on the same tables.
    /// `slotReserve` is how many free slots it keeps before it reuses one (tests lower it).
    init(options: RouterOptions = [], walkUnits: Bool = true, staticProbe: StaticProbeUse = .whenMostlyStatic,
         unitBudget: Int = Interlock.unitBudget, slotReserve: Int = RouteSlots.defaultReserve) {
        self.options = options
        self.walkUnits = walkUnits
        self.staticProbe = staticProbe
        self.unitBudget = unitBudget
        state = Mutex(State(tree: RouteTree(caseInsensitive: options.contains(.caseInsensitive)),
                            slots: RouteSlots(reserve: slotReserve)))
    }

    /// Whether subtrees of literals and plain parameters are walked rather than compiled to regexes.
    let walkUnits: Bool
    /// Whether lookups try the all-literal table first (tests force either way).
    let staticProbe: StaticProbeUse
    /// The most bytes of regex source in one unit.
    let unitBudget: Int

    /// Parses `pattern` and adds it as a route. Returns the route's id (see ``RouteID``).
    /// Throws a `.pattern` error naming the problem and its byte offset, or a `.conflict` error
    /// naming the route that already has the same method, scheme, host and path shape.
    ///
    /// - Parameters:
    ///   - pattern: `[METHOD ][scheme://[host]]path`, the path's segments being literals, `:name`,
    ///     `:name(REGEX)`, `*name` or `*` (last only), and `(/...)` optional parts (the grammar is
    ///     in the README).
    ///   - name: A name for ``url(for:parameters:)`` and redirects to named routes; unique in the
    ///     router, not empty. Nil for none.
    /// - Returns: The route's id: 1, 2, ... in the order added until a removed route's slot is
    ///   reused (see ``RouteID``).
    /// - Throws: ``InterlockError`` with code ``ErrorCode/pattern`` for a malformed pattern (its
    ///   `offset` says where), ``ErrorCode/conflict`` for a route of the same method, scheme, host
    ///   and path shape or a name already used, ``ErrorCode/invalidArgument`` for an empty name,
    ///   or ``ErrorCode/limit`` past the limits (``maximumPatternVariants``,
    ///   ``maximumPatternSegments``, ``maximumOriginLength``, ``maximumRoutes``).
    @discardableResult
    public func addRoute(_ pattern: String, name: String? = nil) throws(InterlockError) -> RouteID {
        try addRoute(pattern, name: name, destination: nil, routeGuard: nil)
    }

    /// Adds a route with its destination and guard in one change: no resolve finds the route
    /// without them (set afterwards, a resolve in between answered an empty 200).
    ///
    /// - Parameters:
    ///   - pattern: The route pattern, as for ``addRoute(_:name:)``.
    ///   - name: The route's name, as for ``addRoute(_:name:)``; nil for none.
    ///   - destination: What runs when a resolve picks the route; nil for none.
    ///   - routeGuard: What runs before the destination; nil for none.
    /// - Returns: The route's id.
    /// - Throws: ``InterlockError``, as ``addRoute(_:name:)`` throws.
    package func addRoute(_ pattern: String, name: String?, destination: Destination?, routeGuard: Guard?) throws(InterlockError) -> RouteID {
        let parsed = try PatternParser.parse(pattern, strictSlash: options.contains(.strictSlash))
        if let name, name.isEmpty { throw InterlockError(.invalidArgument, "route name is empty") }
        return try treeLock.withLock { (_: inout Void) throws(InterlockError) -> RouteID in try state.withLock { (s: inout State) throws(InterlockError) -> RouteID in
            let added = try s.add(parsed, name: name, destination: destination, routeGuard: routeGuard)
            WrittenGeneration.note(generation.add(1, ordering: .releasing).newValue)
            return added.route.id
        } }
    }

    /// Bounds the work of one lookup on hostile URIs: each regex a lookup runs (a parameter's
    /// constraint, on its segment alone, or a subtree compiled to one regex) may take at most
    /// `limit` backtracking steps (PCRE2's match limit); past it the lookup throws a `.limit`
    /// error naming the route whose constraint ran out.
    /// - Parameter limit: the steps; 0 restores ``defaultMatchLimit``. Lookups already running
    ///   finish under the limit they started with.
    public func setMatchLimit(_ limit: UInt32) {
        matchLimit.store(limit == 0 ? defaultMatchLimit : limit, ordering: .relaxed)
        // Matchers take the limit when they take a new table.
        state.withLock { _ in WrittenGeneration.note(generation.add(1, ordering: .releasing).newValue) }
    }

    /// The limit set by ``setMatchLimit(_:)``.
    public var currentMatchLimit: UInt32 { matchLimit.load(ordering: .relaxed) }

    /// The route with this id, if any.
    ///
    /// - Parameter id: The id ``addRoute(_:name:)`` returned.
    /// - Returns: The route, or nil if no route has that id (or it was removed).
    public func route(_ id: RouteID) -> Route? {
        state.withLock { s in s.slots.route(id) }
    }

    /// The route in the first slot after the one `id` names (see ``RouteID``), if any: from 0,
    /// then each id it gives, it visits every route once, without copying the table (in the
    /// order added, until a removed route's slot is reused). It works from a removed route's id
    /// too: the slot stays.
    ///
    /// - Parameter id: An id (0 for the first route).
    /// - Returns: The next route, or nil if no slot after `id`'s holds one.
    public func route(after id: RouteID) -> Route? {
        state.withLock { s in s.slots.route(after: id) }
    }

    /// The route with this name, if any.
    ///
    /// - Parameter name: The route's name.
    /// - Returns: The route, or nil if no route has that name.
    public func route(named name: String) -> Route? {
        state.withLock { s in s.routesByName[name] }
    }

    func takeMatcher() -> PooledMatcher {
        state.withLock { $0.pool.popLast() } ?? PooledMatcher(matcher: Matcher())
    }

    func returnMatcher(_ m: PooledMatcher) {
        state.withLock { s in s.keepMatcher(m) }
    }

    /// Every route, in the order added (removed ones left out).
    public var routes: [Route] {
        state.withLock { $0.slots.routes.compactMap { $0 } }.sorted { $0.order < $1.order }
    }

    /// How many regex units this router has compiled so far (they are compiled lazily, and only
    /// where the table changed): a measure of the work additions cost.
    public var compiledUnits: Int { unitCounter.load(ordering: .relaxed) }

    /// Calls `body` with this router without a reference-count update (for hot paths called from
    /// many threads, where the shared count would serialize them).
    /// Public rather than `package`, although only the C interface uses it: a `package` function
    /// is not inlined across the module boundary, and the C lookup measurably slowed.
    ///
    /// - Parameter body: Called with this router, which it must not keep past the call.
    /// - Returns: What `body` returns.
    @inline(__always)
    public func withGuaranteedReference<R>(_ body: (Router) -> R) -> R {
        Unmanaged.passUnretained(self)._withUnsafeGuaranteedRef(body)
    }

    /// Number of routes (removed ones left out).
    public var count: Int { state.withLock { $0.liveCount } }

    /// The compiled table for the current generation, compiling what changed. While another
    /// thread compiles, the previous table answers: a lookup waits for a compile only when the
    /// router has never had a table, or this thread made a change the previous table lacks.
    func compiledTable() throws(InterlockError) -> CompiledTable {
        let (current, previous) = state.withLock { s -> (CompiledTable?, CompiledTable?) in
            if let c = s.compiled, c.generation == generation.load(ordering: .acquiring) { return (c, nil) }
            return (nil, s.compiled)
        }
        if let current { return current }
        guard let previous, previous.generation >= WrittenGeneration.current else {
            return try treeLock.withLock { (_: inout Void) throws(InterlockError) in try compileTable() }
        }
        let compiled = try treeLock.withLockIfAvailable { (_: inout Void) throws(InterlockError) in try compileTable() }
        return compiled ?? previous
    }

    /// Compiles what changed since the last table, holding `treeLock` (so the tree holds still)
    /// but not `state`, and publishes the table.
    func compileTable() throws(InterlockError) -> CompiledTable {
        let (g, tree, routeCount, previous) = state.withLock { s in
            (generation.load(ordering: .acquiring), s.tree, s.liveCount, s.compiled)
        }
        if let previous, previous.generation == g { return previous }     // another thread did it
        #if DEBUG
        compileHook?()
        #endif
        var compiler = TableCompiler(caseInsensitive: options.contains(.caseInsensitive), walkUnits: walkUnits, budget: unitBudget,
                                     cache: constraintCache)
        let root = try compiler.compile(tree.root)
        unitCounter.add(compiler.unitsCompiled, ordering: .relaxed)
        var written = compiler.entriesWritten
        // The all-literal table is built only for tables that try it (built whole when a table
        // starts to, then updated with what changed). It is kept up to date a while after lookups
        // stop trying it (while a quarter of the routes are all-literal), so that a table changing
        // around the threshold does not build it whole each time it crosses.
        let probes = staticProbe.applies(staticPaths: tree.staticNodes.count, routes: routeCount)
        let keeps = probes || (previous?.keepsStatic == true && 4 * tree.staticNodes.count >= routeCount)
        let paths: StaticPaths
        if !keeps {
            paths = .empty
        } else if let previous, previous.keepsStatic {
            paths = StaticPaths.update(previous.staticPaths, tree: tree, changed: tree.changedStatic, written: &written)
        } else {
            paths = StaticPaths.update(.empty, tree: tree, changed: Set(tree.staticNodes.keys), written: &written)
        }
        entryCounter.add(written, ordering: .relaxed)
        // Read after the generation: a limit set since is at worst taken a table early.
        let c = CompiledTable(source: serial, generation: g, root: root, captures: root.maxCaptures, staticPaths: paths,
                              probesStatic: probes, keepsStatic: keeps, strictSlash: options.contains(.strictSlash),
                              matchLimit: matchLimit.load(ordering: .relaxed))
        state.withLock { s in
            s.tree.changedStatic = []
            s.compiled = c
        }
        return c
    }

    /// Matches `uri` (and `method`, nil for any) and returns the route and its parameters, or why not.
    /// Throws a `.uri` error with the byte offset for a malformed URI.
    ///
    /// - Parameters:
    ///   - uri: The URI: an absolute URI, an absolute path or a relative path.
    ///   - method: The request's method, or nil for any method.
    /// - Returns: The route that matched with its parameters, or why none did.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/uri`` for a malformed URI (its `offset`
    ///   says where), ``ErrorCode/invalidArgument`` for a malformed method, or ``ErrorCode/limit``
    ///   if a constraint ran past the match limit (``setMatchLimit(_:)``).
    public func match(_ uri: String, method: String? = nil) throws(InterlockError) -> MatchResult {
        let pooled = takeMatcher()
        defer { returnMatcher(pooled) }
        let matcher = pooled.matcher
        let outcome = try withBytes(uri) { (u) throws(InterlockError) -> MatchOutcome in
            guard let method else { return try matcher.match(self, method: nil, uri: u) }
            return try withBytes(method) { (m) throws(InterlockError) in try matcher.match(self, method: m, uri: u) }
        }
        switch outcome {
        case .matched:
            guard var m = matcher.routeMatch() else { return .notFound }
            m.data = data(for: m.routeID)
            return .matched(m)
        case .notFound: return .notFound
        case .methodNotAllowed: return .methodNotAllowed(allowed: matcher.allowedMethods)
        }
    }
}

/// A matcher moving between threads through the pool: only one thread uses it at a time.
struct PooledMatcher: @unchecked Sendable {
    let matcher: Matcher
}

/// What a lookup found.
public enum MatchResult: Equatable, Sendable {
    /// A route matched.
    case matched(RouteMatch)
    /// No route matches the path (with this scheme and host).
    case notFound
    /// Routes match the path, but none under this method; `allowed` lists their methods.
    case methodNotAllowed(allowed: [String])

    /// The match, if a route matched.
    public var routeMatch: RouteMatch? {
        if case .matched(let m) = self { return m }
        return nil
    }
}

/// A route that matched, with its parameters (percent-decoded) in path order.
public struct RouteMatch: Equatable, Sendable {
    /// The route's id.
    public let routeID: RouteID
    /// The route's pattern as written.
    public let pattern: String
    /// The route's name, if it has one.
    public let name: String?
    /// Parameter names and decoded values, in path order.
    public let parameters: [(name: String, value: String)]
    /// The host's value for the route (``Router/setData(_:for:)``), if any. Not compared by `==`.
    public internal(set) var data: HostValue? = nil

    /// The value of the named parameter, if the match bound it.
    ///
    /// - Parameter name: The parameter's name, as written in the pattern.
    /// - Returns: Its decoded value, or nil if the match bound no parameter of that name.
    public subscript(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// Whether two matches are the same: same route, pattern, name, and parameters in the same order.
    ///
    /// - Parameters:
    ///   - a: A match.
    ///   - b: Another match.
    /// - Returns: true if they are equal.
    public static func == (a: RouteMatch, b: RouteMatch) -> Bool {
        a.routeID == b.routeID && a.pattern == b.pattern && a.name == b.name
            && a.parameters.map({ $0.name }) == b.parameters.map({ $0.name })
            && a.parameters.map({ $0.value }) == b.parameters.map({ $0.value })
    }
}
