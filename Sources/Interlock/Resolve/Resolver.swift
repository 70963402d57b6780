// Registering destinations, and building a request from a lookup.

extension Router {
    /// Adds a route whose destination runs when `resolve` picks it.
    @discardableResult
    public func addRoute(_ pattern: String, name: String? = nil, destination: @escaping Destination) throws(InterlockError) -> RouteID {
        let id = try addRoute(pattern, name: name)
        try setDestination(destination, for: id)
        return id
    }

}

extension Matcher {
    /// The request for the lookup just made on `bytes`.
    func request(uri: String, method: String?, bytes: UnsafeRawBufferPointer, matched: Bool, state: ResolveState) -> Request {
        let b = bytes.bindMemory(to: UInt8.self)
        func text(_ r: Range<Int>?, lower: Bool = false) -> String? {
            guard let r else { return nil }
            let s = Array(b[r])
            return (lower ? s.map(lowercased) : s).string
        }
        let path = pathString()
        var parameters: [(name: String, value: String)] = []
        if matched { parameters = parameterList() }
        return Request(
            uri: uri, method: method,
            scheme: text(spans.scheme, lower: true), host: text(spans.host, lower: true), port: text(spans.port),
            path: path,
            query: spans.query.map { QueryItems(parsing: UnsafeBufferPointer(rebasing: b[$0])) } ?? QueryItems(),
            fragment: spans.fragment.map { percentDecoded(UnsafeBufferPointer(rebasing: b[$0])) },
            route: matched ? route : nil,
            parameters: parameters,
            state: state)
    }
}
