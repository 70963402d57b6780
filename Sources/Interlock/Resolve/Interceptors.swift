// Request and response interceptors: first-class values made from a closure or an object,
// composable (`a.before(b)`, `a.after(b)`, `chain(inOrder:)`), each composition again an
// interceptor. A composition runs its parts in order and records each part in the trace.

/// What a request interceptor decided.
public enum RequestDecision: Equatable, Sendable {
    /// Go on to the next interceptor.
    case proceed
    /// End the resolve: no further interceptor, no destination; the result is `aborted(reason)`.
    case abort(String)
}

/// What a response interceptor decided.
public enum ResponseDecision: Equatable, Sendable {
    /// Go on.
    case proceed
    /// Discard the response; the result is `aborted(reason)`.
    case abort(String)
    /// Once every response interceptor ran, run the request again (from the original request).
    case retry
}

/// An object that intercepts requests.
public protocol RequestIntercepting: Sendable {
    /// Reads and may change the request (metadata, parameters) and its state.
    ///
    /// - Parameter request: The request, before the filters see it.
    /// - Returns: ``RequestDecision/proceed`` to go on, or ``RequestDecision/abort(_:)`` to end the
    ///   resolve.
    /// - Throws: Any error, to end the resolve with ``ResolveStatus/error(_:)``.
    func intercept(_ request: inout Request) throws(CallbackError) -> RequestDecision
}

/// An object that intercepts responses.
public protocol ResponseIntercepting: Sendable {
    /// Reads and may change the response and the state.
    ///
    /// - Parameters:
    ///   - response: The response the destination (and the interceptors before) produced.
    ///   - request: The request the destination saw.
    /// - Returns: ``ResponseDecision/proceed``, ``ResponseDecision/abort(_:)`` or
    ///   ``ResponseDecision/retry``.
    /// - Throws: Any error, to end the resolve with ``ResolveStatus/error(_:)``.
    func intercept(_ response: inout Response, request: Request) throws(CallbackError) -> ResponseDecision
}

/// A request interceptor: a named closure, or a composition of interceptors.
public struct RequestInterceptor: Sendable {
    /// One closure with its name: what a composition is made of and what the pipeline runs.
    final class Leaf: Sendable {
        let name: String
        let run: @Sendable (inout Request) throws(CallbackError) -> RequestDecision
        init(name: String, run: @escaping @Sendable (inout Request) throws(CallbackError) -> RequestDecision) {
            self.name = name
            self.run = run
        }
    }
    enum Body: Sendable {
        case leaf(Leaf)
        case chain([RequestInterceptor])
    }
    let body: Body

    /// An interceptor from a closure; `name` appears in the trace.
    ///
    /// - Parameters:
    ///   - name: The interceptor's name in the trace.
    ///   - run: The interceptor, as ``RequestIntercepting/intercept(_:)``: it may change the
    ///     request, and throws to end the resolve with ``ResolveStatus/error(_:)``.
    public init(name: String, _ run: @escaping @Sendable (inout Request) throws(CallbackError) -> RequestDecision) {
        body = .leaf(Leaf(name: name, run: run))
    }

    /// An interceptor from an object.
    ///
    /// - Parameters:
    ///   - name: The interceptor's name in the trace; nil for the object's type name.
    ///   - object: The interceptor: its ``RequestIntercepting/intercept(_:)`` runs for each request.
    public init(name: String? = nil, _ object: some RequestIntercepting) {
        self.init(name: name ?? typeName(of: object)) { (request) throws(CallbackError) in try object.intercept(&request) }
    }

    private init(chain: [RequestInterceptor]) { body = .chain(chain) }

    /// The interceptors run one after the other, in this order.
    ///
    /// - Parameter list: The interceptors, each recorded in the trace under its own name.
    /// - Returns: One interceptor that runs them in order, stopping at the first that aborts.
    public static func chain(inOrder list: [RequestInterceptor]) -> RequestInterceptor { RequestInterceptor(chain: list) }
    /// This interceptor, then `other`.
    ///
    /// - Parameter other: The interceptor to run after this one.
    /// - Returns: The two as one interceptor.
    public func before(_ other: RequestInterceptor) -> RequestInterceptor { .chain(inOrder: [self, other]) }
    /// `other`, then this interceptor.
    ///
    /// - Parameter other: The interceptor to run before this one.
    /// - Returns: The two as one interceptor.
    public func after(_ other: RequestInterceptor) -> RequestInterceptor { .chain(inOrder: [other, self]) }

    /// The leaves in the order they run.
    var leaves: [Leaf] {
        switch body {
        case .leaf(let leaf): return [leaf]
        case .chain(let list): return list.flatMap({ $0.leaves })
        }
    }
}

/// A response interceptor: a named closure, or a composition of interceptors.
public struct ResponseInterceptor: Sendable {
    /// One closure with its name: what a composition is made of and what the pipeline runs.
    final class Leaf: Sendable {
        let name: String
        let run: @Sendable (inout Response, Request) throws(CallbackError) -> ResponseDecision
        init(name: String, run: @escaping @Sendable (inout Response, Request) throws(CallbackError) -> ResponseDecision) {
            self.name = name
            self.run = run
        }
    }
    enum Body: Sendable {
        case leaf(Leaf)
        case chain([ResponseInterceptor])
    }
    let body: Body

    /// An interceptor from a closure; `name` appears in the trace.
    ///
    /// - Parameters:
    ///   - name: The interceptor's name in the trace.
    ///   - run: The interceptor, as ``ResponseIntercepting/intercept(_:request:)``: it may change
    ///     the response, and throws to end the resolve with ``ResolveStatus/error(_:)``.
    public init(name: String, _ run: @escaping @Sendable (inout Response, Request) throws(CallbackError) -> ResponseDecision) {
        body = .leaf(Leaf(name: name, run: run))
    }

    /// An interceptor from an object.
    ///
    /// - Parameters:
    ///   - name: The interceptor's name in the trace; nil for the object's type name.
    ///   - object: The interceptor: its ``ResponseIntercepting/intercept(_:request:)`` runs for
    ///     each response.
    public init(name: String? = nil, _ object: some ResponseIntercepting) {
        self.init(name: name ?? typeName(of: object)) { (response, request) throws(CallbackError) in try object.intercept(&response, request: request) }
    }

    private init(chain: [ResponseInterceptor]) { body = .chain(chain) }

    /// The interceptors run one after the other, in this order.
    ///
    /// - Parameter list: The interceptors, each recorded in the trace under its own name.
    /// - Returns: One interceptor that runs them in order, stopping at the first that aborts.
    public static func chain(inOrder list: [ResponseInterceptor]) -> ResponseInterceptor { ResponseInterceptor(chain: list) }
    /// This interceptor, then `other`.
    ///
    /// - Parameter other: The interceptor to run after this one.
    /// - Returns: The two as one interceptor.
    public func before(_ other: ResponseInterceptor) -> ResponseInterceptor { .chain(inOrder: [self, other]) }
    /// `other`, then this interceptor.
    ///
    /// - Parameter other: The interceptor to run before this one.
    /// - Returns: The two as one interceptor.
    public func after(_ other: ResponseInterceptor) -> ResponseInterceptor { .chain(inOrder: [other, self]) }

    /// The leaves in the order they run.
    var leaves: [Leaf] {
        switch body {
        case .leaf(let leaf): return [leaf]
        case .chain(let list): return list.flatMap({ $0.leaves })
        }
    }
}

// MARK: Built-ins

/// Logs one line per request and one per response, to a sink (standard error by default).
public struct LoggingInterceptor: Sendable {
    /// Where lines go.
    public let sink: @Sendable (String) -> Void

    /// A logger writing to `sink`.
    ///
    /// - Parameter sink: Called with each line, without a newline; by default the line and a
    ///   newline go to standard error.
    public init(sink: @escaping @Sendable (String) -> Void = { line in writeStandardError(line + "\n") }) {
        self.sink = sink
    }

    /// The request side: "→ METHOD uri route=<pattern> params=k=v,...".
    public var request: RequestInterceptor {
        let sink = self.sink
        return RequestInterceptor(name: "log") { request in
            let params = request.parameters.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
            sink("-> \(request.method ?? "*") \(request.uri) route=\(request.route?.pattern.source ?? "none") params=\(params)")
            return .proceed
        }
    }

    /// The response side: "← status N, B bytes for uri".
    public var response: ResponseInterceptor {
        let sink = self.sink
        return ResponseInterceptor(name: "log") { response, request in
            sink("<- status \(response.status), \(response.body.count) bytes for \(request.uri)")
            return .proceed
        }
    }
}

/// Aborts a response whose status is outside `allowed` (200...299 unless told).
///
/// - Parameter allowed: The statuses that pass.
/// - Returns: A response interceptor named "validate-status" that aborts with a reason naming the
///   status and the range.
public func validateStatus(_ allowed: ClosedRange<Int> = 200...299) -> ResponseInterceptor {
    ResponseInterceptor(name: "validate-status") { response, _ in
        allowed.contains(response.status)
            ? .proceed
            : .abort("status \(response.status) is outside \(allowed.lowerBound)...\(allowed.upperBound)")
    }
}

@_silgen_name("write") private func sysWrite(_ fd: Int32, _ buf: UnsafeRawPointer, _ n: Int) -> Int

/// Writes text to standard error (no Foundation in the core).
///
/// - Parameter text: The text, written as is (add the newline yourself).
public func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { _ = sysWrite(2, $0.baseAddress!, $0.count) }
}
