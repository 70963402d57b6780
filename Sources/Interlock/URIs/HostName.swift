// A host, checked and normalized so that the spellings the DNS takes for one name are one host
// (RFC 3986 6.2.2): a route on a host cannot be passed by by spelling its host otherwise.
//
//   - a name: escapes are decoded (each must decode to a byte a name may hold: unreserved or a
//     sub-delim; anything else, non-ASCII included, is refused), letters lower-cased, one
//     trailing dot dropped; an empty label (`a..b`, `.a`, `a..`) is refused;
//   - a name whose last label is a number (decimal, or hex after "0x") is an IPv4 address, as
//     resolvers and the WHATWG URL parser read it (`127.1`, `0x7f.0.0.1`, `2130706433`, `0177.0.0.1`
//     are `127.0.0.1`): written in dotted decimal, or refused if it is not one;
//   - an IPv6 literal: written as RFC 5952 has it (lower case, no leading zeros, the longest run
//     of two or more zero groups, the first of equals, as "::"; an embedded IPv4 as two groups);
//     a zone identifier (`%25eth0`) is refused;
//   - an IPvFuture literal (`[v1.x]`): checked, lower-cased.

/// Checks and writes hosts, for the URI parser (`ErrorCode.uri`) and the pattern parser
/// (`ErrorCode.pattern`) alike.
enum HostName {
    /// A bound on the bytes a normalized host may take beyond its raw spelling: an IPv4 address
    /// is written in at most fifteen bytes ("255.255.255.255") and spelled in at least one ("0"
    /// is "0.0.0.0"); an IPv6 literal that compressed a single zero group ("1::2:3:4:5:6:7")
    /// grows by one ("1:0:2:3:4:5:6:7").
    static let growth = 14

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

    /// The byte at `p` of the name at `r` of `s`, decoded if an escape, and where the next begins.
    @inline(__always) private static func decoded(_ s: UnsafeRawBufferPointer, _ p: Int, _ r: Range<Int>) -> (UInt8, Int) {
        if s[p] == percent, p + 2 < r.upperBound, let h = hexValue(s[p + 1]), let l = hexValue(s[p + 2]) {
            return (h << 4 | l, p + 3)
        }
        return (s[p], p + 1)
    }

    /// The IPv4 address the name at `r` of `s` (checked by `checkName`, its trailing dot dropped)
    /// is, as the WHATWG URL parser reads one: nil unless its last label is a number (decimal
    /// digits, or "0x" and hex digits); then one to four labels, each decimal, hex after "0x" or
    /// octal after "0", all but the last at most 255 and the last filling the bytes left.
    ///
    /// - Throws: `code` for a name that ends in a number but is no IPv4 address.
    static func ipv4(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, code: ErrorCode) throws(InterlockError) -> UInt32? {
        // The last label: where it starts, and whether it is a number.
        var p = r.lowerBound, last = r.lowerBound
        while p < r.upperBound {
            let (c, next) = decoded(s, p, r)
            if c == 0x2E { last = next }
            p = next
        }
        guard try number(s, last..<r.upperBound, code: code, label: false) != nil else { return nil }
        var value: UInt64 = 0, parts = 0
        var start = r.lowerBound
        p = r.lowerBound
        while true {
            let end = p == r.upperBound
            let (c, next) = end ? (0x2E, p) : decoded(s, p, r)
            if c == 0x2E {
                parts += 1
                guard parts <= 4, let n = try number(s, start..<p, code: code, label: true) else {
                    throw InterlockError(code, "host ends in a number but is not an IPv4 address", offset: start)
                }
                if end {
                    // The last number fills the bytes the others left.
                    guard n < UInt64(1) << (8 * (5 - parts)) else {
                        throw InterlockError(code, "IPv4 address in host is out of range", offset: start)
                    }
                    return UInt32(truncatingIfNeeded: value << (8 * (5 - parts)) | n)
                }
                guard n <= 255 else { throw InterlockError(code, "IPv4 address in host is out of range", offset: start) }
                value = value << 8 | n
                p = next
                start = next
                continue
            }
            p = next
        }
    }

    /// The number the label at `r` of `s` spells (decimal; hex after "0x"; octal after "0" if it
    /// is a whole `label` of the address: the last label counts as a number either way), or nil.
    /// Past 2^32 it stays there: no address part is that large.
    private static func number(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, code: ErrorCode, label: Bool) throws(InterlockError) -> UInt64? {
        guard !r.isEmpty else { return nil }
        var p = r.lowerBound
        var (c, next) = decoded(s, p, r)
        var radix: UInt64 = 10
        if c == 0x30, next < r.upperBound {
            let (x, after) = decoded(s, next, r)
            if x | 0x20 == 0x78 { radix = 16; p = after } else { radix = label ? 8 : 10; p = next }
        }
        var value: UInt64 = 0
        while p < r.upperBound {
            (c, next) = decoded(s, p, r)
            guard let d = hexValue(c), UInt64(d) < radix else {
                return nil
            }
            value = min(value * radix + UInt64(d), UInt64(1) << 33)
            p = next
        }
        return value
    }

    /// Writes `address` in dotted decimal to `out`; returns the bytes written (at most 15).
    static func writeIPv4(_ address: UInt32, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var o = 0
        for k in 0..<4 {
            if k > 0 { out[o] = 0x2E; o += 1 }
            let b = UInt8(truncatingIfNeeded: address >> (24 - 8 * k))
            if b >= 100 { out[o] = 0x30 + b / 100; o += 1 }
            if b >= 10 { out[o] = 0x30 + b / 10 % 10; o += 1 }
            out[o] = 0x30 + b % 10; o += 1
        }
        return o
    }

    /// Whether the name at `r` of `s` is `address` written in dotted decimal already.
    static func isDotted(_ address: UInt32, _ s: UnsafeRawBufferPointer, _ r: Range<Int>) -> Bool {
        guard r.count <= 15 else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15) { buffer in
            guard let out = buffer.baseAddress else { return false }
            let n = writeIPv4(address, into: out)
            return n == r.count && (0..<n).allSatisfy { out[$0] == s[r.lowerBound + $0] }
        }
    }

    /// Writes the name at `r` of `s` (checked by `checkName`, its trailing dot dropped) decoded
    /// and lower-cased to `out`, or as the IPv4 address it is; returns the bytes written (at most
    /// `r.count + growth`).
    static func writeName(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        if let address = try? ipv4(s, r, code: .uri) { return writeIPv4(address, into: out) }
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
                let v4 = try dottedQuad(s, p..<end, code: code)
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
    private static func dottedQuad(_ s: UnsafeRawBufferPointer, _ r: Range<Int>, code: ErrorCode) throws(InterlockError) -> UInt32 {
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
