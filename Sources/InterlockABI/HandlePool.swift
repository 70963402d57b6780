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

    func response(_ r: Response) -> ResponseHandle {
        guard let h = responses.popLast() else { return ResponseHandle(r) }
        h.reuse(for: r)
        return h
    }

    /// Lends `request` (the pipeline's own, changed in place) to `body` through a pooled handle.
    func borrowing<R>(_ request: inout Request, _ body: (RequestHandle) throws -> R) rethrows -> R {
        let h = requests.popLast() ?? RequestHandle(Request(uri: ""))
        return try withUnsafeMutablePointer(to: &request) { p in
            h.borrow(p)
            defer {
                h.endBorrow()
                if requests.count < HandlePool.limit { requests.append(h) }
            }
            return try body(h)
        }
    }

    /// Lends `response` to `body` through a pooled handle, as `borrowing(_:_:)` for a request.
    func borrowing<R>(_ response: inout Response, _ body: (ResponseHandle) throws -> R) rethrows -> R {
        let h = responses.popLast() ?? ResponseHandle()
        return try withUnsafeMutablePointer(to: &response) { p in
            h.borrow(p)
            defer {
                h.endBorrow()
                if responses.count < HandlePool.limit { responses.append(h) }
            }
            return try body(h)
        }
    }

    func chain(_ c: FilterChain) -> ChainHandle {
        guard let h = chains.popLast() else { return ChainHandle(c) }
        h.reuse(for: c)
        return h
    }

    /// Takes back handles whose call has returned. A request handle keeps its request until it is
    /// reused (a request is small, and it is shared, not copied); a response handle lets go of its
    /// response now, which may hold a large body.
    func recycle(_ h: RequestHandle) {
        if requests.count < HandlePool.limit { requests.append(h) }
    }

    func recycle(_ h: ResponseHandle) {
        h.response = Response()
        if responses.count < HandlePool.limit { responses.append(h) }
    }

    func recycle(_ h: ChainHandle) {
        h.reuse(for: nil)
        if chains.count < HandlePool.limit { chains.append(h) }
    }
}

private let poolKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { p in
        if let p { Unmanaged<HandlePool>.fromOpaque(p).release() }
    }
    return key
}()

/// This thread's pool.
func handlePool() -> HandlePool {
    if let p = pthread_getspecific(poolKey) {
        return Unmanaged<HandlePool>.fromOpaque(p).takeUnretainedValue()
    }
    let pool = HandlePool()
    pthread_setspecific(poolKey, Unmanaged.passRetained(pool).toOpaque())
    return pool
}
