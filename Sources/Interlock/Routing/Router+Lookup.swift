// Lookups in a router's table: the router hands a matcher its current compiled table (compiling
// what changed, or the previous table while another thread compiles: see docs/concurrency.md),
// then the matcher looks the URI up in it. The matcher knows tables, not routers.

import Synchronization

/// Serial numbers tell routers apart even when one is freed and another takes its address.
private let routerSerials = Atomic<UInt64>(0)

extension Router {
    static func nextSerial() -> UInt64 { routerSerials.add(1, ordering: .relaxed).newValue }

    /// Hands `matcher` this router's current table, unless it holds it already.
    @inline(__always) func hand(to matcher: Matcher) throws(InterlockError) {
        if !matcher.holds(source: serial, generation: generation.load(ordering: .acquiring)) {
            matcher.take(try compiledTable())
        }
    }
}

extension Matcher {
    /// Looks up `uri` with `method` (nil: any method). Throws `.uri` for a malformed URI,
    /// `.invalidArgument` for a malformed method, `.limit` if a constraint exceeds the match limit.
    ///
    /// - Parameters:
    ///   - router: The route table to look in.
    ///   - method: The request's method as bytes (an HTTP token of at most
    ///     ``maximumMethodLength`` bytes), or nil (or empty) for any method.
    ///   - uri: The URI's bytes: an absolute URI, an absolute path or a relative path, at most
    ///     ``maximumURILength`` bytes.
    /// - Returns: Whether a route matched; the answer's details stay on the matcher until its next
    ///   lookup.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/uri`` for a malformed URI (its `offset`
    ///   says where), ``ErrorCode/invalidArgument`` for a malformed method, or ``ErrorCode/limit``
    ///   if a constraint ran past the router's match limit. A malformed URI is reported first.
    public func match(_ router: Router, method: UnsafeRawBufferPointer?, uri: UnsafeRawBufferPointer) throws(InterlockError) -> MatchOutcome {
        try router.hand(to: self)
        return try lookup(method: method, uri: uri)
    }

    /// `match(_:method:uri:)` with the method as a NUL-terminated string: its bytes are checked
    /// and copied in one pass, without measuring it first (the C interface's lookup).
    ///
    /// - Parameters:
    ///   - router: The route table to look in.
    ///   - method: The request's method, NUL-terminated (at most ``maximumMethodLength`` bytes
    ///     before the NUL, and no more than one byte past them is read), or nil (or "") for any
    ///     method.
    ///   - uri: The URI's bytes, as for ``match(_:method:uri:)``.
    /// - Returns: Whether a route matched, as ``match(_:method:uri:)`` returns.
    /// - Throws: ``InterlockError``, as ``match(_:method:uri:)`` throws.
    package func match(_ router: Router, methodCString method: UnsafePointer<UInt8>?, uri: UnsafeRawBufferPointer) throws(InterlockError) -> MatchOutcome {
        try router.hand(to: self)
        return try lookup(methodCString: method, uri: uri)
    }

    /// `fittingLeaves(method:uri:)` in `router`'s current table.
    func fittingLeaves(_ router: Router, method: UnsafeRawBufferPointer?, uri: UnsafeRawBufferPointer) throws(InterlockError) -> [Leaf] {
        try router.hand(to: self)
        return try fittingLeaves(method: method, uri: uri)
    }
}
