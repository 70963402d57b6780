/// A request on its way to a destination: the URI as received, its parts after normalization,
/// and, when a route matched, the route and its decoded parameters.
///
/// A value type whose fields live in one shared storage object, copied on the first change: the
/// pipeline hands the request to every callback, and a copy then costs one reference count.
public struct Request: Sendable {
    final class Storage: @unchecked Sendable {
        var uri: String
        var method: String?
        var scheme: String?
        var host: String?
        var port: String?
        var path: String
        var query: QueryItems
        var fragment: String?
        var route: Route?
        var parameters: [(name: String, value: String)]
        var metadata: [String: String]
        var state: ResolveState

        init(uri: String, method: String?, scheme: String?, host: String?, port: String?, path: String,
             query: QueryItems, fragment: String?, route: Route?, parameters: [(name: String, value: String)],
             metadata: [String: String], state: ResolveState) {
            self.uri = uri; self.method = method; self.scheme = scheme; self.host = host; self.port = port
            self.path = path; self.query = query; self.fragment = fragment; self.route = route
            self.parameters = parameters; self.metadata = metadata; self.state = state
        }

        func copy() -> Storage {
            Storage(uri: uri, method: method, scheme: scheme, host: host, port: port, path: path, query: query,
                    fragment: fragment, route: route, parameters: parameters, metadata: metadata, state: state)
        }
    }

    private var storage: Storage

    init(uri: String, method: String?, scheme: String?, host: String?, port: String?, path: String,
         query: QueryItems, fragment: String?, route: Route?, parameters: [(name: String, value: String)],
         metadata: [String: String] = [:], state: ResolveState) {
        storage = Storage(uri: uri, method: method, scheme: scheme, host: host, port: port, path: path, query: query,
                          fragment: fragment, route: route, parameters: parameters, metadata: metadata, state: state)
    }

    /// A request made outside a resolve (to try an interceptor or filter on, say): `uri` taken as
    /// given, not parsed; path "/", nothing matched, a state of its own.
    public init(uri: String, method: String? = nil) {
        self.init(uri: uri, method: method, scheme: nil, host: nil, port: nil, path: "/", query: QueryItems(),
                  fragment: nil, route: nil, parameters: [], state: ResolveState())
    }

    /// The storage, copied first if another request shares it.
    private var unique: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    /// The URI exactly as received.
    public var uri: String {
        get { storage.uri }
        set { unique.uri = newValue }
    }
    /// The method, or nil when the caller gave none (any method).
    public var method: String? {
        get { storage.method }
        set { unique.method = newValue }
    }
    /// The scheme, lower-cased, or nil for a path.
    public var scheme: String? {
        get { storage.scheme }
        set { unique.scheme = newValue }
    }
    /// The host, lower-cased (only http, https, ws and wss have one), or nil.
    public var host: String? {
        get { storage.host }
        set { unique.host = newValue }
    }
    /// The port, if the URI gave one.
    public var port: String? {
        get { storage.port }
        set { unique.port = newValue }
    }
    /// The normalized path, "/" for the root. Escapes other than of unreserved characters stay.
    public var path: String {
        get { storage.path }
        set { unique.path = newValue }
    }
    /// The query's pairs, decoded.
    public var query: QueryItems {
        get { storage.query }
        set { unique.query = newValue }
    }
    /// The fragment, decoded, or nil.
    public var fragment: String? {
        get { storage.fragment }
        set { unique.fragment = newValue }
    }
    /// The route that matched, or nil.
    public var route: Route? {
        get { storage.route }
        set { unique.route = newValue }
    }
    /// The matched route's parameters, decoded, in path order. Interceptors may change them.
    public var parameters: [(name: String, value: String)] {
        get { storage.parameters }
        _modify { let s = unique; yield &s.parameters }
    }
    /// Strings interceptors and filters attach to the request.
    public var metadata: [String: String] {
        get { storage.metadata }
        _modify { let s = unique; yield &s.metadata }
    }
    /// The state shared by the whole resolve.
    public var state: ResolveState {
        get { storage.state }
        set { unique.state = newValue }
    }

    /// The value of the named parameter, if bound.
    public subscript(parameter name: String) -> String? {
        storage.parameters.first { $0.name == name }?.value
    }
}

/// What a destination produces: a status (200 unless set), a body and headers.
public struct Response: Sendable {
    /// The status, 200 by default.
    public var status: Int = 200
    /// The body bytes.
    public var body: [UInt8] = []
    /// Headers in the order added.
    public var headers: [(name: String, value: String)] = []

    /// An empty 200 response.
    public init() {}

    /// Adds a header.
    public mutating func addHeader(_ name: String, _ value: String) { headers.append((name, value)) }
}

/// A route's callback: reads the request, fills the response; throwing ends the resolve with
/// ``ResolveStatus/error(_:)``.
public typealias Destination = @Sendable (Request, inout Response) throws -> Void

/// How a resolve ended.
public enum ResolveStatus: Equatable, Sendable {
    /// A destination ran (the route's, or the default one when nothing matched), or a route
    /// without destination matched.
    case ok
    /// No route matched and there is no default destination.
    case notFound
    /// Routes match the path under other methods only.
    case methodNotAllowed(allowed: [String])
    /// A filter stopped the request.
    case stopped
    /// The route's guard refused; the URI is kept as the router's pending link.
    case guarded
    /// An interceptor aborted, with its reason.
    case aborted(String)
    /// Redirects went deeper than the router's redirect limit.
    case redirectLoop
    /// Response interceptors asked for more retries than the router's retry limit.
    case retryLimit
    /// A callback reported an error.
    case error(String)
}

/// Everything a resolve produced.
public struct Resolution: Sendable {
    /// How it ended.
    public var status: ResolveStatus
    /// The request as the pipeline last saw it.
    public var request: Request
    /// The response (empty 200 unless a destination ran; empty after an abort).
    public var response: Response
    /// The URIs redirected to, in order.
    public var redirects: [String] = []
    /// One entry per stage that ran.
    public var trace: [TraceEntry] = []

    /// The matched route, if any.
    public var route: Route? { request.route }
    /// The resolve's state.
    public var state: ResolveState { request.state }
}
