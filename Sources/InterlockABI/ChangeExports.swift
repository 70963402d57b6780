import CInterlock
import Interlock

// Changing a router's table from C: removing and replacing routes, finding a route's id by its
// name or the next one in slot order, the host's data on a route, compiling ahead of lookups,
// loading a route file and binding destinations to its routes, and explaining a match.

@_cdecl("ilk_router_remove_route")
public func ilk_router_remove_route(_ router: OpaquePointer?, _ routeID: UInt32) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    do { try r.router.removeRoute(routeID) } catch { return fail(error) }
    // The route's destination holds its userdata's owner until no resolve runs it; its data,
    // the parts the router let go of. Dropped here, after the router's locks.
    _ = r.owned.withLock { $0.removeValue(forKey: routeID) }
    return ILK_OK
}

@_cdecl("ilk_router_replace_route")
public func ilk_router_replace_route(_ router: OpaquePointer?, _ routeID: UInt32, _ pattern: UnsafePointer<CChar>?) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    return checked { () throws(InterlockError) in
        guard let pattern = try text(pattern, "pattern", code: .pattern) else { return invalid("pattern is NULL") }
        try r.router.replaceRoute(routeID, with: pattern)
        return ILK_OK
    }
}

@_cdecl("ilk_router_route_id")
public func ilk_router_route_id(_ router: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ routeID: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let routeID else { return invalid("route_id is NULL") }
    return checked { () throws(InterlockError) in
        guard let name = try text(name, "name") else { return invalid("name is NULL") }
        guard let route = r.router.route(named: name) else { throw InterlockError(.unknownRoute, "no route is named '\(name)'") }
        routeID.pointee = route.id
        return ILK_OK
    }
}

@_cdecl("ilk_router_next_route")
public func ilk_router_next_route(_ router: OpaquePointer?, _ after: UInt32, _ routeID: UnsafeMutablePointer<UInt32>?) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let routeID else { return invalid("route_id is NULL") }
    guard let route = r.router.route(after: after) else { return ILK_NOT_FOUND }
    routeID.pointee = route.id
    return ILK_OK
}

@_cdecl("ilk_router_set_route_data")
public func ilk_router_set_route_data(
    _ router: OpaquePointer?, _ routeID: UInt32, _ data: UnsafeMutableRawPointer?, _ freeFn: ilk_free_fn?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    let owner = data == nil && freeFn == nil ? nil : Userdata(data, free: freeFn)
    return r.owning(owner, as: { var o = $1; swap(&$0.data, &o); return o }, of: routeID) { () throws(InterlockError) in try r.router.setData(owner, for: routeID) }
}

@_cdecl("ilk_match_route_data")
public func ilk_match_route_data(_ m: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let h = handle(m, as: MatchHandle.self), let router = h.router, h.matcher.routeID != 0 else { return nil }
    return (router.data(for: h.matcher.routeID) as? Userdata)?.pointer
}

@_cdecl("ilk_request_route_data")
public func ilk_request_route_data(_ r: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let h = handle(r, as: RequestHandle.self) else { return nil }
    return h.withRequest { ($0.routeData as? Userdata)?.pointer }
}

@_cdecl("ilk_router_compile")
public func ilk_router_compile(_ router: OpaquePointer?) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    return checked { () throws(InterlockError) in
        try r.router.compile()
        return ILK_OK
    }
}

@_cdecl("ilk_router_load")
public func ilk_router_load(
    _ router: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ given: Int, _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    count?.pointee = 0
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let length = size(given) else { return tooLarge("length", given) }
    guard text != nil || length == 0 else { return invalid("text is NULL but length is \(length)") }
    return checked { () throws(InterlockError) in
        let file = try RouteFile.text(UnsafeRawBufferPointer(start: text, count: length))
        let added = try r.router.load(file)      // not on the right of `count?.pointee =`: skipped for NULL
        count?.pointee = added.count
        return ILK_OK
    }
}

@_cdecl("ilk_router_load_ids")
public func ilk_router_load_ids(
    _ router: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ given: Int, _ ids: UnsafeMutablePointer<UInt32>?,
    _ idsCapacity: Int, _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    count?.pointee = 0
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let length = size(given) else { return tooLarge("length", given) }
    guard text != nil || length == 0 else { return invalid("text is NULL but length is \(length)") }
    guard ids != nil || idsCapacity == 0 else { return invalid("ids is NULL but capacity is \(sizeT(idsCapacity))") }
    return checked { () throws(InterlockError) in
        let file = try RouteFile.text(UnsafeRawBufferPointer(start: text, count: length))
        let added = try r.router.load(file, capacity: capacity(idsCapacity)) { needed in count?.pointee = needed }
        for (i, id) in added.enumerated() { ids?[i] = id }
        count?.pointee = added.count
        return ILK_OK
    }
}

@_cdecl("ilk_router_set_destination")
public func ilk_router_set_destination(
    _ router: OpaquePointer?, _ routeID: UInt32, _ destination: ilk_destination_fn?, _ userdata: UnsafeMutableRawPointer?,
    _ freeFn: ilk_free_fn?
) -> Int32 {
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let destination else { return invalid("destination is NULL") }
    let owner = freeFn.map { Userdata(userdata, free: $0) }
    return r.owning(owner, as: { var o = $1; swap(&$0.destination, &o); return o }, of: routeID) { () throws(InterlockError) in
        try r.router.setDestination(CCallback(function: destination, userdata: userdata, owner: owner).destination, for: routeID)
    }
}

extension RouterHandle {
    /// Makes `change` (which hands `owner` to the router) and then keeps `owner` in route `id`'s
    /// `RouteOwned`, to free it with the router: `slot` puts it in its field and gives back what
    /// was there (a closure, not a key path: Embedded Swift has none). On failure the userdata stays the caller's; what it
    /// replaces is freed once no resolve has it (the parts the router let go of hold it), and
    /// after the locks (a free function may call the router).
    func owning(_ owner: Userdata?, as slot: (inout RouteOwned, Userdata?) -> Userdata?, of id: RouteID,
                _ change: () throws(InterlockError) -> Void) -> Int32 {
        do {
            try change()
        } catch {
            owner?.abandon()
            return fail(error)
        }
        let replaced = owned.withLock { owned -> Userdata? in
            slot(&owned[id, default: RouteOwned()], owner)
        }
        _ = replaced
        return ILK_OK
    }
}

@_cdecl("ilk_router_route_value")
public func ilk_router_route_value(_ router: OpaquePointer?, _ routeID: UInt32, _ key: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let r = handle(router, as: RouterHandle.self), let key = lookupKey(key) else { return nil }
    return r.router.dataCString(key, for: routeID).map { UnsafePointer($0) }
}

@_cdecl("ilk_router_explain")
public func ilk_router_explain(
    _ router: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ uri: UnsafePointer<CChar>?, _ uriGiven: Int,
    _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ length: UnsafeMutablePointer<Int>?
) -> Int32 {
    length?.pointee = 0
    guard let r = handle(router, as: RouterHandle.self) else { return invalid("router is NULL") }
    guard let uri else { return invalid("uri is NULL") }
    guard let uriLength = size(uriGiven) else { return tooLarge("uri_len", uriGiven) }
    return checked { () throws(InterlockError) in
        let json = try r.router.explain(bytes: UnsafeRawBufferPointer(start: uri, count: uriLength), method: methodString(method)).json
        let bytes = Array(json.utf8)
        length?.pointee = bytes.count
        guard sizeT(capacity) > UInt(bytes.count) else {
            throw InterlockError(.limit, "buffer holds \(sizeT(capacity)) bytes; the explanation needs \(bytes.count + 1)")
        }
        guard let buffer else { return invalid("buffer is NULL") }
        bytes.withUnsafeBufferPointer { b in
            if let base = b.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: b.count) }
        }
        buffer[bytes.count] = 0
        return ILK_OK
    }
}
