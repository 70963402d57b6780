import CInterlock
import Interlock

// The response a destination fills, and the result a resolve returns, as C reads them.

final class ResponseHandle {
    /// The response the handle owns, or, while it lends itself to a callback, the pipeline's own
    /// response (borrowed: changes go straight to it, with no copy in or out).
    private var owned: Response
    private var borrowed: UnsafeMutablePointer<Response>? = nil
    var response: Response {
        _read { if let borrowed { yield borrowed.pointee } else { yield owned } }
        _modify { if let borrowed { yield &borrowed.pointee } else { yield &owned } }
    }
    var errorMessage: String? = nil
    private var store: CStringStore? = nil
    init(_ response: Response = Response()) { self.owned = response }

    /// Stands for `*target` until `endBorrow`.
    func borrow(_ target: UnsafeMutablePointer<Response>) {
        borrowed = target
        if errorMessage != nil { errorMessage = nil }   // writing nil over nil still costs a release
        store?.clear()
    }

    func endBorrow() { borrowed = nil }
    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    /// ilk_response_copy's text: the status, then the headers.
    var copyText: [UInt8] {
        var text = PackedText()
        text.status(response.status)
        text.pairs(response.headers.count, response.headers) { $0.put($1.name); $0.put($1.value) }
        return text.bytes
    }

    /// A C copy of `value`, kept with the handle.
    func keep(_ value: String) -> UnsafePointer<CChar> {
        if store == nil { store = CStringStore() }
        return store!.keep(value)
    }

}

/// A result seen from C. Its C strings are made on first access: most hosts read the status and
/// the response, and converting every trace entry up front would cost more than the resolve.
final class ResultHandle {
    let resolution: Resolution
    let status: Int32
    /// The matched route's id (0: none), read once: ilk_result_route_id is read often.
    let routeID: UInt32
    /// What C asked for beyond the status and the request, made on the first such call: a field
    /// to release for the results (most) that are freed after reading the status and request.
    private var exported: Exported? = nil
    /// The request as C reads it, made on the first ilk_result_request.
    private var requestHandle: RequestHandle? = nil

    init(_ resolution: consuming Resolution) {
        routeID = resolution.request.routeID
        self.resolution = resolution
        switch resolution.status {
        case .ok: status = ILK_OK
        case .notFound: status = ILK_NOT_FOUND
        case .methodNotAllowed: status = ILK_METHOD_NOT_ALLOWED
        case .stopped: status = ILK_STOPPED
        case .guarded: status = ILK_GUARDED
        case .aborted: status = ILK_ABORTED
        case .redirectLoop: status = ILK_REDIRECT_LOOP
        case .retryLimit: status = ILK_RETRY_LIMIT
        case .error: status = ILK_ECALLBACK
        }
    }

    private var exports: Exported {
        if let exported { return exported }
        let e = Exported(self)
        exported = e
        return e
    }

    var body: UnsafeRawPointer { exports.body }
    var request: RequestHandle {
        if let requestHandle { return requestHandle }
        let h = RequestHandle(resolution.request)
        requestHandle = h
        return h
    }
    var headers: [(UnsafePointer<CChar>, UnsafePointer<CChar>)] { exports.headers }
    var allowed: [UnsafePointer<CChar>] { exports.allowed }
    var error: UnsafePointer<CChar>? { exports.error }
    var redirects: [UnsafePointer<CChar>] { exports.redirects }
    var trace: [(UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>)] { exports.trace }
    /// ilk_result_packed's text, kept as a C string with the result's other exports.
    var packed: (UnsafePointer<CChar>, Int) { exports.packed(packedText) }
    /// The size of the copy `copy(to:)` writes: the text's length (eight bytes), the text
    /// (ilk_result_packed's), then the body (see ilk_result_copy).
    var copySize: Int { 8 + packedText.count + resolution.response.body.count }

    /// Everything but the body as one NUL-separated text, made once for ilk_result_packed,
    /// `copySize` and `copy(to:)` (a host whose buffer was too small calls again): kept here, not
    /// in `Exported`, which a copy alone does not need.
    private var packedText: [UInt8] {
        if let packedTextBytes { return packedTextBytes }
        let bytes = PackedText(resolution: resolution).bytes
        packedTextBytes = bytes
        return bytes
    }
    private var packedTextBytes: [UInt8]? = nil

    /// Writes the result laid out as ilk_result_copy documents to `out` (`copySize` bytes).
    func copy(to out: UnsafeMutableRawPointer) { writeCopy(packedText, resolution.response.body, to: out) }

    /// A C copy of a state value, kept with the result.
    func state(_ key: String) -> UnsafePointer<CChar>? { exports.state(key) }

    /// The C views of one resolution, each made on first use and kept as long as the result.
    private final class Exported {
        /// The result that holds this (and so outlives it): its resolution is read in place,
        /// not copied (a copy counted a reference to each of its parts, twice).
        private unowned(unsafe) let owner: ResultHandle
        private var resolution: Resolution { _read { yield owner.resolution } }
        private let store = CStringStore()
        /// The body, copied into memory that lives as long as the result (never NULL).
        private var bodyCopy: UnsafeMutableRawPointer? = nil

        init(_ owner: ResultHandle) { self.owner = owner }

        deinit { bodyCopy?.deallocate() }

        var body: UnsafeRawPointer {
            if let bodyCopy { return UnsafeRawPointer(bodyCopy) }
            let bytes = resolution.response.body
            let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            bytes.withUnsafeBytes { if let b = $0.baseAddress { copy.copyMemory(from: b, byteCount: bytes.count) } }
            bodyCopy = copy
            return UnsafeRawPointer(copy)
        }

        lazy var headers: [(UnsafePointer<CChar>, UnsafePointer<CChar>)] =
            resolution.response.headers.map { [self] in (self.store.keep($0.name), self.store.keep($0.value)) }

        lazy var allowed: [UnsafePointer<CChar>] = {
            guard case .methodNotAllowed(let methods) = resolution.status else { return [] }
            return methods.map { [self] in store.keep($0) }
        }()

        lazy var error: UnsafePointer<CChar>? = {
            switch resolution.status {
            case .error(let message), .aborted(let message): return store.keep(message)
            default: return nil
            }
        }()

        lazy var redirects: [UnsafePointer<CChar>] = resolution.redirects.map { [self] in store.keep($0) }

        lazy var trace: [(UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>)] =
            resolution.trace.map { [self] in (store.keep($0.stage.rawValue), store.keep($0.name), store.keep($0.decision)) }

        /// `text` (ilk_result_packed's) as a NUL-terminated C string, kept from the first call.
        private var packedCString: (UnsafePointer<CChar>, Int)? = nil
        func packed(_ text: [UInt8]) -> (UnsafePointer<CChar>, Int) {
            if let packedCString { return packedCString }
            let made = (store.keep(text), text.count)
            packedCString = made
            return made
        }

        func state(_ key: String) -> UnsafePointer<CChar>? {
            resolution.state.string(key).map { store.keep($0) }
        }
    }
}

@inline(__always) func handle<T: AnyObject>(_ p: OpaquePointer?, as: T.Type) -> T? {
    guard let p else { return nil }
    return Unmanaged<T>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
}

/// Runs `body` with the object behind `p`, borrowed: the caller's handle keeps it alive for the
/// call, so no reference is taken (on paths a resolve crosses several times).
@inline(__always) func withHandle<T: AnyObject, R, E: Error>(_ p: OpaquePointer, as: T.Type, _ body: (T) throws(E) -> R) throws(E) -> R {
    try Unmanaged<T>.fromOpaque(UnsafeRawPointer(p)).withGuaranteedRef(body)
}

@inline(__always) func retained<T: AnyObject>(_ object: T) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}

@inline(__always) func release<T: AnyObject>(_ p: OpaquePointer?, as: T.Type) {
    guard let p else { return }
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(p)).release()
}
