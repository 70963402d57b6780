// The trace: what ran in a resolve and what it decided. A resolve writes one 16-byte record per
// stage into a buffer inside the resolution, naming what ran by reference (a leaf, a filter's
// index, a route) and the decision by code; the strings are made only when the trace is read,
// which most resolves never do.

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
    public let name: String
    /// What it decided: "continue", "stop", "redirect <uri>", "allow", "refuse", "abort: <reason>",
    /// "retry", "ran", "error: <message>", or for match the route's name (its pattern if unnamed),
    /// "no route" or "method not allowed".
    public let decision: String

    public var description: String { "\(stage.rawValue) \(name): \(decision)" }

    /// An entry for a stage that ran.
    public init(stage: Stage, name: String, decision: String) {
        self.stage = stage
        self.name = name
        self.decision = decision
    }
}

/// The trace as a resolve records it. Records point at what ran without retaining it: the log
/// keeps the objects that own those things (the global pipeline, each pass's route parts and
/// matched request), so the pointers stay valid as long as the log.
struct TraceLog: @unchecked Sendable {
    enum Subject {
        case request(Int)                                  // index into `matches`
        case filter(Int)                                   // index into the global filters
        case requestLeaf(Unmanaged<RequestInterceptor.Leaf>)
        case responseLeaf(Unmanaged<ResponseInterceptor.Leaf>)
        case route(Unmanaged<Route>)
        case defaultDestination
        case text(Int)                                     // index into `texts`
    }

    enum Decision: UInt8 {
        case proceed, stop, allow, refuse, ran, retry, matched, noRoute, methodNotAllowed, text
    }

    struct Record {
        var stage: Stage
        var decision: Decision
        var text: UInt32 = 0                               // for `.text`: index into `texts`
        var subject: Subject

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
        /// Owners of what records point at, beyond the first pass's.
        var owners: [AnyObject] = []
    }

    private static var inlineCapacity: Int { 8 }
    private var inline = InlineArray<8, Record>(repeating: .unused)
    private(set) var count = 0
    /// The first pass's matched request (what its match entry names) and route parts (whose
    /// leaves its records point at); the global pipeline is the run's.
    private(set) var firstMatch: Request? = nil
    private var firstParts: RouteParts? = nil
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

    private mutating func append(_ record: Record) {
        if count < TraceLog.inlineCapacity { inline[count] = record } else { more.overflow.append(record) }
        count += 1
    }

    private func record(at i: Int) -> Record { i < TraceLog.inlineCapacity ? inline[i] : spill!.overflow[i - TraceLog.inlineCapacity] }

    /// Keeps `parts` (whose leaves later records point at) as long as the log.
    mutating func keep(_ parts: RouteParts) {
        if parts === RouteParts.empty || parts === firstParts { return }
        if firstParts == nil { firstParts = parts; return }
        if !more.owners.contains(where: { $0 === parts }) { more.owners.append(parts) }
    }

    /// The match entry of a pass: `request` as created, and how the lookup ended.
    mutating func matched(_ request: Request, _ outcome: MatchOutcome) {
        let index: Int
        if firstMatch == nil {
            firstMatch = request
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

    mutating func ran(_ stage: Stage, _ leaf: RequestInterceptor.Leaf, _ decision: Decision) {
        append(Record(stage: stage, decision: decision, subject: .requestLeaf(.passUnretained(leaf))))
    }

    mutating func ran(_ stage: Stage, _ leaf: ResponseInterceptor.Leaf, _ decision: Decision) {
        append(Record(stage: stage, decision: decision, subject: .responseLeaf(.passUnretained(leaf))))
    }

    mutating func ran(_ stage: Stage, filter index: Int, _ decision: Decision) {
        append(Record(stage: stage, decision: decision, subject: .filter(index)))
    }

    /// A guard or destination entry: `route`'s, or the default destination's when nil.
    mutating func ran(_ stage: Stage, route: Route?, _ decision: Decision) {
        guard let route else { return append(Record(stage: stage, decision: decision, subject: .defaultDestination)) }
        if route !== firstMatch?.route && !more.owners.contains(where: { $0 === route }) { more.owners.append(route) }
        append(Record(stage: stage, decision: decision, subject: .route(.passUnretained(route))))
    }

    /// An entry whose decision is a text ("abort: ...", "error: ...", "redirect ...").
    mutating func ran(_ stage: Stage, _ leaf: RequestInterceptor.Leaf, _ decision: String) {
        append(Record(stage: stage, decision: .text, text: textIndex(decision), subject: .requestLeaf(.passUnretained(leaf))))
    }
    mutating func ran(_ stage: Stage, _ leaf: ResponseInterceptor.Leaf, _ decision: String) {
        append(Record(stage: stage, decision: .text, text: textIndex(decision), subject: .responseLeaf(.passUnretained(leaf))))
    }
    mutating func ran(_ stage: Stage, filter index: Int, _ decision: String) {
        append(Record(stage: stage, decision: .text, text: textIndex(decision), subject: .filter(index)))
    }
    mutating func ran(_ stage: Stage, route: Route?, _ decision: String) {
        ran(stage, route: route, .text)
        let i = count - 1
        let t = textIndex(decision)
        if i < TraceLog.inlineCapacity { inline[i].text = t } else { more.overflow[i - TraceLog.inlineCapacity].text = t }
    }
    /// An entry named by a text (a URI, for redirects and retries).
    mutating func ran(_ stage: Stage, name: String, _ decision: String) {
        let n = textIndex(name)
        append(Record(stage: stage, decision: .text, text: textIndex(decision), subject: .text(Int(n))))
    }

    private mutating func textIndex(_ s: String) -> UInt32 {
        more.texts.append(s)
        return UInt32(more.texts.count - 1)
    }

    /// The entries, as strings; `filters` are the run's global filters.
    func entries(filters: [Filter]) -> [TraceEntry] {
        (0..<count).map { entry(record(at: $0), filters) }
    }

    private func entry(_ r: Record, _ filters: [Filter]) -> TraceEntry {
        let matchRequest: Request?
        let name: String
        switch r.subject {
        case .request(let i):
            let request = i == 0 ? firstMatch : spill?.laterMatches[i - 1]
            matchRequest = request
            name = request?.uri ?? ""
        case .filter(let i):
            matchRequest = nil
            name = filters[i].name
        case .requestLeaf(let leaf):
            matchRequest = nil
            name = leaf.takeUnretainedValue().name
        case .responseLeaf(let leaf):
            matchRequest = nil
            name = leaf.takeUnretainedValue().name
        case .route(let route):
            matchRequest = nil
            let route = route.takeUnretainedValue()
            name = route.name ?? route.pattern.source
        case .defaultDestination:
            matchRequest = nil
            name = "default"
        case .text(let i):
            matchRequest = nil
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
