// A host, checked and normalized so that the spellings the DNS takes for one name are one host
// (RFC 3986 6.2.2): a route on a host cannot be passed by by spelling its host otherwise.
//
//   - a name: escapes are decoded (each must decode to a byte a name may hold: unreserved or a
//     sub-delim; anything else, non-ASCII included, is refused), letters lower-cased, one
//     trailing dot dropped; an empty label (`a..b`, `.a`, `a..`) is refused;
//   - an IPv6 literal: written as RFC 5952 has it (lower case, no leading zeros, the longest run
//     of two or more zero groups, the first of equals, as "::"; an embedded IPv4 as two groups);
//     a zone identifier (`%25eth0`) is refused;
//   - an IPvFuture literal (`[v1.x]`): checked, lower-cased.

/// Checks and writes hosts, for the URI parser (`ErrorCode.uri`) and the pattern parser
/// (`ErrorCode.pattern`) alike.
enum HostName {
    /// The most bytes a normalized host may take beyond its raw spelling: an IPv6 literal that
    /// compressed a single zero group ("1::2:3:4:5:6:7") is written with it ("1:0:2:3:4:5:6:7").
    static let growth = 1

    /// A sub-delim (RFC 3986): may stand in a name, bare or escaped.
    @inline(__always) static func isSubDelim(_ c: UInt8) -> Bool {
        switch c {
        case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: return true
        default: return false
        }
    }

    /// Checks the name (no brackets) at `r` of `s`, not empty.
    ///
    /// - Parameters:
    ///   - s: The bytes holding the name.
    ///   - r: Where the name is, without the port.
    ///   - subDelims: Whether a sub-delim may stand in the name (in a URI; a pattern's name is of
    ///     unreserved bytes only).
    ///   - code: The error code to throw with.
    /// - Returns: Where the name is once its trailing dot (if any) is dropped, and whether it holds
    ///   an escape (else its normalized form is its bytes lower-cased).
    /// - Throws: `code` for a bad escape, a byte a name cannot hold (bare or escaped) or an empty label.
    static func checkName(
        _ s: UnsafeRawBufferPointer, _ r: Range<Int>, subDelims: Bool, code: ErrorCode
    ) throws(InterlockError) -> (kept: Range<Int>, escaped: Bool) {
        var p = r.lowerBound
        var escaped = false
        var labelBytes = 0
        var lastDot = r.lowerBound
        while p < r.upperBound {
            var c = s[p]
            let at = p
            if c == percent {
                guard p + 2 < r.upperBound, let h = hexValue(s[p + 1]), let l = hexValue(s[p + 2]) else {
                    throw InterlockError(code, "bad percent-escape in host", offset: p)
                }
                c = h << 4 | l
                guard isUnreserved(c) || subDelims && isSubDelim(c) else {
                    throw InterlockError(code, "percent-escape in host decodes to a byte a host name cannot hold", offset: p)
                }
                escaped = true
                p += 3
            } else {
                guard isUnreserved(c) || subDelims && isSubDelim(c) else {
                    throw InterlockError(code, "invalid character in host", offset: p)
                }
                p += 1
            }
            if c == 0x2E {
                if labelBytes == 0 { throw InterlockError(code, "empty label in host", offset: at) }
                labelBytes = 0
                lastDot = at
            } else {
                labelBytes += 1
            }
        }
        // Ended by a dot: the name's trailing dot (the DNS root), dropped.
        return (labelBytes == 0 && p > r.lowerBound ? r.lowerBound..<lastDot : r, escaped)
    }

    /// Writes the name at `r` of `s` (checked by `checkName`, its trailing dot dropped) decoded
    /// and lower-cased to `out`; returns the bytes written (at most `r.count`).
    static func writeName(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var p = r.lowerBound, o = 0
        while p < r.upperBound {
            var c = s[p]
            if c == percent, p + 2 < r.upperBound, let h = hexValue(s[p + 1]), let l = hexValue(s[p + 2]) {
                c = h << 4 | l
                p += 3
            } else {
                p += 1
            }
            out[o] = lowercased(c); o += 1
        }
        return o
    }

    /// Checks the IP literal at `r` of `s` (its brackets included).
    ///
    /// - Parameters:
    ///   - s: The bytes holding the literal.
    ///   - r: Where it is, "[" to "]".
    ///   - code: The error code to throw with.
    /// - Throws: `code`, with the offset of the first byte that does not fit.
    static func checkLiteral(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, code: ErrorCode) throws(InterlockError) {
        let inner = (r.lowerBound + 1)..<(r.upperBound - 1)
        if inner.isEmpty { throw InterlockError(code, "empty IP literal in host", offset: r.lowerBound) }
        if s[inner.lowerBound] | 0x20 == 0x76 {     // "v": IPvFuture
            _ = try future(s, inner, code: code)
        } else {
            _ = try ipv6(s, inner, code: code)
        }
    }

    /// Writes the IP literal at `r` of `s` (checked by `checkLiteral`) normalized to `out`;
    /// returns the bytes written (at most `r.count + growth`).
    static func writeLiteral(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        let inner = (r.lowerBound + 1)..<(r.upperBound - 1)
        out[0] = 0x5B
        var o = 1
        if let groups = try? ipv6(s, inner, code: .uri) {
            o += writeIPv6(groups, into: out + 1)
        } else {     // IPvFuture (or, never, a literal not checked): lower-cased
            for p in inner { out[o] = lowercased(s[p]); o += 1 }
        }
        out[o] = 0x5D
        return o + 1
    }

    /// Checks an IPvFuture literal's inside: "v", hex digits, ".", then unreserved bytes,
    /// sub-delims and ":".
    private static func future(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, code: ErrorCode) throws(InterlockError) -> Bool {
        var p = r.lowerBound + 1
        while p < r.upperBound, hexValue(s[p]) != nil { p += 1 }
        guard p > r.lowerBound + 1, p < r.upperBound, s[p] == 0x2E, p + 1 < r.upperBound else {
            throw InterlockError(code, "malformed IPvFuture literal in host", offset: p)
        }
        for q in (p + 1)..<r.upperBound where !(isUnreserved(s[q]) || isSubDelim(s[q]) || s[q] == 0x3A) {
            throw InterlockError(code, "invalid character in IP literal", offset: q)
        }
        return true
    }

    /// The eight groups of the IPv6 address at `r` of `s` (between the brackets).
    static func ipv6(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, code: ErrorCode) throws(InterlockError) -> SIMD8<UInt16> {
        var groups = SIMD8<UInt16>()
        var count = 0
        var gap = -1                // where "::" stands, in groups
        var p = r.lowerBound
        let end = r.upperBound
        func bad(_ message: String, _ at: Int) -> InterlockError {
            InterlockError(code, s[at] == percent ? "a zone identifier in an IP literal is not accepted" : message, offset: at)
        }
        if p < end, s[p] == 0x3A {
            guard p + 1 < end, s[p + 1] == 0x3A else { throw bad("IPv6 address begins with a single ':'", p) }
            gap = 0
            p += 2
        }
        while p < end {
            guard count < 8 else { throw bad("IPv6 address has more than eight groups", p) }
            var value: UInt16 = 0, digits = 0, q = p
            while q < end, let h = hexValue(s[q]) {
                guard digits < 4 else { throw bad("IPv6 group longer than four hex digits", q) }
                value = value << 4 | UInt16(h)
                digits += 1
                q += 1
            }
            if q < end, s[q] == 0x2E {      // the last 32 bits as an IPv4 address
                guard count <= 6 else { throw bad("IPv6 address has more than eight groups", p) }
                let v4 = try ipv4(s, p..<end, code: code)
                groups[count] = UInt16(v4 >> 16); groups[count + 1] = UInt16(v4 & 0xFFFF)
                count += 2
                p = end
                break
            }
            guard digits > 0 else { throw bad("invalid character in IP literal", q) }
            groups[count] = value
            count += 1
            p = q
            if p == end { break }
            guard s[p] == 0x3A else { throw bad("invalid character in IP literal", p) }
            p += 1
            if p < end, s[p] == 0x3A {
                guard gap < 0 else { throw bad("IPv6 address has two '::'", p - 1) }
                gap = count
                p += 1
            } else if p == end {
                throw bad("IPv6 address ends with a single ':'", p - 1)
            }
        }
        if gap < 0 {
            guard count == 8 else { throw InterlockError(code, "IPv6 address has fewer than eight groups", offset: r.lowerBound) }
            return groups
        }
        guard count < 8 else { throw InterlockError(code, "IPv6 address has '::' and eight groups", offset: r.lowerBound) }
        // The groups after "::" go to the end; zeros fill the gap.
        var full = SIMD8<UInt16>()
        let after = count - gap
        for i in 0..<gap { full[i] = groups[i] }
        for i in 0..<after { full[8 - after + i] = groups[gap + i] }
        return full
    }

    /// The IPv4 address at `r` of `s`: four decimal numbers of 0-255 without leading zeros.
    private static func ipv4(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, code: ErrorCode) throws(InterlockError) -> UInt32 {
        var value: UInt32 = 0
        var p = r.lowerBound
        for part in 0..<4 {
            if part > 0 {
                guard p < r.upperBound, s[p] == 0x2E else { throw InterlockError(code, "malformed IPv4 address in IP literal", offset: p) }
                p += 1
            }
            let start = p
            var n: UInt32 = 0
            while p < r.upperBound, isDigit(s[p]), p - start < 3 { n = n * 10 + UInt32(s[p] - 0x30); p += 1 }
            guard p > start, n <= 255, !(s[start] == 0x30 && p - start > 1) else {
                throw InterlockError(code, "malformed IPv4 address in IP literal", offset: start)
            }
            value = value << 8 | n
        }
        guard p == r.upperBound else { throw InterlockError(code, "malformed IPv4 address in IP literal", offset: p) }
        return value
    }

    /// Writes `groups` as RFC 5952 has it; returns the bytes written (at most 39).
    static func writeIPv6(_ groups: SIMD8<UInt16>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        // The longest run of two or more zero groups, the first of equals.
        var best = -1, bestLength = 1, i = 0
        while i < 8 {
            guard groups[i] == 0 else { i += 1; continue }
            var j = i
            while j < 8, groups[j] == 0 { j += 1 }
            if j - i > bestLength { best = i; bestLength = j - i }
            i = j
        }
        var o = 0
        i = 0
        while i < 8 {
            if i == best {
                out[o] = 0x3A; out[o + 1] = 0x3A; o += 2
                i += bestLength
                continue
            }
            if i > 0 && i != best + bestLength { out[o] = 0x3A; o += 1 }   // not right after "::"
            let g = groups[i]
            var shift = 12
            while shift > 0 && g >> UInt16(shift) == 0 { shift -= 4 }
            while shift >= 0 { out[o] = lowerHex(UInt8(g >> UInt16(shift) & 15)); o += 1; shift -= 4 }
            i += 1
        }
        return o
    }

    @inline(__always) private static func lowerHex(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x57 + v }
}
