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

    deinit { dispose() }
}

/// A C destination with its userdata. Who frees the userdata holds it apart, as a `Userdata`
/// (the router handle's list, or its default's slot): a route's callback is then one object of
/// three fields (a 48-byte allocation for every route).
final class CCallback: @unchecked Sendable {
    let function: ilk_destination_fn
    let pointer: UnsafeMutableRawPointer?
    /// Every thread's handle pool, read here rather than from the global at each call (see
    /// `handlePools`). A field, not a capture: a closure capturing `self` alone uses it as its
    /// context, where one capturing a second value allocates a box for every route.
    private let pools = handlePools

    init(function: ilk_destination_fn, userdata: UnsafeMutableRawPointer?) {
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
