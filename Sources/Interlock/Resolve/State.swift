/// The state of one resolve: a map from string keys to values, shared by every interceptor,
/// filter, guard and destination of that resolve, across its redirects and retries, and never by
/// two resolves. Prefix keys with a reverse-DNS owner name (`com.example.retry-count`) so that
/// independent components do not collide.
public final class ResolveState: @unchecked Sendable {
    /// The values by key.
    public var values: [String: any Sendable] = [:]

    /// An empty state.
    public init() {}

    /// The value for `key`, if any.
    public subscript(_ key: String) -> (any Sendable)? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The value for `key` if it is a string.
    public func string(_ key: String) -> String? { values[key] as? String }
}

/// One step of a resolve, for the trace.
public enum Stage: String, Sendable {
    case match, requestInterceptor = "request-interceptor", filter, `guard`, destination
    case responseInterceptor = "response-interceptor", redirect, retry
}

/// What ran and what it decided: one entry per stage that ran, in order.
public struct TraceEntry: Equatable, Sendable, CustomStringConvertible {
    /// The stage.
    public let stage: Stage
    /// Which filter, interceptor, guard or destination (its name), or the URI for match and redirect.
    public var name: String { matched?.uri ?? storedName }
    private let storedName: String
    /// For a match entry: the request, whose URI is the name (made into a string only if read).
    private let matched: Request?
    /// What it decided: "continue", "stop", "redirect <uri>", "allow", "refuse", "abort: <reason>",
    /// "retry", "ran", "error: <message>", or for match the route's pattern or "no route".
    public let decision: String

    public var description: String { "\(stage.rawValue) \(name): \(decision)" }

    /// An entry for a stage that ran.
    public init(stage: Stage, name: String, decision: String) {
        self.stage = stage
        self.storedName = name
        self.decision = decision
        self.matched = nil
    }

    /// The match entry of `request`.
    init(match request: Request, decision: String) {
        self.stage = .match
        self.storedName = ""
        self.decision = decision
        self.matched = request
    }

    public static func == (a: TraceEntry, b: TraceEntry) -> Bool {
        a.stage == b.stage && a.name == b.name && a.decision == b.decision
    }
}
