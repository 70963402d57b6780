// The matcher's state and the lookup driver; the rest of the lookup is in the Matcher+*.swift
// extensions. Over 400 lines only because every stored property carries its exclusivity attribute.
//
// What a matcher stores, and what it does not: its fields are what outlives one lookup (the
// buffers, PCRE2's contexts and stacks, the span and choice arrays the walks use as scratch, the
// table it holds) and the answer of the last lookup, which the public API reads after it
// (`winner`, `routeID`, `parameterCount`, `valuesPlace` and the values, `allowedRoutes` and
// `allowedCount`), written by the step that decides it (`record`, `noteAllowed`) once `begin`
// forgot the last one. What the steps of one lookup tell each other (where the method, scheme
// and host lie, the static entry found before the parse, whether a path fitted, whether the pass
// enumerates) is a `Lookup`, made fresh by the driver and passed down. Two exceptions, both
// because PCRE2 calls a callout with the matcher and nothing else: `regexRun`, what the callouts
// of the regex in progress need, and `stoppedConstraint`, the constraint a callout saw stop.

import CPCRE2

/// The longest method accepted, in bytes.
public let maximumMethodLength = 64

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
    var subject: UnsafeMutablePointer<UInt8>
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var subjectCapacity: Int
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var subjectLength = 0
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var decoded: UnsafeMutablePointer<UInt8>
    /// At the position of each "/" in the path: where the segment after it ends (the next "/" or
    /// the "\n" ending the path). Written by the parse's scan, so walks never look for an end.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var segmentEnds: UnsafeMutablePointer<UInt32>
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var matchData: OpaquePointer
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var ovectorPairs: Int
    let matchContext: OpaquePointer
    private let jitStack: OpaquePointer
    /// A constraint runs inside the callout of the regex that reached it: its own context, stack
    /// and match data, since the outer match still uses the others.
    let constraintContext: OpaquePointer
    private let constraintStack: OpaquePointer
    let constraintData: OpaquePointer
    let spanStart: UnsafeMutablePointer<Int>
    let spanEnd: UnsafeMutablePointer<Int>
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var spanCount = 0
    /// Where the values of the last match are (see `ValuesPlace`).
    let valueStart: UnsafeMutablePointer<Int>
    let valueLength: UnsafeMutablePointer<Int>
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var valuesPlace = ValuesPlace.decoded
    /// A walk's choice points (see `walk`): node, position and span count, one per tree level.
    let choiceNode: UnsafeMutablePointer<Int>
    let choiceAt: UnsafeMutablePointer<Int>
    let choiceSpans: UnsafeMutablePointer<Int>

    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var tableSerial: UInt64 = 0
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var tableGeneration: UInt64 = 0
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var tableRoot: CompiledNode? = nil
    // The root again, unmanaged: the lookup path must not touch shared reference counts.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var rootUnit: UnitRef? = nil
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var rootWalk: WalkTable? = nil
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var rootDispatch: Unmanaged<Dispatch>? = nil
    /// Holds the static table `staticProbe` reads.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var staticPaths = StaticPaths.empty
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var staticProbe = StaticProbe.none
    /// Whether lookups try `staticProbe` before the tree (see `StaticProbeUse`).
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var probesStatic = false
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var strictSlash = false

    // The last answer's record: the table this matcher holds (`tableRoot`) keeps it alive, and it
    // is cleared before the matcher lets go of that table.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var winner: UnsafePointer<LeafRecord>? = nil
    /// The route that matched last, or nil.
    public var route: Route? { winner?.pointee.route.takeUnretainedValue() }
    /// The id of the route that matched last, or 0 (no reference counting: for hot paths).
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    public internal(set) var routeID: RouteID = 0
    var names: ParameterNames? { winner?.pointee.names.takeUnretainedValue() }
    /// Number of parameters of the last match.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    public internal(set) var parameterCount = 0
    /// Where the parts of the last URI were.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var spans = URISpans()
    /// Routes whose methods answer method-not-allowed (one per method), for the last lookup.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var allowedRoutes: [Route] = []
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var allowedCount = 0
    /// What `fittingLeaves` lists: every leaf its enumeration reaches (see `noteFitting`).
    var listed: [Leaf] = []
    /// The regex run in progress, for its callouts (see `RegexRun`).
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var regexRun = RegexRun()
    #if DEBUG
    /// Constraint runs since the matcher was made: tests bound a lookup's work by it.
    var constraintRuns = 0
    #endif
    /// The constraint that stopped the last regex or walk, and its error: `constraintCode` notes
    /// it (it may run in a callout, which can return only PCRE2's code) for `stopped`, which
    /// reads and clears it at once.
    var stoppedConstraint: (Unmanaged<Constraint>, Int32)? = nil
    /// The match limit the contexts have (see `CompiledTable.matchLimit`).
    var appliedMatchLimit: UInt32
    // Last, so that the fields before keep the offsets the plain lookup path was tuned with.
    /// The root as a walk with branches (`walkBranches`), tried after the others: a plain walk's
    /// lookup (`rootWalk`) pays nothing for it.
    #if !INTERLOCK_CHECK_EXCLUSIVITY
    @exclusivity(unchecked)
    #endif
    var rootWalkBranches: WalkTable? = nil
    /// The root's object, as a plain reference (`tableRoot` holds it in an enum, whose tag bits
    /// in the pointer hide it from leak checkers): never read on the lookup path.
    var rootObject: AnyObject? = nil
    /// A walk with branches' choice points also note the next alternative to try (see `walkBranches`).
    let choiceNext: UnsafeMutablePointer<Int>

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
        // A user's constraint must never hang a lookup (see `CompiledTable.matchLimit`).
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
        choiceNext = .allocate(capacity: segments)
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
        choiceNode.deallocate(); choiceAt.deallocate(); choiceSpans.deallocate(); choiceNext.deallocate()
    }

    private static func subjectBytes(_ uriBytes: Int) -> Int {
        URIParser.outputCapacity(for: uriBytes) + 2 * uriBytes + maximumMethodLength + 16
    }

    /// Looks up `uri` with `method` in the table this matcher holds (see `take`): the lookup
    /// `match(_:method:uri:)` makes once its router's table is held.
    @inline(__always) func lookup(method: UnsafeRawBufferPointer?, uri: UnsafeRawBufferPointer) throws(InterlockError) -> MatchOutcome {
        let held = probesStatic ? wholeStaticPath(uri, method.map { Matcher.commonMethod($0) } ?? (MethodWord.any, 0)) : .unknown
        if held == .matched { return .matched }
        return try match(uri: uri, held: held) { (subject) throws(InterlockError) -> Int in
            try Matcher.copyMethod(method, to: subject)
        }
    }

    /// Checks `method` and copies it to `subject`; returns its length (0 for none: nil or "").
    @inline(__always) static func copyMethod(_ method: UnsafeRawBufferPointer?, to subject: UnsafeMutablePointer<UInt8>) throws(InterlockError) -> Int {
        guard let method, !method.isEmpty else { return 0 }     // "" is any method, as nil
        guard method.count <= maximumMethodLength else { throw Matcher.methodTooLong() }
        var i = 0
        while i < method.count {
            try Matcher.copyMethodByte(method[i], to: subject, at: i)
            i += 1
        }
        return i
    }

    /// `lookup(method:uri:)` with the method as a NUL-terminated string: its bytes are checked
    /// and copied in one pass, without measuring it first (the C interface's lookup). No more
    /// than one byte past the at most ``maximumMethodLength`` bytes before the NUL is read.
    @inline(__always) func lookup(methodCString method: UnsafePointer<UInt8>?, uri: UnsafeRawBufferPointer) throws(InterlockError) -> MatchOutcome {
        let held = probesStatic ? wholeStaticPath(uri, method.map { Matcher.commonMethod($0) } ?? (MethodWord.any, 0)) : .unknown
        if held == .matched { return .matched }
        return try match(uri: uri, held: held) { (subject) throws(InterlockError) -> Int in
            guard let method else { return 0 }
            if let (word, length) = Matcher.commonMethod(method) {
                // The subject has room for eight bytes where the method goes.
                UnsafeMutableRawPointer(subject).storeBytes(of: word, as: UInt64.self)
                return length
            }
            return try Matcher.uncommonMethod(method, copyingTo: subject)
        }
    }

    /// The lookup; `copyMethod` writes the request's method (checked) where it is given and
    /// returns its length (0 for none); `held` is what the all-literal shortcut found out.
    ///
    /// In the order of docs/matching.md ("The lookup, step by step"): the all-literal shortcut
    /// for a bare path the static table holds (`wholeStaticPath`, tried by the public `match`
    /// functions before this), the parse (`takeStaticPath` or `URIParser.parse`), the static
    /// table for the normalized path (`matchStaticPath`), the tree from its root node
    /// (`matchRoot`), and, when a path fitted but no route took the method, the
    /// allowed-methods pass (`allowedMethods`). One `Lookup`, made here, carries what the steps
    /// tell each other; the answer is what `record` and `noteAllowed` wrote on the matcher.
    @inline(__always) private func match(
        uri: UnsafeRawBufferPointer, held: StaticHold,
        copyMethod: (UnsafeMutablePointer<UInt8>) throws(InterlockError) -> Int
    ) throws(InterlockError) -> MatchOutcome {
        guard begin() else { return .notFound }
        var lookup = try writeSubject(uri, held: held, copyMethod: copyMethod)
        if probesStatic && matchStaticPath(&lookup) { return .matched }
        if try matchTree(&lookup) { return .matched }
        guard lookup.methodLength > 0, lookup.pathFitted else { return .notFound }
        return try allowedMethods(after: lookup)
    }

    /// The tree from its root for `lookup`, on the subject written for it.
    @inline(__always) func matchTree(_ lookup: inout Lookup) throws(InterlockError) -> Bool {
        spanCount = 0
        if !spans.segmentsIndexed { indexSegments() }
        return try matchRoot(&lookup)
    }

    /// Method not allowed? The tree again with no method, noting the method of every leaf whose
    /// path, scheme and host fit (`noteAllowed`). Out of line: few lookups get here.
    @inline(never) private func allowedMethods(after lookup: Lookup) throws(InterlockError) -> MatchOutcome {
        let methodEnd = lookup.methodStart + lookup.methodLength
        (subject + lookup.methodStart).update(from: subject + methodEnd, count: subjectLength - methodEnd)
        subjectLength -= lookup.methodLength
        var pass = lookup.withoutMethod(for: .allowedMethods)
        defer {
            regexRun = RegexRun()       // lets go of the unit the callouts noted leaves of
            winner = nil                // an enumeration records nothing: no answer but the methods
            routeID = 0
        }
        _ = try matchTree(&pass)
        allowedCount = allowedRoutes.count
        return allowedCount == 0 ? .notFound : .methodNotAllowed
    }

    /// A lookup's start: forgets the last answer; false when the matcher holds no table.
    @inline(__always) func begin() -> Bool {
        winner = nil
        routeID = 0
        parameterCount = 0
        if allowedCount > 0 { allowedRoutes.removeAll(keepingCapacity: true); allowedCount = 0 }
        return tableRoot != nil
    }

    /// Parses the URI (`held`: what the all-literal shortcut found out) and writes the subject,
    /// the path then its tail, the method by `copyMethod`. Returns the lookup of what it wrote:
    /// where the method, scheme and host lie in the subject, and the static entry it found.
    @inline(__always) func writeSubject(
        _ uri: UnsafeRawBufferPointer, held: StaticHold, copyMethod: (UnsafeMutablePointer<UInt8>) throws(InterlockError) -> Int
    ) throws(InterlockError) -> Lookup {
        if uri.count <= maximumURILength, Matcher.subjectBytes(uri.count) > subjectCapacity {
            subject.deallocate(); decoded.deallocate(); segmentEnds.deallocate()
            subjectCapacity = Matcher.subjectBytes(uri.count)
            subject = .allocate(capacity: subjectCapacity)
            decoded = .allocate(capacity: subjectCapacity)
            segmentEnds = .allocate(capacity: subjectCapacity)
        }
        let probed = probesStatic ? try takeStaticPath(uri, held: held) : nil
        if probed == nil { try URIParser.parse(uri, strictSlash: strictSlash, into: subject, spans: &spans, segmentEnds: segmentEnds) }

        // The tail: "\n" method "\n" scheme "\n" host, lower-cased where the URI is case-free, and,
        // after a host, "\n" and the port (the URI's, or its scheme's default).
        let subject = self.subject   // a local: stores through it need not reload the property
        var n = spans.pathLength
        subject[n] = newline; n += 1
        let methodStart = n
        n += try copyMethod(subject + n)
        let methodLength = n - methodStart
        let methodWord = MethodWord.at(subject + methodStart, methodLength)
        subject[n] = newline; n += 1
        let schemeStart = n, schemeLength: Int, hostStart: Int, hostEnd: Int
        if spans.scheme == nil && spans.host == nil {     // a path: both empty
            subject[n] = newline; n += 1
            schemeLength = 0; hostStart = n; hostEnd = n
        } else {
            (schemeLength, hostEnd, n) = writeSchemeAndHost(uri, at: n)
            hostStart = schemeStart + schemeLength + 1
        }
        subjectLength = n
        return Lookup(methodStart: methodStart, methodLength: methodLength, methodWord: methodWord,
                      schemeStart: schemeStart, schemeLength: schemeLength, hostStart: hostStart, hostEnd: hostEnd,
                      probed: probed)
    }

    /// Writes the URI's scheme, "\n" and host at `n` in the subject, normalized, and after a host
    /// "\n" and its port; returns the scheme's length, where the host ends and where the tail
    /// ends. Out of line: most lookups are of bare paths.
    @inline(never) private func writeSchemeAndHost(_ uri: UnsafeRawBufferPointer, at start: Int) -> (Int, Int, Int) {
        var n = start
        if let s = spans.scheme { for i in s { subject[n] = lowercased(uri[i]); n += 1 } }
        let schemeLength = n - start
        subject[n] = newline; n += 1
        guard let h = spans.host else { return (schemeLength, n, n) }
        if spans.hostIsPlain {
            for i in h { subject[n] = lowercased(uri[i]); n += 1 }
        } else {
            n += URIParser.writeHost(uri, spans, into: subject + n)
        }
        let hostEnd = n
        subject[n] = newline; n += 1
        n = writePort(uri, scheme: start..<(start + schemeLength), at: n)
        return (schemeLength, hostEnd, n)
    }

    /// Writes the URI's port at `n` in decimal, without leading zeros (a value past 65535 as
    /// written: no route names one), or its scheme's default when it gives none (80 for http and
    /// ws, 443 for https and wss); returns where it ends.
    private func writePort(_ uri: UnsafeRawBufferPointer, scheme: Range<Int>, at start: Int) -> Int {
        var n = start
        if let p = spans.port {
            var i = p.lowerBound
            while i < p.upperBound - 1, uri[i] == 0x30 { i += 1 }      // "08443" is 8443
            while i < p.upperBound { subject[n] = uri[i]; n += 1; i += 1 }
            return n
        }
        // A scheme with a host is http, https, ws or wss: the secure ones are https and wss (five
        // and three bytes, "s" last; ws is two).
        let secure = (scheme.count == 5 || scheme.count == 3) && subject[scheme.upperBound - 1] == 0x73
        for c in (secure ? "443" : "80").utf8 { subject[n] = c; n += 1 }
        return n
    }
}
