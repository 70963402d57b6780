// Why a URI ends where it does. The explanation walks the route tree, the one source of the
// precedence rule (RouteTree.swift), in the order a lookup tries it: at each node its routes
// (when the path ends there), then its children in precedence order. Every route it reaches is
// listed with the first thing that kept it from taking the request, or as the winner, and the
// winner is compared with the next route that would also have taken the request. The answer
// itself comes from the matcher; a test holds the two to each other on random tables.
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

        /// The rejection in words.
        public var description: String {
            switch self {
            case .segment(let n, let detail): "segment \(n): \(detail)"
            case .pathTooShort(let n): "the path ends before segment \(n)"
            case .pathTooLong(let n): "the path goes on at segment \(n)"
            case .method(let m): "method \(m) only"
            case .scheme(let s): "scheme \(s) only"
            case .host(let h): "host \(h) only"
            case .port(let p): "port \(p) only"
            case .tookBy(let id): "taken first by route \(id)"
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
    public let reason: String?

    /// The most candidates an explanation lists.
    public static let candidateLimit = 200

    /// The explanation as one JSON object, the form the C interface and the `interlock` command
    /// give: `answer` (`route` and `params`, or `status` and for a method not allowed `allowed`),
    /// `reason`, `candidates` (each `route`, `name`, `pattern`, `takes`, `why_not`), `truncated`.
    public var json: String {
        func quoted(_ s: String) -> String {
            var out = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default:
                    if u.value < 0x20 {
                        let hex = String(u.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(u)
                    }
                }
            }
            return out + "\""
        }
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
                + "\"takes\":\(c.rejection == nil),\"why_not\":\(c.rejection.map { quoted($0.description) } ?? "null")}"
        }
        return "{\"answer\":\(answerText),\"reason\":\(reason.map(quoted) ?? "null"),\"candidates\":[\(list.joined(separator: ","))],"
            + "\"truncated\":\(truncated)}"
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
    /// - Throws: ``InterlockError`` as ``match(_:method:)`` throws.
    public func explain(_ uri: String, method: String? = nil) throws(InterlockError) -> MatchExplanation {
        let answer = try match(uri, method: method)
        let request = try ExplainedRequest(uri, method: method, strictSlash: options.contains(.strictSlash))
        let tree = state.withLock { $0.tree }
        var walk = ExplanationWalk(request: request, fold: options.contains(.caseInsensitive), limit: matchLimit.load(ordering: .relaxed))
        try treeLock.withLock { (_: inout Void) throws(InterlockError) in try walk.visit(tree.root, depth: 0, path: []) }
        return MatchExplanation(answer: answer, candidates: walk.candidates, truncated: walk.truncated, reason: walk.reason())
    }
}

/// A request's parts as an explanation reads them: the normalized path's segments, the scheme,
/// host and port (the URI's, or the scheme's default), the method.
struct ExplainedRequest {
    let segments: [[UInt8]]
    let scheme: String?, host: String?, port: Int?
    let method: String?

    init(_ uri: String, method: String?, strictSlash: Bool) throws(InterlockError) {
        let bytes = Array(uri.utf8)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: URIParser.outputCapacity(for: bytes.count))
        defer { out.deallocate() }
        let spans = try withBytes(bytes) { (b) throws(InterlockError) in try URIParser.parse(b, strictSlash: strictSlash, into: out) }
        let path = Array(UnsafeBufferPointer(start: out, count: spans.pathLength))
        segments = path.isEmpty ? [] : path.dropFirst().split(separator: slash, omittingEmptySubsequences: false).map(Array.init)
        scheme = spans.scheme.map { bytes[$0].map(lowercased).string }
        host = spans.host.map { bytes[$0].map(lowercased).string }
        if let p = spans.port {
            port = Int(Array(bytes[p]).string) ?? Int.max
        } else if let s = scheme, host != nil {
            port = s.hasSuffix("s") ? 443 : 80
        } else {
            port = nil
        }
        self.method = method?.isEmpty == true ? nil : method
    }
}

/// The walk that lists the candidates.
private struct ExplanationWalk {
    let request: ExplainedRequest
    let fold: Bool
    let limit: UInt32
    var candidates: [MatchExplanation.Candidate] = []
    var truncated = false
    /// The entries on the winner's path, and the first route after it that would also have
    /// taken the request, with its entries.
    var winner: (Route, [TreeNode.Entry])? = nil
    var runnerUp: (Route, [TreeNode.Entry])? = nil

    mutating func visit(_ node: TreeNode, depth: Int, path: [TreeNode.Entry]) throws(InterlockError) {
        // The node's own routes: the path ends here, or they cannot take it.
        for leaf in node.leaves {
            if depth < request.segments.count && !node.isCatchAll {
                add(leaf.route, .pathTooLong(depth + 1))
            } else {
                consider(leaf.route, path)
            }
        }
        for child in node.childrenInOrder {
            let entry = child.entry
            if case .catchAll = entry {
                try visit(child, depth: request.segments.count, path: path + [entry])
                continue
            }
            guard depth < request.segments.count else {
                reject(child, .pathTooShort(depth + 1))
                continue
            }
            if let problem = try mismatch(entry, request.segments[depth]) {
                reject(child, .segment(depth + 1, problem))
                continue
            }
            try visit(child, depth: child.isCatchAll ? request.segments.count : depth + 1, path: path + [entry])
        }
    }

    /// What keeps `segment` from fitting `entry`, or nil if it fits.
    private func mismatch(_ entry: TreeNode.Entry, _ segment: [UInt8]) throws(InterlockError) -> String? {
        switch entry {
        case .root, .catchAll: return nil
        case .literal(let key):
            return same(key, segment) ? nil : "'\(key.string)' wanted"
        case .parameter:
            return segment.isEmpty ? "a parameter takes one byte at least" : nil
        case .constrained(let c):
            guard !segment.isEmpty, try ConstraintCheck.matches(c, segment, limit: limit) else { return "constraint (\(c)) refuses it" }
            return nil
        case .mixed(let pieces):
            return try split(pieces[...], segment[...]) ? nil : "'\(Self.describe(pieces))' does not fit"
        }
    }

    /// Whether `pieces` read `s` (a catch-all the rest; each parameter at least one byte, as few
    /// as let the rest fit, a constrained one checked on what it took).
    private func split(_ pieces: ArraySlice<TreeNode.MixedPiece>, _ s: ArraySlice<UInt8>) throws(InterlockError) -> Bool {
        guard let piece = pieces.first else { return s.isEmpty }
        switch piece {
        case .text(let t):
            guard s.count >= t.count, same(t, Array(s.prefix(t.count))) else { return false }
            return try split(pieces.dropFirst(), s.dropFirst(t.count))
        case .catchAll:
            return true
        case .parameter(let constraint):
            var end = s.startIndex
            while end < s.endIndex {
                end += 1
                if let c = constraint, try !ConstraintCheck.matches(c, Array(s[s.startIndex..<end]), limit: limit) { continue }
                if try split(pieces.dropFirst(), s[end...]) { return true }
            }
            return false
        }
    }

    private func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        fold ? a.map(lowercased) == b.map(lowercased) : a == b
    }

    /// A route whose path fits: the first that accepts the request wins.
    private mutating func consider(_ route: Route, _ path: [TreeNode.Entry]) {
        let p = route.pattern
        // The origin first: a route that refuses only the method is one the answer lists as allowed.
        if let s = p.scheme, s != request.scheme { return add(route, .scheme(s)) }
        if let h = p.host {
            let fits = p.hostIsWildcard
                ? (request.host.map { $0.hasSuffix(h.dropFirst()) && $0.utf8.count > h.utf8.count - 1 } ?? false)
                : h == request.host
            if !fits { return add(route, .host(h)) }
        }
        if let port = p.port, port != request.port { return add(route, .port(port)) }
        if let m = p.method, let asked = request.method, m != asked { return add(route, .method(m)) }
        if let (w, _) = winner {
            if runnerUp == nil { runnerUp = (route, path) }
            return add(route, .tookBy(w.id))
        }
        winner = (route, path)
        add(route, nil)
    }

    /// Every route under `node` (a child the path does not fit), rejected for `why`.
    private mutating func reject(_ node: TreeNode, _ why: MatchExplanation.Rejection) {
        for leaf in node.leaves { add(leaf.route, why) }
        for child in node.childrenInOrder { reject(child, why) }
    }

    private mutating func add(_ route: Route, _ rejection: MatchExplanation.Rejection?) {
        guard candidates.count < MatchExplanation.candidateLimit else { truncated = true; return }
        candidates.append(.init(routeID: route.id, pattern: route.pattern.source, name: route.name, rejection: rejection))
    }

    /// Why the winner won over the runner-up: where their paths first differ, or the tie rule.
    func reason() -> String? {
        guard let (w, wp) = winner, let (r, rp) = runnerUp else { return nil }
        for (i, (a, b)) in zip(wp, rp).enumerated() where a != b {
            return "at segment \(i + 1), \(Self.kind(a)) before \(Self.kind(b)) (route \(r.id))"
        }
        if wp.count != rp.count {
            return "route \(w.id) ends where the path ends; route \(r.id)'s catch-all comes after"
        }
        if w.originRank != r.originRank {
            return "the same path: route \(w.id)'s origin (\(Self.origin(w))) before route \(r.id)'s (\(Self.origin(r)))"
        }
        if (w.pattern.method != nil) != (r.pattern.method != nil) {
            return "the same path and origin: route \(w.id) names its method, route \(r.id) takes any"
        }
        return "a full tie: route \(w.id) was registered before route \(r.id)"
    }

    private static func kind(_ e: TreeNode.Entry) -> String {
        switch e {
        case .root: "the root"
        case .literal(let b): "the literal '\(b.string)'"
        case .parameter: "a parameter"
        case .constrained(let c): "a parameter constrained by (\(c))"
        case .catchAll: "the catch-all"
        case .mixed(let pieces): "the segment '\(describe(pieces))'"
        }
    }

    private static func describe(_ pieces: [TreeNode.MixedPiece]) -> String {
        pieces.map { p in
            switch p {
            case .text(let t): t.string
            case .parameter(let c): c.map { ":(\($0))" } ?? ":_"
            case .catchAll: "*"
            }
        }.joined()
    }

    private static func origin(_ r: Route) -> String {
        let p = r.pattern
        return [p.scheme.map { $0 + "://" }, p.host, p.port.map { ":\($0)" }].compactMap { $0 }.joined()
    }
}
