import CPCRE2
import Synchronization

/// What one lookup found; the details are on the ``Matcher``.
public enum MatchOutcome: Sendable {
    /// A route matched: read it with ``Matcher/route``, ``Matcher/routeID`` and the matcher's
    /// parameters, or as a value with ``Matcher/routeMatch()``.
    case matched
    /// No route matches the URI under any method.
    case notFound
    /// Routes match the path, but only under other methods: ``Matcher/allowedMethods`` lists them.
    case methodNotAllowed
}

/// The longest method accepted, in bytes.
public let maximumMethodLength = 64

private let unset = -1  // PCRE2_UNSET: ~(PCRE2_SIZE)0, which a size_t imported as Int reads as -1

/// Serial numbers tell routers apart even when one is freed and another takes its address.
private let routerSerials = Atomic<UInt64>(0)
extension Router {
    static func nextSerial() -> UInt64 { routerSerials.add(1, ordering: .relaxed).newValue }
}

/// Per-thread lookup state: buffers, PCRE2 match data and the table last used. Reuse one matcher
/// for many lookups on one thread; after the first lookup (and while the table does not change) a
/// lookup allocates nothing. A matcher is not for two threads at once.
///
/// Its stored state is exempt from dynamic exclusivity checks in release builds: checking them
/// made a lookup far longer (docs/reliability.md gives the count), and no access to them can
/// overlap another, since a lookup runs no code of the host's and nothing calls back into the
/// matcher but PCRE2's callouts, which run a constraint (with its own context and match data) or
/// note an allowed method, and touch nothing else a lookup holds open. Debug builds and
/// the sanitizer builds define `INTERLOCK_CHECK_EXCLUSIVITY` and check them, so every suite run
/// there (`swift test`, `make sanitize`) would trap on an overlap.
public final class Matcher {
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var subject: UnsafeMutablePointer<UInt8>
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var subjectCapacity: Int
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var subjectLength = 0
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var decoded: UnsafeMutablePointer<UInt8>
    /// At the position of each "/" in the path: where the segment after it ends (the next "/" or
    /// the "\n" ending the path). Written by the parse's scan, so walks never look for an end.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var segmentEnds: UnsafeMutablePointer<UInt32>
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var matchData: OpaquePointer
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var ovectorPairs: Int
    private let matchContext: OpaquePointer
    private let jitStack: OpaquePointer
    /// A constraint runs inside the callout of the regex that reached it: its own context, stack
    /// and match data, since the outer match still uses the others.
    private let constraintContext: OpaquePointer
    private let constraintStack: OpaquePointer
    private let constraintData: OpaquePointer
    private let spanStart: UnsafeMutablePointer<Int>
    private let spanEnd: UnsafeMutablePointer<Int>
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var spanCount = 0
    /// Where the values of the last match are (see `ValuesPlace`).
    private let valueStart: UnsafeMutablePointer<Int>
    private let valueLength: UnsafeMutablePointer<Int>
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var valuesPlace = ValuesPlace.decoded
    /// A walk's choice points (see `walk`): node, position and span count, one per tree level.
    private let choiceNode: UnsafeMutablePointer<Int>
    private let choiceAt: UnsafeMutablePointer<Int>
    private let choiceSpans: UnsafeMutablePointer<Int>

    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var tableSerial: UInt64 = 0
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var tableGeneration: UInt64 = 0
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var tableRoot: CompiledNode? = nil
    // The root again, unmanaged: the lookup path must not touch shared reference counts.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var rootUnit: UnitRef? = nil
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var rootSimple: WalkTable? = nil
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var rootDispatch: Unmanaged<Dispatch>? = nil
    /// Holds the static table `staticProbe` reads.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var staticPaths = StaticPaths.empty
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var staticProbe = StaticProbe.none
    /// Whether lookups try `staticProbe` before the tree (see `StaticProbeUse`).
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var probesStatic = false
    /// The entry of the URI's own path, when it is one `staticProbe` holds byte for byte.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var probed: StaticEntry? = nil
    /// What `matchWholeStaticPath` found out, for `takeStaticPath` in the same lookup (which
    /// sets it back to `.unknown`).
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var wholeURIHeld = StaticHold.unknown
    /// Where the request's method lies in the subject (empty for any): simple units check it.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var methodStart = 0
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var methodLength = 0
    /// The request's method as a `MethodWord` (`MethodWord.any` for none): what leaves compare.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var methodWord = MethodWord.any
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var strictSlash = false
    /// Whether the lookup found a route whose path fits but that it did not take (a walk's
    /// leaves refused the method, a static entry refused it, or a regex failed, which may be
    /// for the method): only then can the answer be "method not allowed", so only then is the
    /// table searched again for the methods that fit.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var pathFitted = false

    // The last answer's record: the table this matcher holds (`tableRoot`) keeps it alive, and it
    // is cleared before the matcher lets go of that table.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var winner: UnsafePointer<LeafRecord>? = nil
    /// The route that matched last, or nil.
    public var route: Route? { winner?.pointee.route.takeUnretainedValue() }
    /// The id of the route that matched last, or 0 (no reference counting: for hot paths).
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    public private(set) var routeID: RouteID = 0
    private var names: ParameterNames? { winner?.pointee.names.takeUnretainedValue() }
    /// Number of parameters of the last match.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    public private(set) var parameterCount = 0
    /// Where the parts of the last URI were.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private(set) var spans = URISpans()
    /// Routes whose methods answer method-not-allowed (one per method), for the last lookup.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var allowedRoutes: [Route] = []
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var allowedCount = 0
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var enumeratingUnit: Unit? = nil
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var enumerating = false
    /// The constraints of the unit being run, for its callouts.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    private var runningConstraints: UnsafeMutablePointer<ConstraintRef>? = nil
    /// The constraint that stopped the last regex, and its error.
    private var stoppedConstraint: (Unmanaged<Constraint>, Int32)? = nil
    /// The match limit the contexts have (see `Router.matchLimit`).
    private var appliedMatchLimit: UInt32

    /// Creates a matcher. `preallocate` sizes its buffers for the longest URI up front, so that no
    /// lookup ever allocates; otherwise they grow on demand.
    ///
    /// - Parameter preallocate: Whether to size the buffers for ``maximumURILength`` bytes now.
    public init(preallocate: Bool = false) {
        let uriBytes = preallocate ? maximumURILength : 1024
        subjectCapacity = Matcher.subjectBytes(uriBytes)
        subject = .allocate(capacity: subjectCapacity)
        decoded = .allocate(capacity: subjectCapacity)
        segmentEnds = .allocate(capacity: subjectCapacity)
        ovectorPairs = 32
        matchData = pcre2_match_data_create_8(UInt32(ovectorPairs), nil)
        matchContext = pcre2_match_context_create_8(nil)
        jitStack = pcre2_jit_stack_create_8(32 * 1024, 1024 * 1024, nil)
        pcre2_jit_stack_assign_8(matchContext, nil, UnsafeMutableRawPointer(jitStack))
        constraintContext = pcre2_match_context_create_8(nil)
        constraintStack = pcre2_jit_stack_create_8(32 * 1024, 1024 * 1024, nil)
        pcre2_jit_stack_assign_8(constraintContext, nil, UnsafeMutableRawPointer(constraintStack))
        constraintData = pcre2_match_data_create_8(1, nil)
        // A user's constraint must never hang a lookup (see `Router.matchLimit`).
        appliedMatchLimit = defaultMatchLimit
        pcre2_set_match_limit_8(matchContext, defaultMatchLimit)
        pcre2_set_match_limit_8(constraintContext, defaultMatchLimit)
        let segments = maximumPatternSegments + 2
        spanStart = .allocate(capacity: segments)
        spanEnd = .allocate(capacity: segments)
        valueStart = .allocate(capacity: segments)
        valueLength = .allocate(capacity: segments)
        choiceNode = .allocate(capacity: segments)
        choiceAt = .allocate(capacity: segments)
        choiceSpans = .allocate(capacity: segments)
        allowedRoutes.reserveCapacity(64)
        pcre2_set_callout_8(matchContext, matcherCallout, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        subject.deallocate()
        decoded.deallocate()
        segmentEnds.deallocate()
        pcre2_match_data_free_8(matchData)
        pcre2_match_context_free_8(matchContext)
        pcre2_jit_stack_free_8(jitStack)
        pcre2_match_context_free_8(constraintContext)
        pcre2_jit_stack_free_8(constraintStack)
        pcre2_match_data_free_8(constraintData)
        spanStart.deallocate(); spanEnd.deallocate()
        valueStart.deallocate(); valueLength.deallocate()
        choiceNode.deallocate(); choiceAt.deallocate(); choiceSpans.deallocate()
    }

    private static func subjectBytes(_ uriBytes: Int) -> Int {
        URIParser.outputCapacity(for: uriBytes) + 2 * uriBytes + maximumMethodLength + 8
    }

    private func refresh(_ router: Router) throws(InterlockError) {
        let table = try router.compiledTable()
        if table.captures + 1 > ovectorPairs {
            pcre2_match_data_free_8(matchData)
            ovectorPairs = table.captures + 1
            matchData = pcre2_match_data_create_8(UInt32(ovectorPairs), nil)
        }
        tableRoot = table.root
        switch table.root {
        case .unit(let u): rootUnit = UnitRef(u); rootDispatch = nil; rootSimple = nil
        case .simple(let u): rootSimple = u.table; rootUnit = nil; rootDispatch = nil
        case .dispatch(let d): rootDispatch = .passUnretained(d); rootUnit = nil; rootSimple = nil
        }
        staticPaths = table.staticPaths
        staticProbe = staticPaths.probe
        probed = nil                    // it pointed into the table let go of
        probesStatic = table.probesStatic
        tableGeneration = table.generation
        tableSerial = router.serial
        strictSlash = router.options.contains(.strictSlash)
        let limit = router.matchLimit.load(ordering: .relaxed)
        if limit != appliedMatchLimit {
            pcre2_set_match_limit_8(matchContext, limit)
            pcre2_set_match_limit_8(constraintContext, limit)
            appliedMatchLimit = limit
        }
    }

    /// Looks up `uri` with `method` (nil: any method). Throws `.uri` for a malformed URI,
    /// `.invalidArgument` for a malformed method, `.limit` if a constraint exceeds the match limit.
    ///
    /// - Parameters:
    ///   - router: The route table to look in.
    ///   - method: The request's method as bytes (an HTTP token of at most
    ///     ``maximumMethodLength`` bytes), or nil for any method.
    ///   - uri: The URI's bytes: an absolute URI, an absolute path or a relative path, at most
    ///     ``maximumURILength`` bytes.
    /// - Returns: Whether a route matched; the answer's details stay on the matcher until its next
    ///   lookup.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/uri`` for a malformed URI (its `offset`
    ///   says where), ``ErrorCode/invalidArgument`` for a malformed method, or ``ErrorCode/limit``
    ///   if a constraint ran past the router's match limit. A malformed URI is reported first.
    public func match(_ router: Router, method: UnsafeRawBufferPointer?, uri: UnsafeRawBufferPointer) throws(InterlockError) -> MatchOutcome {
        if probesStatic && matchesWholeStaticPath(router, uri, method.map { Matcher.commonMethod($0) } ?? (MethodWord.any, 0)) {
            return .matched
        }
        return try match(router, uri: uri) { (subject) throws(InterlockError) -> Int in
            guard let method else { return 0 }
            guard !method.isEmpty, method.count <= maximumMethodLength else { throw Matcher.badMethodLength(method.count) }
            var i = 0
            while i < method.count {
                try Matcher.copyMethodByte(method[i], to: subject, at: i)
                i += 1
            }
            return i
        }
    }

    /// `match(_:method:uri:)` with the method as a NUL-terminated string: its bytes are checked
    /// and copied in one pass, without measuring it first (the C interface's lookup).
    ///
    /// - Parameters:
    ///   - router: The route table to look in.
    ///   - method: The request's method, NUL-terminated (at most ``maximumMethodLength`` bytes
    ///     before the NUL, and no more than one byte past them is read), or nil for any method.
    ///   - uri: The URI's bytes, as for ``match(_:method:uri:)``.
    /// - Returns: Whether a route matched, as ``match(_:method:uri:)`` returns.
    /// - Throws: ``InterlockError``, as ``match(_:method:uri:)`` throws.
    package func match(_ router: Router, methodCString method: UnsafePointer<UInt8>?, uri: UnsafeRawBufferPointer) throws(InterlockError) -> MatchOutcome {
        if probesStatic && matchesWholeStaticPath(router, uri, method.map { Matcher.commonMethod($0) } ?? (MethodWord.any, 0)) {
            return .matched
        }
        return try match(router, uri: uri) { (subject) throws(InterlockError) -> Int in
            guard let method else { return 0 }
            if let (word, length) = Matcher.commonMethod(method) {
                // The subject has room for eight bytes where the method goes.
                UnsafeMutableRawPointer(subject).storeBytes(of: word, as: UInt64.self)
                return length
            }
            var i = 0
            while true {
                let c = method[i]
                if c == 0 { break }
                guard i < maximumMethodLength else { throw Matcher.badMethodLength(i + 1) }
                try Matcher.copyMethodByte(c, to: subject, at: i)
                i += 1
            }
            guard i > 0 else { throw Matcher.badMethodLength(0) }
            return i
        }
    }

    /// The methods most requests carry, recognized by comparing bytes (each read only if those
    /// before it matched, so no byte past the NUL is read) without the check every byte of other
    /// methods needs: the method's bytes as one little-endian word (what `MethodWord` reads) and
    /// its length.
    @inline(__always) static func commonMethod(_ m: UnsafePointer<UInt8>) -> (UInt64, Int)? {
        switch m[0] {
        case 0x47:      // G
            if m[1] == 0x45 && m[2] == 0x54 && m[3] == 0 { return (MethodWord.get, 3) }                   // GET
        case 0x50:      // P
            switch m[1] {
            case 0x4F: if m[2] == 0x53 && m[3] == 0x54 && m[4] == 0 { return (MethodWord.post, 4) }      // POST
            case 0x55: if m[2] == 0x54 && m[3] == 0 { return (MethodWord.put, 3) }                         // PUT
            case 0x41:
                if m[2] == 0x54 && m[3] == 0x43 && m[4] == 0x48 && m[5] == 0 { return (MethodWord.patch, 5) }  // PATCH
            default: break
            }
        case 0x44:      // D
            if m[1] == 0x45 && m[2] == 0x4C && m[3] == 0x45 && m[4] == 0x54 && m[5] == 0x45 && m[6] == 0 {
                return (MethodWord.delete, 6)                                                          // DELETE
            }
        case 0x48:      // H
            if m[1] == 0x45 && m[2] == 0x41 && m[3] == 0x44 && m[4] == 0 { return (MethodWord.head, 4) }  // HEAD
        default: break
        }
        return nil
    }

    /// `commonMethod` for a method given by its bytes: the word and length of GET, POST, PUT,
    /// PATCH, DELETE or HEAD, nil for any other.
    @inline(__always) static func commonMethod(_ m: UnsafeRawBufferPointer) -> (UInt64, Int)? {
        guard m.count >= 3 && m.count <= 6 else { return nil }
        let word = MethodWord.of(m)
        switch word {
        case MethodWord.get, MethodWord.post, MethodWord.put, MethodWord.patch, MethodWord.delete, MethodWord.head: return (word, m.count)
        default: return nil
        }
    }

    /// Checks a NUL-terminated method as a lookup does (nil is any method), without looking
    /// anything up: for a batch, whose answer for a malformed method is an error whatever its URIs.
    /// - Parameter method: the method's bytes, NUL-terminated, or nil.
    /// - Throws: `.invalidArgument` naming the problem (and the offset of a bad byte).
    package static func checkMethod(_ method: UnsafePointer<UInt8>?) throws(InterlockError) {
        guard let method, commonMethod(method) == nil else { return }
        var i = 0
        while method[i] != 0 {
            guard i < maximumMethodLength else { throw badMethodLength(i + 1) }
            let c = method[i]
            guard c &- 0x41 < 26 || isTokenChar(c) else {
                throw InterlockError(.invalidArgument, "invalid character in method", offset: i)
            }
            i += 1
        }
        guard i > 0 else { throw badMethodLength(0) }
    }

    /// The error for a method of `length` bytes: empty, or longer than any method may be.
    private static func badMethodLength(_ length: Int) -> InterlockError {
        InterlockError(.invalidArgument, length == 0 ? "method is empty" : "method is longer than \(maximumMethodLength) bytes")
    }

    /// Checks one method byte and writes it at `i` in `subject`.
    @inline(__always) private static func copyMethodByte(_ c: UInt8, to subject: UnsafeMutablePointer<UInt8>, at i: Int) throws(InterlockError) {
        // Upper-case letters first: every common method is made of them.
        guard c &- 0x41 < 26 || isTokenChar(c) else {
            throw InterlockError(.invalidArgument, "invalid character in method", offset: i)
        }
        subject[i] = c
    }

    /// The lookup; `copyMethod` writes the request's method (checked) where it is given and
    /// returns its length (0 for none).
    @inline(__always) private func match(
        _ router: Router, uri: UnsafeRawBufferPointer,
        copyMethod: (UnsafeMutablePointer<UInt8>) throws(InterlockError) -> Int
    ) throws(InterlockError) -> MatchOutcome {
        winner = nil
        routeID = 0
        parameterCount = 0
        pathFitted = false
        if allowedCount > 0 { allowedRoutes.removeAll(keepingCapacity: true); allowedCount = 0 }
        if !isCurrent(router) { try refresh(router) }
        guard tableRoot != nil else { return .notFound }
        if uri.count <= maximumURILength, Matcher.subjectBytes(uri.count) > subjectCapacity {
            subject.deallocate(); decoded.deallocate(); segmentEnds.deallocate()
            subjectCapacity = Matcher.subjectBytes(uri.count)
            subject = .allocate(capacity: subjectCapacity)
            decoded = .allocate(capacity: subjectCapacity)
            segmentEnds = .allocate(capacity: subjectCapacity)
        }
        let taken = probesStatic ? try takeStaticPath(uri) : false
        if !taken { try URIParser.parse(uri, strictSlash: strictSlash, into: subject, spans: &spans, segmentEnds: segmentEnds) }

        // The tail: "\n" method "\n" scheme "\n" host, lower-cased where the URI is case-free.
        let subject = self.subject   // a local: stores through it need not reload the property
        var n = spans.pathLength
        subject[n] = newline; n += 1
        let methodStart = n
        n += try copyMethod(subject + n)
        let methodLength = n - methodStart
        self.methodStart = methodStart
        self.methodLength = methodLength
        methodWord = MethodWord.at(subject + methodStart, methodLength)
        subject[n] = newline; n += 1
        let schemeStart = n, schemeLength: Int, hostStart: Int
        if spans.scheme == nil && spans.host == nil {     // a path: both empty
            subject[n] = newline; n += 1
            schemeLength = 0; hostStart = n
        } else {
            (schemeLength, n) = writeSchemeAndHost(uri, at: n)
            hostStart = schemeStart + schemeLength + 1
        }
        subjectLength = n

        if probesStatic && matchStaticPath(method: methodStart..<(methodStart + methodLength),
                                           scheme: schemeStart..<(schemeStart + schemeLength), host: hostStart..<n) {
            return .matched
        }

        spanCount = 0
        if !spans.segmentsIndexed { indexSegments() }
        if try matchRoot() { return .matched }
        guard methodLength > 0, pathFitted else { return .notFound }

        // Method not allowed? Match again with no method, letting a callout list every leaf whose
        // path, scheme and host fit.
        let tail = subjectLength - (methodStart + methodLength)
        (subject + methodStart).update(from: subject + methodStart + methodLength, count: tail)
        subjectLength -= methodLength
        self.methodLength = 0
        methodWord = MethodWord.any
        enumerating = true
        defer {
            enumerating = false
            enumeratingUnit = nil
            winner = nil
            routeID = 0
        }
        spanCount = 0
        _ = try matchRoot()
        allowedCount = allowedRoutes.count
        return allowedCount == 0 ? .notFound : .methodNotAllowed
    }

    /// Writes the URI's scheme, "\n" and host at `n` in the subject, lower-cased; returns the
    /// scheme's length and where the host ends. Out of line: most lookups are of bare paths.
    @inline(never) private func writeSchemeAndHost(_ uri: UnsafeRawBufferPointer, at start: Int) -> (Int, Int) {
        var n = start
        if let s = spans.scheme { for i in s { subject[n] = lowercased(uri[i]); n += 1 } }
        let schemeLength = n - start
        subject[n] = newline; n += 1
        if let h = spans.host { for i in h { subject[n] = lowercased(uri[i]); n += 1 } }
        return (schemeLength, n)
    }

    /// Tries the all-literal table with the URI's own path, before any parsing: a path the table
    /// holds byte for byte is already normalized (normalizing it would change nothing), so it is
    /// copied into the subject, its query and fragment are checked, and its entry is kept in
    /// `probed` for `matchStaticPath`. False, having written nothing, for any other URI: it is
    /// parsed, and probed again once normalized. Out of line, as `matchStaticPath`.
    ///
    /// The whole URI is probed first: no path the table holds has a "?" or "#", so a URI that is
    /// one of them is a bare path (most requests are), found without looking for where its path
    /// ends. Only a URI that is none of them is looked through for a query or fragment.
    @inline(never) private func takeStaticPath(_ uri: UnsafeRawBufferPointer) throws(InterlockError) -> Bool {
        probed = nil
        let wholeURIHeld = self.wholeURIHeld
        self.wholeURIHeld = .unknown
        guard let path = wholeURIAsPath(uri) else { return false }
        var end = uri.count
        var found = wholeURIHeld == .no ? nil : staticProbe.lookup(path, end)
        if found == nil {
            guard let pathEnd = URIParser.barePathEnd(uri), pathEnd < end else { return false }
            end = pathEnd
            found = staticProbe.lookup(path, end)
        }
        guard let entry = found else { return false }
        try URIParser.parse(uri, normalizedPathEnd: end, into: subject, spans: &spans)
        probed = entry
        return true
    }

    /// The URI itself as a path the all-literal table may hold byte for byte: a bare path ("/"
    /// first) no longer than any URI may be, on a table of exact case; nil for any other.
    @inline(__always) private func wholeURIAsPath(_ uri: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        guard !staticProbe.fold, let base = uri.baseAddress, uri.count >= 2, uri.count <= maximumURILength,
              uri[0] == slash else { return nil }
        return base.assumingMemoryBound(to: UInt8.self)
    }

    /// Whether the compiled table this matcher holds is `router`'s current one.
    @inline(__always) private func isCurrent(_ router: Router) -> Bool {
        router.serial == tableSerial && router.generation.load(ordering: .acquiring) == tableGeneration && tableRoot != nil
    }

    /// The shortcut both lookups try first on a table that probes its all-literal paths, for a
    /// request whose method is `common` (a common method's word and length, or none): see
    /// `matchWholeStaticPath`. What it found out waits in `wholeURIHeld` for the general lookup,
    /// which reaches `takeStaticPath` whenever this did not answer (the table is current and
    /// probes), and which takes it from there.
    @inline(__always) private func matchesWholeStaticPath(_ router: Router, _ uri: UnsafeRawBufferPointer, _ common: (UInt64, Int)?) -> Bool {
        guard isCurrent(router), let (word, length) = common else { return false }
        wholeURIHeld = matchWholeStaticPath(uri, method: word, length)
        return wholeURIHeld == .matched
    }

    /// Whether the all-literal table holds a URI as it is, as far as a lookup found out.
    enum StaticHold {
        /// Not probed.
        case unknown
        /// It does not (or the URI is not a bare path).
        case no
        /// It does, but none of the path's routes took the request.
        case yes
        /// It does, and the lookup is answered.
        case matched
    }

    /// The whole lookup for a URI that is a bare path the all-literal table holds byte for byte,
    /// under one of the common methods (`word`, `length` bytes) or none: the most frequent lookup
    /// on a mostly static table, answered from the path's entry without parsing or writing the
    /// subject's tail. A bare path has no scheme or host: only routes that name none (or empty
    /// ones, as `matchStatic` compares) take it. Anything but `.matched` leaves what the general
    /// lookup reads as it was, and tells it whether to probe the whole URI again: when none of
    /// the path's routes takes the method, the general lookup decides (less specific routes, or a
    /// method not allowed).
    @inline(never) private func matchWholeStaticPath(_ uri: UnsafeRawBufferPointer, method word: UInt64, _ length: Int) -> StaticHold {
        guard let path = wholeURIAsPath(uri), let entry = staticProbe.lookup(path, uri.count) else { return .no }
        guard uri.count <= subjectCapacity else { return .yes }     // the general lookup grows the subject first
        // `matchStatic`'s test with empty scheme and host, written out: through it (out of line,
        // with its ranges) a static lookup took about 60 instructions more.
        let records = entry.records
        for i in 0..<entry.count where entry.field(i, 0).1 <= 0 && entry.field(i, 1).1 <= 0 {
            // A common method's word is never `MethodWord.long`: no byte of it is read.
            if !records[i].accepts(method: word, subject, length) { continue }
            // What a lookup of this path leaves (`record` sets the rest of the answer): the path
            // in the subject, no other part.
            if allowedCount > 0 { allowedRoutes.removeAll(keepingCapacity: true); allowedCount = 0 }
            pathFitted = false
            UnsafeMutableRawPointer(subject).copyMemory(from: path, byteCount: uri.count)
            spans = URISpans()
            spans.pathLength = uri.count
            record(records + i)
            return .matched
        }
        return .yes
    }

    /// Tries the all-literal table for the path in `subject` (or the entry `takeStaticPath`
    /// found). Out of line: on tables that do not probe, its code in `match` made every lookup
    /// about 45 instructions longer.
    @inline(never) private func matchStaticPath(method: Range<Int>, scheme: Range<Int>, host: Range<Int>) -> Bool {
        guard let entry = probed ?? staticProbe.lookup(subject, spans.pathLength) else { return false }
        if matchStatic(entry, method: method, scheme: scheme, host: host) { return true }
        pathFitted = true
        return false
    }

    @inline(__always) private func matchRoot() throws(InterlockError) -> Bool {
        var result: Result<Bool, InterlockError> = .success(false)
        if let u = rootUnit {
            result = Result { () throws(InterlockError) in try run(u, at: 0) }
        } else if let u = rootSimple {
            result = .success(walk(u, at: 0))
        } else if let d = rootDispatch {
            d._withUnsafeGuaranteedRef { node in result = Result { () throws(InterlockError) in try dispatch(node, at: 0) } }
        }
        return try result.get()
    }

    /// The first route of an all-literal path that accepts the method, scheme and host, if any.
    private func matchStatic(_ entry: StaticEntry, method: Range<Int>, scheme: Range<Int>, host: Range<Int>) -> Bool {
        let records = entry.records
        for i in 0..<entry.count {
            // The method by its word in the record (one comparison), the scheme and host by bytes.
            if !records[i].accepts(method: methodWord, subject + method.lowerBound, method.count) { continue }
            if !accepts(entry.field(i, 0), scheme) || !accepts(entry.field(i, 1), host) { continue }
            record(records + i)
            return true
        }
        return false
    }

    /// Whether a route's scheme or host (`field`: bytes and length, -1 for any) accepts the
    /// request's, at `range` in the subject.
    @inline(__always) private func accepts(_ field: (UnsafePointer<UInt8>, Int), _ range: Range<Int>) -> Bool {
        field.1 < 0 || field.1 == range.count && sameBytes(field.0, subject + range.lowerBound, field.1)
    }

    /// `p` is just after the dispatch node's own segment: at "/" or at the "\n" ending the path.
    private func dispatch(_ d: Dispatch, at p: Int) throws(InterlockError) -> Bool {
        if subject[p] == slash {
            let segStart = p + 1
            let segEnd = segmentEnd(after: p)
            // A child that fails may leave spans it pushed (a walk does): each next child starts
            // from the spans this node had, or its values would be shifted by the failed ones.
            let spans = spanCount
            if let child = d.literalProbe.lookup(subject + segStart, segEnd - segStart) {
                if try enter(child, at: p, segmentEnd: segEnd, literalMatched: true) { return true }
                spanCount = spans
            }
            for i in 0..<d.constrained.count {
                if try enter(d.constrainedRefs[i], at: p, segmentEnd: segEnd) { return true }
                spanCount = spans
            }
            if let child = d.parameterRef {
                if try enter(child, at: p, segmentEnd: segEnd) { return true }
                spanCount = spans
            }
        }
        for i in 0..<d.terminals.count where try run(d.terminalRefs[i], at: p) {
            return true
        }
        return false
    }

    /// `_withUnsafeGuaranteedRef` for a body with typed throws.
    @inline(__always) private func guaranteed<T: AnyObject, R>(
        _ ref: Unmanaged<T>, _ body: (T) throws(InterlockError) -> R
    ) throws(InterlockError) -> R {
        let result: Result<R, InterlockError> = ref._withUnsafeGuaranteedRef { t in Result { () throws(InterlockError) in try body(t) } }
        return try result.get()
    }

    /// Enters `child` at the segment from `p` to `segmentEnd`. `literalMatched`: the literal probe
    /// found the child by that segment, so a walked child starts after it (see `SimpleUnit`).
    @inline(__always) private func enter(_ child: NodeRef, at p: Int, segmentEnd: Int, literalMatched: Bool = false) throws(InterlockError) -> Bool {
        switch child {
        case .unit(let u):
            return try run(u, at: p)
        case .simple(let u):
            u.prefetch()
            return walk(u, at: literalMatched ? segmentEnd : p)
        case .dispatch(let d):
            return try guaranteed(d) { (d) throws(InterlockError) -> Bool in
                if d.capturesEntry {
                    guard segmentEnd > p + 1 else { return false }
                    if let g = d.guardRef, try !holds(g, from: p + 1, to: segmentEnd) { return false }
                    spanStart[spanCount] = p + 1; spanEnd[spanCount] = segmentEnd
                    spanCount += 1
                    if try dispatch(d, at: segmentEnd) { return true }
                    spanCount -= 1
                    return false
                }
                return try dispatch(d, at: segmentEnd)
            }
        }
    }

    /// Runs a regex at `p`; true if it matched.
    @inline(__always) private func run(_ code: PCRE2Code, at p: Int) throws(InterlockError) -> Bool {
        try run(raw: code.code, jitted: code.jitted, at: p)
    }

    @inline(__always) private func run(raw: OpaquePointer, jitted: Bool, at p: Int) throws(InterlockError) -> Bool {
        let rc = jitted
            ? pcre2_jit_match_8(raw, subject, subjectLength, p, 0, matchData, matchContext)
            : pcre2_match_8(raw, subject, subjectLength, p, 0, matchData, matchContext)
        if rc >= 0 { return true }
        if rc == PCRE2_ERROR_NOMATCH { pathFitted = true; return false }
        throw stopped(rc)
    }

    /// The error for a regex that stopped with `rc`: the constraint that ran out, if one did.
    @inline(never) private func stopped(_ rc: Int32) -> InterlockError {
        defer { stoppedConstraint = nil }
        guard let (c, code) = stoppedConstraint else {
            return InterlockError(.limit, "matching stopped: " + PCRE2Code.message(rc))
        }
        let constraint = c.takeUnretainedValue()
        let limit = code == PCRE2_ERROR_MATCHLIMIT ? " (limit \(appliedMatchLimit) steps)" : ""
        return InterlockError(.limit, "matching stopped in a constraint of route '\(constraint.route)': "
                                      + PCRE2Code.message(code) + limit)
    }

    /// Runs a constraint on the segment from `start` to `end` alone: PCRE2's code (a match, no
    /// match, or the error that stopped it).
    @inline(__always) private func constraintCode(_ c: ConstraintRef, from start: Int, to end: Int) -> Int32 {
        c.jitted
            ? pcre2_jit_match_8(c.raw, subject + start, end - start, 0, 0, constraintData, constraintContext)
            : pcre2_match_8(c.raw, subject + start, end - start, 0, 0, constraintData, constraintContext)
    }

    /// Whether the segment from `start` to `end` matches constraint `c` (a dispatch node's entry).
    private func holds(_ c: ConstraintRef, from start: Int, to end: Int) throws(InterlockError) -> Bool {
        let rc = constraintCode(c, from: start, to: end)
        if rc >= 0 { return true }
        if rc == PCRE2_ERROR_NOMATCH { return false }
        stoppedConstraint = (c.constraint, rc)
        throw stopped(rc)
    }

    /// A unit's callout for its constraint `index`, at the first byte of the segment: 0 (go on)
    /// if the segment matches it, 1 (backtrack) if not, and PCRE2's error, which ends the
    /// unit's match with it, if the constraint stopped.
    fileprivate func constraintCallout(_ index: Int, at start: Int) -> Int32 {
        guard let table = runningConstraints else { return 1 }
        let c = table[index]
        let rc = constraintCode(c, from: start, to: segmentEnd(after: start - 1))
        if rc >= 0 { return 0 }
        if rc == PCRE2_ERROR_NOMATCH { return 1 }
        stoppedConstraint = (c.constraint, rc)
        return rc
    }

    private func run(_ u: UnitRef, at p: Int) throws(InterlockError) -> Bool {
        runningConstraints = u.constraints
        if enumerating {
            let unit = u.unit.takeUnretainedValue()
            enumeratingUnit = unit
            return try run(unit.enumerationCode(), at: p)
        }
        guard try run(raw: u.raw, jitted: u.jitted, at: p) else { return false }
        guard let mark = pcre2_get_mark_8(matchData) else { return false }
        let i = Matcher.markIndex(mark)
        record(u.records + i, groups: u.groups + 1 + i * Int(u.groups[0]))
        return true
    }

    /// The precedence rule on the tree, from node 0 at `p` (a "/" or the "\n" ending the path):
    /// at each node its leaves when the path ends there, else the literal child, then the
    /// parameter child. A loop rather than recursion: when a node offers both children the walk
    /// takes the literal and notes the node as a choice point; when a deeper step fails it resumes
    /// from the latest choice point with the parameter, which is the order recursion would take.
    ///
    /// A walk needs no step limit (a regex has PCRE2's match limit): it enters each node of its
    /// unit at most once, since a node is entered only from its parent, each of whose two
    /// children is taken at most once (the choice point is dropped when resumed). Its work is at
    /// most the unit's size, however the request backtracks.
    private func walk(_ u: WalkTable, at start: Int) -> Bool {
        let nodes = u.nodes, slots = u.slots, edges = u.edges, keys = u.keyBytes
        let fold = u.caseInsensitive
        let method = methodWord, methodBytes = subject + methodStart, methodLength = self.methodLength
        var n = 0, p = start
        var choices = 0
        while true {
            let node = nodes + n
            if subject[p] == newline {
                let first = Int(node.pointee.firstLeaf)
                for i in first..<(first + Int(node.pointee.leafCount)) {
                    if enumerating {
                        noteAllowed(u.records[i].route.takeUnretainedValue())
                        continue
                    }
                    let leaf = u.records + i
                    if !leaf.pointee.accepts(method: method, methodBytes, methodLength) { continue }
                    record(leaf)
                    return true
                }
                if node.pointee.leafCount > 0 { pathFitted = true }
            } else {
                let segment = p + 1
                let end = segmentEnd(after: p)
                let length = end - segment
                var next = -1
                if node.pointee.edgeCount == 1 {
                    // One literal child (most nodes deep in a table): compared directly, no hash.
                    let edge = edges + Int(node.pointee.firstEdge)
                    if Int(edge.pointee.keyLength) == length,
                       length == 0 || sameKey(keys + Int(edge.pointee.keyStart), segment, length, fold) {
                        next = Int(edge.pointee.target)
                    }
                } else if node.pointee.edgeCount > 0 {
                    let mask = Int(node.pointee.slotMask)
                    let base = slots + Int(node.pointee.firstSlot)
                    var slot = SimpleUnit.slot(subject + segment, length) & mask
                    while true {
                        let e = Int(base[slot]) - 1
                        if e < 0 { break }
                        let edge = edges + e
                        if Int(edge.pointee.keyLength) == length,
                           length == 0 || sameKey(keys + Int(edge.pointee.keyStart), segment, length, fold) {
                            next = Int(edge.pointee.target)
                            break   // literal siblings differ: no other can match
                        }
                        slot = (slot + 1) & mask
                    }
                }
                if node.pointee.parameter >= 0 && length > 0 {
                    if next >= 0 {
                        choiceNode[choices] = n; choiceAt[choices] = p; choiceSpans[choices] = spanCount
                        choices += 1
                    } else {
                        spanStart[spanCount] = segment; spanEnd[spanCount] = end
                        spanCount += 1
                        next = Int(node.pointee.parameter)
                    }
                }
                if next >= 0 { n = next; p = end; continue }
            }
            // This branch failed: the parameter child of the latest choice point, if any.
            guard choices > 0 else { return false }   // spans pushed stay: `dispatch` resets them
            choices -= 1
            let at = choiceAt[choices]
            let end = segmentEnd(after: at)
            spanCount = choiceSpans[choices]
            spanStart[spanCount] = at + 1; spanEnd[spanCount] = end
            spanCount += 1
            n = Int(nodes[choiceNode[choices]].parameter)
            p = end
        }
    }

    /// Where the segment after the "/" at `slash` ends: the next "/" or the "\n" ending the path.
    @inline(__always) private func segmentEnd(after slash: Int) -> Int { Int(segmentEnds[slash]) }

    /// Notes every segment's end (see `segmentEnds`) for a path the parse did not index: one
    /// normalized by the general normalizer, or taken as it was by `takeStaticPath`. Eight bytes
    /// at a time; the subject buffer has room past the tail for the last read, and only bytes
    /// before the first "/" or "\n" found decide anything.
    @inline(never) private func indexSegments() {
        var p = 0
        while subject[p] == slash {
            var e = p + 1
            while true {
                let found = bytesEqual(UnsafeRawPointer(subject + e).loadUnaligned(as: UInt64.self), slash, or: newline)
                if found != 0 { e += found.trailingZeroBitCount / 8; break }
                e += 8
            }
            segmentEnds[p] = UInt32(truncatingIfNeeded: e)
            p = e
        }
        spans.segmentsIndexed = true
    }

    /// Segments are short: compared here rather than by a call to memcmp.
    @inline(__always) private func sameKey(_ key: UnsafePointer<UInt8>, _ at: Int, _ n: Int, _ fold: Bool) -> Bool {
        fold ? sameBytesFolded(key, subject + at, n) : sameBytes(key, subject + at, n)
    }

    @inline(__always) static func markIndex(_ mark: UnsafePointer<UInt8>) -> Int {
        var i = 0, v = 0
        while mark[i] != 0 { v = v &* 10 &+ Int(mark[i] &- 0x30); i += 1 }
        return v
    }

    /// Notes the winning leaf and where its parameters' values lie in the subject. `groups`: the
    /// capture groups of those the leaf's regex captured (none for walked units and static paths).
    /// The values are copied out (and decoded) when first read (`copyValues`), not here: most
    /// lookups' callers read the route and few or none of its values.
    private func record(_ r: UnsafePointer<LeafRecord>, groups: UnsafePointer<Int32>? = nil) {
        winner = r
        routeID = r.pointee.routeID
        let count = Int(r.pointee.parameterCount)
        let fromSpans = count - Int(r.pointee.groupCount)
        parameterCount = count
        // Walked units and static paths capture nothing: their values are the spans, left where
        // they are (nothing writes them until the next lookup).
        guard fromSpans < count, let groups else { valuesPlace = .spans; return }
        for i in 0..<fromSpans {
            valueStart[i] = spanStart[i]; valueLength[i] = spanEnd[i] - spanStart[i]
        }
        let ovector = pcre2_get_ovector_pointer_8(matchData)!
        for i in fromSpans..<count {
            let g = Int(groups[i - fromSpans])
            let s = ovector[2 * g], e = ovector[2 * g + 1]
            (valueStart[i], valueLength[i]) = s == unset ? (0, 0) : (s, e - s)
        }
        valuesPlace = .subject
    }

    /// Where value `i` of the last match lies in the subject (start, length), before `copyValues`.
    @inline(__always) private func subjectSpan(_ i: Int) -> (Int, Int) {
        valuesPlace == .spans ? (spanStart[i], spanEnd[i] - spanStart[i]) : (valueStart[i], valueLength[i])
    }

    /// Copies the last match's values out of the subject into the decode buffer, percent-decoded
    /// and each NUL-terminated; `valueStart` and `valueLength` then say where they are there.
    private func copyValues() {
        var o = 0
        for i in 0..<parameterCount {
            var (s, e) = subjectSpan(i)
            e += s
            valueStart[i] = o
            if !spans.pathHasEscapes {
                // No escapes: copied eight bytes at a time (both buffers have room past the end).
                let n = e - s
                var k = 0
                while k < n {
                    UnsafeMutableRawPointer(decoded + o + k).storeBytes(
                        of: UnsafeRawPointer(subject + s + k).loadUnaligned(as: UInt64.self), as: UInt64.self)
                    k += 8
                }
                o += n; s = e
            }
            while s < e {
                let c = subject[s]
                if c == percent {
                    // The normalizer left only well-formed escapes.
                    decoded[o] = hexValue(subject[s + 1])! << 4 | hexValue(subject[s + 2])!
                    s += 3
                } else {
                    decoded[o] = c
                    s += 1
                }
                o += 1
            }
            valueLength[i] = o - valueStart[i]
            decoded[o] = 0; o += 1
        }
        valuesPlace = .decoded
    }

    fileprivate func calloutHit(_ mark: UnsafePointer<UInt8>?) {
        guard let mark, let unit = enumeratingUnit else { return }
        noteAllowed(unit.leaves[Matcher.markIndex(mark)].route)
    }

    /// In the method-not-allowed pass: `route`'s path fits, so its method is allowed.
    private func noteAllowed(_ route: Route) {
        guard let method = route.pattern.method else { return }
        if allowedRoutes.contains(where: { $0.pattern.method == method }) { return }
        if allowedRoutes.count < allowedRoutes.capacity { allowedRoutes.append(route) }
    }

    // MARK: Results

    /// The name of parameter `i` of the last match, NUL-terminated, valid while the matcher holds
    /// this table (until a lookup after the router changed).
    ///
    /// - Parameter i: The parameter's index, in path order.
    /// - Returns: The name's first byte and its length in bytes (without the NUL), or nil if the
    ///   last lookup did not match or `i` is not below ``parameterCount``.
    public func parameterName(_ i: Int) -> (UnsafePointer<CChar>, Int)? {
        guard i >= 0, i < parameterCount, let winner else { return nil }
        return winner.pointee.names._withUnsafeGuaranteedRef { names in (names.pointer(i), names.lengths[i]) }
    }

    /// The decoded value of parameter `i`, NUL-terminated, valid until the next lookup.
    ///
    /// - Parameter i: The parameter's index, in path order.
    /// - Returns: The percent-decoded value's first byte and its length in bytes (without the NUL),
    ///   or nil if the last lookup did not match or `i` is not below ``parameterCount``.
    public func parameterValue(_ i: Int) -> (UnsafePointer<CChar>, Int)? {
        guard i >= 0, i < parameterCount else { return nil }
        return decodedValue(i)
    }

    /// `parameterValue(_:)` for an index known to be in range.
    private func decodedValue(_ i: Int) -> (UnsafePointer<CChar>, Int) {
        if valuesPlace != .decoded { copyValues() }
        return (UnsafeRawPointer(decoded + valueStart[i]).assumingMemoryBound(to: CChar.self), valueLength[i])
    }

    /// Parameter `i`'s decoded value, not NUL-terminated, valid until the next lookup: read in
    /// place from the subject when the path had no escapes (no copy), else from the decode
    /// buffer. For callers that copy the values anyway (a resolve's request, a batch).
    package func parameterValueBytes(_ i: Int) -> (UnsafePointer<CChar>, Int) {
        if valuesPlace != .decoded && !spans.pathHasEscapes {
            let (start, length) = subjectSpan(i)
            return (UnsafeRawPointer(subject + start).assumingMemoryBound(to: CChar.self), length)
        }
        return decodedValue(i)
    }

    /// The last match's parameters as "name\0value\0name\0value\0..." (values decoded), for
    /// callers that hand them on in one piece (the C door's packed match, a batch). Writes them
    /// at `out` only if they fit in `capacity` bytes; returns their length either way.
    package func packParameters(into out: UnsafeMutableRawPointer?, capacity: Int) -> Int {
        let count = parameterCount
        guard count > 0 else { return 0 }
        return winner!.pointee.names._withUnsafeGuaranteedRef { names in
            // Names and values are short: with eight bytes to spare at `out`, each is copied eight
            // bytes at a time (names, the subject and the decode buffer may all be read so), the
            // bytes past it overwritten by what follows; without, byte for byte.
            func write(_ out: UnsafeMutableRawPointer, wide: Bool) -> Int {
                @inline(__always) func put(_ from: UnsafeRawPointer, _ n: Int, at o: Int) {
                    if wide {
                        // The count first: an empty value may lie at the very end of its buffer.
                        var k = 0
                        while k < n {
                            out.storeBytes(of: (from + k).loadUnaligned(as: UInt64.self), toByteOffset: o + k, as: UInt64.self)
                            k += 8
                        }
                    } else {
                        (out + o).copyMemory(from: from, byteCount: n)
                    }
                    out.storeBytes(of: 0, toByteOffset: o + n, as: UInt8.self)
                }
                var o = 0
                for i in 0..<count {
                    let nameLength = names.lengths[i]
                    put(names.pointer(i), nameLength, at: o)
                    o += nameLength + 1
                    let (value, length) = parameterValueBytes(i)
                    put(value, length, at: o)
                    o += length + 1
                }
                return o
            }
            // The values lie apart in the subject (and decode no longer), so this bounds the
            // length: when it fits, nobody measures first.
            if let out, names.totalBytes + subjectLength + count + 8 <= capacity { return write(out, wide: true) }
            var need = 0
            for i in 0..<count { need += names.lengths[i] + parameterValueBytes(i).1 + 2 }
            guard let out, need <= capacity else { return need }
            return write(out, wide: need + 8 <= capacity)
        }
    }

    /// The index of the parameter with this name, if the last match has one.
    ///
    /// - Parameter name: The parameter's name, as UTF-8 bytes.
    /// - Returns: The index to pass to ``parameterValue(_:)``, or nil if the last lookup bound no
    ///   parameter of that name.
    public func parameterIndex(_ name: UnsafeRawBufferPointer) -> Int? {
        guard let names else { return nil }
        for i in 0..<parameterCount where names.lengths[i] == name.count {
            let p = UnsafeRawPointer(names.pointer(i))
            if name.isEmpty || memcmp(p, name.baseAddress!, name.count) == 0 { return i }
        }
        return nil
    }

    /// Methods under which the path of the last lookup would have matched (method not allowed).
    public var allowedMethods: [String] { allowedRoutes[0..<allowedCount].compactMap { $0.pattern.method } }

    /// Allowed method `i` of the last method-not-allowed answer, NUL-terminated, owned by its route.
    ///
    /// - Parameter i: The method's index, from 0.
    /// - Returns: The method, or nil if `i` is not below ``allowedMethodCount``.
    package func allowedMethodCString(_ i: Int) -> UnsafePointer<CChar>? {
        i < allowedCount ? allowedRoutes[i].methodCString.map { UnsafePointer($0) } : nil
    }

    /// The number of allowed methods of the last method-not-allowed answer.
    public var allowedMethodCount: Int { allowedCount }

    /// The last match as a value.
    ///
    /// - Returns: The route's id, pattern and name, and the parameters with their decoded values;
    ///   nil if the last lookup did not match.
    public func routeMatch() -> RouteMatch? {
        guard let route else { return nil }
        return RouteMatch(routeID: route.id, pattern: route.pattern.source, name: route.name, parameters: parameterList())
    }

    /// The last match's parameter names and decoded values.
    func parameterList() -> [(name: String, value: String)] {
        guard let names = self.names, parameterCount > 0 else { return [] }
        var params: [(name: String, value: String)] = []
        params.reserveCapacity(parameterCount)
        for i in 0..<parameterCount {
            let (v, n) = decodedValue(i)
            params.append((names.names[i], String(decoding: UnsafeRawBufferPointer(start: v, count: n), as: UTF8.self)))
        }
        return params
    }
}

/// Every callout of the matcher's regexes: a constraint's (a string, its index), or the
/// method-not-allowed pass's after each mark (numbered).
private let matcherCallout: @convention(c) (UnsafeMutablePointer<pcre2_callout_block_8>?, UnsafeMutableRawPointer?) -> Int32 = { block, data in
    guard let block, let data else { return 1 }
    let matcher = Unmanaged<Matcher>.fromUnretained(data).takeUnretainedValue()
    if let text = block.pointee.callout_string {
        let index = RegexEmitter.constraintIndex(text, Int(block.pointee.callout_string_length))
        return matcher.constraintCallout(index, at: Int(block.pointee.current_position))
    }
    matcher.calloutHit(block.pointee.mark)
    return 1  // fail here, so the match backtracks into the next leaf
}

private extension Unmanaged {
    static func fromUnretained(_ p: UnsafeMutableRawPointer) -> Unmanaged { fromOpaque(p) }
}

/// How many steps each regex of a lookup may take (PCRE2's match limit), unless the router says.
public let defaultMatchLimit: UInt32 = 10_000

@_silgen_name("memcmp") private func memcmp(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Int32

extension Matcher {
    /// The normalized path of the last lookup ("" for the root), in the matcher's buffer.
    var pathBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: subject, count: spans.pathLength) }

    /// The parameter names of the last match.
    var parameterNames: [String] { names?.names ?? [] }
}

/// Where a matcher holds the values of its last match.
private enum ValuesPlace {
    /// In the subject, at the walk's spans (`spanStart`, `spanEnd`): a walked unit or static path.
    case spans
    /// In the subject, at `valueStart` and `valueLength`: a regex's captures among them.
    case subject
    /// Copied out and decoded, at `valueStart` and `valueLength` in the decode buffer.
    case decoded
}
