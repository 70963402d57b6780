// Constraints that are one character class repeated (`\d+`, `[0-9]+`, `[a-z]+`,
// `[A-Za-z0-9_-]+`, `[0-9a-f]{8}`, `\w{2,5}`), checked by a byte test instead of a PCRE2 call.
//
// A constraint is compiled anchored at both ends, without UTF and case-sensitive (see
// `ConstraintCheck.options`), so such a regex accepts a segment exactly when its length is within
// the repetition's bounds and every byte is in the class: a byte is a character, `\d` is the ASCII
// digits and `\w` the ASCII letters, digits and `_` (PCRE2's default tables). Anything this parser
// does not recognize is left to PCRE2. A test holds the two to the same answers on random segments.

/// A set of bytes and how many of them a segment may have.
struct ByteClass: Equatable {
    /// Bit `b` of the 256-bit set: whether byte `b` is in the class.
    var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// The fewest and most bytes (`Int32.max` for no bound).
    var minimum: Int32 = 1
    var maximum: Int32 = .max

    static func == (a: ByteClass, b: ByteClass) -> Bool {
        a.bits == b.bits && a.minimum == b.minimum && a.maximum == b.maximum
    }

    /// Whether the `n` bytes at `p` are a segment the constraint accepts.
    @inline(__always) func accepts(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        guard n >= Int(minimum), n <= Int(maximum) else { return false }
        var i = 0
        while i < n {
            if !contains(p[i]) { return false }
            i += 1
        }
        return true
    }

    @inline(__always) func contains(_ b: UInt8) -> Bool {
        let word: UInt64
        switch b >> 6 {
        case 0: word = bits.0
        case 1: word = bits.1
        case 2: word = bits.2
        default: word = bits.3
        }
        return word >> UInt64(b & 63) & 1 != 0
    }

    private mutating func insert(_ b: UInt8) {
        let bit = UInt64(1) << UInt64(b & 63)
        switch b >> 6 {
        case 0: bits.0 |= bit
        case 1: bits.1 |= bit
        case 2: bits.2 |= bit
        default: bits.3 |= bit
        }
    }

    private mutating func insert(_ range: ClosedRange<UInt8>) { for b in range { insert(b) } }

    private mutating func invert() { bits = (~bits.0, ~bits.1, ~bits.2, ~bits.3) }

    /// The class a constraint's source is, if it is one character class (an escape `\d` or `\w`,
    /// `.`, or a bracket of ASCII bytes, ranges and those escapes, `^` first to negate) followed by
    /// `+` or `{n}`, `{m,}`, `{m,n}` with `m` at least 1; nil for any other regex.
    static func parse(_ source: String) -> ByteClass? {
        let s = Array(source.utf8)
        guard !s.isEmpty, s.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        var c = ByteClass()
        var i = 0
        switch s[0] {
        case 0x5C:                                       // "\d", "\w"
            guard s.count >= 2, c.insertEscape(s[1]) else { return nil }
            i = 2
        case 0x2E:                                       // ".": any byte but "\n", which no segment holds
            c.insert(0...255)
            i = 1
        case 0x5B:                                       // "[...]"
            guard let end = c.parseBracket(s, from: 1) else { return nil }
            i = end
        default:
            return nil
        }
        guard i < s.count, let (low, high) = repetition(s, from: i), low >= 1, high >= low else { return nil }
        c.minimum = low
        c.maximum = high
        return c
    }

    /// `\d` or `\w` added; false for any other escape (`\s` and the rest are left to PCRE2).
    private mutating func insertEscape(_ e: UInt8) -> Bool {
        switch e {
        case 0x64: insert(0x30...0x39)                                      // \d
        case 0x77: insert(0x30...0x39); insert(0x41...0x5A); insert(0x61...0x7A); insert(0x5F)   // \w
        default: return false
        }
        return true
    }

    /// A bracket's contents from `start` (just after "["): returns the index after its "]", or nil
    /// for anything but single bytes, ranges of them, `\d`, `\w` and escaped punctuation.
    private mutating func parseBracket(_ s: [UInt8], from start: Int) -> Int? {
        var i = start
        var negated = false
        if i < s.count, s[i] == 0x5E { negated = true; i += 1 }
        // "]" first would be a literal "]": left to PCRE2, as is an empty class.
        guard i < s.count, s[i] != 0x5D else { return nil }
        /// The single byte at `j` (a plain byte or escaped punctuation) and the index after it.
        func single(_ j: Int) -> (UInt8, Int)? {
            guard j < s.count else { return nil }
            let b = s[j]
            if b == 0x5C {
                guard j + 1 < s.count, isPunctuation(s[j + 1]) else { return nil }
                return (s[j + 1], j + 2)
            }
            guard b != 0x5B, b != 0x5D else { return nil }   // "[" (POSIX classes) left to PCRE2
            return (b, j + 1)
        }
        while i < s.count, s[i] != 0x5D {
            if s[i] == 0x5C, i + 1 < s.count, !isPunctuation(s[i + 1]) {
                guard insertEscape(s[i + 1]) else { return nil }
                i += 2
                continue
            }
            guard let (low, next) = single(i) else { return nil }
            // A range: "-" between two single bytes (a "-" last, before "]", is a byte).
            if next + 1 < s.count, s[next] == 0x2D, s[next + 1] != 0x5D {
                guard let (high, after) = single(next + 1), high >= low else { return nil }
                insert(low...high)
                i = after
            } else {
                insert(low)
                i = next
            }
        }
        guard i < s.count else { return nil }                 // no "]"
        if negated { invert() }
        return i + 1
    }

    /// The repetition at `i` that ends the source: `+`, `{n}`, `{m,}` or `{m,n}`.
    private static func repetition(_ s: [UInt8], from i: Int) -> (Int32, Int32)? {
        if s[i] == 0x2B { return i + 1 == s.count ? (1, .max) : nil }
        guard s[i] == 0x7B, s[s.count - 1] == 0x7D else { return nil }
        let inner = s[(i + 1)..<(s.count - 1)]
        func number(_ digits: ArraySlice<UInt8>) -> Int32? {
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let v = digits.reduce(0) { $0 * 10 + Int32($1 - 0x30) }
            return v <= 65_535 ? v : nil
        }
        if let comma = inner.firstIndex(of: 0x2C) {
            guard let low = number(inner[inner.startIndex..<comma]) else { return nil }
            let rest = inner[(comma + 1)...]
            if rest.isEmpty { return (low, .max) }
            guard let high = number(rest) else { return nil }
            return (low, high)
        }
        guard let n = number(inner) else { return nil }
        return (n, n)
    }

    /// ASCII punctuation: escaped, it stands for itself.
    private static func isPunctuationByte(_ b: UInt8) -> Bool {
        (b >= 0x21 && b <= 0x2F) || (b >= 0x3A && b <= 0x40) || (b >= 0x5B && b <= 0x60) || (b >= 0x7B && b <= 0x7E)
    }

    private func isPunctuation(_ b: UInt8) -> Bool { ByteClass.isPunctuationByte(b) }
}
