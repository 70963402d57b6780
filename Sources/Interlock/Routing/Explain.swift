// Why a URI ends where it does. Which routes take the request is the matcher's answer, not the
// explanation's: the matcher lists, with its own compiled rules (constraints, mixed segments,
// hosts, ports, methods), every route variant whose path and origin fit, and every one that takes
// the method too (`Matcher.fittingLeaves`). The explanation walks the route tree, the one source
// of the precedence rule (RouteTree.swift), in the order a lookup tries it, to put those routes in
// order and to say, for each route the matcher did not list, what first kept it out; its segment
// tests call the matcher's own (`Matcher.holds`, `Matcher.mixedCode`). Its work is bounded like a
// lookup's: it enters only the nodes whose segments fit, and lists at most `candidateLimit`
// routes. A test and the fuzz targets hold its winner to the answer of `match`.
import Synchronization

/// The routes a lookup tries for one request, in the order it tries them, and why each did or
/// did not take it.
public struct MatchExplanation: Sendable {
    /// One route the lookup reached.
    public struct Candidate: Sendable, Equatable {
        /// The route's id.
        public let routeID: RouteID
        /// Its pattern as written.
        public let pattern: String
        /// Its name, if it has one.
        public let name: String?
        /// Why it did not take the request; nil for the route that did.
        public let rejection: Rejection?
        /// For a route with optional parts, which is tried once per form its path can take: the
        /// form tried here (`/o/:a` of `/o(/:a)`); nil for other routes.
        public let form: String?
    }

    /// The first thing that kept a route from taking the request.
    public enum Rejection: Sendable, Equatable, CustomStringConvertible {
        /// The path does not fit at segment `segment` (from 1): `detail` says what the route wanted.
        case segment(Int, String)
        /// The path ends before the route does, at segment `segment`.
        case pathTooShort(Int)
        /// The path goes on after the route ends, from segment `segment`.
        case pathTooLong(Int)
        /// The route wants another method.
        case method(String)
        /// The route wants another scheme.
        case scheme(String)
        /// The route wants another host.
        case host(String)
        /// The route wants another port.
        case port(Int)
        /// The route would take the request, but `winner`, tried earlier, took it.
        case tookBy(RouteID)

        /// The rejection in words, routes named "route ID".
        public var description: String { description { "route \($0)" } }

        /// The rejection in words, another route named by `name` (the `interlock` command names
        /// routes by their line in the route file).
        ///
        /// - Parameter name: How to name a route, from its id.
        /// - Returns: The rejection in words.
        public func description(naming name: (RouteID) -> String) -> String {
            switch self {
            case .segment(let n, let detail): "segment \(n): \(detail)"
            case .pathTooShort(let n): "the path ends before segment \(n)"
            case .pathTooLong(let n): "the path goes on at segment \(n)"
            case .method(let m): "method \(m) only"
            case .scheme(let s): "scheme \(s) only"
            case .host(let h): "host \(h) only"
            case .port(let p): "port \(p) only"
            case .tookBy(let id): "taken first by \(name(id))"
            }
        }
    }

    /// The matcher's answer.
    public let answer: MatchResult
    /// The routes reached, in the order tried (at most ``candidateLimit``).
    public let candidates: [Candidate]
    /// Whether more routes were reached than are listed.
    public let truncated: Bool
    /// Why the winner won over the next route that would also have taken the request, if any.
    public var reason: String? { reason { "route \($0)" } }

    /// ``reason``, routes named by `name`.
    ///
    /// - Parameter name: How to name a route, from its id.
    /// - Returns: Why the winner won, or nil if no other route would have taken the request.
    public func reason(naming name: (RouteID) -> String) -> String? { why?.description(name) }

    let why: Why?

    /// The most candidates an explanation lists.
    public static let candidateLimit = 200

    /// The explanation as one JSON object, the form the C interface and the `interlock` command
    /// give: `answer` (`route` and `params`, or `status` and for a method not allowed `allowed`),
    /// `reason`, `candidates` (each `route`, `name`, `pattern`, `form`, `takes`, `why_not`), `truncated`.
    public var json: String {
        let quoted = JSONText.quoted
        let answerText: String
        switch answer {
        case .matched(let m):
            let params = m.parameters.map { "\(quoted($0.name)):\(quoted($0.value))" }.joined(separator: ",")
            answerText = "{\"route\":\(m.routeID),\"params\":{\(params)}}"
        case .notFound:
            answerText = "{\"status\":\"not found\"}"
        case .methodNotAllowed(let allowed):
            answerText = "{\"status\":\"method not allowed\",\"allowed\":[\(allowed.map(quoted).joined(separator: ","))]}"
        }
        let list = candidates.map { c in
            "{\"route\":\(c.routeID),\"name\":\(c.name.map(quoted) ?? "null"),\"pattern\":\(quoted(c.pattern)),"
                + "\"form\":\(c.form.map(quoted) ?? "null"),\"takes\":\(c.rejection == nil),\"why_not\":\(c.rejection.map { quoted($0.description) } ?? "null")}"
        }
        return "{\"answer\":\(answerText),\"reason\":\(reason.map(quoted) ?? "null"),\"candidates\":[\(list.joined(separator: ","))],"
            + "\"truncated\":\(truncated)}"
    }
}


/// Why the winner won over the runner-up: where their paths first differ, or the tie rule.
enum Why {
    case segment(Int, TreeNode.Entry, TreeNode.Entry, runnerUp: RouteID)
    case catchAllAfter(RouteID, runnerUp: RouteID)
    case origin(RouteID, String, runnerUp: RouteID, String)
    case method(RouteID, runnerUp: RouteID)
    case registeredFirst(RouteID, runnerUp: RouteID)

    func description(_ name: (RouteID) -> String) -> String {
        switch self {
        case .segment(let i, let a, let b, let r):
            "at segment \(i), \(Why.kind(a)) before \(Why.kind(b)) (\(name(r)))"
        case .catchAllAfter(let w, let r):
            "\(name(w)) ends where the path ends; \(name(r))'s catch-all comes after"
        case .origin(let w, let wo, let r, let ro):
            "the same path: \(name(w))'s origin (\(wo)) before \(name(r))'s (\(ro))"
        case .method(let w, let r):
            "the same path and origin: \(name(w)) names its method, \(name(r)) takes any"
        case .registeredFirst(let w, let r):
            "a full tie: \(name(w)) was registered before \(name(r))"
        }
    }

    private static func kind(_ e: TreeNode.Entry) -> String {
        switch e {
        case .root: "the root"
        case .literal(let b): "the literal '\(b.string)'"
        case .parameter: "a parameter"
        case .constrained(let c): "a parameter constrained by (\(c))"
        case .catchAll: "the catch-all"
        case .mixed(let pieces): "the segment '\(ExplanationWalk.describe(pieces))'"
        }
    }
}

extension Router {
    /// Explains the lookup of `uri` under `method`: the routes tried, in order, each with why it
    /// did or did not take the request, and why the winner won over the next.
    ///
    /// - Parameters:
    ///   - uri: The URI, as for ``match(_:method:)``.
    ///   - method: The request's method, or nil (or "") for any method.
    /// - Returns: The explanation, with the matcher's own answer.
    /// - Throws: ``InterlockError`` as ``match(_:method:)`` throws; also ``ErrorCode/limit`` when a
    ///   constraint the lookup did not need to run (on a route after the winner) runs out of steps.
    public func explain(_ uri: String, method: String? = nil) throws(InterlockError) -> MatchExplanation {
        let answer = try match(uri, method: method)
        let pooled = takeMatcher()
        defer { returnMatcher(pooled) }
        let matcher = pooled.matcher
        let method = method?.isEmpty == true ? nil : method
        let (fitting, taking) = try withBytes(uri) { (u) throws(InterlockError) -> ([Leaf], [Leaf]) in
            guard let method else {
                let all = try matcher.fittingLeaves(self, method: nil, uri: u)
                return (all, all)
            }
            let taking = try withBytes(method) { (m) throws(InterlockError) in try matcher.fittingLeaves(self, method: m, uri: u) }
            // Last, so that the subject holds the path for the walk.
            return (try matcher.fittingLeaves(self, method: nil, uri: u), taking)
        }
        let tree = state.withLock { $0.tree }
        var walk = ExplanationWalk(matcher: matcher, fold: options.contains(.caseInsensitive), fitting: fitting, taking: taking)
        try treeLock.withLock { (_: inout Void) throws(InterlockError) in try walk.visit(tree.root, depth: 0, path: []) }
        return MatchExplanation(answer: answer, candidates: walk.candidates, truncated: walk.truncated, why: walk.why())
    }
}

extension Router {
    /// `explain` for the URI in `bytes` (the C door's): one that is not UTF-8 is refused as a
    /// lookup refuses it, naming the part and the byte where.
    package func explain(bytes: UnsafeRawBufferPointer, method: String?) throws(InterlockError) -> MatchExplanation {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: URIParser.outputCapacity(for: bytes.count))
            defer { out.deallocate() }
            _ = try URIParser.parse(bytes, strictSlash: false, into: out)
            throw InterlockError(.uri, "URI is not valid UTF-8")    // never: the parse checks every part
        }
        return try explain(text, method: method)
    }
}
