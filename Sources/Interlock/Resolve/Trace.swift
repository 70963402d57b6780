// The trace: what ran in a resolve and what it decided. A resolve writes one 16-byte record per
// stage into a buffer that becomes part of the resolution, naming what ran by index (into the
// names of the global pipeline's or a route's filters and interceptors, kept apart from their
// callbacks) or by route, and the decision by code; the strings are made only when the trace is
// read, which most resolves never do.

/// One step of a resolve, for the trace.
public enum Stage: String, Sendable {
    /// `match`: the lookup that built the request; `requestInterceptor`, `filter`, `guard`,
    /// `destination`: the stages that ran on it, in that order. The raw value is the name the C
    /// interface gives ("request-interceptor" for `requestInterceptor`).
    case match, requestInterceptor = "request-interceptor", filter, `guard`, destination
    /// `responseInterceptor`: a stage that ran on the response; `redirect` and `retry`: a redirect
    /// the resolve followed and a retry it ran (or refused past its limit; a redirect whose URI
    /// does not parse, with the error). The raw value is the
    /// name the C interface gives ("response-interceptor" for `responseInterceptor`).
    case responseInterceptor = "response-interceptor", redirect, retry
}

/// What ran and what it decided: one entry per stage that ran, in order.
public struct TraceEntry: Equatable, Sendable, CustomStringConvertible {
    /// The stage.
    public let stage: Stage
    /// Which filter, interceptor, guard or destination (its name), or the URI for match and redirect.
    public let name: String
    /// What it decided: "continue", "stop", "redirect <uri>", "allow", "refuse", "abort: <reason>",
    /// "retry", "ran", "error: <message>", or for match the route's name (its pattern if unnamed),
    /// "no route" or "method not allowed".
    public let decision: String

    /// The entry as one line: "stage name: decision".
    public var description: String { "\(stage.rawValue) \(name): \(decision)" }

    /// An entry for a stage that ran.
    ///
    /// - Parameters:
    ///   - stage: The stage.
    ///   - name: What ran (or the URI, for match and redirect).
    ///   - decision: What it decided.
    public init(stage: Stage, name: String, decision: String) {
        self.stage = stage
        self.name = name
        self.decision = decision
    }
}

/// The names of what runs at the stages of one pipeline (the global one, or a route's), apart
/// from the callbacks: what a trace keeps, so that a resolution, which may outlive its router,
/// never keeps the router's callbacks (and the userdata they free) alive.
final class StageNames: Sendable {
    let filters: [String]
    let requestLeaves: [String]
    let responseLeaves: [String]

    init(filters: [Filter] = [], requestLeaves: [RequestInterceptor.Leaf], responseLeaves: [ResponseInterceptor.Leaf]) {
        self.filters = filters.map({ $0.name })
        self.requestLeaves = requestLeaves.map({ $0.name })
        self.responseLeaves = responseLeaves.map({ $0.name })
    }

    /// The names of a pipeline with nothing in it: shared by every route with no interceptor.
    static let none = StageNames(requestLeaves: [], responseLeaves: [])
}

/// The trace as a resolve records it: plain-value records that name what ran by index into the
/// stage names of the global pipeline or of a route, or point at a route (kept by the matched
/// requests the log holds, or by the log).
struct TraceLog: @unchecked Sendable {
    enum Subject {
        case request(Int)                                  // index into the matched requests
        case filter(Int)                                   // index into the global filters
        case requestLeaf(scope: Int32, Int32)              // scope: -1 global, else a route's names
        case responseLeaf(scope: Int32, Int32)
        case route(Unmanaged<Route>)
        case defaultDestination
        case text(Int)                                     // index into `texts`
    }

    enum Decision: UInt8 {
        case proceed, stop, allow, refuse, ran, retry, matched, noRoute, methodNotAllowed, text
    }

    /// 16 bytes: the subject (8 and a tag) first, so that the rest fills its padding.
    struct Record {
        var subject: Subject
        var stage: Stage
        var decision: Decision
        var text: UInt32 = 0                               // for `.text`: index into `texts`

        init(stage: Stage, decision: Decision, text: UInt32 = 0, subject: Subject) {
            self.subject = subject
            self.stage = stage
            self.decision = decision
            self.text = text
        }

        static let unused = Record(stage: .match, decision: .proceed, subject: .defaultDestination)
    }

    /// What only some resolves need: made on first use.
    final class Spill {
        /// Records past the inline ones.
        var overflow: [Record] = []
        /// Strings of the rarer entries (URIs, reasons, messages).
        var texts: [String] = []
        /// The matched requests of passes after the first.
        var laterMatches: [Request] = []
        /// Route stage names beyond the first route's.
        var laterScopes: [StageNames] = []
        /// Routes a record points at that no matched request holds (a filter changed the route).
        var routes: [Route] = []
    }

    private static var inlineCapacity: Int { 8 }
    private var inline = InlineArray<8, Record>(repeating: .unused)
    private(set) var count = 0
    /// The global pipeline's names, the first route's (scope 0), and the first matched request.
    private var global: StageNames? = nil
    private var firstScope: StageNames? = nil
    private(set) var firstMatch: Request? = nil
    /// The route `firstMatch` holds, by identity (compared without counting a reference to it).
    private var firstRoute: ObjectIdentifier? = nil
    private var spill: Spill? = nil

    private var more: Spill {
        mutating get {
            if let spill { return spill }
            let s = Spill()
            spill = s
            return s
        }
    }

    init() {}

    /// Names the global pipeline's filters and interceptors by.
    mutating func use(global names: StageNames) { global = names }

    /// The scope under which records name a route's interceptors, keeping `names`.
    mutating func scope(of names: StageNames) -> Int {
        if names === firstScope { return 0 }
        if firstScope == nil { firstScope = names; return 0 }
        if let i = spill?.laterScopes.firstIndex(where: { $0 === names }) { return i + 1 }
        more.laterScopes.append(names)
        return more.laterScopes.count
    }

    private mutating func append(_ record: Record) {
        if count < TraceLog.inlineCapacity { inline[count] = record } else { more.overflow.append(record) }
        count += 1
    }

    private func record(at i: Int) -> Record { i < TraceLog.inlineCapacity ? inline[i] : spill!.overflow[i - TraceLog.inlineCapacity] }

    /// The match entry of a pass: `request` as created, and how the lookup ended.
    mutating func matched(_ request: Request, _ outcome: MatchOutcome) {
        let index: Int
        if firstMatch == nil {
            firstMatch = request
            firstRoute = request.withRoute { $0.map(ObjectIdentifier.init) }
            index = 0
        } else {
            more.laterMatches.append(request)
            index = more.laterMatches.count
        }
        let decision: Decision = switch outcome {
        case .matched: .matched
        case .notFound: .noRoute
        case .methodNotAllowed: .methodNotAllowed
        }
        append(Record(stage: .match, decision: decision, subject: .request(index)))
    }

    mutating func ran(_ stage: Stage, _ subject: Subject, _ decision: Decision) {
        append(Record(stage: stage, decision: decision, subject: subject))
    }

    /// An entry whose decision is a text ("abort: ...", "error: ...", "redirect ...").
    mutating func ran(_ stage: Stage, _ subject: Subject, _ decision: String) {
        append(Record(stage: stage, decision: .text, text: textIndex(decision), subject: subject))
    }

    /// The subject naming `route` (nil: the default destination), kept alive by the log.
    mutating func subject(route: Route?) -> Subject {
        // Not bound to a name, which would count a reference to it.
        guard let id = route.map(ObjectIdentifier.init), let route = route.map(Unmanaged.passUnretained) else {
            return .defaultDestination
        }
        if id != firstRoute && !(spill?.routes.contains { ObjectIdentifier($0) == id } ?? false) {
            more.routes.append(route.takeUnretainedValue())
        }
        return .route(route)
    }

    /// An entry named by a text (a URI, for redirects and retries).
    mutating func ran(_ stage: Stage, uri: String, _ decision: String) {
        let n = textIndex(uri)
        append(Record(stage: stage, decision: .text, text: textIndex(decision), subject: .text(Int(n))))
    }

    private mutating func textIndex(_ s: String) -> UInt32 {
        more.texts.append(s)
        return UInt32(more.texts.count - 1)
    }

    /// The entries, as strings.
    var entries: [TraceEntry] {
        (0..<count).map { entry(record(at: $0)) }
    }

    private func names(_ scope: Int) -> StageNames? {
        scope < 0 ? global : scope == 0 ? firstScope : spill?.laterScopes[scope - 1]
    }

    private func entry(_ r: Record) -> TraceEntry {
        var matchRequest: Request? = nil
        let name: String
        switch r.subject {
        case .request(let i):
            matchRequest = i == 0 ? firstMatch : spill?.laterMatches[i - 1]
            name = matchRequest?.uri ?? ""
        case .filter(let i):
            name = global?.filters[i] ?? ""
        case .requestLeaf(let scope, let i):
            name = names(Int(scope))?.requestLeaves[Int(i)] ?? ""
        case .responseLeaf(let scope, let i):
            name = names(Int(scope))?.responseLeaves[Int(i)] ?? ""
        case .route(let route):
            let route = route.takeUnretainedValue()
            name = route.name ?? route.pattern.source
        case .defaultDestination:
            name = "default"
        case .text(let i):
            name = spill?.texts[i] ?? ""
        }
        let decision: String = switch r.decision {
        case .proceed: "continue"
        case .stop: "stop"
        case .allow: "allow"
        case .refuse: "refuse"
        case .ran: "ran"
        case .retry: "retry"
        case .matched: matchRequest?.route.map { $0.name ?? $0.pattern.source } ?? ""
        case .noRoute: "no route"
        case .methodNotAllowed: "method not allowed"
        case .text: spill?.texts[Int(r.text)] ?? ""
        }
        return TraceEntry(stage: r.stage, name: name, decision: decision)
    }
}

