import CInterlock
import Interlock
import Synchronization

// The objects behind the opaque C handles. They only hold and convert: every rule lives in the
// Interlock module. The callback types, codes and layouts are the header's (module CInterlock).

/// C userdata with its free function: freed exactly once, by `dispose()` or when the last
/// reference goes.
final class Userdata: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    private let freeFn: ilk_free_fn?
    private let disposed = Atomic<Bool>(false)

    init(_ pointer: UnsafeMutableRawPointer?, free: ilk_free_fn?) {
        self.pointer = pointer
        self.freeFn = free
    }

    func dispose() {
        if disposed.exchange(true, ordering: .acquiringAndReleasing) { return }
        freeFn?(pointer)
    }

    /// Gives the userdata back to the caller: it is never freed here (a call that failed leaves
    /// it the caller's).
    func abandon() { _ = disposed.exchange(true, ordering: .relaxed) }

    deinit { dispose() }
}

/// A C destination with its userdata, and the userdata's owner when it has a free function: a
/// resolve running the destination keeps it until it ends (a route removed, or a default
/// replaced, meanwhile). The router handle holds the owner too, to free it with the router.
final class CCallback: @unchecked Sendable {
    let function: ilk_destination_fn
    let pointer: UnsafeMutableRawPointer?
    private let owner: Userdata?
    /// Every thread's handle pool, read here rather than from the global at each call (see
    /// `handlePools`). A field, not a capture: a closure capturing `self` alone uses it as its
    /// context, where one capturing a second value allocates a box for every route.
    private let pools = handlePools

    init(function: ilk_destination_fn, userdata: UnsafeMutableRawPointer?, owner: Userdata?) {
        self.function = function
        self.pointer = userdata
        self.owner = owner
    }

    /// The callback as a Swift destination.
    var destination: Destination {
        { [self] request, response throws(CallbackError) in
            try pools.with { pool throws(CallbackError) in try pool.lending(request) { req throws(CallbackError) in
                try pool.borrowing(&response) { res throws(CallbackError) in
                    let rc = function(req.opaque, res.opaque, pointer)
                    if rc != 0 {
                        throw InterlockError(.callback, res.errorMessage ?? req.errorMessage ?? "destination returned \(rc)")
                    }
                }
            } }
        }
    }
}

final class RouterHandle {
    let router: Router
    /// The userdata of each route's destination and its data (`RouteOwned`), freed when the
    /// router is; a removed route's, or replaced data's, when nothing runs it any more.
    let owned = Mutex<[RouteID: RouteOwned]>([:])
    /// The userdata of the default destination, freed when the router is (or, once replaced,
    /// when nothing runs it: the destination holds it too).
    let defaultUserdata = Mutex<Userdata?>(nil)
    /// Numbers unnamed filters.
    let filterCount = Atomic<Int>(0)

    init(_ router: Router) { self.router = router }

    deinit {
        for o in owned.withLock({ $0.values }) { o.destination?.dispose(); o.data?.dispose() }
        defaultUserdata.withLock { $0?.dispose() }
    }
}

/// What the router handle frees for one route.
struct RouteOwned {
    var destination: Userdata?
    var data: Userdata?
}

final class MatchHandle {
    let matcher = Matcher(preallocate: true)
    /// The router of the last lookup, not retained (ilk_match_route_data reads its data; the
    /// header says a match is read while its router lives).
    unowned(unsafe) var router: Router? = nil
    /// Where ilk_router_match_packed writes parameters: the caller's buffer (ilk_match_set_buffer).
    var buffer: UnsafeMutablePointer<CChar>? = nil
    var bufferCapacity = 0

    /// The length of the last match's parameters packed as "name\0value\0..."; written into the
    /// buffer only if they fit.
    func pack() -> Int { matcher.packParameters(into: buffer, capacity: bufferCapacity) }
}
