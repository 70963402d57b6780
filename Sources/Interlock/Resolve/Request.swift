/// A request on its way to a destination: the URI as received, its parts after normalization,
/// and, when a route matched, the route and its decoded parameters.
public struct Request: Sendable {
    /// The URI exactly as received.
    public var uri: String
    /// The method, or nil when the caller gave none (any method).
    public var method: String?
    /// The scheme, lower-cased, or nil for a path.
    public var scheme: String?
    /// The host, lower-cased (only http, https, ws and wss have one), or nil.
    public var host: String?
    /// The port, if the URI gave one.
    public var port: String?
    /// The normalized path, "/" for the root. Escapes other than of unreserved characters stay.
    public var path: String
    /// The query's pairs, decoded.
    public var query: QueryItems
    /// The fragment, decoded, or nil.
    public var fragment: String?
    /// The route that matched, or nil.
    public var route: Route?
    /// The matched route's parameters, decoded, in path order. Interceptors may change them.
    public var parameters: [(name: String, value: String)]
    /// Strings interceptors and filters attach to the request.
    public var metadata: [String: String] = [:]
    /// The state shared by the whole resolve.
    public var state: ResolveState

    /// The value of the named parameter, if bound.
    public subscript(parameter name: String) -> String? {
        parameters.first { $0.name == name }?.value
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
