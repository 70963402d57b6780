// The resolve entry points, registering destinations, and building a request from a lookup.

extension Router {
    /// Adds a route whose destination runs when `resolve` picks it.
    ///
    /// - Parameters:
    ///   - pattern: The route pattern, as for ``addRoute(_:name:)``.
    ///   - name: A name for ``url(for:parameters:)`` and redirects to named routes; unique in the
    ///     router, not empty. Nil for none.
    ///   - destination: Runs when ``resolve(_:method:)`` picks the route.
    /// - Returns: The route's id (1, 2, ... in the order added).
    /// - Throws: ``InterlockError``, as ``addRoute(_:name:)`` throws.
    @discardableResult
    public func addRoute(_ pattern: String, name: String? = nil, destination: @escaping Destination) throws(InterlockError) -> RouteID {
        try addRoute(pattern, name: name, destination: destination, routeGuard: nil)
    }

}

extension Matcher {
    /// The request for the lookup just made on `bytes`: its parts kept as bytes (see
    /// `Request.Storage`), made into strings only when read.
    func request(method: String?, bytes: UnsafeRawBufferPointer, matched: Bool, data: RouteData?,
                 sharingStateWith resolve: Request?) -> Request {
        let pathLength = spans.pathLength
        let count = matched ? parameterCount : 0
        // A host that is more than its bytes lower-cased is kept normalized after the path.
        let host = spans.hostIsPlain ? nil : URIParser.normalizedHost(bytes, spans)
        let hostStart = bytes.count + pathLength
        let values = hostStart + (host?.count ?? 0)
        var total = values
        for i in 0..<count { total += parameterValueBytes(i).1 + 1 }
        let uriEnd = bytes.count
        return Request(count: total, path: uriEnd..<(uriEnd + pathLength),
                       scheme: spans.scheme, host: host.map { hostStart..<(hostStart + $0.count) } ?? spans.host,
                       port: spans.port, query: spans.query, fragment: spans.fragment,
                       names: count > 0 ? names : nil, values: values,
                       method: method, route: matched ? route : nil, data: data, sharingStateWith: resolve) { base in
            if let b = bytes.baseAddress { UnsafeMutableRawPointer(base).copyMemory(from: b, byteCount: bytes.count) }
            if pathLength > 0 { (base + bytes.count).initialize(from: pathBytes.baseAddress!, count: pathLength) }
            if let host { for (k, c) in host.enumerated() { base[hostStart + k] = c } }
            var o = values
            for i in 0..<count {
                let (v, n) = parameterValueBytes(i)
                UnsafeMutableRawPointer(base + o).copyMemory(from: v, byteCount: n)
                base[o + n] = 0
                o += n + 1
            }
        }
    }
}

extension Router {
    /// Resolves `uri` through the whole pipeline. Throws only for a malformed URI or method (the
    /// first one: a malformed redirect target ends the resolve with `.error`); everything else,
    /// callback errors included, is in the ``Resolution``.
    ///
    /// - Parameters:
    ///   - uri: The URI: an absolute URI, an absolute path or a relative path.
    ///   - method: The request's method, or nil for any method.
    /// - Returns: How the resolve ended, the request and response, the redirects followed, the
    ///   trace and the state.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/uri`` for a malformed URI (its `offset`
    ///   says where), ``ErrorCode/invalidArgument`` for a malformed method, or ``ErrorCode/limit``
    ///   if the first lookup ran past the router's match limit.
    public func resolve(_ uri: String, method: String? = nil) throws(InterlockError) -> Resolution {
        try withBytes(uri) { (u) throws(InterlockError) in try resolve(bytes: u, method: method) }
    }

    /// Resolves the URI in `bytes` (UTF-8, not NUL-terminated), as ``resolve(_:method:)``.
    ///
    /// - Parameters:
    ///   - bytes: The URI's bytes.
    ///   - method: The request's method, or nil for any method.
    /// - Returns: Everything the resolve produced, as ``resolve(_:method:)`` returns it.
    /// - Throws: ``InterlockError``, as ``resolve(_:method:)`` throws.
    public func resolve(bytes: UnsafeRawBufferPointer, method: String? = nil) throws(InterlockError) -> Resolution {
        // The run is a `let` handed back by `consume`: a `var` (which `endResolve` checks for
        // being the only reference) counted a reference around each call on it.
        let run = beginResolve(method: method)
        let first: PipelineRun.Created
        do {
            first = try run.create(bytes, on: self)
        } catch {
            endResolve(consume run)
            throw error
        }
        let resolution = run.run(from: consume first, on: self)
        endResolve(consume run)
        return resolution
    }
}
