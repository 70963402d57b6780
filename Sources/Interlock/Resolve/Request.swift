import Synchronization

/// A request on its way to a destination: the URI as received, its parts after normalization,
/// and, when a route matched, the route and its decoded parameters.
///
/// A value type whose fields live in one shared storage object, copied on the first change: the
/// pipeline hands the request to every callback, and a copy then costs one reference count. The
/// parts of the URI are kept as the bytes the matcher saw and made into strings when read, so a
/// resolve whose callbacks read nothing builds none.
///
/// Sendable by hand: its storage (a `ManagedBuffer`, which the standard library does not mark
/// Sendable) is changed only while one request holds it, and its lazily made state under a lock.
public struct Request: @unchecked Sendable {
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

    /// What a storage holds besides its bytes.
    struct Header {
        /// How many bytes follow the header.
        let count: Int
        let pathRange: Range<Int>
        let schemeRange, hostRange, portRange, queryRange, fragmentRange: Range<Int>?
        /// The matched route's parameter names (nil: none), which also hold them as C strings.
        let names: ParameterNames?
        let values: Int               // where the values start
        /// Set once a part was changed: then every part is read from here.
        var fields: Fields?
        var method: String?
        var route: Route?
        /// The host's value for the matched route, as it stood when the resolve matched it.
        var routeData: RouteData?
        var metadata: [String: String]
        /// The first request of the resolve this one belongs to (nil: this is it). Its
        /// `sharedState` is the resolve's state, made on first use: most resolves never use it,
        /// and every request of the resolve (copies, retries, redirects) finds the same one.
        let origin: Storage?
        /// Read and written only under the storage's state lock (see `Storage.state`).
        var sharedState: ResolveState? = nil
        /// A state set on this request (or the one it was copied from), replacing the resolve's.
        var assignedState: ResolveState?
    }

    /// The header, then the URI's parts as the matcher saw them: the URI, the normalized path,
    /// the normalized host when it is not the URI's bytes lower-cased, then the decoded parameter
    /// values, each followed by a NUL byte (a value never holds one). One allocation for both (a
    /// `ManagedBuffer`'s elements follow its header), copied only when a callback changes the request.
    final class Storage: ManagedBuffer<Header, UInt8> {
        /// A storage of `header.count` bytes, which `fill` writes.
        static func make(_ header: Header, fill: (UnsafeMutablePointer<UInt8>) -> Void) -> Storage {
            let made = unsafeDowncast(Storage.create(minimumCapacity: max(header.count, 1)) { _ in header }, to: Storage.self)
            made.withUnsafeMutablePointerToElements(fill)
            return made
        }

        /// The resolve's state: the one assigned to this request, or the origin's, made on first
        /// use. The origin's is guarded by a lock rather than held in an atomic reference, since
        /// a `ManagedBuffer`'s header must be copyable; only resolves that use their state take it.
        var state: ResolveState {
            if let s = header.assignedState { return s }
            let o = header.origin ?? self
            return stateLocks[o.lockIndex].withLock { _ in
                if let s = o.header.sharedState { return s }
                let s = ResolveState()
                o.header.sharedState = s
                return s
            }
        }

        /// Which of `stateLocks` guards this storage's state: from its address, so that unrelated
        /// resolves rarely share one.
        private var lockIndex: Int {
            Int(truncatingIfNeeded: UInt(bitPattern: ObjectIdentifier(self)) >> 6) & (stateLocks.count - 1)
        }

        /// A copy (what a change to a shared request makes), of the same resolve. Field by field,
        /// not the whole header: `sharedState` is read only under its lock.
        func copy() -> Storage {
            let count = header.count
            return withUnsafeMutablePointerToElements { bytes in
                Storage.make(Header(count: count, pathRange: header.pathRange, schemeRange: header.schemeRange,
                                    hostRange: header.hostRange, portRange: header.portRange, queryRange: header.queryRange,
                                    fragmentRange: header.fragmentRange, names: header.names, values: header.values,
                                    fields: header.fields, method: header.method, route: header.route,
                                    routeData: header.routeData, metadata: header.metadata,
                                    origin: header.origin ?? self, assignedState: header.assignedState)) {
                    $0.update(from: bytes, count: count)
                }
            }
        }

        /// The bytes in `r` as a string (ASCII lower-cased with `lower`).
        func text(_ r: Range<Int>?, lower: Bool = false) -> String? {
            guard let r else { return nil }
            return bytes(in: r) { part in
                lower ? String(decoding: part.map(lowercased), as: UTF8.self) : String(decoding: part, as: UTF8.self)
            }
        }

        /// Calls `body` with the bytes in `r`.
        func bytes<R>(in r: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            withUnsafeMutablePointerToElements { body(UnsafeBufferPointer(start: $0 + r.lowerBound, count: r.count)) }
        }

        var fields: Fields? { header.fields }
        var uri: String { fields?.uri ?? text(0..<header.pathRange.lowerBound)! }
        var scheme: String? { fields.map { $0.scheme } ?? text(header.schemeRange, lower: true) }
        var host: String? { fields.map { $0.host } ?? text(header.hostRange, lower: true) }
        var port: String? { fields.map { $0.port } ?? text(header.portRange) }
        var path: String { fields?.path ?? (header.pathRange.isEmpty ? "/" : text(header.pathRange)!) }
        var query: QueryItems {
            if let fields { return fields.query }
            guard let r = header.queryRange else { return QueryItems() }
            return bytes(in: r) { QueryItems(parsing: $0) }
        }
        var fragment: String? {
            if let fields { return fields.fragment }
            guard let r = header.fragmentRange else { return nil }
            return bytes(in: r) { percentDecoded($0) }
        }
        var parameters: [(name: String, value: String)] {
            if let fields { return fields.parameters }
            let names = header.names?.names ?? []
            var out: [(name: String, value: String)] = []
            out.reserveCapacity(names.count)
            withUnsafeMutablePointerToElements { bytes in
                var start = header.values
                for name in names {
                    var end = start
                    while bytes[end] != 0 { end += 1 }
                    out.append((name, String(decoding: UnsafeBufferPointer(start: bytes + start, count: end - start), as: UTF8.self)))
                    start = end + 1
                }
            }
            return out
        }
        var parameterCount: Int { fields?.parameters.count ?? header.names?.names.count ?? 0 }
        /// Parameter `i`'s name and value as C strings, lent from the route's names and these
        /// bytes (each value is followed by a NUL); nil once a callback changed a part, or for
        /// an `i` out of range. The values are found from `cursor` (where the last one read
        /// starts), so reading them in order reads the bytes once.
        func parameterCString(_ i: Int, cursor: inout Request.ParameterCursor) -> (UnsafePointer<CChar>, UnsafePointer<CChar>)? {
            guard fields == nil, let names = header.names, i >= 0, i < names.names.count else { return nil }
            if cursor.index < 0 || cursor.index > i { cursor = Request.ParameterCursor(index: 0, offset: header.values) }
            return withUnsafeMutablePointerToElements { bytes in
                while cursor.index < i {
                    while bytes[cursor.offset] != 0 { cursor.offset += 1 }
                    cursor.offset += 1
                    cursor.index += 1
                }
                let value = UnsafeRawPointer(bytes + cursor.offset).assumingMemoryBound(to: CChar.self)
                return (UnsafePointer(names.storage + names.offsets[i]), value)
            }
        }

        /// Every part as a string, so that one can be changed.
        func materialize() {
            guard fields == nil else { return }
            header.fields = Fields(uri: uri, scheme: scheme, host: host, port: port, path: path, query: query,
                                   fragment: fragment, parameters: parameters)
        }
    }

    private var storage: Storage

    /// A request from the matcher's view of a URI (see `Storage`): `count` bytes, which `fill`
    /// writes. It shares the state of `resolve`'s requests (another pass of the same resolve), or
    /// starts one.
    init(count: Int, path: Range<Int>, scheme: Range<Int>?, host: Range<Int>?,
         port: Range<Int>?, query: Range<Int>?, fragment: Range<Int>?, names: ParameterNames?, values: Int,
         method: String?, route: Route?, data: RouteData?, sharingStateWith resolve: Request?,
         fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        storage = Storage.make(Header(count: count, pathRange: path, schemeRange: scheme, hostRange: host, portRange: port,
                                      queryRange: query, fragmentRange: fragment, names: names, values: values, fields: nil,
                                      method: method, route: route, routeData: data, metadata: [:],
                                      origin: resolve.map { $0.storage.header.origin ?? $0.storage }, assignedState: nil),
                               fill: fill)
    }

    /// A request made outside a resolve (to try an interceptor or filter on, say): `uri` taken as
    /// given, not parsed; path "/", nothing matched, a state of its own.
    ///
    /// - Parameters:
    ///   - uri: The URI, kept as ``uri`` without parsing.
    ///   - method: The method, or nil for any.
    public init(uri: String, method: String? = nil) {
        storage = Storage.make(Header(count: 0, pathRange: 0..<0, schemeRange: nil, hostRange: nil, portRange: nil,
                                      queryRange: nil, fragmentRange: nil, names: nil, values: 0,
                                      fields: Fields(uri: uri, scheme: nil, host: nil, port: nil, path: "/", query: QueryItems(),
                                                     fragment: nil, parameters: []),
                                      method: method, route: nil, routeData: nil, metadata: [:], origin: nil,
                                      assignedState: nil)) { _ in }
    }

    /// Where the C interface's last read of a lent parameter value was (see
    /// `lentParameter(_:cursor:)`): a position in the request's bytes, which a copy of the
    /// request keeps in the same place.
    package struct ParameterCursor {
        var index: Int
        var offset: Int
        /// Before any read.
        package init() { index = -1; offset = 0 }
        init(index: Int, offset: Int) { self.index = index; self.offset = offset }
    }

    /// Parameter `i`'s name and value as C strings lent by the request, kept alive by `lender`
    /// (the C door holds it while it hands the pointers out); nil for an `i` out of range, or
    /// once a callback changed a part of the request (its strings are then made from the
    /// changed parts). No array is made: `cursor` keeps the place of the last value read.
    package func lentParameter(_ i: Int, cursor: inout ParameterCursor) -> (UnsafePointer<CChar>, UnsafePointer<CChar>)? {
        storage.parameterCString(i, cursor: &cursor)
    }

    /// Whether `lentParameter(_:cursor:)` lends the parameters (no part was changed).
    package var lendsParameters: Bool { storage.fields == nil }

    /// What keeps the strings `lentParameter(_:cursor:)` lends alive.
    package var lender: AnyObject { storage }

    /// The matched route's id (0: none), read without counting a reference to the route.
    package var routeID: RouteID { withRoute { $0?.id ?? 0 } }

    /// Calls `body` with the request at `p`, not copied (no reference counted on its storage):
    /// for the C interface, whose handles read the pipeline's request through a pointer lent for
    /// a callback's call.
    package static func withBorrowed<R, E: Error>(_ p: UnsafePointer<Request>, _ body: (Request) throws(E) -> R) throws(E) -> R {
        try Unmanaged.passUnretained(p.pointee.storage).withGuaranteedRef { (storage) throws(E) in try body(Request(storage: storage)) }
    }

    private init(storage: Storage) { self.storage = storage }

    /// Calls `body` with the route that matched (nil for none), borrowed from the storage: no
    /// reference counted on it.
    func withRoute<R, E: Error>(_ body: (Route?) throws(E) -> R) throws(E) -> R {
        // Checked, then unwrapped: bound with `if let`, the route would be retained.
        guard storage.header.route != nil else { return try body(nil) }
        return try Unmanaged.passUnretained(storage.header.route.unsafelyUnwrapped).withGuaranteedRef { (route) throws(E) in try body(route) }
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
        set { changing.header.fields!.uri = newValue }
    }
    /// The method, or nil when the caller gave none (any method).
    public var method: String? {
        get { storage.header.method }
        set { unique.header.method = newValue }
    }
    /// The scheme, lower-cased, or nil for a path.
    public var scheme: String? {
        get { storage.scheme }
        set { changing.header.fields!.scheme = newValue }
    }
    /// The host, normalized (lower-cased, escapes decoded, a trailing dot dropped, an IPv6
    /// literal as RFC 5952 writes it; only http, https, ws and wss have one), or nil.
    public var host: String? {
        get { storage.host }
        set { changing.header.fields!.host = newValue }
    }
    /// The port, if the URI gave one.
    public var port: String? {
        get { storage.port }
        set { changing.header.fields!.port = newValue }
    }
    /// The normalized path, "/" for the root. Escapes other than of unreserved characters stay.
    public var path: String {
        get { storage.path }
        set { changing.header.fields!.path = newValue }
    }
    /// The query's pairs, decoded.
    public var query: QueryItems {
        get { storage.query }
        set { changing.header.fields!.query = newValue }
    }
    /// The fragment, decoded, or nil.
    public var fragment: String? {
        get { storage.fragment }
        set { changing.header.fields!.fragment = newValue }
    }
    /// The route that matched, or nil.
    public var route: Route? {
        get { storage.header.route }
        set { unique.header.route = newValue }
    }
    /// The host's value for the matched route (``Router/setData(_:for:)``) as it stood when the
    /// resolve matched it, or nil; held by the request, so it lives as long as the resolve.
    public var routeData: HostValue? { storage.header.routeData?.value }
    /// The matched route's parameters, decoded, in path order. Interceptors may change them.
    public var parameters: [(name: String, value: String)] {
        get { storage.parameters }
        _modify { let s = changing; yield &s.header.fields!.parameters }
    }
    /// The number of parameters (without making their strings).
    public var parameterCount: Int { storage.parameterCount }
    /// Strings interceptors and filters attach to the request.
    public var metadata: [String: String] {
        get { storage.header.metadata }
        _modify { let s = unique; yield &s.header.metadata }
    }
    /// The state shared by the whole resolve.
    public var state: ResolveState {
        get { storage.state }
        set { unique.header.assignedState = newValue }
    }

    /// The value of the named parameter, if bound; setting a value replaces the parameter's (or
    /// adds it at the end), setting nil removes it, so the destination no longer sees it.
    ///
    /// - Parameter name: The parameter's name, as written in the pattern.
    /// - Returns: Its decoded value, or nil if the request has no such parameter.
    public subscript(parameter name: String) -> String? {
        get { parameters.first { $0.name == name }?.value }
        set {
            let i = parameters.firstIndex { $0.name == name }
            switch (i, newValue) {
            case let (i?, value?): parameters[i].value = value
            case let (nil, value?): parameters.append((name, value))
            case let (i?, nil): parameters.remove(at: i)
            case (nil, nil): break
            }
        }
    }
}

/// The locks guarding the resolve states requests make on first use (see `Request.Storage.state`);
/// a power of two of them.
private let stateLocks = InlineArray<16, Mutex<Void>> { _ in Mutex(()) }

/// What a destination produces: a status (200 unless set), a body and headers.
public struct Response: Sendable {
    /// The status, 200 by default. The C and Python doors refuse one outside ``validStatuses``
    /// when it is set; a resolve whose callbacks leave one ends with ``ResolveStatus/error(_:)``.
    public var status: Int = 200
    /// The statuses a response may have: the three-digit HTTP statuses, 100 to 599.
    public static let validStatuses: ClosedRange<Int> = 100...599
    /// The body bytes.
    public var body: [UInt8] = []
    /// Headers in the order added.
    public var headers: [(name: String, value: String)] = []

    /// An empty 200 response.
    public init() {}

    /// What a resolve answers when no route matched and no default destination ran: 404.
    static var notFound: Response {
        var r = Response()
        r.status = 404
        return r
    }

    /// What a resolve answers when routes match the path under other methods only: 405, with
    /// an `Allow` header listing them.
    static func methodNotAllowed(_ allowed: [String]) -> Response {
        var r = Response()
        r.status = 405
        r.addHeader("Allow", allowed.joined(separator: ", "))
        return r
    }

    /// Adds a header.
    ///
    /// - Parameters:
    ///   - name: The header's name.
    ///   - value: Its value.
    public mutating func addHeader(_ name: String, _ value: String) { headers.append((name, value)) }
}

/// A route's callback: reads the request, fills the response; throwing ends the resolve with
/// ``ResolveStatus/error(_:)``.
public typealias Destination = @Sendable (Request, inout Response) throws(CallbackError) -> Void

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
    /// The response: the destination's; 404 when nothing matched and no default destination
    /// ran; 405 with an `Allow` header when the path matched under other methods only; the
    /// last attempt's after too many retries; after a stop, the one the filter answered with
    /// (``FilterResult/respond(_:)``), else empty (200); empty (200) after a guard's refusal,
    /// an abort, a redirect loop or an error.
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
