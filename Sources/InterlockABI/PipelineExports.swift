import CInterlock
import Interlock
import Synchronization

// The pipeline's C entry points: filters, guards, interceptors, limits, the pending link, URL
// generation. Each wraps a C callback as the Swift closure the core expects; the core runs them.

/// An interceptor handle: one kind or the other.
final class InterceptorHandle {
    enum Kind { case request(RequestInterceptor), response(ResponseInterceptor) }
    let kind: Kind
    init(_ kind: Kind) { self.kind = kind }
}

/// A filter's view of the rest of its chain.
final class ChainHandle {
    /// The chain, borrowed for the filter's call (`HandlePool.lending(_:_:)`); nil while the
    /// handle waits in a pool. A pointer rather than a copy: a copy would count a reference to
    /// the resolve's run on every filter call.
    private(set) var chain: UnsafePointer<FilterChain>? = nil
    var downstream: Downstream? = nil
    /// The downstream response as C sees it: made when the filter first asks for it.
    var response: ResponseHandle? = nil
    var error: CallbackError? = nil
    var target: FilterResult? = nil
    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    /// Stands for `*chain` until `endBorrow`.
    func borrow(_ chain: UnsafePointer<FilterChain>) { self.chain = chain }

    /// Ends the borrow and clears what the filter's call left.
    func endBorrow() {
        chain = nil
        // Most are already clear (the filter's closure takes the downstream): only those are reset.
        if downstream != nil { downstream = nil }
        if response != nil { response = nil }
        if error != nil { error = nil }
        if target != nil { target = nil }
    }
}

/// The parameters `count` names and values give (nil if an array or an entry is NULL); throws for
/// ill-formed UTF-8 in one.
private func parameters(_ names: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<UnsafePointer<CChar>?>?,
                        _ count: Int) throws(InterlockError) -> [String: String]? {
    guard count == 0 || (names != nil && values != nil) else { return nil }
    var out: [String: String] = [:]
    for i in 0..<count {
        guard let n = try text(names![i], "parameter name \(i)"), let v = try text(values![i], "parameter value \(i)") else { return nil }
        if out.updateValue(v, forKey: n) != nil { throw InterlockError(.invalidArgument, "parameter '\(n)' is given twice") }
    }
    return out
}

// MARK: Filters and guards

@_cdecl("ilk_router_add_filter")
public func ilk_router_add_filter(
    _ router: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ fn: ilk_filter_fn?, _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let fn else { return invalid("filter is NULL") }
    let label: String
    do { label = try text(name, "filter name") ?? "filter \(r.filterCount.add(1, ordering: .relaxed).newValue)" } catch { return fail(error) }
    // Owned only once nothing can fail: on failure the userdata stays the caller's.
    let ud = Userdata(userdata, free: freeFn)
    r.router.addFilter(Filter(name: label) { [pools = handlePools] request, chain throws(CallbackError) in try pools.with { pool throws(CallbackError) in try pool.lending(request) { req throws(CallbackError) in
        try pool.lending(chain) { ch throws(CallbackError) in
            let rc = fn(req.opaque, ch.opaque, ud.pointer)
            if let error = ch.error { throw error }
            switch rc {
            case ILK_CONTINUE:
                guard var downstream = ch.downstream.take() else {
                    throw InterlockError(.callback, "filter '\(label)' returned ILK_CONTINUE without calling ilk_filter_chain_next")
                }
                if let response = ch.response { downstream.response = response.response }
                return .proceed(downstream)
            case ILK_STOP:
                // The response the filter wrote before stopping, if it asked for one.
                if let response = ch.response, ch.downstream == nil { return .respond(response.response) }
                return .stop
            case ILK_REDIRECT:
                guard let target = ch.target else {
                    throw InterlockError(.callback, "filter '\(label)' returned ILK_REDIRECT without a target")
                }
                return target
            case ..<0:
                throw InterlockError(.callback, req.errorMessage ?? "filter '\(label)' returned \(rc)")
            default:
                // A status: what next gave, passed on (as ILK_CONTINUE does).
                let given = ch.downstream.map { status(of: $0.outcome) }
                guard rc == given, var downstream = ch.downstream.take() else {
                    throw InterlockError(.callback, misreturned(label, rc, given: given))
                }
                if let response = ch.response { downstream.response = response.response }
                return .proceed(downstream)
            }
        }
    } } })
    return ILK_OK
}

@_cdecl("ilk_filter_chain_next")
public func ilk_filter_chain_next(_ chain: OpaquePointer?, _ request: OpaquePointer?) -> Int32 {
    guard let chain else { return invalid("chain is NULL") }
    guard let request else { return invalid("request is NULL") }
    return withHandle(chain, as: ChainHandle.self) { ch in
        withHandle(request, as: RequestHandle.self) { req in next(ch, req) }
    }
}

/// The status ilk_filter_chain_next gives for `outcome`.
private func status(of outcome: DownstreamOutcome) -> Int32 {
    switch outcome {
    case .completed: ILK_OK
    case .notFound: ILK_NOT_FOUND
    case .methodNotAllowed: ILK_METHOD_NOT_ALLOWED
    case .stopped: ILK_STOPPED
    case .guarded: ILK_GUARDED
    case .aborted: ILK_ABORTED
    case .redirect: ILK_REDIRECTED
    case .retry: ILK_RETRYING
    }
}

/// Whether `rc` is a status ilk_filter_chain_next may give (the ones a filter passes on).
private func isStatus(_ rc: Int32) -> Bool {
    switch rc {
    case ILK_OK, ILK_NOT_FOUND, ILK_METHOD_NOT_ALLOWED, ILK_STOPPED, ILK_GUARDED, ILK_ABORTED, ILK_REDIRECTED, ILK_RETRYING: true
    default: false
    }
}

/// Why filter `label`'s positive return `rc` passes nothing on: `given` is what next gave, nil if
/// the filter did not call it.
private func misreturned(_ label: String, _ rc: Int32, given: Int32?) -> String {
    let why = if !isStatus(rc) { "" }
              else if let given { ", but ilk_filter_chain_next gave \(statusName(given))" }
              else { " without calling ilk_filter_chain_next" }
    return "filter '\(label)' returned \(statusName(rc))\(why); a filter returns what ilk_filter_chain_next gave "
        + "(or ILK_CONTINUE) after calling it, ILK_STOP or ILK_REDIRECT without calling it, or a negative error"
}

private func next(_ ch: ChainHandle, _ req: RequestHandle) -> Int32 {
    guard let chain = ch.chain else { return invalid("chain is not in use (it is valid only during the filter's call)") }
    do {
        let d = try req.withRequest { (request) throws(CallbackError) in try FilterChain.next(through: chain, request) }
        let rc = status(of: d.outcome)
        // A response handle the filter holds from before stays valid: it is now the rest's
        // response (what was written to it for a stop is dropped).
        if let response = ch.response { response.response = d.response }
        ch.downstream = consume d
        return rc
    } catch {
        if ch.error == nil { ch.error = error }
        return fail(InterlockError(.callback, describe(error)))
    }
}

@_cdecl("ilk_filter_chain_response")
public func ilk_filter_chain_response(_ chain: OpaquePointer?) -> OpaquePointer? {
    guard let ch = handle(chain, as: ChainHandle.self), ch.chain != nil else { return nil }
    // Before next: the response a stop answers with; after it, the rest of the chain's.
    if ch.response == nil { ch.response = ResponseHandle(ch.downstream?.response ?? Response()) }
    return ch.response?.opaque
}

@_cdecl("ilk_filter_chain_redirect")
public func ilk_filter_chain_redirect(_ chain: OpaquePointer?, _ uri: UnsafePointer<CChar>?) -> Int32 {
    guard let ch = handle(chain, as: ChainHandle.self) else { return invalid("chain is NULL") }
    return checked { () throws(InterlockError) in
        guard let uri = try text(uri, "uri") else { return invalid("uri is NULL") }
        ch.target = .redirect(uri)
        return ILK_OK
    }
}

@_cdecl("ilk_filter_chain_redirect_to_route")
public func ilk_filter_chain_redirect_to_route(
    _ chain: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ names: UnsafePointer<UnsafePointer<CChar>?>?,
    _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ given: Int
) -> Int32 {
    guard let ch = handle(chain, as: ChainHandle.self) else { return invalid("chain is NULL") }
    guard let count = size(given) else { return tooLarge("count", given) }
    return checked { () throws(InterlockError) in
        guard let name = try text(name, "name") else { return invalid("name is NULL") }
        guard let params = try parameters(names, values, count) else { return invalid("a parameter name or value is NULL") }
        ch.target = .redirectToRoute(name, params)
        return ILK_OK
    }
}

@_cdecl("ilk_router_set_guard")
public func ilk_router_set_guard(
    _ router: OpaquePointer?, _ routeID: UInt32, _ fn: ilk_guard_fn?, _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    // Checked first so that a refused call leaves the userdata with the caller.
    guard r.router.route(routeID) != nil else { return fail(r.router.unknownRoute(routeID)) }
    guard let fn else {
        try? r.router.setGuard(nil, for: routeID)
        if let freeFn { freeFn(userdata) }
        return ILK_OK
    }
    let ud = Userdata(userdata, free: freeFn)
    try? r.router.setGuard({ [pools = handlePools] request throws(CallbackError) in try pools.with { pool throws(CallbackError) in try pool.lending(request) { req throws(CallbackError) in
        let rc = fn(req.opaque, ud.pointer)
        if rc < 0 { throw InterlockError(.callback, req.errorMessage ?? "guard returned \(rc)") }
        return rc != 0
    } } }, for: routeID)
    return ILK_OK
}

// MARK: Interceptors

/// What both interceptor constructors check and keep: the out-pointer and function present, the
/// userdata (freed once, when the last holder goes) and the label; `make` builds the interceptor.
private func newInterceptor<Function>(
    _ out: UnsafeMutablePointer<OpaquePointer?>?, _ name: UnsafePointer<CChar>?, _ fn: Function?,
    _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?, _ make: (Function, String, Userdata) -> InterceptorHandle.Kind
) -> Int32 {
    guard let out else { return invalid("out is NULL") }
    out.pointee = nil
    guard let fn else { return invalid("interceptor function is NULL") }
    return checked { () throws(InterlockError) in
        let label = try text(name, "interceptor name") ?? "interceptor"
        out.pointee = retained(InterceptorHandle(make(fn, label, Userdata(userdata, free: freeFn))))
        return ILK_OK
    }
}

@_cdecl("ilk_interceptor_new_request")
public func ilk_interceptor_new_request(
    _ out: UnsafeMutablePointer<OpaquePointer?>?, _ name: UnsafePointer<CChar>?, _ fn: ilk_request_interceptor_fn?,
    _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?
) -> Int32 {
    newInterceptor(out, name, fn, userdata, freeFn) { fn, label, ud in
        .request(RequestInterceptor(name: label) { [pools = handlePools] request throws(CallbackError) in
            // The pipeline's request is lent to the callback: its changes land in place.
            try pools.with { pool throws(CallbackError) in try pool.borrowing(&request) { req throws(CallbackError) in
                let rc = fn(req.opaque, ud.pointer)
                switch rc {
                case ILK_CONTINUE: return .proceed
                case ILK_ABORT: return .abort(req.errorMessage ?? "aborted by '\(label)'")
                case ..<0: throw InterlockError(.callback, req.errorMessage ?? "request interceptor '\(label)' returned \(rc)")
                default:
                    throw InterlockError(.callback, "request interceptor '\(label)' returned \(statusName(rc)); "
                                        + "a request interceptor returns ILK_CONTINUE, ILK_ABORT or a negative error")
                }
            } }
        })
    }
}

@_cdecl("ilk_interceptor_new_response")
public func ilk_interceptor_new_response(
    _ out: UnsafeMutablePointer<OpaquePointer?>?, _ name: UnsafePointer<CChar>?, _ fn: ilk_response_interceptor_fn?,
    _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?
) -> Int32 {
    newInterceptor(out, name, fn, userdata, freeFn) { fn, label, ud in
        .response(ResponseInterceptor(name: label) { [pools = handlePools] response, request throws(CallbackError) in try pools.with { pool throws(CallbackError) in try pool.lending(request) { req throws(CallbackError) in
            try pool.borrowing(&response) { res throws(CallbackError) in
                let rc = fn(req.opaque, res.opaque, ud.pointer)
                switch rc {
                case ILK_CONTINUE: return .proceed
                case ILK_RETRY: return .retry
                case ILK_ABORT: return .abort(res.errorMessage ?? req.errorMessage ?? "aborted by '\(label)'")
                case ..<0: throw InterlockError(.callback, res.errorMessage ?? req.errorMessage ?? "response interceptor '\(label)' returned \(rc)")
                default:
                    throw InterlockError(.callback, "response interceptor '\(label)' returned \(statusName(rc)); "
                                        + "a response interceptor returns ILK_CONTINUE, ILK_ABORT, ILK_RETRY or a negative error")
                }
            }
        } } })
    }
}

private func compose(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ list: [OpaquePointer?]) -> Int32 {
    guard let out else { return invalid("out is NULL") }
    out.pointee = nil
    guard !list.isEmpty else { return invalid("no interceptors to chain") }
    var requests: [RequestInterceptor] = [], responses: [ResponseInterceptor] = []
    for p in list {
        guard let h = handle(p, as: InterceptorHandle.self) else { return invalid("an interceptor is NULL") }
        switch h.kind {
        case .request(let i): requests.append(i)
        case .response(let i): responses.append(i)
        }
    }
    if !requests.isEmpty && !responses.isEmpty { return invalid("cannot chain request and response interceptors together") }
    out.pointee = retained(InterceptorHandle(requests.isEmpty ? .response(.chain(inOrder: responses)) : .request(.chain(inOrder: requests))))
    return ILK_OK
}

@_cdecl("ilk_interceptor_chain_before")
public func ilk_interceptor_chain_before(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ a: OpaquePointer?, _ b: OpaquePointer?) -> Int32 {
    compose(out, [a, b])
}

@_cdecl("ilk_interceptor_chain_after")
public func ilk_interceptor_chain_after(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ a: OpaquePointer?, _ b: OpaquePointer?) -> Int32 {
    compose(out, [b, a])
}

@_cdecl("ilk_interceptor_chain_in_order")
public func ilk_interceptor_chain_in_order(
    _ out: UnsafeMutablePointer<OpaquePointer?>?, _ list: UnsafePointer<OpaquePointer?>?, _ given: Int
) -> Int32 {
    guard let count = size(given) else {
        out?.pointee = nil
        return tooLarge("count", given)
    }
    guard let list, count > 0 else { return compose(out, []) }
    return compose(out, Array(UnsafeBufferPointer(start: list, count: count)))
}

@_cdecl("ilk_interceptor_new_logging")
public func ilk_interceptor_new_logging(
    _ requestSide: UnsafeMutablePointer<OpaquePointer?>?, _ responseSide: UnsafeMutablePointer<OpaquePointer?>?,
    _ fn: ilk_log_fn?, _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?
) -> Int32 {
    guard let requestSide, let responseSide else { return invalid("an out-pointer is NULL") }
    let ud = Userdata(userdata, free: freeFn)
    let logger: LoggingInterceptor
    if let fn {
        logger = LoggingInterceptor { line in line.withCString { fn($0, ud.pointer) } }
    } else {
        logger = LoggingInterceptor()
        _ = ud
    }
    requestSide.pointee = retained(InterceptorHandle(.request(logger.request)))
    responseSide.pointee = retained(InterceptorHandle(.response(logger.response)))
    return ILK_OK
}

@_cdecl("ilk_interceptor_new_validate_status")
public func ilk_interceptor_new_validate_status(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ low: Int32, _ high: Int32) -> Int32 {
    guard let out else { return invalid("out is NULL") }
    out.pointee = nil
    guard low <= high else { return invalid("min_status \(low) is above max_status \(high)") }
    out.pointee = retained(InterceptorHandle(.response(validateStatus(Int(low)...Int(high)))))
    return ILK_OK
}

@_cdecl("ilk_interceptor_free")
public func ilk_interceptor_free(_ interceptor: OpaquePointer?) {
    release(interceptor, as: InterceptorHandle.self)
}

@_cdecl("ilk_router_add_interceptor")
public func ilk_router_add_interceptor(_ router: OpaquePointer?, _ interceptor: OpaquePointer?, _ routeID: UInt32) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let h = handle(interceptor, as: InterceptorHandle.self) else { return invalid("interceptor is NULL") }
    do {
        try add(h.kind, to: r.router, route: routeID == 0 ? nil : routeID)
        return ILK_OK
    } catch {
        return fail(error)
    }
}

// MARK: Limits, pending link, URL generation

@_cdecl("ilk_router_set_limits")
public func ilk_router_set_limits(_ router: OpaquePointer?, _ redirects: UInt32, _ retries: UInt32) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    r.router.redirectLimit = Int(redirects)
    r.router.retryLimit = Int(retries)
    return ILK_OK
}

@_cdecl("ilk_router_set_match_limit")
public func ilk_router_set_match_limit(_ router: OpaquePointer?, _ limit: UInt32) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    r.router.setMatchLimit(limit)
    return ILK_OK
}

/// Copies `text` into a C buffer, snprintf-style; returns the full length.
private func copyOut(_ text: String, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int) -> Int {
    let bytes = Array(text.utf8)
    if let buffer, capacity > 0 {
        let n = min(bytes.count, capacity - 1)
        for i in 0..<n { buffer[i] = CChar(bitPattern: bytes[i]) }
        buffer[n] = 0
    }
    return bytes.count
}

@_cdecl("ilk_router_pending_link")
public func ilk_router_pending_link(_ router: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ room: Int) -> Int {
    let capacity = capacity(room)
    guard let r = handle(router, as: RouterHandle.self), let link = r.router.pendingLink else {
        if let buffer, capacity > 0 { buffer[0] = 0 }
        return 0
    }
    return copyOut(link.uri, buffer, capacity)
}

@_cdecl("ilk_router_take_pending_link")
public func ilk_router_take_pending_link(_ router: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ room: Int) -> Int {
    guard let r = handle(router, as: RouterHandle.self) else { return 0 }
    let capacity = capacity(room)
    guard let link = r.router.takePendingLink(ifShorterThan: capacity) else {
        return ilk_router_pending_link(router, buffer, room)
    }
    return copyOut(link.uri, buffer, capacity)
}

@_cdecl("ilk_router_replay_pending_link")
public func ilk_router_replay_pending_link(_ router: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let out else { return invalid("out is NULL") }
    do {
        guard let resolution = try r.router.replayPendingLink() else { return ILK_OK }
        let result = ResultHandle(resolution)
        out.pointee = retained(result)
        return result.status
    } catch {
        return fail(error)
    }
}

@_cdecl("ilk_router_url_for")
public func ilk_router_url_for(
    _ router: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ names: UnsafePointer<UnsafePointer<CChar>?>?,
    _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ given: Int, _ buffer: UnsafeMutablePointer<CChar>?,
    _ room: Int, _ length: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let count = size(given) else { return tooLarge("count", given) }
    let capacity = capacity(room)
    return checked { () throws(InterlockError) in
        guard let name = try text(name, "name") else { return invalid("name is NULL") }
        guard let params = try parameters(names, values, count) else { return invalid("a parameter name or value is NULL") }
        let uri = try r.router.url(for: name, parameters: params)
        let n = copyOut(uri, buffer, capacity)
        length?.pointee = n
        if buffer == nil || n >= capacity { return invalid("buffer of \(capacity) bytes is too small for \(n + 1)") }
        return ILK_OK
    }
}

/// Adds the interceptor of `kind` to `router`. A function of its own, not inlined: inlined into
/// `ilk_router_add_interceptor`, Embedded Swift 6.3 at -O fails its SIL ownership verifier there
/// ("Found outside of lifetime use?!").
@inline(never)
private func add(_ kind: InterceptorHandle.Kind, to router: Router, route: RouteID?) throws(InterlockError) {
    switch kind {
    case .request(let i): try router.addRequestInterceptor(i, route: route)
    case .response(let i): try router.addResponseInterceptor(i, route: route)
    }
}
