// Why a URI ends where it does. Which routes take the request is the matcher's answer, not the
// explanation's: the matcher lists, with its own compiled rules (constraints, mixed segments,
// hosts, ports, methods), every route variant whose path and origin fit, and every one that takes
// the method too (`Matcher.fittingLeaves`). The explanation walks the route tree, the one source
// of the precedence rule (RouteTree.swift), in the order a lookup tries it, to put those routes in
// order and to say, for each route the matcher did not list, what first kept it out; its segment
// tests call the matcher's own (`Matcher.holds`, `Matcher.mixedCode`). Its work is bounded like a
// lookup's: it enters only the nodes whose segments fit, and lists at most `candidateLimit`
// routes. A test and the fuzz targets hold its winner to the answer of `match`.

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
    public func reason(naming name: (RouteID) -> String) -> String? { why?.description(name) }

    let why: Why?

    /// The most candidates an explanation lists.
    public static let candidateLimit = 200

    /// The explanation as one JSON object, the form the C interface and the `interlock` command
    /// give: `answer` (`route` and `params`, or `status` and for a method not allowed `allowed`),
    /// `reason`, `candidates` (each `route`, `name`, `pattern`, `form`, `takes`, `why_not`), `truncated`.
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
        var walk = ExplanationWalk(matcher: matcher, method: method, fold: options.contains(.caseInsensitive),
                                   fitting: fitting, taking: taking)
        try treeLock.withLock { (_: inout Void) throws(InterlockError) in try walk.visit(tree.root, depth: 0, path: []) }
        return MatchExplanation(answer: answer, candidates: walk.candidates, truncated: walk.truncated, why: walk.why())
    }
}

/// The walk that lists the candidates.
struct ExplanationWalk {
    let matcher: Matcher
    let method: String?
    let fold: Bool
    /// The path's segments, (start, end) in the matcher's subject.
    let segments: [(Int, Int)]
    /// How many times the matcher listed each variant (route and parameter names) as fitting,
    /// and as taking the request.
    var fitting: [LeafKey: Int] = [:]
    var taking: [LeafKey: Int] = [:]
    var candidates: [MatchExplanation.Candidate] = []
    var truncated = false
    /// The entries on the winner's path, and the first route after it that would also have
    /// taken the request, with its entries.
    var winner: (Route, [TreeNode.Entry])? = nil
    var runnerUp: (Route, [TreeNode.Entry])? = nil
    /// Constraints and mixed segments compiled for the walk, as the table compiles them.
    private var constraints: [String: Constraint] = [:]
    private var mixed: [ObjectIdentifier: MixedSegment] = [:]

    struct LeafKey: Hashable {
        let route: RouteID
        let names: ObjectIdentifier
        init(_ leaf: Leaf) { route = leaf.route.id; names = ObjectIdentifier(leaf.names) }
    }

    init(matcher: Matcher, method: String?, fold: Bool, fitting: [Leaf], taking: [Leaf]) {
        self.matcher = matcher
        self.method = method
        self.fold = fold
        segments = matcher.pathSegments
        for leaf in fitting { self.fitting[LeafKey(leaf), default: 0] += 1 }
        for leaf in taking { self.taking[LeafKey(leaf), default: 0] += 1 }
    }

    private var full: Bool { candidates.count >= MatchExplanation.candidateLimit }

    mutating func visit(_ node: TreeNode, depth: Int, path: [TreeNode.Entry]) throws(InterlockError) {
        // The node's own routes: the path ends here, or they cannot take it.
        for leaf in node.leaves {
            if depth < segments.count && !node.isCatchAll {
                add(leaf, path, .pathTooLong(depth + 1))
            } else {
                consider(leaf, path)
            }
        }
        // Literal children: the one the segment names is entered; the others are listed while
        // there is room (a lookup finds the one by a hash and never reads the others).
        var entered = false
        if depth < segments.count {
            let (s, e) = segments[depth]
            for child in node.literalOrder {
                if full { break }
                guard case .literal(let key) = child.entry else { continue }
                if same(key, s, e) {
                    entered = true
                    try visit(child, depth: depth + 1, path: path + [child.entry])
                } else {
                    reject(child, path + [child.entry], .segment(depth + 1, "'\(key.string)' wanted"))
                }
            }
            if !entered, let child = node.literalChildren[key(s, e)] {
                try visit(child, depth: depth + 1, path: path + [child.entry])
            }
        } else {
            for child in node.literalOrder {
                if full { break }
                reject(child, path + [child.entry], .pathTooShort(depth + 1))
            }
        }
        var rest = node.mixedChildren + node.constrainedChildren
        if let p = node.parameterChild { rest.append(p) }
        rest += node.prefixedCatchAlls
        if let c = node.catchAllChild { rest.append(c) }
        for child in rest {
            let entry = child.entry
            if case .catchAll = entry {
                try visit(child, depth: segments.count, path: path + [entry])
                continue
            }
            guard depth < segments.count else {
                reject(child, path + [entry], .pathTooShort(depth + 1))
                continue
            }
            if let problem = try mismatch(child, segments[depth]) {
                reject(child, path + [entry], .segment(depth + 1, problem))
                continue
            }
            try visit(child, depth: child.isCatchAll ? segments.count : depth + 1, path: path + [entry])
        }
    }

    /// What keeps the segment from fitting `node`'s entry, or nil if it fits: the matcher's own
    /// tests, on the matcher's subject.
    private mutating func mismatch(_ node: TreeNode, _ segment: (Int, Int)) throws(InterlockError) -> String? {
        let (s, e) = segment
        switch node.entry {
        case .root, .catchAll, .literal: return nil
        case .parameter:
            return e > s ? nil : "a parameter takes one byte at least"
        case .constrained(let c):
            guard e > s else { return "a parameter takes one byte at least" }
            let compiled = try constraint(c, node)
            return try matcher.holds(compiled.ref, from: s, to: e) ? nil : "constraint (\(c)) refuses it"
        case .mixed(let pieces):
            let id = ObjectIdentifier(node)
            let m: MixedSegment
            if let known = mixed[id] {
                m = known
            } else {
                m = try MixedSegment(pieces, caseInsensitive: fold, route: RegexEmitter.firstRoute(node))
                mixed[id] = m
            }
            let starts = UnsafeMutablePointer<Int>.allocate(capacity: m.parameterCount + 1)
            let ends = UnsafeMutablePointer<Int>.allocate(capacity: m.parameterCount + 1)
            defer { starts.deallocate(); ends.deallocate() }
            let rc = matcher.mixedCode(m, from: s, segmentEnd: e, pathEnd: matcher.pathBytes.count, starts: starts, ends: ends)
            if rc == 0 { return nil }
            if rc == 1 { return "'\(Self.describe(pieces))' does not fit" }
            throw matcher.stopped(rc)
        }
    }

    private mutating func constraint(_ c: String, _ node: TreeNode) throws(InterlockError) -> Constraint {
        if let known = constraints[c] { return known }
        let compiled = try Constraint(c, route: RegexEmitter.firstRoute(node))
        constraints[c] = compiled
        return compiled
    }

    /// Whether the segment from `s` to `e` is the literal `key`, as a lookup compares them.
    private func same(_ key: [UInt8], _ s: Int, _ e: Int) -> Bool {
        guard key.count == e - s else { return false }
        return key.withUnsafeBufferPointer { k in
            guard let base = k.baseAddress else { return true }
            if !fold { return sameBytes(base, matcher.subject + s, e - s) }
            return zip(key, UnsafeBufferPointer(start: matcher.subject + s, count: e - s)).allSatisfy { lowercased($0) == lowercased($1) }
        }
    }

    /// The segment as the tree keys its literal children.
    private func key(_ s: Int, _ e: Int) -> [UInt8] {
        let bytes = Array(UnsafeBufferPointer(start: matcher.subject + s, count: e - s))
        return fold ? bytes.map(lowercased) : bytes
    }

    /// A route variant whose path fits: the matcher says whether it takes the request.
    private mutating func consider(_ leaf: Leaf, _ path: [TreeNode.Entry]) {
        let key = LeafKey(leaf)
        if let n = taking[key], n > 0 {
            taking[key] = n - 1
            fitting[key] = (fitting[key] ?? 1) - 1
            if let (w, _) = winner {
                if runnerUp == nil { runnerUp = (leaf.route, path) }
                return add(leaf, path, .tookBy(w.id))
            }
            winner = (leaf.route, path)
            return add(leaf, path, nil)
        }
        let p = leaf.route.pattern
        if let n = fitting[key], n > 0 {
            fitting[key] = n - 1
            return add(leaf, path, .method(p.method ?? ""))
        }
        // The matcher refused its origin: named by what the route asks for, first to differ.
        let request = matcher.requestOrigin
        if let s = p.scheme, s != request.scheme { return add(leaf, path, .scheme(s)) }
        if let port = p.port, "\(port)" != request.port { return add(leaf, path, .port(port)) }
        if let h = p.host { return add(leaf, path, .host(h)) }
        if let s = p.scheme { return add(leaf, path, .scheme(s)) }
        add(leaf, path, .segment(path.count, "the matcher refuses it"))
    }

    /// Every route under `node` (a child the path does not fit), rejected for `why`.
    private mutating func reject(_ node: TreeNode, _ path: [TreeNode.Entry], _ why: MatchExplanation.Rejection) {
        for leaf in node.leaves {
            if full { truncated = true; return }
            add(leaf, path, why)
        }
        for child in node.childrenInOrder {
            if full { truncated = true; return }
            reject(child, path + [child.entry], why)
        }
    }

    private mutating func add(_ leaf: Leaf, _ path: [TreeNode.Entry], _ rejection: MatchExplanation.Rejection?) {
        guard !full else { truncated = true; return }
        let route = leaf.route
        let form = route.pattern.hasOptionalParts ? Self.form(path, leaf.names.names) : nil
        candidates.append(.init(routeID: route.id, pattern: route.pattern.source, name: route.name, rejection: rejection, form: form))
    }

    /// A variant's path as a pattern: the entries, with the leaf's parameter names.
    static func form(_ path: [TreeNode.Entry], _ names: [String]) -> String {
        var next = names.makeIterator()
        func name() -> String { next.next() ?? "" }
        func star() -> String { let n = name(); return n == "*" ? "*" : "*" + n }
        var out = ""
        for entry in path {
            switch entry {
            case .root: continue
            case .literal(let b): out += "/" + b.string
            case .parameter: out += "/:" + name()
            case .constrained(let c): out += "/:\(name())(\(c))"
            case .catchAll: out += "/" + star()
            case .mixed(let pieces):
                out += "/" + pieces.map { p in
                    switch p {
                    case .text(let t): t.string
                    case .parameter(let c): ":" + name() + (c.map { "(\($0))" } ?? "")
                    case .catchAll: star()
                    }
                }.joined()
            }
        }
        return out.isEmpty ? "/" : out
    }

    /// Why the winner won over the runner-up: where their paths first differ, or the tie rule.
    func why() -> Why? {
        guard let (w, wp) = winner, let (r, rp) = runnerUp else { return nil }
        for (i, (a, b)) in zip(wp, rp).enumerated() where a != b {
            return .segment(i + 1, a, b, runnerUp: r.id)
        }
        if wp.count != rp.count { return .catchAllAfter(w.id, runnerUp: r.id) }
        if w.originRank != r.originRank { return .origin(w.id, Self.origin(w), runnerUp: r.id, Self.origin(r)) }
        if (w.pattern.method != nil) != (r.pattern.method != nil) { return .method(w.id, runnerUp: r.id) }
        return .registeredFirst(w.id, runnerUp: r.id)
    }

    static func describe(_ pieces: [TreeNode.MixedPiece]) -> String {
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
