import CLibc
import Interlock

// The request, response and chain handles given to C callbacks, kept per thread and reused. A
// handle is valid only during the call it is passed to (the header says so), so once that call
// returns the next callback on the same thread may take it: a resolve then allocates no handles.
// The loans are inlined into the callbacks that make them: called, each loan counted references
// to its handle and to the pool around the callback.

final class HandlePool {
    private var requests = HandleStack<RequestHandle>()
    private var responses = HandleStack<ResponseHandle>()
    private var chains = HandleStack<ChainHandle>()

    /// Lends `request` to `body` through a pooled handle, to be read: a change the callback makes
    /// goes to the handle's own copy (see `RequestHandle.request`), never to `request`. It has
    /// `lend`'s shape rather than calling it: a shared helper taking the borrow as a closure made
    /// every resolve longer.
    @inline(__always) func lending<R, E: Error>(_ request: Request, _ body: (RequestHandle) throws(E) -> R) throws(E) -> R {
        let held = requests.pop() ?? .passRetained(RequestHandle(RequestHandle.placeholder))
        defer { requests.push(held) }
        return try held.withGuaranteedRef { h throws(E) in
            try withUnsafePointer(to: request) { p throws(E) in
                h.borrow(readOnly: p)
                defer { h.endBorrow() }
                return try body(h)
            }
        }
    }

    /// Lends `request` (the pipeline's own, changed in place) to `body` through a pooled handle.
    @inline(__always) func borrowing<R, E: Error>(_ request: inout Request, _ body: (RequestHandle) throws(E) -> R) throws(E) -> R {
        // The handle leaves the stack before `body` runs and returns after: a callback may resolve
        // again on this thread, which takes handles from the same stack.
        let held = requests.pop() ?? .passRetained(RequestHandle(RequestHandle.placeholder))
        defer { requests.push(held) }
        return try held.withGuaranteedRef { h throws(E) in try lend(&request, through: h, body) }
    }

    /// Lends `response` to `body` through a pooled handle, as `borrowing(_:_:)` for a request.
    @inline(__always) func borrowing<R, E: Error>(_ response: inout Response, _ body: (ResponseHandle) throws(E) -> R) throws(E) -> R {
        let held = responses.pop() ?? .passRetained(ResponseHandle())
        defer { responses.push(held) }
        return try held.withGuaranteedRef { h throws(E) in try lend(&response, through: h, body) }
    }

    /// Points `h` at `value` while `body` runs. No access to a stack stays open meanwhile: an
    /// `inout` stack held across `body` was a second, overlapping access when a callback resolved
    /// again (a trap with exclusivity checks, a lost handle without).
    @inline(__always) private func lend<H: LendingHandle, R, E: Error>(_ value: inout H.Value, through h: H, _ body: (H) throws(E) -> R) throws(E) -> R {
        try withUnsafeMutablePointer(to: &value) { p throws(E) in
            h.borrow(p)
            defer { h.endBorrow() }
            return try body(h)
        }
    }

    /// Lends `chain` to `body` through a pooled handle, for the filter's call. Inlined: called
    /// inside the request's loan, its closure would otherwise be a context that counts a
    /// reference to each thing the filter's body uses (about three a filter call).
    @inline(__always) func lending<R, E: Error>(_ chain: FilterChain, _ body: (ChainHandle) throws(E) -> R) throws(E) -> R {
        let held = chains.pop() ?? .passRetained(ChainHandle())
        defer { chains.push(held) }
        return try held.withGuaranteedRef { h throws(E) in
            try withUnsafePointer(to: chain) { p throws(E) in
                h.borrow(p)
                defer { h.endBorrow() }
                return try body(h)
            }
        }
    }
}

/// Up to eight spare handles, enough for callbacks nested a few deep (filters calling next,
/// resolves inside callbacks; deeper ones allocate): a fixed buffer of retained references, since
/// an array's pop and append cost more than the rest of lending a handle. A handle moves out and
/// back in as the reference the stack holds (`Unmanaged`, +1), not as a strong reference: that
/// counted a reference on the way back and let one go at the end of the loan.
struct HandleStack<H: AnyObject>: ~Copyable {
    private static var capacity: Int { 8 }
    private let items = UnsafeMutablePointer<Unmanaged<H>>.allocate(capacity: HandleStack.capacity)
    private var count = 0

    /// A spare handle and the reference to it the stack held, now the caller's to `push` back.
    mutating func pop() -> Unmanaged<H>? {
        guard count > 0 else { return nil }
        count -= 1
        return items[count]
    }

    /// Keeps `h` (a reference the caller holds) for reuse, or lets it go when the stack is full.
    mutating func push(_ h: Unmanaged<H>) {
        guard count < HandleStack.capacity else { h.release(); return }
        items[count] = h
        count += 1
    }

    deinit {
        for i in 0..<count { items[i].release() }
        items.deallocate()
    }
}

/// A handle that can stand for a value it does not own (see `HandlePool.borrowing`).
protocol LendingHandle: AnyObject {
    associatedtype Value
    func borrow(_ target: UnsafeMutablePointer<Value>)
    func endBorrow()
}

extension RequestHandle: LendingHandle {}
extension ResponseHandle: LendingHandle {}

/// Every thread's pool. The callbacks capture it when they are made (`[pools = handlePools]`),
/// rather than read the global at each call: a global made on first use costs a `swift_once`
/// call each time it is read (four times a resolve).
let handlePools = ThreadLocal { HandlePool() }
