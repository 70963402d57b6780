// Parses route patterns. The grammar, its limits and what is refused are stated once, in
// docs/grammar.md; the conformance data (spec/conformance) holds this parser to it.

/// The most variants a pattern's optional parts may expand to.
public let maximumPatternVariants = 64
/// The most segments one path shape may have, and the most parameters one pattern may name.
public let maximumPatternSegments = 256
/// The most parameters one segment may hold (`/:a-:b.:c` holds three).
public let maximumSegmentParameters = 8
/// The longest scheme or host a pattern may name, in bytes (a DNS name is at most 253). They are
/// matched inside the table's regexes, which PCRE2 built with 2-byte links limits to 64 KiB each:
/// a host of 70,000 bytes was accepted, then made every lookup on the router fail.
public let maximumOriginLength = 255

struct PatternParser {
    let bytes: [UInt8]
    let strictSlash: Bool
    var pos = 0
    /// Where the path begins, after the method, scheme, host and leading slash: an empty segment
    /// there is the root, not a trailing slash.
    var pathStart = 0
    /// Whether each constraint is compiled to check it (see `ConstraintCheck`): not when parsing
    /// again a pattern the router accepted (`acceptedVariants`).
    var checksConstraints = true
    /// How many optional parts enclose the one being parsed: bounded, since each level is a
    /// recursion here and in expanding the variants (100,000 levels overflowed the stack).
    var optionalDepth = 0
    var names: [String] = []

    /// A parsed sequence: segments and nested optional sequences.
    indirect enum Item {
        case segment(PatternSegment)
        case optional([Item])
    }

    static func parse(_ source: String, strictSlash: Bool) throws(InterlockError) -> RoutePattern {
        var parser = PatternParser(bytes: Array(source.utf8), strictSlash: strictSlash)
        return try parser.run(source)
    }

    /// The path shapes of a pattern a router accepted (a registered route keeps its source, not
    /// its shapes): parsed again without compiling its constraints, which were checked when it
    /// was added and took most of a removal's work.
    ///
    /// - Parameters:
    ///   - source: The pattern as written, already accepted by `parse`.
    ///   - strictSlash: As when it was accepted.
    /// - Returns: Its variants, as `parse` gave them.
    static func acceptedVariants(_ source: String, strictSlash: Bool) throws(InterlockError) -> [[PatternSegment]] {
        var parser = PatternParser(bytes: Array(source.utf8), strictSlash: strictSlash)
        parser.checksConstraints = false
        return try parser.run(source).variants
    }

    private func fail(_ message: String, _ offset: Int) -> InterlockError {
        InterlockError(.pattern, message, offset: offset)
    }

    mutating func run(_ source: String) throws(InterlockError) -> RoutePattern {
        for (i, c) in bytes.enumerated() where isControl(c) && c != 0x20 {
            throw fail("control byte in pattern", i)
        }
        var method: String? = nil
        if let space = bytes.firstIndex(of: 0x20) {
            guard space > 0 else { throw fail("pattern begins with a space", 0) }
            // "/sp ace" or "app://x y": a space in what is a path, not after a method.
            if bytes[0] == slash || bytes[0..<space].contains(slash) {
                throw fail("space in pattern path (write it as %20)", space)
            }
            for i in 0..<space where !isTokenChar(bytes[i]) {
                throw fail("invalid character in method", i)
            }
            method = Array(bytes[0..<space]).string
            pos = space + 1
            if let extra = bytes[pos...].firstIndex(of: 0x20) {
                throw fail("space in pattern path (write it as %20)", extra)
            }
        }
        let (scheme, host, port) = try parseSchemeAndHost()
        if pos < bytes.count, bytes[pos] == slash { pos += 1 }   // the leading slash is optional
        pathStart = pos
        var items: [Item] = []
        try parseSequence(into: &items, firstSegmentImplicit: true, closing: nil)
        let variants = try Self.expand(items)
        for variant in variants where variant.count > maximumPatternSegments {
            throw InterlockError(.limit, "pattern has more than \(maximumPatternSegments) segments", offset: 0)
        }
        if host?.hasPrefix("*.") == true, names.contains("host") {
            throw fail("a pattern with a wildcard host cannot name a parameter 'host': url_for takes the host by that name", 0)
        }
        return RoutePattern(source: source, method: method, scheme: scheme, host: host, port: port,
                            variants: variants, parameterNames: trimmed(names), strictSlash: strictSlash)
    }

    /// The scheme, the host (`*.` first for a wildcard of whole labels) and the port, if the
    /// pattern names them.
    private mutating func parseSchemeAndHost() throws(InterlockError) -> (String?, String?, Int?) {
        let start = pos
        guard start < bytes.count, isAlpha(bytes[start]) else { return (nil, nil, nil) }
        var j = start + 1
        while j < bytes.count, isAlpha(bytes[j]) || isDigit(bytes[j]) || bytes[j] == 0x2B || bytes[j] == 0x2D || bytes[j] == 0x2E {
            j += 1
        }
        // "scheme://" only: "name:..." without "//" is a path whose first segment has a ':'.
        guard j + 2 < bytes.count, bytes[j] == 0x3A, bytes[j + 1] == slash, bytes[j + 2] == slash else {
            return (nil, nil, nil)
        }
        guard j - start <= maximumOriginLength else {
            throw InterlockError(.limit, "scheme is longer than \(maximumOriginLength) bytes", offset: start)
        }
        let scheme = bytes[start..<j].map(lowercased)
        pos = j + 3
        let hasHost = scheme.withUnsafeBytes { schemeHasHost($0, 0..<scheme.count) }
        guard hasHost else { return (scheme.string, nil, nil) }
        let hostStart = pos
        while pos < bytes.count, bytes[pos] != slash, bytes[pos] != 0x28 { pos += 1 }
        guard pos > hostStart else { throw fail("pattern has '\(scheme.string)://' but no host", hostStart) }
        guard pos - hostStart <= maximumOriginLength else {
            throw InterlockError(.limit, "host is longer than \(maximumOriginLength) bytes", offset: hostStart)
        }
        // An IP literal ("[::1]") is the whole host, as a URI can give it; brackets go nowhere else.
        // The host is normalized as a URI's is (see `HostName`), so that it names the host a URI
        // spelling it otherwise names: its trailing dot dropped, escapes decoded, case folded.
        var nameEnd = pos
        var host: [UInt8] = []
        if bytes[hostStart] == 0x5B {
            guard let close = bytes[hostStart..<pos].firstIndex(of: 0x5D) else {
                throw fail("unterminated IP literal in host", hostStart)
            }
            nameEnd = close + 1
            if nameEnd < pos, bytes[nameEnd] != 0x3A { throw fail("an IP literal is the whole host", nameEnd) }
            host = try withBytes(bytes) { (b) throws(InterlockError) in
                try HostName.checkLiteral(b, hostStart..<nameEnd, code: .pattern)
                return [UInt8](unsafeUninitializedCapacity: nameEnd - hostStart + HostName.growth) { buffer, count in
                    count = buffer.baseAddress.map { HostName.writeLiteral(b, hostStart..<nameEnd, into: $0) } ?? 0
                }
            }
        } else {
            nameEnd = bytes[hostStart..<pos].firstIndex(of: 0x3A) ?? pos
            // "*" only as a whole first label (a wildcard of one or more labels).
            let wildcard = bytes[hostStart] == 0x2A
            let nameStart = wildcard ? hostStart + 2 : hostStart
            for i in hostStart..<nameEnd where bytes[i] == 0x2A {
                guard i == hostStart, i + 2 < nameEnd, bytes[i + 1] == 0x2E else {
                    throw fail("'*' in a host must be a whole first label ('*.example.com')", i)
                }
            }
            host = try withBytes(bytes) { (b) throws(InterlockError) in
                let (kept, _) = try HostName.checkName(b, nameStart..<nameEnd, subDelims: false, code: .pattern)
                // A name ending in a number is an IPv4 address: whole, never a wildcard's suffix.
                let address = try HostName.ipv4(b, kept, code: .pattern)
                if wildcard && address != nil {
                    throw fail("a wildcard host's suffix cannot end in a number (an IPv4 address)", nameStart)
                }
                return [UInt8](unsafeUninitializedCapacity: kept.count + HostName.growth) { buffer, count in
                    count = buffer.baseAddress.map { HostName.writeName(b, kept, into: $0) } ?? 0
                }
            }
            if wildcard { host = [0x2A, 0x2E] + host }
        }
        var port: Int? = nil
        if nameEnd < pos {      // ":" then the port
            let digits = bytes[(nameEnd + 1)..<pos]
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(isDigit),
                  let value = Int(Array(digits).string), (1...65535).contains(value) else {
                throw fail("port must be a number from 1 to 65535", nameEnd + 1)
            }
            port = value
        }
        return (scheme.string, host.string, port)
    }

    /// Parses items up to `closing` (the offset of the "(" it closes) or the end.
    private mutating func parseSequence(
        into items: inout [Item], firstSegmentImplicit: Bool, closing: Int?
    ) throws(InterlockError) {
        var expectSegment = firstSegmentImplicit
        var sawCatchAll: Int? = nil
        while true {
            if expectSegment {
                expectSegment = false
                let segmentStart = pos
                if atSegmentEnd() {
                    // An empty segment: allowed only as a trailing slash (or the root).
                    if pos > 0, bytes[pos - 1] == slash, onlyClosersFollow() {
                        if strictSlash && !(items.isEmpty && closing == nil && segmentStart <= pathStart) {
                            items.append(.segment(.literal([])))
                        }
                        continue
                    }
                    if pos >= bytes.count || bytes[pos] == 0x28 || bytes[pos] == 0x29 {
                        if items.isEmpty && closing == nil { continue }   // root, or root then an optional part
                    }
                    if pos < bytes.count, bytes[pos] == 0x28, pos > 0, bytes[pos - 1] == slash {
                        // "/a/(b)": the slash belongs inside the parentheses.
                        throw fail("an optional part must begin with '/' inside its parentheses: write '(/…)', not '/(…)'", pos)
                    }
                    throw fail("empty segment", segmentStart)
                }
                if let catchAll = sawCatchAll { throw fail("'*' must be the last segment", catchAll) }
                let segment = try parseSegment()
                if case .catchAll = segment { sawCatchAll = segmentStart }
                items.append(.segment(segment))
                continue
            }
            guard pos < bytes.count else {
                if let closing { throw fail("unbalanced '(': no matching ')'", closing) }
                return
            }
            switch bytes[pos] {
            case slash:
                pos += 1
                expectSegment = true
            case 0x28:  // "("
                let open = pos
                if let catchAll = sawCatchAll { throw fail("'*' must be the last segment", catchAll) }
                pos += 1
                guard pos < bytes.count, bytes[pos] == slash else {
                    throw fail("an optional part must begin with '/'", open)
                }
                pos += 1
                // Every level of nesting is one more variant (or none, for a lenient "(/)"): deeper
                // than the variant limit can only fail later, after deep recursion.
                guard optionalDepth < maximumPatternVariants else {
                    throw InterlockError(.limit, "optional parts nested more than \(maximumPatternVariants) deep", offset: open)
                }
                optionalDepth += 1
                var inner: [Item] = []
                try parseSequence(into: &inner, firstSegmentImplicit: true, closing: open)
                optionalDepth -= 1
                if inner.isEmpty && !strictSlash {
                    // "(/)" is an optional trailing slash: without a strict router it is no change.
                } else {
                    items.append(.optional(inner))
                }
                // A catch-all inside an optional part must still be last.
                if Self.endsWithCatchAll(inner) { sawCatchAll = open }
            case 0x29:  // ")"
                guard closing != nil else { throw fail("unbalanced ')'", pos) }
                pos += 1
                return
            default:
                throw fail("unexpected character", pos)
            }
        }
    }

    private static func endsWithCatchAll(_ items: [Item]) -> Bool {
        guard let last = items.last else { return false }
        switch last {
        case .segment(.catchAll): return true
        case .segment: return false
        case .optional(let inner): return endsWithCatchAll(inner)
        }
    }

    private func atSegmentEnd() -> Bool {
        pos >= bytes.count || bytes[pos] == slash || bytes[pos] == 0x28 || bytes[pos] == 0x29
    }

    private func onlyClosersFollow() -> Bool {
        var k = pos
        while k < bytes.count { if bytes[k] != 0x29 { return false }; k += 1 }
        return true
    }

    private mutating func parseName(after sigil: Int, allowEmpty: Bool) throws(InterlockError) -> String {
        let start = pos
        while pos < bytes.count, isAlpha(bytes[pos]) || isDigit(bytes[pos]) || bytes[pos] == 0x5F { pos += 1 }
        if pos == start {
            if allowEmpty { return "*" }
            throw fail("empty parameter name", sigil)
        }
        let name = Array(bytes[start..<pos]).string
        if names.contains(name) { throw fail("duplicate parameter name '\(name)'", sigil) }
        names.append(name)
        return name
    }

    /// A segment: literal text, parameters (`:name`, `:name(REGEX)`) and, last in the pattern, a
    /// catch-all (`*name`), in any mix, as long as two parameters have text between them. A
    /// parameter's name ends at the first byte that cannot be in a name.
    private mutating func parseSegment() throws(InterlockError) -> PatternSegment {
        let start = pos
        var pieces: [SegmentPiece] = []
        var text: [UInt8] = [], dots = 0
        var utf8 = UTF8Validator()
        func flush() throws(InterlockError) {
            guard !text.isEmpty else { return }
            if !utf8.isComplete { throw fail("literal is not valid UTF-8", utf8.sequenceStart) }
            pieces.append(.text(trimmed(text)))
            text = []
            utf8 = UTF8Validator()
        }
        while !atSegmentEnd() {
            let c = bytes[pos]
            if c == 0x3A {  // ":"
                try flush()
                let sigil = pos
                if case .parameter = pieces.last {
                    throw fail("two parameters in one segment need literal text between them", sigil)
                }
                pos += 1
                let name = try parseName(after: sigil, allowEmpty: false)
                var constraint: String? = nil
                if pos < bytes.count, bytes[pos] == 0x28, !(pos + 1 < bytes.count && bytes[pos + 1] == slash) {
                    constraint = try parseConstraint()
                }
                if pieces.count(where: { if case .parameter = $0 { true } else { false } }) == maximumSegmentParameters {
                    throw InterlockError(.limit, "a segment has more than \(maximumSegmentParameters) parameters", offset: sigil)
                }
                pieces.append(.parameter(name: name, constraint: constraint))
            } else if c == 0x2A {  // "*"
                try flush()
                let sigil = pos
                if case .parameter = pieces.last {
                    throw fail("a parameter and a catch-all need literal text between them", sigil)
                }
                pos += 1
                let name = try parseName(after: sigil, allowEmpty: true)
                if name == "*" {
                    if names.contains("*") { throw fail("duplicate parameter name '*'", sigil) }
                    names.append("*")
                }
                guard atSegmentEnd(), onlyClosersFollow() else { throw fail("'*' must be the last segment", sigil) }
                pieces.append(.catchAll(name: name))
            } else {
                try literalByte(into: &text, dots: &dots, utf8: &utf8)
            }
        }
        try flush()
        if names.count > maximumPatternSegments {
            throw InterlockError(.limit, "pattern has more than \(maximumPatternSegments) parameters", offset: start)
        }
        guard pieces.count == 1, let only = pieces.first else { return .mixed(pieces) }
        switch only {
        case .parameter(let name, let constraint): return .parameter(name: name, constraint: constraint)
        case .catchAll(let name): return .catchAll(name: name)
        case .text(let t):
            if dots == t.count && (dots == 1 || dots == 2) {
                throw fail("'.' and '..' segments never match: URIs are normalized without them", start)
            }
            return .literal(t)
        }
    }

    /// Reads "(REGEX)" with balanced parentheses, honouring escapes and character classes.
    private mutating func parseConstraint() throws(InterlockError) -> String {
        let open = pos
        pos += 1
        var depth = 1
        var inClass = false
        let bodyStart = pos
        while pos < bytes.count {
            let c = bytes[pos]
            if c == 0x5C { pos += 2; continue }   // "\x"
            if inClass {
                if c == 0x5D { inClass = false }
            } else if c == 0x5B {
                inClass = true
                // "[]" and "[^]" take a literal "]" first.
                if pos + 1 < bytes.count, bytes[pos + 1] == 0x5E { pos += 1 }
                if pos + 1 < bytes.count, bytes[pos + 1] == 0x5D { pos += 1 }
            } else if c == 0x28 {
                depth += 1
            } else if c == 0x29 {
                depth -= 1
                if depth == 0 { break }
            }
            pos += 1
        }
        guard pos < bytes.count, depth == 0 else { throw fail("unbalanced '(' in constraint", open) }
        var body = Array(bytes[bodyStart..<pos])
        pos += 1
        var bodyOffset = bodyStart
        // Anchors are implied (a constraint matches the whole segment): allow and drop them.
        if body.first == 0x5E { body.removeFirst(); bodyOffset += 1 }
        if body.last == 0x24, body.count < 2 || body[body.count - 2] != 0x5C { body.removeLast() }
        if body.isEmpty { throw fail("empty constraint", open) }
        if checksConstraints { try ConstraintCheck.validate(body.string, offset: bodyOffset) }
        return body.string
    }

    /// Reads one byte of literal text (or an escape: "\\x", or a percent-escape), normalized as
    /// a URI's path is, into `out`.
    private mutating func literalByte(into out: inout [UInt8], dots: inout Int, utf8: inout UTF8Validator) throws(InterlockError) {
        var c = bytes[pos]
        if c == 0x5C {  // "\" escapes the next byte
            guard pos + 1 < bytes.count else { throw fail("'\\' at the end of the pattern", pos) }
            pos += 1
            c = bytes[pos]
        } else if c == 0x3F || c == 0x23 {
            throw fail("'\(c == 0x3F ? "?" : "#")' in a pattern: patterns match paths only", pos)
        } else if c == percent {
            guard pos + 2 < bytes.count, let h = hexValue(bytes[pos + 1]), let l = hexValue(bytes[pos + 2]) else {
                throw fail("bad percent-escape", pos)
            }
            let v = h << 4 | l
            if v == 0 { throw fail("percent-escape decodes to NUL", pos) }
            guard utf8.feed(v, at: pos) else { throw fail("literal is not valid UTF-8 once decoded", utf8.sequenceStart) }
            append(v, escapedInput: true, to: &out, dots: &dots)
            pos += 3
            return
        }
        guard utf8.feed(c, at: pos) else { throw fail("literal is not valid UTF-8", utf8.sequenceStart) }
        append(c, escapedInput: false, to: &out, dots: &dots)
        pos += 1
    }

    private func append(_ c: UInt8, escapedInput: Bool, to out: inout [UInt8], dots: inout Int) {
        if c == 0x2E { dots += 1 }
        if escapedInput ? isUnreserved(c) : isPathChar(c) {
            out.append(c)
        } else {
            out.append(percent); out.append(upperHex[Int(c >> 4)]); out.append(upperHex[Int(c & 15)])
        }
    }

    /// Every combination of optional parts, shortest first.
    static func expand(_ items: [Item]) throws(InterlockError) -> [[PatternSegment]] {
        var results: [[PatternSegment]] = [[]]
        for item in items {
            switch item {
            case .segment(let s):
                for i in results.indices { results[i].append(s) }
            case .optional(let inner):
                let innerVariants = try expand(inner)
                var next: [[PatternSegment]] = []
                for r in results {
                    next.append(r)
                    for v in innerVariants { next.append(r + v) }
                }
                if next.count > maximumPatternVariants {
                    throw InterlockError(.limit, "optional parts expand to more than \(maximumPatternVariants) variants", offset: 0)
                }
                results = next
            }
        }
        // Dedupe ("(/)" on a lenient router adds nothing) while keeping order.
        var seen: [[PatternSegment]] = []
        for r in results where !seen.contains(r) { seen.append(r) }
        return trimmed(seen.map(trimmed))   // kept for the route's life: no spare capacity
    }
}

/// `array` with no spare capacity (arrays grown by appending keep up to twice what they hold).
func trimmed<T>(_ array: [T]) -> [T] {
    guard array.capacity > array.count else { return array }
    return [T](unsafeUninitializedCapacity: array.count) { buffer, count in
        _ = buffer.initialize(from: array)
        count = array.count
    }
}
