import Synchronization

/// A request on its way to a destination: the URI as received, its parts after normalization,
/// and, when a route matched, the route and its decoded parameters.
///
/// A value type whose fields live in one shared storage object, copied on the first change: the
/// pipeline hands the request to every callback, and a copy then costs one reference count. The
/// parts of the URI are kept as the bytes the matcher saw and made into strings when read, so a
/// resolve whose callbacks read nothing builds none.
public struct Request: Sendable {
    /// The same parts as strings, once something changed one of them.
    struct Fields {
        var uri: String
        var scheme: String?
        var host: String?
        var port: String?
        var path: String
        var query: QueryItems
        var fragment: String?
        var parameters: [(name: String, value: String)]
    }

    final class Storage: @unchecked Sendable {
        // The URI's parts as the matcher saw them: the URI, the normalized path, then the decoded
        // parameter values, each followed by a NUL byte (a value never holds one). Owned, and
        // copied with the storage (which happens only when a callback changes the request): a
        // raw buffer rather than an array, whose allocation costs a generic-metadata lookup.
        let bytes: UnsafeMutableBufferPointer<UInt8>
        let pathRange: Range<Int>
        let schemeRange, hostRange, portRange, queryRange, fragmentRange: Range<Int>?
        let names: [String]
        let values: Int               // where the values start
        /// Set once a part was changed: then every part is read from here.
        var fields: Fields?
        var method: String?
        var route: Route?
        var metadata: [String: String]
        /// The first request of the resolve this one belongs to (nil: this is it). Its
        /// `sharedState` is the resolve's state, made on first use: most resolves never use it,
        /// and every request of the resolve (copies, retries, redirects) finds the same one.
        let origin: Storage?
        private let sharedState = AtomicLazyReference<ResolveState>()
        /// A state set on this request (or the one it was copied from), replacing the resolve's.
        var assignedState: ResolveState?

        /// Takes ownership of `bytes`.
        init(bytes: UnsafeMutableBufferPointer<UInt8>, path: Range<Int>, scheme: Range<Int>?, host: Range<Int>?, port: Range<Int>?,
             query: Range<Int>?, fragment: Range<Int>?, names: [String], values: Int, fields: Fields?,
             method: String?, route: Route?, metadata: [String: String], origin: Storage?, assignedState: ResolveState?) {
            self.bytes = bytes; pathRange = path; schemeRange = scheme; hostRange = host; portRange = port
            queryRange = query; fragmentRange = fragment; self.names = names; self.values = values
            self.fields = fields; self.method = method; self.route = route; self.metadata = metadata
            self.origin = origin; self.assignedState = assignedState
        }

        var state: ResolveState {
            if let assignedState { return assignedState }
            let o = origin ?? self
            return o.sharedState.load() ?? o.sharedState.storeIfNil(ResolveState())
        }

        deinit { bytes.deallocate() }

        func copy() -> Storage {
            let duplicate = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = duplicate.initialize(from: bytes)
            return Storage(bytes: duplicate, path: pathRange, scheme: schemeRange, host: hostRange, port: portRange,
                    query: queryRange, fragment: fragmentRange, names: names, values: values, fields: fields,
                    method: method, route: route, metadata: metadata, origin: origin ?? self, assignedState: assignedState)
        }

        func text(_ r: Range<Int>?, lower: Bool = false) -> String? {
            guard let r else { return nil }
            let part = UnsafeBufferPointer(rebasing: bytes[r])
            return lower ? String(decoding: part.map(lowercased), as: UTF8.self) : String(decoding: part, as: UTF8.self)
        }
        var uri: String { fields?.uri ?? text(0..<pathRange.lowerBound)! }
        var scheme: String? { fields.map { $0.scheme } ?? text(schemeRange, lower: true) }
        var host: String? { fields.map { $0.host } ?? text(hostRange, lower: true) }
        var port: String? { fields.map { $0.port } ?? text(portRange) }
        var path: String { fields?.path ?? (pathRange.isEmpty ? "/" : text(pathRange)!) }
        var query: QueryItems {
            if let fields { return fields.query }
            guard let queryRange else { return QueryItems() }
            return QueryItems(parsing: UnsafeBufferPointer(rebasing: bytes[queryRange]))
        }
        var fragment: String? {
            if let fields { return fields.fragment }
            guard let fragmentRange else { return nil }
            return percentDecoded(UnsafeBufferPointer(rebasing: bytes[fragmentRange]))
        }
        var parameters: [(name: String, value: String)] {
            if let fields { return fields.parameters }
            var out: [(name: String, value: String)] = []
            out.reserveCapacity(names.count)
            var start = values
            for name in names {
                var end = start
                while bytes[end] != 0 { end += 1 }
                out.append((name, String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)))
                start = end + 1
            }
            return out
        }
        var parameterCount: Int { fields?.parameters.count ?? names.count }

        /// Every part as a string, so that one can be changed.
        func materialize() {
            guard fields == nil else { return }
            fields = Fields(uri: uri, scheme: scheme, host: host, port: port, path: path, query: query,
                            fragment: fragment, parameters: parameters)
        }
    }

    private var storage: Storage

    /// A request from the matcher's view of a URI (see `Storage`); takes ownership of `bytes`.
    /// It shares the state of `resolve`'s requests (another pass of the same resolve), or starts one.
    init(bytes: UnsafeMutableBufferPointer<UInt8>, path: Range<Int>, scheme: Range<Int>?, host: Range<Int>?, port: Range<Int>?,
         query: Range<Int>?, fragment: Range<Int>?, names: [String], values: Int,
         method: String?, route: Route?, sharingStateWith resolve: Request?) {
        storage = Storage(bytes: bytes, path: path, scheme: scheme, host: host, port: port, query: query,
                          fragment: fragment, names: names, values: values, fields: nil,
                          method: method, route: route, metadata: [:],
                          origin: resolve.map { $0.storage.origin ?? $0.storage }, assignedState: nil)
    }

    /// A request made outside a resolve (to try an interceptor or filter on, say): `uri` taken as
    /// given, not parsed; path "/", nothing matched, a state of its own.
    public init(uri: String, method: String? = nil) {
        storage = Storage(bytes: .allocate(capacity: 0), path: 0..<0, scheme: nil, host: nil, port: nil, query: nil, fragment: nil,
                          names: [], values: 0,
                          fields: Fields(uri: uri, scheme: nil, host: nil, port: nil, path: "/", query: QueryItems(),
                                         fragment: nil, parameters: []),
                          method: method, route: nil, metadata: [:], origin: nil, assignedState: nil)
    }

    /// The storage, copied first if another request shares it.
    private var unique: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    /// The storage, unique, with its parts as strings so that one can be changed.
    private var changing: Storage {
        mutating get {
            let s = unique
            s.materialize()
            return s
        }
    }

    /// The URI exactly as received.
    public var uri: String {
        get { storage.uri }
        set { changing.fields!.uri = newValue }
    }
    /// The method, or nil when the caller gave none (any method).
    public var method: String? {
        get { storage.method }
        set { unique.method = newValue }
    }
    /// The scheme, lower-cased, or nil for a path.
    public var scheme: String? {
        get { storage.scheme }
        set { changing.fields!.scheme = newValue }
    }
    /// The host, lower-cased (only http, https, ws and wss have one), or nil.
    public var host: String? {
        get { storage.host }
        set { changing.fields!.host = newValue }
    }
    /// The port, if the URI gave one.
    public var port: String? {
        get { storage.port }
        set { changing.fields!.port = newValue }
    }
    /// The normalized path, "/" for the root. Escapes other than of unreserved characters stay.
    public var path: String {
        get { storage.path }
        set { changing.fields!.path = newValue }
    }
    /// The query's pairs, decoded.
    public var query: QueryItems {
        get { storage.query }
        set { changing.fields!.query = newValue }
    }
    /// The fragment, decoded, or nil.
    public var fragment: String? {
        get { storage.fragment }
        set { changing.fields!.fragment = newValue }
    }
    /// The route that matched, or nil.
    public var route: Route? {
        get { storage.route }
        set { unique.route = newValue }
    }
    /// The matched route's parameters, decoded, in path order. Interceptors may change them.
    public var parameters: [(name: String, value: String)] {
        get { storage.parameters }
        _modify { let s = changing; yield &s.fields!.parameters }
    }
    /// The number of parameters (without making their strings).
    public var parameterCount: Int { storage.parameterCount }
    /// Strings interceptors and filters attach to the request.
    public var metadata: [String: String] {
        get { storage.metadata }
        _modify { let s = unique; yield &s.metadata }
    }
    /// The state shared by the whole resolve.
    public var state: ResolveState {
        get { storage.state }
        set { unique.assignedState = newValue }
    }

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
    /// One entry per stage that ran, made from the resolve's records when read.
    public var trace: [TraceEntry] { recorded.entries }
    /// What the resolve recorded.
    let recorded: TraceLog

    /// The matched route, if any.
    public var route: Route? { request.route }
    /// The resolve's state.
    public var state: ResolveState { request.state }
}
