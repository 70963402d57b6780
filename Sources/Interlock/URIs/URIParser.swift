// Parses a URI and writes its normalized path, in one pass, with no allocation on success.
//
// Normalization (in this order, as RFC 3986 6.2.2 has it): escapes of unreserved characters are
// decoded and every other escape is kept with upper-case hex; bytes that may not stand bare in a
// path (non-ASCII, space, quotes, ...) are escaped; "." and ".." are removed (5.2.4); empty
// segments collapse; a trailing slash is kept only for a router that is strict about slashes.
// "%2F" stays "%2F", so it never splits a segment: parameters are decoded only after matching.

/// The longest URI accepted, in bytes.
public let maximumURILength = 65_536

/// Where the parts of a URI lie in its bytes. The normalized path is written elsewhere.
struct URISpans {
    var scheme: Range<Int>? = nil
    var host: Range<Int>? = nil
    var port: Range<Int>? = nil
    var query: Range<Int>? = nil
    var fragment: Range<Int>? = nil
    /// Whether the host's normalized form is its bytes lower-cased (no escape, no IP literal, no
    /// IPv4 address spelt otherwise than in dotted decimal);
    /// else `URIParser.writeHost` writes it. `host` leaves out a trailing dot either way.
    var hostIsPlain = true
    /// Length of the normalized path written to the output buffer.
    var pathLength = 0
    /// Whether the normalized path may hold escapes ("%XX"); false when it is plain bytes.
    var pathHasEscapes = true
    /// Whether the parse wrote where each of the path's segments ends (the `segmentEnds` it was
    /// given; the matcher indexes the segments itself otherwise).
    var segmentsIndexed = false
}

/// Schemes whose authority is a host; for every other scheme the authority is the first path
/// segment (the deep-link convention: `myapp://user/42` has the path `/user/42`).
@inline(__always) func schemeHasHost(_ s: UnsafeRawBufferPointer, _ r: Range<Int>) -> Bool {
    let n = r.count
    guard n >= 2 && n <= 5 else { return false }
    func at(_ i: Int) -> UInt8 { lowercased(s[r.lowerBound + i]) }
    if n == 4 { return at(0) == 0x68 && at(1) == 0x74 && at(2) == 0x74 && at(3) == 0x70 }   // http
    if n == 5 { return at(0) == 0x68 && at(1) == 0x74 && at(2) == 0x74 && at(3) == 0x70 && at(4) == 0x73 } // https
    if n == 2 { return at(0) == 0x77 && at(1) == 0x73 }                                      // ws
    if n == 3 { return at(0) == 0x77 && at(1) == 0x73 && at(2) == 0x73 }                    // wss
    return false
}

/// Bytes copied as they are into a normalized path (ASCII path characters other than "."): a
/// 256-entry table, one load per byte on the lookup path.
nonisolated(unsafe) private let plainPathByte: UnsafePointer<Bool> = {  // written once, then only read
    let table = UnsafeMutablePointer<Bool>.allocate(capacity: 256)
    for c in 0..<256 { table[c] = c < 128 && isPathChar(UInt8(c)) && c != 0x2E }
    return UnsafePointer(table)
}()

/// The fast path's table: per byte value, the ASCII digit whose bit `pathByteInSegment` says a
/// path may hold the byte as it is (dots included), and whose bit `pathByteStartsSegment` says a
/// plain segment may start with it (not "."): "0" neither, "1" in a segment only, "3" both. A
/// string literal, so that the table is in the binary: a lazily made global cost a
/// `swift_once` call a lookup. `URITests` holds it to `isPathChar`.
let fastPathBytes: StaticString = """
    0000000000000000000000000000000003003033333333103333333333330300\
    3333333333333333333333333330000303333333333333333333333333300030\
    0000000000000000000000000000000000000000000000000000000000000000\
    0000000000000000000000000000000000000000000000000000000000000000
    """
let pathByteInSegment: UInt8 = 1
let pathByteStartsSegment: UInt8 = 2

enum URIParser {
    /// The output buffer must hold `3 * input.count + 2` bytes (every byte may become an escape;
    /// the plain-path scan adds a "/" and a sentinel to a copy of the input).
    static func outputCapacity(for length: Int) -> Int { 3 * length + 2 }

    /// Parses `input`, writing the normalized path ("" for the root, else "/a/b") to `out`.
    /// (`plainFastPath` false forces the general normalizer: tests compare the two.)
    static func parse(
        _ input: UnsafeRawBufferPointer,
        strictSlash: Bool,
        into out: UnsafeMutablePointer<UInt8>,
        segmentEnds: UnsafeMutablePointer<UInt32>? = nil,
        plainFastPath: Bool = true
    ) throws(InterlockError) -> URISpans {
        var spans = URISpans()
        try parse(input, strictSlash: strictSlash, into: out, spans: &spans, segmentEnds: segmentEnds, plainFastPath: plainFastPath)
        return spans
    }

    /// `parse` writing the spans in place (the lookup path keeps them in the matcher: no copy).
    /// With `segmentEnds` (room for the path's length), the common path's scan also notes where
    /// each segment ends (`spans.segmentsIndexed` says it did): the matcher then never looks for one.
    static func parse(
        _ input: UnsafeRawBufferPointer,
        strictSlash: Bool,
        into out: UnsafeMutablePointer<UInt8>,
        spans: inout URISpans,
        segmentEnds: UnsafeMutablePointer<UInt32>? = nil,
        plainFastPath: Bool = true
    ) throws(InterlockError) {
        let n = input.count
        if n > maximumURILength {
            throw InterlockError(.uri, "URI is longer than \(maximumURILength) bytes", offset: maximumURILength)
        }
        spans = URISpans()
        var i = 0

        // scheme ":" — only if the first ':' comes before any '/', '?' or '#'.
        if n > 0, isAlpha(input[0]) {
            var j = 1
            while j < n {
                let c = input[j]
                if isAlpha(c) || isDigit(c) || c == 0x2B || c == 0x2D || c == 0x2E { j += 1; continue }
                break
            }
            if j < n, input[j] == 0x3A {
                spans.scheme = 0..<j
                i = j + 1
            }
        }

        if let scheme = spans.scheme, i + 1 < n, input[i] == slash, input[i + 1] == slash {
            i += 2
            if schemeHasHost(input, scheme) {
                i = try parseAuthority(input, from: i, into: &spans)
            }
            // Any other scheme: the authority is the first path segment.
        }
        // Without a scheme everything up to "?" or "#" is path: "//a//b" is the path "/a/b", not a
        // host "a" (RFC 3986's network-path reference), since request targets are paths.

        if plainFastPath, let end = plainPath(input, from: i, strictSlash: strictSlash, into: out, spans: &spans, segmentEnds: segmentEnds) {
            i = end
        } else {
            i = try normalizePath(input, from: i, strictSlash: strictSlash, into: out, spans: &spans)
        }

        try parseQueryAndFragment(input, from: i, spans: &spans)
    }

    /// Where the path of a URI that is a path alone ("/" then bytes up to "?", "#" or the end)
    /// ends; nil for any other URI (a scheme, a deep link's bare path) and for one too long.
    /// Eight bytes at a time: the all-literal table is probed with this path before any parsing.
    @inline(__always) static func barePathEnd(_ input: UnsafeRawBufferPointer) -> Int? {
        let n = input.count
        guard n >= 2, n <= maximumURILength, let p = input.baseAddress, input[0] == slash else { return nil }
        /// The first "?" or "#" among the eight bytes at `i`, if any.
        @inline(__always) func first(at i: Int) -> Int? {
            let found = bytesEqual(p.loadUnaligned(fromByteOffset: i, as: UInt64.self), 0x3F, or: 0x23)
            return found == 0 ? nil : i + found.trailingZeroBitCount / 8
        }
        guard n >= 8 else {
            var i = 0
            while i < n, input[i] != 0x3F, input[i] != 0x23 { i += 1 }
            return i
        }
        var i = 0
        while i + 8 <= n {
            if let at = first(at: i) { return at }
            i += 8
        }
        // The last eight bytes, overlapping those already read (none of which is "?" or "#").
        return i < n ? first(at: n - 8) ?? n : n
    }

    /// The parse of a URI whose path, `input[0..<end]`, is known to be normalized already (it is,
    /// byte for byte, a path the router's table holds, and normalizing a normalized path leaves it
    /// as it is): the path is copied, and only the query and fragment are checked.
    static func parse(
        _ input: UnsafeRawBufferPointer, normalizedPathEnd end: Int,
        into out: UnsafeMutablePointer<UInt8>, spans: inout URISpans
    ) throws(InterlockError) {
        spans = URISpans()
        if let p = input.baseAddress { UnsafeMutableRawPointer(out).copyMemory(from: p, byteCount: end) }
        spans.pathLength = end
        try parseQueryAndFragment(input, from: end, spans: &spans)
    }

    /// Checks the query and fragment from `i` (at "?", "#" or the end) and notes where they are.
    @inline(__always) private static func parseQueryAndFragment(
        _ input: UnsafeRawBufferPointer, from start: Int, spans: inout URISpans
    ) throws(InterlockError) {
        let n = input.count
        var i = start
        if i < n, input[i] == 0x3F {  // '?'
            let start = i + 1
            i = try validateComponent(input, from: start, stopAtHash: true, what: "query")
            spans.query = start..<i
        }
        if i < n, input[i] == 0x23 {  // '#'
            let start = i + 1
            i = try validateComponent(input, from: start, stopAtHash: false, what: "fragment")
            spans.fragment = start..<i
        }
    }

    /// Checks the authority from `start` (after "//") and notes where its host and port are;
    /// returns where it ends (at "/", "?", "#" or the end).
    private static func parseAuthority(
        _ input: UnsafeRawBufferPointer, from start: Int, into spans: inout URISpans
    ) throws(InterlockError) -> Int {
        let n = input.count
        var end = start
        var at = -1                 // the last "@", which ends the user info
        while end < n {
            let c = input[end]
            if c == slash || c == 0x3F || c == 0x23 { break }
            if c == 0x40 { at = end }
            end += 1
        }
        var hostStart = start
        if at >= 0 {
            // The user info never takes part in routing, but it is part of the URI a request
            // keeps (and logs): its bytes are held to the query's rules, and it may not hold the
            // delimiters RFC 3986 leaves out of it (an earlier "@" would make the host ambiguous).
            _ = try validateComponent(input, from: start, to: at, stopAtHash: false, what: "user info")
            hostStart = at + 1
        }
        var hostEnd = end
        if hostStart < end, input[hostStart] == 0x5B {  // IP literal "[...]"
            var close = hostStart
            while close < end, input[close] != 0x5D { close += 1 }
            if close == end { throw InterlockError(.uri, "unterminated IP literal in host", offset: hostStart) }
            hostEnd = close + 1
        } else {
            var c = hostStart
            while c < end, input[c] != 0x3A { c += 1 }
            hostEnd = c
        }
        if hostEnd < end {
            guard input[hostEnd] == 0x3A else {
                throw InterlockError(.uri, "unexpected character after host", offset: hostEnd)
            }
            for p in (hostEnd + 1)..<end where !isDigit(input[p]) {
                throw InterlockError(.uri, "port is not a number", offset: p)
            }
            if hostEnd + 1 < end {
                // As a pattern's port: 1-65535 (leading zeros allowed); an empty port is the default.
                var value = 0
                for p in (hostEnd + 1)..<end {
                    value = min(value * 10 + Int(input[p] - 0x30), 65_536)
                }
                guard value >= 1, value <= 65_535 else {
                    throw InterlockError(.uri, "port outside 1-65535", offset: hostEnd + 1)
                }
                spans.port = (hostEnd + 1)..<end
            }
        }
        if hostStart == hostEnd { throw InterlockError(.uri, "URI has an empty host", offset: hostStart) }
        if input[hostStart] == 0x5B {
            try HostName.checkLiteral(input, hostStart..<hostEnd, code: .uri)
            spans.host = hostStart..<hostEnd
            spans.hostIsPlain = false
        } else {
            let (kept, escaped) = try HostName.checkName(input, hostStart..<hostEnd, subDelims: true, code: .uri)
            spans.host = kept
            if let address = try HostName.ipv4(input, kept, code: .uri) {
                spans.hostIsPlain = !escaped && HostName.isDotted(address, input, kept)
            } else {
                spans.hostIsPlain = !escaped
            }
        }
        return end
    }

    /// Writes the host the parse of `input` found (`spans.host`), normalized (see `HostName`), to
    /// `out`; returns the bytes written, at most `spans.host.count + HostName.growth` (none
    /// without a host).
    static func writeHost(_ input: UnsafeRawBufferPointer, _ spans: URISpans, into out: UnsafeMutablePointer<UInt8>) -> Int {
        guard let h = spans.host, !h.isEmpty else { return 0 }
        if input[h.lowerBound] == 0x5B { return HostName.writeLiteral(input, h, into: out) }
        return HostName.writeName(input, h, into: out)
    }

    /// The host the parse of `input` found, normalized (see `HostName`), or nil for none.
    static func normalizedHost(_ input: UnsafeRawBufferPointer, _ spans: URISpans) -> [UInt8]? {
        guard let h = spans.host else { return nil }
        return [UInt8](unsafeUninitializedCapacity: h.count + HostName.growth) { buffer, count in
            count = buffer.baseAddress.map { writeHost(input, spans, into: $0) } ?? 0
        }
    }

    /// The common case: a path of ASCII path bytes and single slashes, with no segment starting
    /// with "." (so no dot segment), is already normalized but for a trailing slash. The rest of
    /// the input is copied after a "/" and scanned in place, ended by a NUL byte no path byte is,
    /// so the scan tests one condition per byte. Returns nil, having decided nothing, for any other
    /// path (what it wrote to `out` is then overwritten).
    @inline(__always) private static func plainPath(
        _ input: UnsafeRawBufferPointer, from start: Int, strictSlash: Bool,
        into out: UnsafeMutablePointer<UInt8>, spans: inout URISpans, segmentEnds: UnsafeMutablePointer<UInt32>?
    ) -> Int? {
        let n = input.count
        guard let bytes = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else { spans.pathLength = 0; return 0 }
        let fast = fastPathBytes.utf8Start
        // The first segment's first byte (a deep link's path has no "/" before it).
        let body = start < n && bytes[start] == slash ? start + 1 : start
        let count = n - body
        out[0] = slash
        UnsafeMutableRawPointer(out + 1).copyMemory(from: bytes + body, byteCount: count)
        let last = 1 + count        // where the sentinel is
        out[last] = 0
        var q = 1                   // the scan, in `out`
        var end = 1                 // the end of the last segment
        while true {
            let c = out[q]
            if fast[Int(c)] & pathByteStartsSegment == 0 {        // not a plain segment start:
                if c == 0x3F || c == 0x23 || q == last { break }  // "?", "#" or the end after a slash
                return nil
            }
            let segment = q
            q += 1
            while fast[Int(out[q])] & pathByteInSegment != 0 { q += 1 }
            end = q
            segmentEnds?[segment - 1] = UInt32(truncatingIfNeeded: q)
            // A "/" (the sentinel is not one) goes on to the next segment: tested first, as most are.
            if out[q] == slash { q += 1; continue }
            let d = out[q]
            if d == 0x3F || d == 0x23 || q == last { break }
            return nil                                            // a NUL byte in the URI among others
        }
        // The path is out[0..<end], or "" for the root.
        var o = end > 1 ? end : 0
        if o > 0 && strictSlash && end < q {        // a trailing slash was there: an empty segment
            out[o] = slash
            segmentEnds?[o] = UInt32(truncatingIfNeeded: o + 1)
            o += 1
        }
        spans.pathLength = o
        spans.pathHasEscapes = false
        spans.segmentsIndexed = segmentEnds != nil
        return body + (q - 1)
    }

    /// Writes the normalized path; returns the offset of '?', '#' or the end.
    private static func normalizePath(
        _ input: UnsafeRawBufferPointer, from start: Int, strictSlash: Bool,
        into out: UnsafeMutablePointer<UInt8>, spans: inout URISpans
    ) throws(InterlockError) -> Int {
        let n = input.count
        let plain = plainPathByte   // one lazy-initialization check, not one per byte
        var i = start
        var o = 0
        var utf8 = UTF8Validator()
        var trailingSlash = false
        while i < n {
            let c0 = input[i]
            if c0 == 0x3F || c0 == 0x23 { break }
            if c0 == slash { i += 1; continue }   // empty segments collapse
            // One segment: write "/" then its normalized bytes.
            let segStart = o
            out[o] = slash; o += 1
            var dots = 0, others = 0
            /// Writes a byte bare, or as an escape with upper-case hex; counts dots for "." and "..".
            func emit(_ v: UInt8, bare: Bool) {
                if bare {
                    out[o] = v; o += 1
                    if v == 0x2E { dots += 1 } else { others += 1 }
                } else {
                    out[o] = percent; out[o + 1] = upperHex[Int(v >> 4)]; out[o + 2] = upperHex[Int(v & 15)]
                    o += 3; others += 1
                }
            }
            while i < n {
                let c = input[i]
                // Most bytes stand as they are: copy a run of them with no further checks.
                if plain[Int(c)] && utf8.isComplete {
                    // Copy while scanning: runs are short (a segment), so a memcpy call would cost more.
                    let start = i
                    out[o] = c; o += 1; i += 1
                    while i < n {
                        let d = input[i]
                        if !plain[Int(d)] { break }
                        out[o] = d; o += 1; i += 1
                    }
                    others += i - start
                    continue
                }
                if c == slash || c == 0x3F || c == 0x23 { break }
                if c == percent {
                    guard i + 2 < n, let h = hexValue(input[i + 1]), let l = hexValue(input[i + 2]) else {
                        throw InterlockError(.uri, "bad percent-escape in path", offset: i)
                    }
                    let v = h << 4 | l
                    if v == 0 { throw InterlockError(.uri, "percent-escape decodes to NUL", offset: i) }
                    guard utf8.feed(v, at: i, escaped: true) else { throw InterlockError(.uri, "path is not valid UTF-8 once decoded", offset: utf8.sequenceStart) }
                    emit(v, bare: isUnreserved(v))
                    i += 3
                    continue
                }
                if isControl(c) { throw InterlockError(.uri, "control byte in path", offset: i) }
                guard utf8.feed(c, at: i, escaped: false) else { throw InterlockError(.uri, "path is not valid UTF-8", offset: utf8.sequenceStart) }
                emit(c, bare: isPathChar(c))
                i += 1
            }
            if !utf8.isComplete { throw InterlockError(.uri, "path is not valid UTF-8", offset: utf8.sequenceStart) }
            trailingSlash = i < n && input[i] == slash
            if others == 0 && dots == 1 {            // "."
                o = segStart
                trailingSlash = true
            } else if others == 0 && dots == 2 {     // ".." removes the segment before it
                o = segStart
                while o > 0 { o -= 1; if out[o] == slash { break } }
                trailingSlash = true
            }
        }
        if strictSlash && trailingSlash && o > 0 { out[o] = slash; o += 1 }
        spans.pathLength = o
        return i
    }

    /// Checks a query, fragment or user info (up to `end`, given for it alone): well-formed
    /// escapes, no control byte, valid UTF-8 once decoded; in the user info no "@", "[" or "]".
    private static func validateComponent(
        _ input: UnsafeRawBufferPointer, from start: Int, to end: Int? = nil, stopAtHash: Bool, what: StaticString
    ) throws(InterlockError) -> Int {
        let n = end ?? input.count
        var i = start
        var utf8 = UTF8Validator()
        while i < n {
            var c = input[i]
            if stopAtHash && c == 0x23 { break }
            if c == percent {
                guard i + 2 < n, let h = hexValue(input[i + 1]), let l = hexValue(input[i + 2]) else {
                    throw InterlockError(.uri, "bad percent-escape in \(what)", offset: i)
                }
                c = h << 4 | l
                if c == 0 { throw InterlockError(.uri, "percent-escape decodes to NUL", offset: i) }
                guard utf8.feed(c, at: i, escaped: true) else { throw InterlockError(.uri, "\(what) is not valid UTF-8 once decoded", offset: utf8.sequenceStart) }
                i += 3
                continue
            }
            if isControl(c) { throw InterlockError(.uri, "control byte in \(what)", offset: i) }
            if end != nil && (c == 0x40 || c == 0x5B || c == 0x5D) {     // only the user info has an end
                let (byte, escape) = c == 0x40 ? ("@", "%40") : c == 0x5B ? ("[", "%5B") : ("]", "%5D")
                throw InterlockError(.uri, "'\(byte)' in user info (escape it as \(escape))", offset: i)
            }
            if c == 0x26 || c == 0x3D {  // '&' and '=' end a key or value: no sequence spans them
                if !utf8.isComplete { throw InterlockError(.uri, "\(what) is not valid UTF-8 once decoded", offset: utf8.sequenceStart) }
            }
            guard utf8.feed(c, at: i, escaped: false) else { throw InterlockError(.uri, "\(what) is not valid UTF-8", offset: utf8.sequenceStart) }
            i += 1
        }
        if !utf8.isComplete { throw InterlockError(.uri, "\(what) is not valid UTF-8 once decoded", offset: utf8.sequenceStart) }
        return i
    }
}
