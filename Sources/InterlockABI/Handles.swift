import Interlock
import Synchronization

// The objects behind the opaque C handles. They only hold and convert: every rule lives in the
// Interlock module.

public typealias DestinationFn = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
public typealias FreeFn = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// C userdata with its free function: freed exactly once, by `dispose()` or when the last
/// reference goes.
final class Userdata: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    private let freeFn: FreeFn?
    private let disposed = Atomic<Bool>(false)

    init(_ pointer: UnsafeMutableRawPointer?, free: FreeFn?) {
        self.pointer = pointer
        self.freeFn = free
    }

    func dispose() {
        if disposed.exchange(true, ordering: .acquiringAndReleasing) { return }
        freeFn?(pointer)
    }

    deinit { dispose() }
}

/// A C destination with its userdata. Who frees the userdata holds it apart, as a `Userdata`
/// (the router handle's list, or its default's slot): a route's callback is then one object of
/// three fields (a 48-byte allocation for every route).
final class CCallback: @unchecked Sendable {
    let function: DestinationFn
    let pointer: UnsafeMutableRawPointer?
    /// Every thread's handle pool, read here rather than from the global at each call (see
    /// `handlePools`). A field, not a capture: a closure capturing `self` alone uses it as its
    /// context, where one capturing a second value allocates a box for every route.
    private let pools = handlePools

    init(function: DestinationFn, userdata: UnsafeMutableRawPointer?) {
        self.function = function
        self.pointer = userdata
    }

    /// The callback as a Swift destination that holds `owner` (its userdata's) as long as it lives.
    func destination(keeping owner: Userdata?) -> Destination {
        guard let owner else { return destination }
        let destination = destination
        return { request, response in try withExtendedLifetime(owner) { try destination(request, &response) } }
    }

    /// The callback as a Swift destination.
    var destination: Destination {
        { [self] request, response in
            try pools.with { pool in try pool.lending(request) { req in
                try pool.borrowing(&response) { res in
                    let rc = function(req.opaque, res.opaque, pointer)
                    if rc != 0 {
                        throw CallbackError(message: res.errorMessage ?? req.errorMessage ?? "destination returned \(rc)")
                    }
                }
            } }
        }
    }
}

struct CallbackError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

final class RouterHandle {
    let router: Router
    /// Userdata of every route, freed when the router is.
    let userdata = Mutex<[Userdata]>([])
    /// The userdata of the default destination, freed when the router is (or, once replaced,
    /// when nothing runs it: the destination holds it too).
    let defaultUserdata = Mutex<Userdata?>(nil)
    /// Numbers unnamed filters.
    let filterCount = Atomic<Int>(0)

    init(_ router: Router) { self.router = router }

    deinit {
        for u in userdata.withLock({ $0 }) { u.dispose() }
        defaultUserdata.withLock { $0?.dispose() }
    }
}

final class MatchHandle {
    let matcher = Matcher(preallocate: true)
    /// Where ilk_router_match_packed writes parameters: the caller's buffer (ilk_match_set_buffer).
    var buffer: UnsafeMutablePointer<CChar>? = nil
    var bufferCapacity = 0

    /// The length of the last match's parameters packed as "name\0value\0..."; written into the
    /// buffer only if they fit.
    func pack() -> Int { matcher.packParameters(into: buffer, capacity: bufferCapacity) }
}

/// Owns C copies of strings for as long as the handle lives (or until it is reused).
final class CStringStore {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    func keep(_ s: String) -> UnsafePointer<CChar> {
        var s = s
        let p = s.withUTF8 { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            if let b = bytes.baseAddress { UnsafeMutableRawPointer(p).copyMemory(from: b, byteCount: bytes.count) }
            p[bytes.count] = 0
            return p
        }
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

/// A request seen from C: its strings are converted on first use and kept with the handle (so a
/// pointer handed out stays valid as long as the handle, even after the request changes).
final class RequestHandle {
    /// The request the handle owns, or, while it lends itself to a request interceptor, the
    /// pipeline's own request (borrowed: changes go straight to it).
    private var owned: Request
    private var borrowed: UnsafeMutablePointer<Request>? = nil
    /// Whether the borrowed request is to be read only: a change then goes to a copy the handle
    /// owns (as a filter's changes go to the request it passes on, not to the pipeline's).
    private var readOnly = false
    var request: Request {
        _read { if let borrowed { yield borrowed.pointee } else { yield owned } }
        _modify {
            if readOnly, let target = borrowed {
                owned = target.pointee      // the first change: from here on the handle's own copy
                borrowed = nil
            }
            if let borrowed { yield &borrowed.pointee } else { yield &owned }
        }
    }
    /// Calls `body` with the request; a borrowed one is not copied (see `Request.withBorrowed`).
    func withRequest<R>(_ body: (Request) throws -> R) rethrows -> R {
        if let borrowed { return try Request.withBorrowed(borrowed, body) }
        return try body(owned)
    }
    var errorMessage: String? = nil { didSet { used = true } }
    /// Whether a callback asked for anything (strings, caches, an error): only then does reuse
    /// have something to reset.
    private var used = false
    /// Made on the first string a callback asks for: most ask for none.
    private var store: CStringStore? = nil
    private var fields: [UnsafePointer<CChar>?]? = nil
    private var parameters: [(UnsafePointer<CChar>, UnsafePointer<CChar>)]? = nil
    private var queryPairs: [(UnsafePointer<CChar>, UnsafePointer<CChar>)]? = nil
    // The request makes these strings each time they are read: made once per handle.
    private var parameterCache: [(name: String, value: String)]? = nil
    private var queryCache: QueryItems? = nil

    init(_ request: Request) { self.owned = request }

    /// The request's parameters, made once.
    var parameterList: [(name: String, value: String)] {
        if let c = parameterCache { return c }
        let c = request.parameters
        parameterCache = c
        used = true
        return c
    }

    /// The request's query, made once.
    var queryItems: QueryItems {
        if let c = queryCache { return c }
        let c = request.query
        queryCache = c
        used = true
        return c
    }

    /// Stands for `*target` until `endBorrow`, freeing what the handle handed out before (the pool
    /// reuses handles once the callback they were given to has returned).
    func borrow(_ target: UnsafeMutablePointer<Request>) {
        borrowed = target
        readOnly = false
        resetIfUsed()
    }

    /// Stands for `*target`, which it never changes, until `endBorrow` (as `borrow(_:)`).
    func borrow(readOnly target: UnsafePointer<Request>) {
        borrowed = UnsafeMutablePointer(mutating: target)
        readOnly = true
        resetIfUsed()
    }

    func endBorrow() { borrowed = nil }

    private func resetIfUsed() {
        guard used else { return }
        errorMessage = nil
        fields = nil
        parameters = nil
        queryPairs = nil
        parameterCache = nil
        queryCache = nil
        store?.clear()
        used = false
    }

    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    enum Field: Int { case uri, method, scheme, host, port, path, fragment, pattern }

    /// A NUL-terminated copy of `bytes`, kept with the handle.
    func keep(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
        if store == nil { store = CStringStore() }
        used = true
        return store!.keep(bytes)
    }

    /// A C copy of `value`, kept with the handle.
    func keep(_ value: String?) -> UnsafePointer<CChar>? {
        guard let value else { return nil }
        if store == nil { store = CStringStore() }
        used = true
        return store?.keep(value)
    }

    func field(_ f: Field) -> UnsafePointer<CChar>? {
        if let p = fields?[f.rawValue] { return p }
        let value: String?
        switch f {
        case .uri: value = request.uri
        case .method: value = request.method
        case .scheme: value = request.scheme
        case .host: value = request.host
        case .port: value = request.port
        case .path: value = request.path
        case .fragment: value = request.fragment
        case .pattern: value = request.route?.pattern.source
        }
        let p = keep(value)
        if fields == nil { fields = Array(repeating: nil, count: 8) }
        fields?[f.rawValue] = p
        return p
    }

    func parameter(_ i: Int) -> (UnsafePointer<CChar>, UnsafePointer<CChar>)? {
        if parameters == nil { parameters = parameterList.map { (keep($0.name)!, keep($0.value)!) } }
        guard let parameters, i < parameters.count else { return nil }
        return parameters[i]
    }

    func query(_ i: Int) -> (UnsafePointer<CChar>, UnsafePointer<CChar>)? {
        if queryPairs == nil { queryPairs = queryItems.items.map { (keep($0.key)!, keep($0.value)!) } }
        guard let queryPairs, i < queryPairs.count else { return nil }
        return queryPairs[i]
    }

    func parametersChanged() { parameters = nil; parameterCache = nil; used = true }

    /// The request as one NUL-separated text (see ilk_request_packed), kept with the handle.
    func packed() -> (UnsafePointer<CChar>, Int) {
        var text = PackedText()
        text.request(request)
        return (keep(text.bytes), text.bytes.count)
    }
}

/// Text for hosts that pay per call (ilk_request_packed, ilk_result_packed): fields separated by
/// NUL bytes; an optional field is '1' and its value, or '0' alone; a list is its count, then its
/// items.
struct PackedText {
    /// The text as bytes: appending a string's UTF-8 to an array is a copy, where appending to a
    /// string and converting counts to strings cost more than the resolve itself.
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func put(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(0)
    }
    mutating func field(_ s: String?) {
        if let s { bytes.append(0x31); put(s) } else { bytes.append(0x30); bytes.append(0) }
    }
    /// A count (not negative), in decimal.
    mutating func number(_ n: Int) {
        var divisor = 1
        while divisor <= n / 10 { divisor *= 10 }
        var rest = n
        while divisor > 0 {
            bytes.append(0x30 + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
        bytes.append(0)
    }
    /// A response status, in decimal ("-" first if negative: a callback may set any int).
    mutating func status(_ n: Int) {
        if n < 0 { put("-" + String(-n)) } else { number(n) }
    }
    mutating func list(_ items: [String]) {
        number(items.count)
        for item in items { put(item) }
    }
    mutating func pairs<S: Sequence>(_ count: Int, _ items: S, _ body: (inout PackedText, S.Element) -> Void) {
        number(count)
        for item in items { body(&self, item) }
    }

    /// The fields of ilk_result_packed, in its order: everything in `r` but the body.
    init(resolution r: Resolution) {
        self.init()
        status(r.response.status)
        switch r.status {
        case .error(let message), .aborted(let message): field(message)
        default: field(nil)
        }
        pairs(r.response.headers.count, r.response.headers) { $0.put($1.name); $0.put($1.value) }
        let trace = r.trace
        pairs(trace.count, trace) { $0.put($1.stage.rawValue); $0.put($1.name); $0.put($1.decision) }
        list(r.redirects)
        if case .methodNotAllowed(let methods) = r.status { list(methods) } else { list([]) }
        request(r.request)
    }

    /// The fields of ilk_request_packed, in its order.
    mutating func request(_ q: Request) {
        field(q.uri); field(q.method); field(q.scheme); field(q.host); field(q.port); field(q.path)
        field(q.fragment); field(q.route?.pattern.source)
        if let route = q.route { bytes.append(0x31); number(Int(route.id)) } else { bytes.append(0x30); bytes.append(0) }
        let parameters = q.parameters
        pairs(parameters.count, parameters) { $0.put($1.name); $0.put($1.value) }
        let query = q.query.items
        pairs(query.count, query) { $0.put($1.key); $0.put($1.value) }
        let metadata = q.metadata
        if metadata.isEmpty { number(0) } else {
            pairs(metadata.count, metadata.sorted(by: { $0.key < $1.key })) { $0.put($1.key); $0.put($1.value) }
        }
    }
}

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
    /// What C asked for beyond the status, made on the first such call: one field to release for
    /// the results (most) that are freed after reading the status.
    private var exported: Exported? = nil

    init(_ resolution: Resolution) {
        self.resolution = resolution
        switch resolution.status {
        case .ok: status = ILK_OK
        case .notFound: status = ILK_NOT_FOUND
        case .methodNotAllowed: status = ILK_METHOD_NOT_ALLOWED
        case .stopped: status = 3
        case .guarded: status = 4
        case .aborted: status = 5
        case .redirectLoop: status = 6
        case .retryLimit: status = 7
        case .error: status = ILK_ECALLBACK
        }
    }

    private var exports: Exported {
        if let exported { return exported }
        let e = Exported(resolution)
        exported = e
        return e
    }

    var body: UnsafeRawPointer { exports.body }
    var request: RequestHandle { exports.request }
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
        let resolution: Resolution
        private let store = CStringStore()
        /// The body, copied into memory that lives as long as the result (never NULL).
        private var bodyCopy: UnsafeMutableRawPointer? = nil

        init(_ resolution: Resolution) { self.resolution = resolution }

        deinit { bodyCopy?.deallocate() }

        var body: UnsafeRawPointer {
            if let bodyCopy { return UnsafeRawPointer(bodyCopy) }
            let bytes = resolution.response.body
            let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            bytes.withUnsafeBytes { if let b = $0.baseAddress { copy.copyMemory(from: b, byteCount: bytes.count) } }
            bodyCopy = copy
            return UnsafeRawPointer(copy)
        }

        lazy var request = RequestHandle(resolution.request)

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
@inline(__always) func withHandle<T: AnyObject, R>(_ p: OpaquePointer, as: T.Type, _ body: (T) throws -> R) rethrows -> R {
    try Unmanaged<T>.fromOpaque(UnsafeRawPointer(p))._withUnsafeGuaranteedRef(body)
}

@inline(__always) func retained<T: AnyObject>(_ object: T) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(object).toOpaque())
}

@inline(__always) func release<T: AnyObject>(_ p: OpaquePointer?, as: T.Type) {
    guard let p else { return }
    Unmanaged<T>.fromOpaque(UnsafeRawPointer(p)).release()
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

/// A method from C: the common ones as literals (making a string from C bytes costs more than the
/// rest of a bare resolve's bookkeeping), any other one copied.
func methodString(_ p: UnsafePointer<CChar>?) -> String? {
    guard let p else { return nil }
    var packed: UInt64 = 0
    var i = 0
    while i < 8, p[i] != 0 {
        packed |= UInt64(UInt8(bitPattern: p[i])) << UInt64(8 * i)
        i += 1
    }
    switch packed {
    case 0x544547: return "GET"
    case 0x54534F50: return "POST"
    case 0x545550: return "PUT"
    case 0x4554454C4544: return "DELETE"
    case 0x4843544150: return "PATCH"
    case 0x44414548: return "HEAD"
    case 0x534E4F4954504F: return "OPTIONS"
    default: return String(cString: p)
    }
}

/// Writes what the `_copy` calls that carry a body (ilk_result_copy, ilk_response_copy) lay out:
/// the text's length as eight bytes, the text, then the body.
func writeCopy(_ text: [UInt8], _ body: [UInt8], to out: UnsafeMutableRawPointer) {
    out.storeBytes(of: UInt64(text.count), as: UInt64.self)
    text.withUnsafeBytes { if let b = $0.baseAddress { (out + 8).copyMemory(from: b, byteCount: $0.count) } }
    body.withUnsafeBytes { if let b = $0.baseAddress { (out + 8 + text.count).copyMemory(from: b, byteCount: $0.count) } }
}
