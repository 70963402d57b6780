import CInterlock
import Interlock

// The C entry points declared in include/interlock.h. Each converts its arguments, calls the
// Interlock module, and converts the answer back: nothing else.

// MARK: Version and errors

/// The header's version (ILK_VERSION_MAJOR, _MINOR, _PATCH) as text, made once: the version is
/// written in the header alone.
nonisolated(unsafe) private let versionText: UnsafePointer<CChar> = {
    let text = Array("\(ILK_VERSION_MAJOR).\(ILK_VERSION_MINOR).\(ILK_VERSION_PATCH)".utf8CString)
    let out = UnsafeMutablePointer<CChar>.allocate(capacity: text.count)
    out.initialize(from: text, count: text.count)
    return UnsafePointer(out)
}()

@_cdecl("ilk_version")
public func ilk_version() -> UnsafePointer<CChar>? { versionText }

@_cdecl("ilk_version_number")
public func ilk_version_number() -> Int32 {
    // ILK_VERSION_NUMBER's expression (Swift imports its parts, not the macro); test_abi.c compares them.
    ILK_VERSION_MAJOR * 1_000_000 + ILK_VERSION_MINOR * 1_000 + ILK_VERSION_PATCH
}

@_cdecl("ilk_errmsg")
public func ilk_errmsg() -> UnsafePointer<CChar>? { UnsafePointer(errorState().message) }

@_cdecl("ilk_erroffset")
public func ilk_erroffset() -> Int {
    let s = errorState()
    return s.hasOffset ? s.offset : ILK_NO_OFFSET
}

/// Each status code's words, by the header's names for the codes.
private let statusWords: [(code: Int32, text: StaticString)] = [
    (ILK_OK, "ok"), (ILK_NOT_FOUND, "not found"), (ILK_METHOD_NOT_ALLOWED, "method not allowed"),
    (ILK_STOPPED, "stopped"), (ILK_GUARDED, "guarded"), (ILK_ABORTED, "aborted"),
    (ILK_REDIRECT_LOOP, "redirect loop"), (ILK_RETRY_LIMIT, "retry limit"), (ILK_REDIRECTED, "redirected"),
    (ILK_RETRYING, "retrying"), (ILK_EINVAL, "invalid argument"), (ILK_EPATTERN, "pattern error"),
    (ILK_ECONFLICT, "route conflict"), (ILK_EURI, "URI error"), (ILK_ENOMEM, "out of memory"),
    (ILK_ELIMIT, "limit reached"), (ILK_ENOROUTE, "no such route"), (ILK_ECALLBACK, "callback error"),
]

@_cdecl("ilk_errstr")
public func ilk_errstr(_ code: Int32) -> UnsafePointer<CChar>? {
    let text: StaticString = statusWords.first { $0.code == code }?.text ?? "unknown status code"
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

// MARK: Routers

@_cdecl("ilk_router_new")
public func ilk_router_new(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ flags: UInt32) -> Int32 {
    guard let out else { return invalid("out is NULL") }
    out.pointee = nil
    let known = ILK_CASE_INSENSITIVE | ILK_STRICT_SLASH
    guard flags & ~known == 0 else { return invalid("unknown router flag 0x\(String(flags & ~known, radix: 16))") }
    var options: RouterOptions = []
    if flags & ILK_CASE_INSENSITIVE != 0 { options.insert(.caseInsensitive) }
    if flags & ILK_STRICT_SLASH != 0 { options.insert(.strictSlash) }
    out.pointee = retained(RouterHandle(Router(options: options)))
    return ILK_OK
}

@_cdecl("ilk_router_free")
public func ilk_router_free(_ router: OpaquePointer?) {
    release(router, as: RouterHandle.self)
}

@_cdecl("ilk_router_add_route")
public func ilk_router_add_route(
    _ router: OpaquePointer?, _ pattern: UnsafePointer<CChar>?, _ destination: ilk_destination_fn?,
    _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?, _ routeID: UnsafeMutablePointer<UInt32>?
) -> Int32 {
    addRoute(router, pattern, nil, destination, userdata, freeFn, routeID)
}

@_cdecl("ilk_router_add_named_route")
public func ilk_router_add_named_route(
    _ router: OpaquePointer?, _ pattern: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>?, _ destination: ilk_destination_fn?,
    _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?, _ routeID: UnsafeMutablePointer<UInt32>?
) -> Int32 {
    guard name != nil else { return invalid("name is NULL") }
    return addRoute(router, pattern, name, destination, userdata, freeFn, routeID)
}

private func addRoute(
    _ router: OpaquePointer?, _ pattern: UnsafePointer<CChar>?, _ name: UnsafePointer<CChar>?, _ destination: ilk_destination_fn?,
    _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?, _ routeID: UnsafeMutablePointer<UInt32>?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    var owner: Userdata? = nil
    do {
        guard let pattern = try text(pattern, "pattern", code: .pattern) else { return invalid("pattern is NULL") }
        let name = try text(name, "route name")
        owner = freeFn.map { Userdata(userdata, free: $0) }
        // With its destination in one change: a resolve never finds the route without it.
        let id = try r.router.addRoute(pattern, name: name,
                                       destination: destination.map { CCallback(function: $0, userdata: userdata, owner: owner).destination },
                                       routeGuard: nil)
        if let owner { r.owned.withLock { $0[id, default: RouteOwned()].destination = owner } }
        routeID?.pointee = id
        return ILK_OK
    } catch {
        owner?.abandon()        // no route took it: the userdata stays the caller's
        return fail(error)
    }
}

@_cdecl("ilk_router_set_default")
public func ilk_router_set_default(
    _ router: OpaquePointer?, _ destination: ilk_destination_fn?, _ userdata: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    // The destination holds its userdata's owner: a resolve running the one replaced keeps it
    // until it ends. The handle holds it too, to free it when the router is freed.
    let owner = destination == nil ? nil : freeFn.map { Userdata(userdata, free: $0) }
    let old = r.defaultUserdata.withLock { slot in
        let old = slot
        slot = owner
        return old
    }
    r.router.defaultDestination = destination.map { CCallback(function: $0, userdata: userdata, owner: owner).destination }
    _ = consume old         // freed here unless a resolve runs it
    if destination == nil, let freeFn { freeFn(userdata) }   // nothing will use it
    return ILK_OK
}

@_cdecl("ilk_router_route_count")
public func ilk_router_route_count(_ router: OpaquePointer?) -> Int {
    guard let r = handle(router, as: RouterHandle.self) else { return 0 }
    return r.router.count
}

@_cdecl("ilk_router_route_name")
public func ilk_router_route_name(
    _ router: OpaquePointer?, _ id: UInt32, _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let name else { return invalid("name is NULL") }
    guard let route = r.router.route(id) else { return fail(r.router.unknownRoute(id)) }
    name.pointee = route.nameCString.map { UnsafePointer($0) }
    return ILK_OK
}

@_cdecl("ilk_router_route_pattern")
public func ilk_router_route_pattern(
    _ router: OpaquePointer?, _ id: UInt32, _ pattern: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let pattern else { return invalid("pattern is NULL") }
    guard let route = r.router.route(id) else {
        return fail(r.router.unknownRoute(id))
    }
    pattern.pointee = UnsafePointer(route.patternCString)
    return ILK_OK
}

// MARK: Matching

@_cdecl("ilk_match_new")
public func ilk_match_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return invalid("out is NULL") }
    out.pointee = retained(MatchHandle())
    return ILK_OK
}

@_cdecl("ilk_match_free")
public func ilk_match_free(_ m: OpaquePointer?) {
    release(m, as: MatchHandle.self)
}

@_cdecl("ilk_router_match")
public func ilk_router_match(
    _ router: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ uri: UnsafePointer<CChar>?, _ uriLength: Int,
    _ m: OpaquePointer?
) -> Int32 {
    guard let router else { return invalid("router is NULL") }
    guard let uri else { return invalid("uri is NULL") }
    guard let m else { return invalid("match is NULL") }
    guard let uriLength = size(uriLength) else { return tooLarge("uri_len", uriLength) }
    // Borrowed handles: no reference counting on the router, which every thread shares.
    return withHandle(router, as: RouterHandle.self) { r in
        withHandle(m, as: MatchHandle.self) { h in
            r.router.withGuaranteedReference { routerObject in
                h.router = routerObject
                return matchThrough(routerObject, h.matcher, method, UnsafeRawBufferPointer(start: uri, count: uriLength))
            }
        }
    }
}

private func matchThrough(_ router: Router, _ matcher: Matcher, _ method: UnsafePointer<CChar>?, _ uri: UnsafeRawBufferPointer) -> Int32 {
    do {
        let outcome = try matcher.match(router, methodCString: UnsafeRawPointer(method)?.assumingMemoryBound(to: UInt8.self), uri: uri)
        switch outcome {
        case .matched: return ILK_OK
        case .notFound: return ILK_NOT_FOUND
        case .methodNotAllowed: return ILK_METHOD_NOT_ALLOWED
        }
    } catch {
        return fail(error)
    }
}

@_cdecl("ilk_router_match_packed")
public func ilk_router_match_packed(
    _ router: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ uri: UnsafePointer<CChar>?, _ uriLength: Int,
    _ m: OpaquePointer?
) -> Int64 {
    let rc = ilk_router_match(router, method, uri, uriLength, m)
    guard let m, rc == ILK_OK else { return Int64(rc) }
    return withHandle(m, as: MatchHandle.self) { h in
        Int64(h.matcher.routeID) << 32 | Int64(truncatingIfNeeded: UInt32(truncatingIfNeeded: h.pack()))
    }
}

@_cdecl("ilk_match_set_buffer")
public func ilk_match_set_buffer(_ m: OpaquePointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int) -> Int32 {
    guard let h = handle(m, as: MatchHandle.self) else { return invalid("match is NULL") }
    guard buffer != nil || capacity == 0 else { return invalid("buffer is NULL but capacity is \(sizeT(capacity))") }
    guard sizeT(capacity) <= UInt(UInt32.max) else { return invalid("capacity \(sizeT(capacity)) is over 4 GiB") }
    h.buffer = buffer
    h.bufferCapacity = buffer == nil ? 0 : capacity
    return ILK_OK
}

@_cdecl("ilk_match_route_id")
public func ilk_match_route_id(_ m: OpaquePointer?) -> UInt32 {
    guard let m else { return 0 }
    return withHandle(m, as: MatchHandle.self) { $0.matcher.matchedRouteID }   // not the route object: no cache miss
}

@_cdecl("ilk_match_pattern")
public func ilk_match_pattern(_ m: OpaquePointer?) -> UnsafePointer<CChar>? {
    handle(m, as: MatchHandle.self)?.matcher.route.map { UnsafePointer($0.patternCString) }
}

@_cdecl("ilk_match_param_count")
public func ilk_match_param_count(_ m: OpaquePointer?) -> Int {
    guard let m else { return 0 }
    return withHandle(m, as: MatchHandle.self) { $0.matcher.boundParameterCount }
}

@_cdecl("ilk_match_param_at")
public func ilk_match_param_at(
    _ m: OpaquePointer?, _ i: Int,
    _ name: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ nameLength: UnsafeMutablePointer<Int>?,
    _ value: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ valueLength: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let m else { return invalid("match is NULL") }
    // Borrowed, as ilk_router_match does: a retained handle cost a reference count each call.
    return withHandle(m, as: MatchHandle.self) { h in
        guard i >= 0, let p = h.matcher.parameter(at: i) else {
            return invalid("parameter index \(sizeT(i)) is out of range (the match has \(h.matcher.boundParameterCount))")
        }
        name?.pointee = p.name; nameLength?.pointee = p.nameLength
        value?.pointee = p.value; valueLength?.pointee = p.valueLength
        return ILK_OK
    }
}

@_cdecl("ilk_match_param")
public func ilk_match_param(
    _ m: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ value: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ valueLength: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let h = handle(m, as: MatchHandle.self) else { return invalid("match is NULL") }
    guard let name else { return invalid("name is NULL") }
    guard let i = h.matcher.parameterIndex(UnsafeRawBufferPointer(start: name, count: strlen(name))) else {
        return ILK_NOT_FOUND
    }
    guard let (v, vl) = h.matcher.parameterValue(i) else { return ILK_NOT_FOUND }
    value?.pointee = v; valueLength?.pointee = vl
    return ILK_OK
}

@_cdecl("ilk_match_allowed_count")
public func ilk_match_allowed_count(_ m: OpaquePointer?) -> Int {
    handle(m, as: MatchHandle.self)?.matcher.allowedMethodCount ?? 0
}

@_cdecl("ilk_match_allowed_at")
public func ilk_match_allowed_at(_ m: OpaquePointer?, _ i: Int) -> UnsafePointer<CChar>? {
    guard let h = handle(m, as: MatchHandle.self), isIndex(i, below: h.matcher.allowedMethodCount) else { return nil }
    return h.matcher.allowedMethodCString(i)
}

@_silgen_name("strlen") func strlen(_ s: UnsafePointer<CChar>) -> Int
