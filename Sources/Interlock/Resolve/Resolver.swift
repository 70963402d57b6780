// Resolving a URI: match, build the request, call the destination. Callbacks run outside the
// router's lock, so they may resolve other URIs or add routes (seen from the next resolve).

extension Router {
    /// Adds a route whose destination runs when `resolve` picks it.
    @discardableResult
    public func addRoute(_ pattern: String, name: String? = nil, destination: @escaping Destination) throws(InterlockError) -> RouteID {
        let id = try addRoute(pattern, name: name)
        setDestination(destination, for: id)
        return id
    }

    /// Resolves `uri`: matches it, builds the ``Request`` and runs the matched route's destination,
    /// or the default destination when no route matched. Throws for a malformed URI or method.
    public func resolve(_ uri: String, method: String? = nil) throws(InterlockError) -> Resolution {
        try withBytes(Array(uri.utf8)) { (u) throws(InterlockError) in try resolve(bytes: u, method: method) }
    }

    /// Resolves the URI in `bytes` (UTF-8, not NUL-terminated), as ``resolve(_:method:)``.
    public func resolve(bytes: UnsafeRawBufferPointer, method: String? = nil) throws(InterlockError) -> Resolution {
        let pooled = takeMatcher()
        defer { returnMatcher(pooled) }
        let matcher = pooled.matcher
        let methodBytes = method.map { Array($0.utf8) }
        let outcome: MatchOutcome
        if let methodBytes {
            outcome = try withBytes(methodBytes) { (m) throws(InterlockError) in try matcher.match(self, method: m, uri: bytes) }
        } else {
            outcome = try matcher.match(self, method: nil, uri: bytes)
        }
        let uri = String(decoding: bytes, as: UTF8.self)
        let request = matcher.request(uri: uri, method: method, bytes: bytes, matched: outcome == .matched)
        var response = Response()
        let destination: Destination?
        switch outcome {
        case .matched: destination = request.route.flatMap { self.destination(for: $0.id) }
        case .notFound: destination = defaultDestination
        case .methodNotAllowed:
            return Resolution(status: .methodNotAllowed(allowed: matcher.allowedMethods), request: request, response: response)
        }
        guard let destination else {
            return Resolution(status: outcome == .matched ? .ok : .notFound, request: request, response: response)
        }
        do {
            try destination(request, &response)
        } catch {
            return Resolution(status: .error(String(describing: error)), request: request, response: Response())
        }
        return Resolution(status: .ok, request: request, response: response)
    }
}

extension Matcher {
    /// The request for the lookup just made on `bytes`.
    func request(uri: String, method: String?, bytes: UnsafeRawBufferPointer, matched: Bool) -> Request {
        let b = bytes.bindMemory(to: UInt8.self)
        func text(_ r: Range<Int>?, lower: Bool = false) -> String? {
            guard let r else { return nil }
            let s = Array(b[r])
            return (lower ? s.map(lowercased) : s).string
        }
        let path = pathString()
        var parameters: [(name: String, value: String)] = []
        if matched {
            let m = routeMatch()
            parameters = m.parameters
        }
        return Request(
            uri: uri, method: method,
            scheme: text(spans.scheme, lower: true), host: text(spans.host, lower: true), port: text(spans.port),
            path: path,
            query: spans.query.map { QueryItems(parsing: UnsafeBufferPointer(rebasing: b[$0])) } ?? QueryItems(),
            fragment: spans.fragment.map { percentDecoded(UnsafeBufferPointer(rebasing: b[$0])) },
            route: matched ? route : nil,
            parameters: parameters)
    }
}
