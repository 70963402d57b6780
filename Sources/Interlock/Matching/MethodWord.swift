/// A method in one 64-bit word, so that a leaf's check is one comparison: its bytes (at most
/// eight; every common method fits), zero-padded. Method bytes are token characters, never 0 or
/// 0xFF, so `any` and `long` are no method's word; two long methods are compared byte for byte.
/// The one encoding of methods: leaves, the lookup and the C interface (`name(of:)`) use it.
package enum MethodWord {
    /// Any method: a route that names none, or a request that gives none.
    static let any: UInt64 = 0
    /// A method longer than eight bytes.
    static let long: UInt64 = .max
    /// The common methods' words (what `Matcher.commonMethod` recognizes).
    static let get: UInt64 = 0x54_45_47, post: UInt64 = 0x54_53_4F_50, put: UInt64 = 0x54_55_50
    static let patch: UInt64 = 0x48_43_54_41_50, delete: UInt64 = 0x45_54_45_4C_45_44, head: UInt64 = 0x44_41_45_48
    static let options: UInt64 = 0x53_4E_4F_49_54_50_4F

    /// The word of a NUL-terminated method (at most nine bytes of it are read).
    package static func of(cString p: UnsafePointer<UInt8>) -> UInt64 {
        var w: UInt64 = 0
        var i = 0
        while i < 8, p[i] != 0 {
            w |= UInt64(p[i]) << UInt64(8 * i)
            i += 1
        }
        return i == 8 && p[8] != 0 ? long : w
    }

    /// The name of a common method's word, as a literal string (making one from bytes costs more
    /// than the rest of a bare resolve's bookkeeping); nil for any other word.
    package static func name(of word: UInt64) -> String? {
        switch word {
        case get: "GET"
        case post: "POST"
        case put: "PUT"
        case delete: "DELETE"
        case patch: "PATCH"
        case head: "HEAD"
        case options: "OPTIONS"
        default: nil
        }
    }

    static func of<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64 {
        if bytes.isEmpty { return any }
        if bytes.count > 8 { return long }
        var w: UInt64 = 0
        for (i, b) in bytes.enumerated() { w |= UInt64(b) << (8 * UInt64(i)) }
        return w
    }

    /// The word of the `length` method bytes at `p`, which may be read eight bytes past it.
    @inline(__always) static func at(_ p: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
        if length == 0 { return any }
        if length > 8 { return long }
        let w = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
        return length == 8 ? w : w & ((1 << (8 * UInt64(length))) - 1)
    }
}
