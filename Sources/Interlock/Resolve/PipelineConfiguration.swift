/// A route's guard: allows (true) or refuses (false) the request.
public typealias Guard = @Sendable (Request) throws -> Bool

/// A link a guard refused, kept so that the host can replay it (after a login, say).
public struct PendingLink: Equatable, Sendable {
    /// The URI as received.
    public let uri: String
    /// The method it was resolved with.
    public let method: String?
}

/// Everything around the routes: filters, interceptors, guards, limits.
struct PipelineConfiguration {
    var filters: [Filter] = []
    var requestInterceptors: [RequestInterceptor] = []
    var responseInterceptors: [ResponseInterceptor] = []
    var routeRequestInterceptors: [RouteID: [RequestInterceptor]] = [:]
    var routeResponseInterceptors: [RouteID: [ResponseInterceptor]] = [:]
    var guards: [RouteID: Guard] = [:]
    var redirectLimit = 8
    var retryLimit = 3
}

extension Router {
    /// Adds a route with a destination and, optionally, a guard.
    @discardableResult
    public func addRoute(_ pattern: String, name: String? = nil, guard routeGuard: Guard? = nil,
                         destination: @escaping Destination) throws(InterlockError) -> RouteID {
        let id = try addRoute(pattern, name: name)
        setDestination(destination, for: id)
        if let routeGuard { setGuard(routeGuard, for: id) }
        return id
    }

    /// Appends a filter to the global chain.
    public func addFilter(_ filter: Filter) {
        state.withLock { $0.pipeline.filters.append(filter) }
    }

    /// Adds a request interceptor: global (route nil) or in a route's scope.
    public func addRequestInterceptor(_ interceptor: RequestInterceptor, route: RouteID? = nil) throws(InterlockError) {
        try state.withLock { (s: inout State) throws(InterlockError) in
            if let route {
                try s.checkRoute(route)
                s.pipeline.routeRequestInterceptors[route, default: []].append(interceptor)
            } else {
                s.pipeline.requestInterceptors.append(interceptor)
            }
        }
    }

    /// Adds a response interceptor: global (route nil) or in a route's scope.
    public func addResponseInterceptor(_ interceptor: ResponseInterceptor, route: RouteID? = nil) throws(InterlockError) {
        try state.withLock { (s: inout State) throws(InterlockError) in
            if let route {
                try s.checkRoute(route)
                s.pipeline.routeResponseInterceptors[route, default: []].append(interceptor)
            } else {
                s.pipeline.responseInterceptors.append(interceptor)
            }
        }
    }

    /// Sets (or replaces, or with nil removes) the guard of route `id`.
    public func setGuard(_ routeGuard: Guard?, for id: RouteID) {
        state.withLock { $0.pipeline.guards[id] = routeGuard }
    }

    /// How many redirects one resolve may follow before it ends as `redirectLoop` (8 unless set).
    public var redirectLimit: Int {
        get { state.withLock { $0.pipeline.redirectLimit } }
        set { state.withLock { $0.pipeline.redirectLimit = max(0, newValue) } }
    }

    /// How many retries one resolve may run before it ends as `retryLimit` (3 unless set).
    public var retryLimit: Int {
        get { state.withLock { $0.pipeline.retryLimit } }
        set { state.withLock { $0.pipeline.retryLimit = max(0, newValue) } }
    }

    /// The last link a guard refused, if it was not taken or replayed since.
    public var pendingLink: PendingLink? { state.withLock { $0.pendingLink } }

    /// Returns the pending link and clears it.
    public func takePendingLink() -> PendingLink? {
        state.withLock { s in
            defer { s.pendingLink = nil }
            return s.pendingLink
        }
    }

    /// Takes the pending link only if its URI is shorter than `limit` bytes (for C callers copying
    /// it into a buffer of that size); otherwise leaves it pending and returns nil.
    public func takePendingLink(ifShorterThan limit: Int) -> PendingLink? {
        state.withLock { s in
            guard let link = s.pendingLink, link.uri.utf8.count < limit else { return nil }
            s.pendingLink = nil
            return link
        }
    }

    /// Resolves the pending link again (nil if there is none). It is cleared first, so it is
    /// pending afterwards only if the replay is refused again.
    public func replayPendingLink() throws(InterlockError) -> Resolution? {
        guard let link = takePendingLink() else { return nil }
        return try resolve(link.uri, method: link.method)
    }

    func setPendingLink(_ link: PendingLink) {
        state.withLock { $0.pendingLink = link }
    }

    var pipeline: PipelineConfiguration { state.withLock { $0.pipeline } }
}

extension Router.State {
    /// Throws `.unknownRoute` unless `id` names a route.
    func checkRoute(_ id: RouteID) throws(InterlockError) {
        guard id >= 1, Int(id) <= routes.count else { throw InterlockError(.unknownRoute, "no route has id \(id)") }
    }
}
