import CPCRE2

// PCRE2 as the core uses it: compiled once, JIT-compiled, then shared read-only by every thread.

/// Options every routing regex is compiled with: anchored at the start offset (the JIT does not
/// support anchoring at match time), UTF off (paths are normalized bytes), no "$" before a final "\n".
let routingCompileOptions = UInt32(PCRE2_ANCHORED) | UInt32(PCRE2_DOLLAR_ENDONLY)

/// A compiled, JIT-compiled PCRE2 pattern. Immutable once created, so threads may share it.
final class PCRE2Code: @unchecked Sendable {
    let code: OpaquePointer
    /// Number of capture groups.
    let captureCount: Int
    /// Whether the JIT compiled it (it does on every platform PCRE2's JIT supports).
    let jitted: Bool

    /// Compiles `pattern`; a failure comes back as the PCRE2 message and offset.
    convenience init(_ pattern: [UInt8], options: UInt32 = routingCompileOptions, jit: Bool = true) throws(InterlockError) {
        var errorCode: Int32 = 0
        var errorOffset = 0
        let context = pcre2_compile_context_create_8(nil)
        defer { pcre2_compile_context_free_8(context) }
        // A deep route nests one group per segment.
        pcre2_set_parens_nest_limit_8(context, 4_000)
        let compiled = pattern.withUnsafeBufferPointer { buf in
            pcre2_compile_8(buf.baseAddress, buf.count, options, &errorCode, &errorOffset, context)
        }
        guard let compiled else {
            throw InterlockError(errorCode == 120 ? .limit : .pattern, PCRE2Code.message(errorCode), offset: errorOffset)
        }
        var jitted = false
        if jit {
            let rc = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE))
            if rc != 0 && rc != PCRE2_ERROR_JIT_BADOPTION {
                pcre2_code_free_8(compiled)
                throw InterlockError(rc == PCRE2_ERROR_NOMEMORY ? .noMemory : .limit,
                                     "JIT compilation failed: " + PCRE2Code.message(rc))
            }
            jitted = rc == 0
        }
        var count: UInt32 = 0
        pcre2_pattern_info_8(compiled, UInt32(PCRE2_INFO_CAPTURECOUNT), &count)
        self.init(code: compiled, captureCount: Int(count), jitted: jitted)
    }

    // What throws is done above, before the object is allocated: Embedded Swift's runtime never
    // frees an object whose initializer throws.
    private init(code: OpaquePointer, captureCount: Int, jitted: Bool) {
        self.code = code
        self.captureCount = captureCount
        self.jitted = jitted
    }

    deinit { pcre2_code_free_8(code) }

    /// PCRE2's text for an error code.
    static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBufferPointer { pcre2_get_error_message_8(code, $0.baseAddress, 256) }
        return n > 0 ? Array(buffer[0..<Int(n)]).string : "PCRE2 error \(code)"
    }
}

/// Checks a parameter's constraint when the route is added, so that a bad one is refused with its
/// offset in the pattern instead of failing later inside the table's regex.
enum ConstraintCheck {
    static func validate(_ regex: String, offset: Int) throws(InterlockError) {
        let bytes = Array(regex.utf8)
        if let verb = find(bytes, "(*") {
            throw InterlockError(.pattern, "backtracking verbs are not allowed in a constraint", offset: offset + verb)
        }
        if let callout = find(bytes, "(?C") {
            throw InterlockError(.pattern, "callouts are not allowed in a constraint", offset: offset + callout)
        }
        let code: PCRE2Code
        do {
            code = try PCRE2Code(bytes, options: options, jit: false)
        } catch {
            let inner = max(0, min(bytes.count, error.offset ?? 0))
            throw InterlockError(.pattern, "invalid constraint: \(error.message)", offset: offset + inner)
        }
        if code.captureCount != 0 {
            throw InterlockError(.pattern, "named groups are not allowed in a constraint", offset: offset)
        }
        // A segment is never empty, so a constraint that accepts "" is a mistake.
        let data = pcre2_match_data_create_from_pattern_8(code.code, nil)
        defer { pcre2_match_data_free_8(data) }
        var empty: UInt8 = 0
        let rc = pcre2_match_8(code.code, &empty, 0, 0, 0, data, nil)
        if rc >= 0 {
            throw InterlockError(.pattern, "constraint matches the empty string, but a segment is never empty", offset: offset)
        }
    }

    /// Whether `segment` matches the (already validated) constraint whole.
    /// - Parameters:
    ///   - regex: the constraint as written.
    ///   - segment: the segment's normalized bytes.
    ///   - limit: the most steps the match may take (PCRE2's match limit).
    /// - Throws: a `.limit` error if the match ran past `limit`.
    static func matches(_ regex: String, _ segment: [UInt8], limit: UInt32 = defaultMatchLimit) throws(InterlockError) -> Bool {
        guard let code = try? PCRE2Code(Array(regex.utf8), options: options, jit: false) else { return false }
        let data = pcre2_match_data_create_from_pattern_8(code.code, nil)
        let context = pcre2_match_context_create_8(nil)
        defer { pcre2_match_data_free_8(data); pcre2_match_context_free_8(context) }
        pcre2_set_match_limit_8(context, limit)
        let rc = segment.withUnsafeBufferPointer { pcre2_match_8(code.code, $0.baseAddress, $0.count, 0, 0, data, context) }
        if rc >= 0 { return true }
        if rc == PCRE2_ERROR_NOMATCH { return false }
        throw InterlockError(.limit, "matching stopped in constraint (\(regex)): " + PCRE2Code.message(rc))
    }

    /// How a constraint is compiled: the whole subject (a segment) must match it, and its groups
    /// capture nothing. Options rather than a wrapper around the text, which a constraint such as
    /// `\Q(\E)|(...` could close early.
    static let options = UInt32(PCRE2_ANCHORED) | UInt32(PCRE2_ENDANCHORED) | UInt32(PCRE2_NO_AUTO_CAPTURE)

    private static func find(_ bytes: [UInt8], _ needle: String) -> Int? {
        let n = Array(needle.utf8)
        guard bytes.count >= n.count else { return nil }
        var i = 0
        while i + n.count <= bytes.count {
            if bytes[i] == 0x5C { i += 2; continue }   // escaped: "\(" is a literal
            if Array(bytes[i..<(i + n.count)]) == n { return i }
            i += 1
        }
        return nil
    }
}
