// One lookup's own state: what the driver (`Matcher.match`) learns from the request and what its
// steps tell each other, in one value made fresh for each lookup and passed down the walk.

/// The state of one lookup, from the parse to the answer: where the request's method, scheme
/// and host lie in the subject, what the lookup is for (the answer, or an enumeration), and what
/// the steps found out on the way that a later step decides by.
///
/// The driver makes one for each lookup, from the subject `writeSubject` wrote, and passes it
/// `inout` to each step (the static table, the tree's walks, dispatch nodes and regex units).
/// Nothing of it outlives the lookup, so no step can read a flag an earlier lookup left: before
/// it, such flags were fields of the matcher that each lookup had to remember to reset. The
/// answer itself (route, values, allowed methods) is the matcher's, read after the lookup.
struct Lookup {
    /// What a pass over the table is for.
    enum Mode {
        /// The route that takes the request (the answer).
        case answer
        /// The methods of the routes whose path, scheme and host fit (method not allowed): every
        /// leaf reached is noted, none recorded.
        case allowedMethods
        /// Every leaf that fits, for an explanation (`Matcher.fittingLeaves`).
        case listing
    }

    /// Where the request's method lies in the subject (length 0 for any method).
    var methodStart: Int
    var methodLength: Int
    /// The request's method as a `MethodWord` (`MethodWord.any` for none): what leaves compare.
    var methodWord: UInt64
    /// Where the request's scheme (start, length) and host (start, end) lie in the subject: empty
    /// for a bare path. Read by the static table's test; walks read the tail by `requestTail`.
    let schemeStart: Int, schemeLength: Int
    let hostStart: Int, hostEnd: Int
    /// The all-literal entry of the URI's own path, when `takeStaticPath` found it byte for byte
    /// before the parse: `matchStaticPath` takes it rather than probing the table again.
    let probed: StaticEntry?
    var mode = Mode.answer
    /// Whether a route's path fitted but the route was not taken (a walk's leaves refused the
    /// method, a static entry refused it, or a regex failed, which may be for the method): only
    /// then can the answer be "method not allowed", so only then is the table searched again for
    /// the methods that fit. Set by the step that saw it, read by the driver.
    var pathFitted = false

    /// Whether the pass notes every leaf that fits rather than recording the first.
    @inline(__always) var enumerating: Bool { mode != .answer }

    /// This lookup with no method, for `mode` (an enumeration), once the driver took the
    /// method's bytes out of the subject: what followed them moved back by their length.
    @inline(__always) func withoutMethod(for mode: Mode) -> Lookup {
        let n = methodLength
        var pass = Lookup(methodStart: methodStart, methodLength: 0, methodWord: MethodWord.any,
                          schemeStart: schemeStart - n, schemeLength: schemeLength, hostStart: hostStart - n, hostEnd: hostEnd - n,
                          probed: nil)
        pass.mode = mode
        return pass
    }
}
