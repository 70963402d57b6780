import Glibc
import Interlock

// The request, response and chain handles given to C callbacks, kept per thread and reused. A
// handle is valid only during the call it is passed to (the header says so), so once that call
// returns the next callback on the same thread may take it: a resolve then allocates no handles.

final class HandlePool {
    private var requests: [RequestHandle] = []
    private var responses: [ResponseHandle] = []
    private var chains: [ChainHandle] = []
    /// Enough for callbacks nested a few deep (filters calling next, resolves inside callbacks);
    /// deeper ones allocate.
    private static let limit = 8

    func request(_ r: Request) -> RequestHandle {
        guard let h = requests.popLast() else { return RequestHandle(r) }
        h.reuse(for: r)
        return h
    }

    /// Lends `request` (the pipeline's own, changed in place) to `body` through a pooled handle.
    func borrowing<R>(_ request: inout Request, _ body: (RequestHandle) throws -> R) rethrows -> R {
        try lend(&request, from: &requests, make: { RequestHandle(Request(uri: "")) }, body)
    }

    /// Lends `response` to `body` through a pooled handle, as `borrowing(_:_:)` for a request.
    func borrowing<R>(_ response: inout Response, _ body: (ResponseHandle) throws -> R) rethrows -> R {
        try lend(&response, from: &responses, make: { ResponseHandle() }, body)
    }

    private func lend<H: LendingHandle, R>(
        _ value: inout H.Value, from stack: inout [H], make: () -> H, _ body: (H) throws -> R
    ) rethrows -> R {
        let h = stack.popLast() ?? make()
        defer { if stack.count < HandlePool.limit { stack.append(h) } }
        return try withUnsafeMutablePointer(to: &value) { p in
            h.borrow(p)
            defer { h.endBorrow() }
            return try body(h)
        }
    }

    func chain(_ c: FilterChain) -> ChainHandle {
        guard let h = chains.popLast() else { return ChainHandle(c) }
        h.reuse(for: c)
        return h
    }

    /// Takes back handles whose call has returned. A request handle keeps its request until it is
    /// reused (a request is small, and it is shared, not copied).
    func recycle(_ h: RequestHandle) {
        if requests.count < HandlePool.limit { requests.append(h) }
    }

    func recycle(_ h: ChainHandle) {
        h.reuse(for: nil)
        if chains.count < HandlePool.limit { chains.append(h) }
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

private let pools = ThreadLocal { HandlePool() }

/// This thread's pool.
func handlePool() -> HandlePool { pools.value }
