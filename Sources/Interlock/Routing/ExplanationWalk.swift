// The explanation's walk of the route tree: the routes in the order a lookup tries them, each
// with the matcher's verdict (see Explain.swift), or, for one the matcher did not list, the first
// thing that kept it out.

/// The walk that lists the candidates.
struct ExplanationWalk {
    let matcher: Matcher
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

    init(matcher: Matcher, fold: Bool, fitting: [Leaf], taking: [Leaf]) {
        self.matcher = matcher
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
