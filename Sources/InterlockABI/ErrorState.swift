import CLibc
import CInterlock
import Interlock

// The last error of each thread, for ilk_errmsg and ilk_erroffset.

final class ErrorState {
    static let capacity = 1024
    let message: UnsafeMutablePointer<CChar>
    var offset = 0
    /// Without an offset, ilk_erroffset answers ILK_NO_OFFSET.
    var hasOffset = false

    init() {
        message = .allocate(capacity: ErrorState.capacity)
        set("not an error")
    }

    deinit { message.deallocate() }

    func set(_ text: String) {
        var n = 0
        for b in text.utf8 {
            if n == ErrorState.capacity - 1 { break }
            message[n] = CChar(bitPattern: b); n += 1
        }
        message[n] = 0
    }
}

private let errorStates = ThreadLocal { ErrorState() }

/// This thread's last error.
func errorState() -> ErrorState { errorStates.value }

/// Records `error` as this thread's last error and returns its status code.
func fail(_ error: InterlockError) -> Int32 {
    let s = errorState()
    s.set(error.message)
    s.hasOffset = error.offset != nil
    s.offset = error.offset ?? 0
    return status(error.code)
}

/// The header's status code for an error's kind.
func status(_ code: ErrorCode) -> Int32 {
    switch code {
    case .invalidArgument: ILK_EINVAL
    case .pattern: ILK_EPATTERN
    case .conflict: ILK_ECONFLICT
    case .uri: ILK_EURI
    case .noMemory: ILK_ENOMEM
    case .limit: ILK_ELIMIT
    case .unknownRoute: ILK_ENOROUTE
    case .callback: ILK_ECALLBACK
    }
}

/// A callback's return value for a message: the header's name and the number ("ILK_NOT_FOUND (1)"),
/// or the number alone when the header names no such value.
func statusName(_ rc: Int32) -> String {
    let name: String? = switch rc {
    case ILK_OK: "ILK_OK"
    case ILK_NOT_FOUND: "ILK_NOT_FOUND"
    case ILK_METHOD_NOT_ALLOWED: "ILK_METHOD_NOT_ALLOWED"
    case ILK_STOPPED: "ILK_STOPPED"
    case ILK_GUARDED: "ILK_GUARDED"
    case ILK_ABORTED: "ILK_ABORTED"
    case ILK_REDIRECT_LOOP: "ILK_REDIRECT_LOOP"
    case ILK_RETRY_LIMIT: "ILK_RETRY_LIMIT"
    case ILK_REDIRECTED: "ILK_REDIRECTED"
    case ILK_RETRYING: "ILK_RETRYING"
    case ILK_STOP: "ILK_STOP"
    case ILK_REDIRECT: "ILK_REDIRECT"
    case ILK_ABORT: "ILK_ABORT"
    case ILK_RETRY: "ILK_RETRY"
    default: nil
    }
    return name.map { "\($0) (\(rc))" } ?? "\(rc)"
}

/// Records an invalid-argument error naming the argument.
func invalid(_ what: String) -> Int32 {
    fail(InterlockError(.invalidArgument, what))
}


// C's size_t arrives as Int, as Swift imports it (the exports take the header's types exactly:
// HeaderCheck.swift); the library counts in Int. A size_t past Int.max arrives negative: no array
// or buffer holds that many elements, so it is either a capacity (room enough) or a mistake.

/// A capacity the caller gives (bytes it has room for): past `Int.max` (negative) is room enough.
@inline(__always) func capacity(_ n: Int) -> Int { n < 0 ? Int.max : n }

/// A count or length of memory the caller hands over, nil past `Int.max` (negative: no such
/// memory exists): the caller answers with `tooLarge`.
@inline(__always) func size(_ n: Int) -> Int? { n < 0 ? nil : n }

/// Whether `i`, a size_t index the caller gives, is one of `count` elements' (past `Int.max`,
/// negative here, it is not).
@inline(__always) func isIndex(_ i: Int, below count: Int) -> Bool { i >= 0 && i < count }

/// A size_t the caller gave, as C reads it, for a message.
func sizeT(_ n: Int) -> UInt { UInt(bitPattern: n) }

/// `body`'s status, or the status of the error it throws (recorded for `ilk_errmsg`).
@inline(__always) func checked(_ body: () throws(InterlockError) -> Int32) -> Int32 {
    do { return try body() } catch { return fail(error) }
}

/// The invalid-argument error for a size no memory has.
func tooLarge(_ what: String, _ n: Int) -> Int32 { invalid("\(what) \(sizeT(n)) is larger than any array or buffer") }

/// The end of the `_copy` calls (ilk_match_batch_copy, ilk_result_copy): `*needed` is set to
/// `total`; then `write` fills `out`, unless it holds fewer than `total` bytes (ILK_ELIMIT,
/// nothing written: the caller asks again with a larger buffer) or is NULL.
func copyOut(_ total: Int, of what: String, to out: UnsafeMutableRawPointer?, _ room: Int,
             _ needed: UnsafeMutablePointer<Int>?, _ write: (UnsafeMutableRawPointer) -> Void) -> Int32 {
    let outLength = capacity(room)
    needed?.pointee = total
    guard outLength >= total else {
        return fail(InterlockError(.limit, "out holds \(outLength) bytes; \(what) needs \(total)"))
    }
    guard let out else { return invalid("out is NULL") }
    write(out)
    return ILK_OK
}
