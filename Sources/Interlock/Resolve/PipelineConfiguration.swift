/// A route's guard: allows (true) or refuses (false) the request.
public typealias Guard = @Sendable (Request) throws(CallbackError) -> Bool

/// A link a guard refused, kept so that the host can replay it (after a login, say).
public struct PendingLink: Equatable, Sendable {
    /// The URI as received.
    public let uri: String
    /// The method it was resolved with.
    public let method: String?
}

/// What runs around one route: its destination, guard and scoped interceptors (flattened to the
/// closures that run), and the host's data for it. Immutable: a change replaces the object (and
/// so the global pipeline that lists it), so a resolve reads it from the global pipeline it holds,
/// with no lock taken, and what it replaced (a callback, data) lives until no resolve runs it.
final class RouteParts: Sendable {
    let destination: Destination?
    let routeGuard: Guard?
    let requestLeaves: [RequestInterceptor.Leaf]
    let responseLeaves: [ResponseInterceptor.Leaf]
    /// The interceptors' names, for traces.
    let names: StageNames
    /// The host's value for the route (see `Router.setData(_:for:)`).
    let data: RouteData?
    /// The revision of the route's pattern these parts belong to (see `Route.revision`): a
    /// resolve checks it against the route its lookup found, so that it never runs a pattern
    /// with the callbacks and data of another (a table and a pipeline from different moments).
    let revision: UInt64

    init(destination: Destination? = nil, routeGuard: Guard? = nil,
         requestLeaves: [RequestInterceptor.Leaf] = [], responseLeaves: [ResponseInterceptor.Leaf] = [],
         data: RouteData? = nil, revision: UInt64 = 0) {
        self.destination = destination
        self.routeGuard = routeGuard
        self.requestLeaves = requestLeaves
        self.responseLeaves = responseLeaves
        self.data = data
        self.revision = revision
        names = requestLeaves.isEmpty && responseLeaves.isEmpty
            ? .none : StageNames(requestLeaves: requestLeaves, responseLeaves: responseLeaves)
    }

    /// Shared by every route that has nothing around it.
    static let empty = RouteParts()
    /// What a removed route has around it: nothing, and, told apart from `empty`, a sign that a
    /// lookup that found the route read a table from before its removal.
    static let removed = RouteParts()

    func with(destination: Destination?) -> RouteParts {
        RouteParts(destination: destination, routeGuard: routeGuard, requestLeaves: requestLeaves, responseLeaves: responseLeaves,
                   data: data, revision: revision)
    }
    func with(routeGuard: Guard?) -> RouteParts {
        RouteParts(destination: destination, routeGuard: routeGuard, requestLeaves: requestLeaves, responseLeaves: responseLeaves,
                   data: data, revision: revision)
    }
    func with(data: RouteData?) -> RouteParts {
        RouteParts(destination: destination, routeGuard: routeGuard, requestLeaves: requestLeaves, responseLeaves: responseLeaves,
                   data: data, revision: revision)
    }
    func with(revision: UInt64) -> RouteParts {
        RouteParts(destination: destination, routeGuard: routeGuard, requestLeaves: requestLeaves, responseLeaves: responseLeaves,
                   data: data, revision: revision)
    }
    func adding(_ leaves: [RequestInterceptor.Leaf]) -> RouteParts {
        RouteParts(destination: destination, routeGuard: routeGuard, requestLeaves: requestLeaves + leaves, responseLeaves: responseLeaves,
                   data: data, revision: revision)
    }
    func adding(_ leaves: [ResponseInterceptor.Leaf]) -> RouteParts {
        RouteParts(destination: destination, routeGuard: routeGuard, requestLeaves: requestLeaves, responseLeaves: responseLeaves + leaves,
                   data: data, revision: revision)
    }
}

/// The global part of the pipeline as one resolve sees it: taken once per resolve, so that a
/// filter added meanwhile changes later resolves only.
final class GlobalPipeline: Sendable {
    let filters: [Filter]
    let requestLeaves: [RequestInterceptor.Leaf]
    let responseLeaves: [ResponseInterceptor.Leaf]
    let defaultDestination: Destination?
    let redirectLimit: Int
    let retryLimit: Int
    /// The filters' and interceptors' names, for traces.
    let names: StageNames
    /// What runs around each route, by its slot, as it stood when this was built: a resolve
    /// reads it without the router's lock (two atomic operations) or a reference counted.
    let routes: RoutePartsTable

    init(_ c: PipelineConfiguration) {
        filters = c.filters
        requestLeaves = c.requestLeaves
        responseLeaves = c.responseLeaves
        defaultDestination = c.defaultDestination
        redirectLimit = c.redirectLimit
        retryLimit = c.retryLimit
        names = StageNames(filters: c.filters, requestLeaves: c.requestLeaves, responseLeaves: c.responseLeaves)
        routes = c.routes
    }

    /// What runs around the route in `id`'s slot, borrowed from this pipeline (which the run
    /// holds); nil for a slot made after it was built. The slot may hold another route by now:
    /// the caller checks the parts' revision against the route its lookup found.
    func parts(of id: RouteID) -> Unmanaged<RouteParts>? {
        guard id != 0 else { return nil }
        return routes.borrowed(RouteSlots.slot(id))
    }
}

/// Everything around the routes: filters, interceptors, guards, destinations, limits.
struct PipelineConfiguration {
    var filters: [Filter] = [] { didSet { snapshot = nil } }
    var requestLeaves: [RequestInterceptor.Leaf] = [] { didSet { snapshot = nil } }
    var responseLeaves: [ResponseInterceptor.Leaf] = [] { didSet { snapshot = nil } }
    var defaultDestination: Destination? = nil { didSet { snapshot = nil } }
    var redirectLimit = 8 { didSet { snapshot = nil } }
    var retryLimit = 3 { didSet { snapshot = nil } }
    /// One entry per slot of the router's `RouteSlots`. A change makes a new global part (the resolves
    /// that follow read it from there), and copies the page it writes if a run still holds it.
    var routes = RoutePartsTable() { didSet { snapshot = nil } }
    private var snapshot: GlobalPipeline? = nil

    /// Whether the global pipeline whose identity is `id` is the global part as it stands (no
    /// change since it was built): a run's `globalID` (reading its `global` would count a
    /// reference). The run holds that pipeline, so no other object can have taken its address.
    func isCurrent(globalID id: ObjectIdentifier?) -> Bool {
        snapshot.map { ObjectIdentifier($0) } == id
    }

    /// The global part, built again only after a change.
    mutating func global() -> GlobalPipeline {
        if let snapshot { return snapshot }
        let g = GlobalPipeline(self)
        snapshot = g
        return g
    }
}

extension Router {
    /// Adds a route with a destination and, optionally, a guard.
    ///
    /// - Parameters:
    ///   - pattern: The route pattern, as for ``addRoute(_:name:)``.
    ///   - name: A name for ``url(for:parameters:)`` and redirects to named routes; unique in the
    ///     router, not empty. Nil for none.
    ///   - routeGuard: Runs before the destination; refusing ends the resolve as
    ///     ``ResolveStatus/guarded`` and keeps the link pending. Nil for none.
    ///   - destination: Runs when ``resolve(_:method:)`` picks the route.
    /// - Returns: The route's id (1, 2, ... in the order added).
    /// - Throws: ``InterlockError``, as ``addRoute(_:name:)`` throws.
    @discardableResult
    public func addRoute(_ pattern: String, name: String? = nil, guard routeGuard: Guard? = nil,
                         destination: @escaping Destination) throws(InterlockError) -> RouteID {
        try addRoute(pattern, name: name, destination: destination, routeGuard: routeGuard)
    }

    /// Sets (or replaces) the destination of route `id`. Throws `.unknownRoute` for an id no
    /// route has.
    ///
    /// - Parameters:
    ///   - destination: The new destination. The one replaced is let go of at once, or, by a
    ///     resolve running it, when that resolve ends.
    ///   - id: The route's id.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/unknownRoute`` if no route has `id`.
    public func setDestination(_ destination: @escaping Destination, for id: RouteID) throws(InterlockError) {
        try changeParts(of: id) { $0.with(destination: destination) }
    }

    /// Replaces what runs around route `id` by `change` of it, and lets go of the spare runs at
    /// once: they hold the parts as they were, so a replaced callback (and its C userdata) is
    /// let go of now, not at the next resolve.
    func changeParts(of id: RouteID, _ change: (RouteParts) -> RouteParts) throws(InterlockError) {
        try replacing { (s: inout State) throws(InterlockError) -> RouteParts in
            let (_, slot) = try s.checkRoute(id)
            let old = s.pipeline.routes[slot]
            s.pipeline.routes[slot] = change(old)
            return old
        }
    }

    /// Makes `change`, which replaces callbacks and returns what it replaced, under the lock, and
    /// lets go of that and of the spare runs after it: letting go of a callback may run a C free
    /// function, which may call the router. A resolve that is running a replaced callback keeps
    /// it (and its userdata) until it ends. Only what was replaced is kept, not the pipeline:
    /// a copy of the pipeline would share its arrays, so the change would copy them, every route
    /// at every change (adding 100,000 routes with destinations took 88 s instead of 0.6).
    func replacing<Replaced: Sendable>(_ change: (inout State) throws(InterlockError) -> Replaced) throws(InterlockError) {
        // Returned and dropped: released after the lock.
        _ = try state.withLock { (s: inout State) throws(InterlockError) -> (Replaced, [PipelineRun]) in
            let replaced = try change(&s)
            return (replaced, s.takeRuns())
        }
    }

    /// The destination that runs when no route matches; nil for none. The one replaced is let
    /// go of at once, or, by a resolve running it, when that resolve ends.
    public var defaultDestination: Destination? {
        get { state.withLock { $0.pipeline.defaultDestination } }
        set {
            try? replacing { (s: inout State) -> Destination? in
                let old = s.pipeline.defaultDestination
                s.pipeline.defaultDestination = newValue
                return old
            }
        }
    }

    /// Appends a filter to the global chain.
    ///
    /// - Parameter filter: The filter; every resolve passes through it, in the order added,
    ///   whether or not a route matched.
    public func addFilter(_ filter: Filter) {
        state.withLock { $0.pipeline.filters.append(filter) }
    }

    /// Adds a request interceptor: global (route nil) or in a route's scope.
    ///
    /// Request interceptors run the route's scope first, then the global ones; each scope in the
    /// order added.
    ///
    /// - Parameters:
    ///   - interceptor: The interceptor (or composition).
    ///   - route: The id of the route whose scope it joins, or nil for the global scope.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/unknownRoute`` if no route has that id.
    public func addRequestInterceptor(_ interceptor: RequestInterceptor, route: RouteID? = nil) throws(InterlockError) {
        if let route {
            try changeParts(of: route) { $0.adding(interceptor.leaves) }
        } else {
            state.withLock { $0.pipeline.requestLeaves += interceptor.leaves }
        }
    }

    /// Adds a response interceptor: global (route nil) or in a route's scope.
    ///
    /// Response interceptors run the global ones first, then the route's scope; each scope in the
    /// order added.
    ///
    /// - Parameters:
    ///   - interceptor: The interceptor (or composition).
    ///   - route: The id of the route whose scope it joins, or nil for the global scope.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/unknownRoute`` if no route has that id.
    public func addResponseInterceptor(_ interceptor: ResponseInterceptor, route: RouteID? = nil) throws(InterlockError) {
        if let route {
            try changeParts(of: route) { $0.adding(interceptor.leaves) }
        } else {
            state.withLock { $0.pipeline.responseLeaves += interceptor.leaves }
        }
    }

    /// Sets (or replaces, or with nil removes) the guard of route `id`. Throws `.unknownRoute` for
    /// an id no route has.
    ///
    /// - Parameters:
    ///   - routeGuard: The guard, or nil to remove it. The one replaced is let go of at once, or,
    ///     by a resolve running it, when that resolve ends.
    ///   - id: The route's id.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/unknownRoute`` if no route has `id`.
    public func setGuard(_ routeGuard: Guard?, for id: RouteID) throws(InterlockError) {
        try changeParts(of: id) { $0.with(routeGuard: routeGuard) }
    }

    /// How many redirects one resolve may follow before it ends as `redirectLoop` (8 unless set).
    public var redirectLimit: Int {
        get { state.withLock { $0.pipeline.redirectLimit } }
        set { state.withLock { $0.pipeline.redirectLimit = max(0, newValue) } }
    }

    /// How many retries one resolve may run before it ends as `retryLimit` (3 unless set).
    public var retryLimit: Int {
        get { state.withLock { $0.pipeline.retryLimit } }
        set { state.withLock { $0.pipeline.retryLimit = max(0, newValue) } }
    }

    /// The last link a guard refused, if it was not taken or replayed since.
    public var pendingLink: PendingLink? { state.withLock { $0.pendingLink } }

    /// Returns the pending link and clears it.
    ///
    /// - Returns: The link, or nil if none is pending.
    public func takePendingLink() -> PendingLink? {
        state.withLock { s in
            defer { s.pendingLink = nil }
            return s.pendingLink
        }
    }

    /// Takes the pending link only if its URI is shorter than `limit` bytes (for C callers copying
    /// it into a buffer of that size); otherwise leaves it pending and returns nil.
    ///
    /// - Parameter limit: The size of the caller's buffer, in bytes (the URI and its NUL).
    /// - Returns: The link, now cleared; or nil if none is pending or its URI is too long.
    public func takePendingLink(ifShorterThan limit: Int) -> PendingLink? {
        state.withLock { s in
            guard let link = s.pendingLink, link.uri.utf8.count < limit else { return nil }
            s.pendingLink = nil
            return link
        }
    }

    /// Resolves the pending link again (nil if there is none). It is cleared first, so it is
    /// pending afterwards only if the replay is refused again.
    ///
    /// - Returns: The replay's resolution, or nil if no link was pending.
    /// - Throws: ``InterlockError``, as ``resolve(_:method:)`` throws.
    public func replayPendingLink() throws(InterlockError) -> Resolution? {
        guard let link = takePendingLink() else { return nil }
        return try resolve(link.uri, method: link.method)
    }

    func setPendingLink(_ link: PendingLink) {
        state.withLock { $0.pendingLink = link }
    }

    /// A run for a resolve with `method`: a spare one of the current global pipeline, taken
    /// under one lock, or a new one (`freshRun`).
    func beginResolve(method: String?) -> PipelineRun {
        // By index: `last` would count a reference to the run it copies.
        let spare = state.withLock { s -> PipelineRun? in
            guard let i = s.runs.indices.last, s.pipeline.isCurrent(globalID: s.runs[i].globalID) else { return nil }
            return s.runs.removeLast()
        }
        // Switched on, not `??`-ed, and each branch returns its own run: `??`, or one `run`
        // assigned in both branches, counted a reference to the spare.
        switch consume spare {
        case .some(let run):
            run.begin(method: method)
            return run
        case .none:
            let run = freshRun()
            run.begin(method: method)
            return run
        }
    }

    /// A new run (with a matcher from the pool) of the current global pipeline: the first
    /// resolves, and those after the global pipeline changed, whose spare runs are let go of
    /// here, outside the lock (letting go of callbacks may run a C free function), their
    /// matchers kept in the pool first (so this run takes one of them).
    @inline(never) private func freshRun() -> PipelineRun {
        let (global, matcher, stale) = state.withLock { s -> (GlobalPipeline, PooledMatcher?, [PipelineRun]) in
            let stale = s.takeRuns()
            return (s.pipeline.global(), s.pool.popLast(), stale)
        }
        _ = consume stale
        return PipelineRun(router: self, global: global, pooled: matcher ?? PooledMatcher(matcher: Matcher()))
    }

    /// Takes back the run of a resolve that ended, to be used again, unless something still
    /// holds it (a filter kept its chain) or the global pipeline changed meanwhile.
    func endResolve(_ run: consuming PipelineRun) {
        guard isKnownUniquelyReferenced(&run) else { return }
        // Moved into the spare runs (no reference counted), or let go of after the lock.
        var ended: PipelineRun? = consume run
        state.withLock { s in
            if s.runs.count < State.spareLimit, s.pipeline.isCurrent(globalID: ended?.globalID) {
                s.runs.append(ended.take()!)
            } else if let stale = ended {
                s.keepMatcher(stale.pooled)     // the run goes (after the lock), its matcher stays
            }
        }
    }

    /// What runs around route `id`: `.removed` if no route has it.
    func parts(of id: RouteID) -> RouteParts {
        state.withLock { s in s.slots.slot(of: id).map { s.pipeline.routes[$0] } ?? .removed }
    }
}

extension Router.State {
    /// The spare runs, moved out (to be let go of after the lock: letting go of callbacks may
    /// run a C free function). Their matchers go back to the pool, for the next run or match:
    /// making a matcher (its buffers, PCRE2's match data and JIT stack) and freeing one cost more
    /// than most changes that leave the runs stale.
    mutating func takeRuns() -> [PipelineRun] {
        var taken: [PipelineRun] = []
        swap(&taken, &runs)
        for run in taken { keepMatcher(run.pooled) }
        return taken
    }

    /// Keeps a matcher no one uses any more in the pool, unless the pool is full.
    mutating func keepMatcher(_ m: PooledMatcher) {
        if pool.count < Self.spareLimit { pool.append(m) }
    }

    /// The route `id` names, and its slot.
    /// - Throws: `.unknownRoute` naming the id if no route has it, or saying it was removed.
    func checkRoute(_ id: RouteID) throws(InterlockError) -> (Route, Int) {
        guard let slot = slots.slot(of: id), let route = slots.routes[slot] else {
            throw InterlockError(.unknownRoute, slots.wasGiven(id) ? "route \(id) was removed" : "no route has id \(id)")
        }
        return (route, slot)
    }
}
