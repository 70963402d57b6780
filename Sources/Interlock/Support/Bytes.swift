// Byte-level helpers shared by the pattern parser and the URI normalizer. Everything here works on
// UTF-8 bytes: URIs are byte strings, and String's Unicode machinery would cost on every lookup.

@usableFromInline let slash: UInt8 = 0x2F
@usableFromInline let percent: UInt8 = 0x25
@usableFromInline let newline: UInt8 = 0x0A

@inline(__always) func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
@inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

/// RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~". Escapes of these are decoded.
@inline(__always) func isUnreserved(_ c: UInt8) -> Bool {
    isAlpha(c) || isDigit(c) || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
}

/// Characters that may stand unescaped in a normalized path segment: unreserved, sub-delims, ":" and "@".
@inline(__always) func isPathChar(_ c: UInt8) -> Bool {
    if isUnreserved(c) { return true }
    switch c {
    case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D, 0x3A, 0x40: return true
    default: return false
    }
}

/// A control byte (C0 or DEL): never accepted in a URI or a pattern.
@inline(__always) func isControl(_ c: UInt8) -> Bool { c < 0x20 || c == 0x7F }

@inline(__always) func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: return c &- 0x30
    case 0x41...0x46: return c &- 0x41 &+ 10
    case 0x61...0x66: return c &- 0x61 &+ 10
    default: return nil
    }
}

@usableFromInline let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

@inline(__always) func lowercased(_ c: UInt8) -> UInt8 { (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c }

/// HTTP token characters (RFC 9110), the alphabet of methods.
func isTokenChar(_ c: UInt8) -> Bool {
    if isAlpha(c) || isDigit(c) { return true }
    switch c {
    case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
    default: return false
    }
}

/// Incremental UTF-8 validation (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
struct UTF8Validator {
    private var needed = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Feeds one byte; false when the sequence so far can no longer be valid UTF-8.
    @inline(__always) mutating func feed(_ b: UInt8) -> Bool {
        if needed == 0 {
            switch b {
            case 0x00...0x7F: return true
            case 0xC2...0xDF: needed = 1
            case 0xE0: needed = 2; lower = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: needed = 2
            case 0xED: needed = 2; upper = 0x9F
            case 0xF0: needed = 3; lower = 0x90
            case 0xF1...0xF3: needed = 3
            case 0xF4: needed = 3; upper = 0x8F
            default: return false
            }
            return true
        }
        guard b >= lower && b <= upper else { return false }
        lower = 0x80; upper = 0xBF
        needed -= 1
        return true
    }

    /// True when no multi-byte sequence is left open.
    var isComplete: Bool { needed == 0 }

    /// Where the sequence being checked began (what `feed(_:at:)` was given with its first
    /// byte): the offset an error names, rather than where the sequence went wrong.
    private(set) var sequenceStart = 0

    /// `feed(_:)` for the byte at `offset` of the input (for an escape, where its "%" is).
    @inline(__always) mutating func feed(_ b: UInt8, at offset: Int) -> Bool {
        if needed == 0 { sequenceStart = offset }
        return feed(b)
    }

    /// Whether the sequence being checked began with an escape.
    private var escapedSequence = false

    /// `feed(_:at:)` for a URI, where a sequence must be all bytes or all escapes: a byte and
    /// escapes together ("\u{DB}%8F") decode to UTF-8, but the URI is not UTF-8 text.
    @inline(__always) mutating func feed(_ b: UInt8, at offset: Int, escaped: Bool) -> Bool {
        if needed == 0 {
            sequenceStart = offset
            escapedSequence = escaped
        } else if escaped != escapedSequence {
            return false
        }
        return feed(b)
    }
}

/// Decodes percent-escapes (and, for query strings, "+" as a space) of already validated bytes.
func percentDecoded(_ bytes: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool = false) -> String {
    var out = [UInt8]()
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
        let c = bytes[i]
        if c == percent, i + 2 < bytes.count,
           let h = hexValue(bytes[i + 1]), let l = hexValue(bytes[i + 2]) {
            out.append(h << 4 | l)
            i += 3
            continue
        }
        out.append(plusIsSpace && c == 0x2B ? 0x20 : c)
        i += 1
    }
    return String(decoding: out, as: UTF8.self)
}

extension Array where Element == UInt8 {
    /// The bytes as a String (they are valid UTF-8 wherever this is used).
    var string: String { String(decoding: self, as: UTF8.self) }
}

/// `withUnsafeBytes` for a body with typed throws (the standard library's is untyped `rethrows`).
func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(InterlockError) -> R) throws(InterlockError) -> R {
    let result: Result<R, InterlockError> = bytes.withUnsafeBytes { p in
        Result { () throws(InterlockError) -> R in try body(p) }
    }
    return try result.get()
}

/// `withBytes` for a string's UTF-8, without copying it into an array (a native string is
/// contiguous; a small one is copied to the stack).
func withBytes<R>(_ string: String, _ body: (UnsafeRawBufferPointer) throws(InterlockError) -> R) throws(InterlockError) -> R {
    var string = string
    let result: Result<R, InterlockError> = string.withUTF8 { p in
        Result { () throws(InterlockError) -> R in try body(UnsafeRawBufferPointer(p)) }
    }
    return try result.get()
}

/// Checks that `bytes` are valid UTF-8; the error names `what` and the offset of the first bad byte.
///
/// - Parameters:
///   - bytes: The bytes to check.
///   - what: What the bytes are, for the message ("a route name"): the message is
///     "\(what) is not valid UTF-8".
///   - code: The code of the error thrown.
/// - Throws: ``InterlockError`` with `code`, its offset where the ill-formed sequence begins (an
///   incomplete sequence at the end included).
public func validateUTF8(_ bytes: UnsafeRawBufferPointer, what: String, code: ErrorCode) throws(InterlockError) {
    var v = UTF8Validator()
    for (i, b) in bytes.enumerated() {
        guard v.feed(b, at: i) else { throw InterlockError(code, "\(what) is not valid UTF-8", offset: v.sequenceStart) }
    }
    if !v.isComplete { throw InterlockError(code, "\(what) is not valid UTF-8", offset: v.sequenceStart) }
}

/// Whether `n` bytes at `a` and `b` are equal, by overlapping word loads (paths and methods are
/// short, and a call to memcmp costs more than comparing them here).
@inline(__always) func sameBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    @inline(__always) func word<T: FixedWidthInteger>(_ p: UnsafePointer<UInt8>, _ at: Int, _: T.Type) -> T {
        UnsafeRawPointer(p + at).loadUnaligned(as: T.self)
    }
    if n >= 8 {
        var i = 0
        while i + 8 < n {
            if word(a, i, UInt64.self) != word(b, i, UInt64.self) { return false }
            i += 8
        }
        return word(a, n - 8, UInt64.self) == word(b, n - 8, UInt64.self)
    }
    if n >= 4 {
        return word(a, 0, UInt32.self) == word(b, 0, UInt32.self) && word(a, n - 4, UInt32.self) == word(b, n - 4, UInt32.self)
    }
    for i in 0..<n where a[i] != b[i] { return false }
    return true
}

/// Whether `n` bytes at `s`, ASCII-lower-cased, equal `key` (stored lower-cased): the comparison
/// of a case-insensitive router's literals and paths.
@inline(__always) func sameBytesFolded(_ key: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ n: Int) -> Bool {
    for j in 0..<n where key[j] != lowercased(s[j]) { return false }
    return true
}

/// The bytes of `w` (eight bytes read little-endian) equal to `a` or `b`, as the top bit of each
/// such byte; zero for none. The lowest bit set is exact (a byte above a match may be flagged by
/// the borrow out of it), so the first match is at `trailingZeroBitCount / 8`: the word-at-a-time
/// scans of paths and segments.
@inline(__always) func bytesEqual(_ w: UInt64, _ a: UInt8, or b: UInt8) -> UInt64 {
    let x = w ^ (0x0101_0101_0101_0101 &* UInt64(a)), y = w ^ (0x0101_0101_0101_0101 &* UInt64(b))
    return ((x &- 0x0101_0101_0101_0101) & ~x | (y &- 0x0101_0101_0101_0101) & ~y) & 0x8080_8080_8080_8080
}
