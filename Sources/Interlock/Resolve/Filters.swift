// Filters: the global chain every request passes through (matched or not), in the order added.
// A filter continues (calls `next` exactly once, and may act on what the rest returned), stops
// (returns without calling it), or redirects to a URI or a named route.

/// How the rest of the pipeline ended, as a filter sees it.
public enum DownstreamOutcome: Equatable, Sendable {
    /// A destination ran (or a route without one matched).
    case completed
    /// No route matched and there is no default destination.
    case notFound
    /// Routes match the path under other methods only, listed in `allowed`.
    case methodNotAllowed(allowed: [String])
    /// A later filter stopped the request.
    case stopped
    /// A later filter redirected; the pipeline will run again for this URI.
    case redirect(String)
    /// The route's guard refused.
    case guarded
    /// A response interceptor aborted.
    case aborted(String)
    /// A response interceptor asked for a retry.
    case retry
}

/// What `next` returned: the outcome and the response, which the filter may change.
public struct Downstream: Sendable {
    /// How the rest of the pipeline ended.
    public let outcome: DownstreamOutcome
    /// The response (empty unless a destination ran).
    public var response: Response
}

/// What a filter decided.
public enum FilterResult: Sendable {
    /// Continue: return what `next` gave (its response possibly changed).
    case proceed(Downstream)
    /// Stop here: no destination runs; the result is `stopped`, with an empty response.
    case stop
    /// Stop here and answer with `response` (a 401, a cached page): no destination runs; the
    /// result is `stopped`, with this response.
    case respond(Response)
    /// Run the whole pipeline again for another URI.
    case redirect(String)
    /// Run the whole pipeline again for a named route's URI built from these parameters.
    case redirectToRoute(String, [String: String])
}

/// An object that filters requests.
public protocol RequestFiltering: Sendable {
    /// Filters one request: calls `chain.next(_:)` exactly once and returns
    /// ``FilterResult/proceed(_:)`` with what it gave, or returns ``FilterResult/stop``,
    /// ``FilterResult/respond(_:)`` or a redirect without calling it.
    ///
    /// - Parameters:
    ///   - request: The request as the filters before this one passed it on.
    ///   - chain: The rest of the pipeline: the later filters, the guard, the destination and the
    ///     response interceptors.
    /// - Returns: What the filter decided.
    /// - Throws: Any error, to end the resolve with ``ResolveStatus/error(_:)`` (its description
    ///   is the message).
    func filter(_ request: Request, chain: FilterChain) throws(CallbackError) -> FilterResult
}

/// A filter: a named closure or object.
public struct Filter: Sendable {
    /// The name and closure, in one immutable object: the pipeline borrows it for a call
    /// without counting a reference to the closure's context (as an interceptor's `Leaf`).
    final class Leaf: Sendable {
        let name: String
        let run: @Sendable (Request, FilterChain) throws(CallbackError) -> FilterResult
        init(name: String, run: @escaping @Sendable (Request, FilterChain) throws(CallbackError) -> FilterResult) {
            self.name = name
            self.run = run
        }
    }
    let leaf: Leaf
    var name: String { leaf.name }

    /// A filter from a closure; `name` appears in the trace.
    ///
    /// - Parameters:
    ///   - name: The filter's name in the trace.
    ///   - run: The filter, as ``RequestFiltering/filter(_:chain:)``: it gets the request and the
    ///     rest of the chain, and throws to end the resolve with ``ResolveStatus/error(_:)``.
    public init(name: String, _ run: @escaping @Sendable (Request, FilterChain) throws(CallbackError) -> FilterResult) {
        leaf = Leaf(name: name, run: run)
    }

    /// A filter from an object.
    ///
    /// - Parameters:
    ///   - name: The filter's name in the trace; nil for the object's type name.
    ///   - object: The filter: its ``RequestFiltering/filter(_:chain:)`` runs for each request.
    public init(name: String? = nil, _ object: some RequestFiltering) {
        self.init(name: name ?? typeName(of: object)) { (request, chain) throws(CallbackError) in try object.filter(request, chain: chain) }
    }
}

/// The rest of the pipeline, as one filter sees it. `next` may be called once, while the filter
/// runs (or before the resolve moves on: a stored chain called later throws).
public struct FilterChain: @unchecked Sendable {
    private let run: PipelineRun
    private let index: Int
    /// The attempt the chain belongs to, read only while its serial number says it runs (see
    /// `PipelineRun.next(after:attempt:serial:_:)`): a chain kept past it reads nothing there.
    private let attempt: UnsafeMutablePointer<PipelineRun.Attempt>
    private let serial: Int

    init(run: PipelineRun, index: Int, attempt: UnsafeMutablePointer<PipelineRun.Attempt>, serial: Int) {
        self.run = run
        self.index = index
        self.attempt = attempt
        self.serial = serial
    }

    /// Runs the rest of the chain (later filters, the guard, the destination and the response
    /// interceptors) with `request`. Calling it a second time, or after the attempt it belongs to
    /// ended, throws and runs nothing.
    ///
    /// - Parameter request: The request to pass on: the one the filter got, possibly changed
    ///   (metadata, parameters, state); the change reaches the later stages only.
    /// - Returns: How the rest ended, and its response, which the filter may change before it
    ///   returns ``FilterResult/proceed(_:)``.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/callback`` if `next` was already called or
    ///   the attempt ended; or the error a later filter, the guard or the destination threw.
    public func next(_ request: Request) throws(CallbackError) -> Downstream {
        try run.next(after: index, attempt: attempt, serial: serial, request)
    }

    /// `next` on a chain read through a pointer (the C interface's, lent for a filter's call):
    /// the chain is not copied, so no reference to its run is counted.
    package static func next(through chain: UnsafePointer<FilterChain>, _ request: Request) throws(CallbackError) -> Downstream {
        let index = chain.pointee.index, attempt = chain.pointee.attempt, serial = chain.pointee.serial
        return try Unmanaged.passUnretained(chain.pointee.run).withGuaranteedRef { run throws(CallbackError) in
            try run.next(after: index, attempt: attempt, serial: serial, request)
        }
    }
}
