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

    func chain(_ c: FilterChain) -> ChainHandle {
        guard let h = chains.popLast() else { return ChainHandle(c) }
        h.reuse(for: c)
        return h
    }

    /// Takes back handles whose call has returned. Their values are dropped now, so that the
    /// request or response they stood for is not kept alive (or copied on its next change).
    func recycle(_ h: RequestHandle) {
        h.reuse(for: emptyRequest)
        if requests.count < HandlePool.limit { requests.append(h) }
    }

    func recycle(_ h: ResponseHandle) {
        h.reuse(for: Response())
        if responses.count < HandlePool.limit { responses.append(h) }
    }

    func recycle(_ h: ChainHandle) {
        h.reuse(for: nil)
        if chains.count < HandlePool.limit { chains.append(h) }
    }
}

/// What a pooled request handle holds between calls.
private let emptyRequest = Request(uri: "")

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
