import CInterlock
import Interlock

// The request a callback gets: read and changed through its handle, its strings kept for C.

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
    func withRequest<R, E: Error>(_ body: (Request) throws(E) -> R) throws(E) -> R {
        if let borrowed { return try Request.withBorrowed(borrowed, body) }
        return try body(owned)
    }

    /// Calls `body` with the request read in place, the handle's own too (no reference counted):
    /// for the reads C makes once for each parameter.
    func withRequestInPlace<R>(_ body: (Request) -> R) -> R {
        if let borrowed { return Request.withBorrowed(borrowed, body) }
        return withUnsafeMutablePointer(to: &owned) { Request.withBorrowed($0, body) }
    }
    var errorMessage: String? = nil { didSet { used = true } }
    /// Whether a callback asked for anything (strings, caches, an error): only then does reuse
    /// have something to reset.
    private var used = false
    /// Made on the first string a callback asks for: most ask for none.
    private var store: CStringStore? = nil
    private var fields: [UnsafePointer<CChar>?]? = nil
    /// The parameters as C strings, made from the request's strings once a callback changed it
    /// (until then they are lent by the request: `lender`, `cursor`).
    private var parameters: [(UnsafePointer<CChar>, UnsafePointer<CChar>)]? = nil
    /// What keeps the parameters the request lent alive (`Request.lentParameter`): until the
    /// callback's call ends, or, for a result's request, until the result is freed.
    private var lender: AnyObject? = nil
    /// Where the last lent parameter was read, so that reading them in order is linear.
    private var cursor = Request.ParameterCursor()
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

    /// Ends the loan. What the callback was lent goes with the call: a request the handle lent
    /// parameters from, or copied to change it, holds the route's data, whose free function must
    /// run when the route lets go of it, not at the handle's next use.
    func endBorrow() {
        if readOnly && borrowed == nil {    // the callback changed the request: a copy was made
            owned = RequestHandle.placeholder
        }
        borrowed = nil
        if lender != nil {
            lender = nil
            parameters = nil
            cursor = Request.ParameterCursor()
        }
    }

    /// What a pooled handle owns between loans.
    static let placeholder = Request(uri: "")

    private func resetIfUsed() {
        guard used else { return }
        errorMessage = nil
        fields = nil
        parameters = nil
        lender = nil
        cursor = Request.ParameterCursor()
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
        if parameters == nil {
            if withRequestInPlace({ $0.lendsParameters }) {
                // Lent by the request, found from where the last one was: no array made.
                if lender == nil {
                    lender = request.lender
                    used = true
                }
                var at = cursor
                defer { cursor = at }
                return withRequestInPlace { $0.lentParameter(i, cursor: &at) }
            }
            parameters = parameterList.map { (keep($0.name)!, keep($0.value)!) }
        }
        guard let parameters, i < parameters.count else { return nil }
        return parameters[i]
    }

    func query(_ i: Int) -> (UnsafePointer<CChar>, UnsafePointer<CChar>)? {
        if queryPairs == nil { queryPairs = queryItems.items.map { (keep($0.key)!, keep($0.value)!) } }
        guard let queryPairs, i < queryPairs.count else { return nil }
        return queryPairs[i]
    }

    func parametersChanged() { parameters = nil; parameterCache = nil; cursor = Request.ParameterCursor(); used = true }

    /// The request as one NUL-separated text (see ilk_request_packed), kept with the handle.
    func packed() -> (UnsafePointer<CChar>, Int) {
        var text = PackedText()
        text.request(request)
        return (keep(text.bytes), text.bytes.count)
    }
}
