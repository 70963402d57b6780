import CInterlock
import Interlock

// MARK: Resolving

@_cdecl("ilk_router_resolve")
public func ilk_router_resolve(
    _ router: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ uri: UnsafePointer<CChar>?, _ uriLength: Int,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    guard let router else { return invalid("router is NULL") }
    guard let uri else { return invalid("uri is NULL") }
    guard let out else { return invalid("out is NULL") }
    guard let uriLength = size(uriLength) else { return tooLarge("uri_len", uriLength) }
    let bytes = UnsafeRawBufferPointer(start: uri, count: uriLength)
    return withHandle(router, as: RouterHandle.self) { r in
        do throws(InterlockError) {
            let result = ResultHandle(try r.router.resolve(bytes: bytes, method: methodString(method)))
            out.pointee = retained(result)
            return result.status
        } catch {
            return fail(error)
        }
    }
}

// MARK: Requests

private func request(_ p: OpaquePointer?) -> RequestHandle? { handle(p, as: RequestHandle.self) }

@_cdecl("ilk_request_uri")
public func ilk_request_uri(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { request(r)?.field(.uri) }
@_cdecl("ilk_request_method")
public func ilk_request_method(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { request(r)?.field(.method) }
@_cdecl("ilk_request_scheme")
public func ilk_request_scheme(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { request(r)?.field(.scheme) }
@_cdecl("ilk_request_host")
public func ilk_request_host(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { request(r)?.field(.host) }
@_cdecl("ilk_request_port")
public func ilk_request_port(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { request(r)?.field(.port) }
@_cdecl("ilk_request_path")
public func ilk_request_path(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { request(r)?.field(.path) }
@_cdecl("ilk_request_fragment")
public func ilk_request_fragment(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { request(r)?.field(.fragment) }
@_cdecl("ilk_request_pattern")
public func ilk_request_pattern(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { request(r)?.field(.pattern) }

@_cdecl("ilk_request_route_id")
public func ilk_request_route_id(_ r: OpaquePointer?) -> UInt32 { request(r)?.request.route?.id ?? 0 }

@_cdecl("ilk_request_param_count")
public func ilk_request_param_count(_ r: OpaquePointer?) -> Int {
    guard let r else { return 0 }
    return withHandle(r, as: RequestHandle.self) { h in h.withRequestInPlace { $0.parameterCount } }
}

@_cdecl("ilk_request_param_at")
public func ilk_request_param_at(
    _ r: OpaquePointer?, _ i: Int,
    _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ nameLength: UnsafeMutablePointer<Int>?,
    _ value: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ valueLength: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let r else { return invalid("request is NULL") }
    return withHandle(r, as: RequestHandle.self) { h in
        guard isIndex(i, below: h.withRequestInPlace({ $0.parameterCount })), let (n, v) = h.parameter(i) else {
            return invalid("parameter index \(sizeT(i)) is out of range")
        }
        name?.pointee = n; value?.pointee = v
        // Lengths only when asked for: the bytes are lent, NUL-terminated, and most callers read them as C strings.
        nameLength?.pointee = cLength(n); valueLength?.pointee = cLength(v)
        return ILK_OK
    }
}

/// The length of a NUL-terminated string, in bytes.
private func cLength(_ p: UnsafePointer<CChar>) -> Int {
    var n = 0
    while p[n] != 0 { n += 1 }
    return n
}

@_cdecl("ilk_request_param")
public func ilk_request_param(_ r: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let h = request(r), let name = lookupKey(name),
          let i = h.parameterList.firstIndex(where: { $0.name == name }) else { return nil }
    return h.parameter(i)?.1
}

@_cdecl("ilk_request_query_count")
public func ilk_request_query_count(_ r: OpaquePointer?) -> Int { request(r)?.queryItems.count ?? 0 }

@_cdecl("ilk_request_query_at")
public func ilk_request_query_at(
    _ r: OpaquePointer?, _ i: Int,
    _ key: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ value: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    guard let h = request(r) else { return invalid("request is NULL") }
    guard isIndex(i, below: h.queryItems.count), let (k, v) = h.query(i) else {
        return invalid("query index \(sizeT(i)) is out of range")
    }
    key?.pointee = k; value?.pointee = v
    return ILK_OK
}

@_cdecl("ilk_request_query")
public func ilk_request_query(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let h = request(r), let key = lookupKey(key),
          let i = h.queryItems.items.firstIndex(where: { $0.key == key }) else { return nil }
    return h.query(i)?.1
}

// MARK: Responses

private func response(_ p: OpaquePointer?) -> ResponseHandle? { handle(p, as: ResponseHandle.self) }

@_cdecl("ilk_response_copy")
public func ilk_response_copy(
    _ r: OpaquePointer?, _ out: UnsafeMutableRawPointer?, _ room: Int, _ needed: UnsafeMutablePointer<Int>?
) -> Int32 {
    needed?.pointee = 0
    guard let h = response(r) else { return invalid("response is NULL") }
    let text = h.copyText, body = h.response.body
    return copyOut(8 + text.count + body.count, of: "the response", to: out, room, needed) { writeCopy(text, body, to: $0) }
}

@_cdecl("ilk_response_set_status")
public func ilk_response_set_status(_ r: OpaquePointer?, _ status: Int32) -> Int32 {
    guard let r else { return invalid("response is NULL") }
    guard Response.validStatuses.contains(Int(status)) else {
        return invalid("status \(status) is outside \(Response.validStatuses.lowerBound)...\(Response.validStatuses.upperBound)")
    }
    return withHandle(r, as: ResponseHandle.self) { h in
        h.response.status = Int(status)
        return ILK_OK
    }
}

@_cdecl("ilk_response_set_body")
public func ilk_response_set_body(_ r: OpaquePointer?, _ body: UnsafeRawPointer?, _ given: Int) -> Int32 {
    guard let h = response(r) else { return invalid("response is NULL") }
    guard let length = size(given) else { return tooLarge("body length", given) }
    guard body != nil || length == 0 else { return invalid("body is NULL but length is \(length)") }
    h.response.body = body.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
    return ILK_OK
}

@_cdecl("ilk_response_add_header")
public func ilk_response_add_header(_ r: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Int32 {
    guard let h = response(r) else { return invalid("response is NULL") }
    return checked { () throws(InterlockError) in
        guard let name = try text(name, "header name"), let value = try text(value, "header value") else {
            return invalid("header name or value is NULL")
        }
        h.response.addHeader(name, value)
        return ILK_OK
    }
}

@_cdecl("ilk_response_set_error")
public func ilk_response_set_error(_ r: OpaquePointer?, _ message: UnsafePointer<CChar>?) -> Int32 {
    guard let h = response(r) else { return invalid("response is NULL") }
    guard let message = string(message) else { return invalid("message is NULL") }
    h.errorMessage = message
    return ILK_OK
}

// MARK: Results

private func result(_ p: OpaquePointer?) -> ResultHandle? { handle(p, as: ResultHandle.self) }

@_cdecl("ilk_result_status")
public func ilk_result_status(_ r: OpaquePointer?) -> Int32 {
    guard let h = result(r) else { return invalid("result is NULL") }
    return h.status
}

@_cdecl("ilk_result_request")
public func ilk_result_request(_ r: OpaquePointer?) -> OpaquePointer? {
    guard let r else { return nil }
    return withHandle(r, as: ResultHandle.self) { $0.request.opaque }
}

@_cdecl("ilk_result_route_id")
public func ilk_result_route_id(_ r: OpaquePointer?) -> UInt32 {
    guard let r else { return 0 }
    return withHandle(r, as: ResultHandle.self) { $0.routeID }
}

@_cdecl("ilk_result_response_status")
public func ilk_result_response_status(_ r: OpaquePointer?) -> Int32 {
    guard let h = result(r) else { return 0 }
    return Int32(clamping: h.resolution.response.status)
}

@_cdecl("ilk_result_body")
public func ilk_result_body(_ r: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    guard let h = result(r) else { length?.pointee = 0; return nil }
    length?.pointee = h.resolution.response.body.count
    return UnsafeRawPointer(h.body)
}

@_cdecl("ilk_result_header_count")
public func ilk_result_header_count(_ r: OpaquePointer?) -> Int { result(r)?.headers.count ?? 0 }

@_cdecl("ilk_result_header_at")
public func ilk_result_header_at(
    _ r: OpaquePointer?, _ i: Int,
    _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ value: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    guard let h = result(r) else { return invalid("result is NULL") }
    guard isIndex(i, below: h.headers.count) else { return invalid("header index \(sizeT(i)) is out of range") }
    name?.pointee = h.headers[Int(i)].0
    value?.pointee = h.headers[Int(i)].1
    return ILK_OK
}

@_cdecl("ilk_result_error")
public func ilk_result_error(_ r: OpaquePointer?) -> UnsafePointer<CChar>? { result(r)?.error }

@_cdecl("ilk_result_allowed_count")
public func ilk_result_allowed_count(_ r: OpaquePointer?) -> Int { result(r)?.allowed.count ?? 0 }

@_cdecl("ilk_result_allowed_at")
public func ilk_result_allowed_at(_ r: OpaquePointer?, _ i: Int) -> UnsafePointer<CChar>? {
    guard let h = result(r), isIndex(i, below: h.allowed.count) else { return nil }
    return h.allowed[Int(i)]
}

@_cdecl("ilk_result_free")
public func ilk_result_free(_ r: OpaquePointer?) {
    release(r, as: ResultHandle.self)
}

// MARK: Request changes, state, response getters, result trace

@_cdecl("ilk_request_metadata")
public func ilk_request_metadata(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let h = request(r), let key = lookupKey(key) else { return nil }
    return h.keep(h.request.metadata[key])
}

@_cdecl("ilk_request_set_metadata")
public func ilk_request_set_metadata(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Int32 {
    guard let h = request(r) else { return invalid("request is NULL") }
    return checked { () throws(InterlockError) in
        guard let key = try text(key, "key") else { return invalid("key is NULL") }
        h.request.metadata[key] = try text(value, "value")
        return ILK_OK
    }
}

@_cdecl("ilk_request_set_param")
public func ilk_request_set_param(_ r: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Int32 {
    guard let h = request(r) else { return invalid("request is NULL") }
    return checked { () throws(InterlockError) in
        guard let name = try text(name, "name"), let value = try text(value, "value") else { return invalid("name or value is NULL") }
        h.request[parameter: name] = value
        h.parametersChanged()
        return ILK_OK
    }
}

@_cdecl("ilk_request_remove_param")
public func ilk_request_remove_param(_ r: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guard let h = request(r) else { return invalid("request is NULL") }
    return checked { () throws(InterlockError) in
        guard let name = try text(name, "name") else { return invalid("name is NULL") }
        guard h.request[parameter: name] != nil else { return ILK_OK }
        h.request[parameter: name] = nil
        h.parametersChanged()
        return ILK_OK
    }
}

@_cdecl("ilk_request_state")
public func ilk_request_state(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let h = request(r), let key = lookupKey(key) else { return nil }
    return h.keep(h.request.state.string(key))
}

@_cdecl("ilk_request_set_state")
public func ilk_request_set_state(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Int32 {
    guard let h = request(r) else { return invalid("request is NULL") }
    return checked { () throws(InterlockError) in
        guard let key = try text(key, "key") else { return invalid("key is NULL") }
        h.request.state[key] = try text(value, "value")
        return ILK_OK
    }
}

@_cdecl("ilk_request_set_error")
public func ilk_request_set_error(_ r: OpaquePointer?, _ message: UnsafePointer<CChar>?) -> Int32 {
    guard let h = request(r) else { return invalid("request is NULL") }
    guard let message = string(message) else { return invalid("message is NULL") }
    h.errorMessage = message
    return ILK_OK
}

@_cdecl("ilk_response_status")
public func ilk_response_status(_ r: OpaquePointer?) -> Int32 {
    guard let h = handle(r, as: ResponseHandle.self) else { return 0 }
    return Int32(clamping: h.response.status)
}

@_cdecl("ilk_response_body")
public func ilk_response_body(_ r: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?) -> UnsafeRawPointer? {
    guard let h = handle(r, as: ResponseHandle.self) else { length?.pointee = 0; return nil }
    length?.pointee = h.response.body.count
    return h.response.body.withUnsafeBytes { $0.baseAddress }
}

@_cdecl("ilk_result_redirect_count")
public func ilk_result_redirect_count(_ r: OpaquePointer?) -> Int { handle(r, as: ResultHandle.self)?.redirects.count ?? 0 }

@_cdecl("ilk_result_redirect_at")
public func ilk_result_redirect_at(_ r: OpaquePointer?, _ i: Int) -> UnsafePointer<CChar>? {
    guard let h = handle(r, as: ResultHandle.self), isIndex(i, below: h.redirects.count) else { return nil }
    return h.redirects[Int(i)]
}

@_cdecl("ilk_result_trace_count")
public func ilk_result_trace_count(_ r: OpaquePointer?) -> Int { handle(r, as: ResultHandle.self)?.trace.count ?? 0 }

@_cdecl("ilk_result_trace_at")
public func ilk_result_trace_at(
    _ r: OpaquePointer?, _ i: Int, _ stage: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
    _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ decision: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    guard let h = handle(r, as: ResultHandle.self) else { return invalid("result is NULL") }
    guard isIndex(i, below: h.trace.count) else { return invalid("trace index \(sizeT(i)) is out of range") }
    let e = h.trace[Int(i)]
    stage?.pointee = e.0; name?.pointee = e.1; decision?.pointee = e.2
    return ILK_OK
}

@_cdecl("ilk_result_state")
public func ilk_result_state(_ r: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let h = handle(r, as: ResultHandle.self), let key = lookupKey(key) else { return nil }
    return h.state(key)
}

@_cdecl("ilk_request_metadata_count")
public func ilk_request_metadata_count(_ r: OpaquePointer?) -> Int { request(r)?.request.metadata.count ?? 0 }

@_cdecl("ilk_request_metadata_at")
public func ilk_request_metadata_at(
    _ r: OpaquePointer?, _ i: Int, _ key: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ value: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    guard let h = request(r) else { return invalid("request is NULL") }
    let entries = h.request.metadata.sorted { $0.key < $1.key }
    guard isIndex(i, below: entries.count) else { return invalid("metadata index \(sizeT(i)) is out of range") }
    let e = entries[Int(i)]
    key?.pointee = h.keep(e.key)
    value?.pointee = h.keep(e.value)
    return ILK_OK
}

@_cdecl("ilk_response_header_count")
public func ilk_response_header_count(_ r: OpaquePointer?) -> Int { handle(r, as: ResponseHandle.self)?.response.headers.count ?? 0 }

@_cdecl("ilk_response_header_at")
public func ilk_response_header_at(
    _ r: OpaquePointer?, _ i: Int, _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ value: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    guard let h = handle(r, as: ResponseHandle.self) else { return invalid("response is NULL") }
    guard isIndex(i, below: h.response.headers.count) else { return invalid("header index \(sizeT(i)) is out of range") }
    let header = h.response.headers[Int(i)]
    name?.pointee = h.keep(header.name)
    value?.pointee = h.keep(header.value)
    return ILK_OK
}

@_cdecl("ilk_response_clear_headers")
public func ilk_response_clear_headers(_ r: OpaquePointer?) -> Int32 {
    guard let h = handle(r, as: ResponseHandle.self) else { return invalid("response is NULL") }
    h.response.headers.removeAll()
    return ILK_OK
}

@_cdecl("ilk_result_packed")
public func ilk_result_packed(
    _ r: OpaquePointer?, _ data: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let h = result(r) else { return invalid("result is NULL") }
    guard let data else { return invalid("data is NULL") }
    let (p, n) = h.packed
    data.pointee = p
    length?.pointee = n
    return ILK_OK
}

@_cdecl("ilk_result_copy")
public func ilk_result_copy(
    _ r: OpaquePointer?, _ out: UnsafeMutableRawPointer?, _ room: Int, _ needed: UnsafeMutablePointer<Int>?
) -> Int32 {
    needed?.pointee = 0
    guard let h = result(r) else { return invalid("result is NULL") }
    return copyOut(h.copySize, of: "the result", to: out, room, needed, h.copy(to:))
}

@_cdecl("ilk_request_packed")
public func ilk_request_packed(
    _ r: OpaquePointer?, _ data: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let h = request(r) else { return invalid("request is NULL") }
    guard let data else { return invalid("data is NULL") }
    let (p, n) = h.packed()
    data.pointee = p
    length?.pointee = n
    return ILK_OK
}
