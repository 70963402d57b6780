import CInterlock
import Interlock

// C strings: the ones handles keep alive for the caller, and the conversions of the ones it
// hands in.

/// Owns C copies of strings for as long as the handle lives (or until it is reused).
final class CStringStore {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    func keep(_ s: String) -> UnsafePointer<CChar> {
        let p = CText.copy(s)
        pointers.append(p)
        return UnsafePointer(p)
    }

    func keep(_ s: String?) -> UnsafePointer<CChar>? { s.map { keep($0) } }

    /// A NUL-terminated copy of `bytes` (which may hold NUL bytes of their own).
    func keep(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        bytes.withUnsafeBytes { if let b = $0.baseAddress { UnsafeMutableRawPointer(p).copyMemory(from: b, byteCount: bytes.count) } }
        p[bytes.count] = 0
        pointers.append(p)
        return UnsafePointer(p)
    }

    /// Frees every string kept so far.
    func clear() {
        for p in pointers { p.deallocate() }
        pointers.removeAll(keepingCapacity: true)
    }

    deinit { for p in pointers { p.deallocate() } }
}


/// A C string as a Swift String (nil for NULL), ill-formed UTF-8 replaced by U+FFFD: for
/// messages (an error's text), where a changed byte loses nothing that matters.
func string(_ p: UnsafePointer<CChar>?) -> String? {
    p.map { String(cString: $0) }
}

/// A C string the library keeps or compares as data (a pattern, name, key, value, header or URI)
/// as a Swift String (nil for NULL). Ill-formed UTF-8 is an error (`code`) naming `what` and the
/// offset where its sequence begins: `String(cString:)` would replace it with U+FFFD, changing
/// the data.
func text(_ p: UnsafePointer<CChar>?, _ what: String, code: ErrorCode = .invalidArgument) throws(InterlockError) -> String? {
    guard let p else { return nil }
    try validateUTF8(UnsafeRawBufferPointer(start: p, count: strlen(p)), what: what, code: code)
    return String(cString: p)
}

/// A key to look up (nil for NULL or ill-formed UTF-8, which no stored key holds: `text` refuses it).
func lookupKey(_ p: UnsafePointer<CChar>?) -> String? {
    (try? text(p, "key")) ?? nil
}

/// A method from C: the common ones as the core's literals, any other one copied.
func methodString(_ p: UnsafePointer<CChar>?) -> String? {
    guard let p else { return nil }
    let word = UnsafeRawPointer(p).withMemoryRebound(to: UInt8.self, capacity: 9) { MethodWord.of(cString: $0) }
    return MethodWord.name(of: word) ?? String(cString: p)
}
