import Testing
@testable import Interlock

/// Random tables (literals, constrained and plain parameters, text and parameters in one segment,
/// catch-alls (after text too), optional parts, methods,
/// schemes and hosts; case-sensitive, case-insensitive and strict about slashes), grown between
/// lookups, and random requests, answered by the router and by a model of the README's
/// "Which route wins" written here, route by route with no tree: every route that accepts the
/// request is a candidate, the most specific path wins segment by segment, then the tie rules.
/// The shape tests hold the router's ways of compiling a table to one another; this holds them
/// to the rules as written (answer, parameters, allowed methods and conflicts).
@Suite("Which route wins, against a model")
struct PrecedenceModelTests {
    enum Segment: Equatable {
        case literal(String)
        case constrained(name: String, regex: String)
        case parameter(String)
        case catchAll(String)   // "*" for the anonymous one
        case mixed([Piece])     // text and parameters in one segment; a catch-all last only
    }

    enum Piece: Equatable {
        case text(String)
        case parameter(String)
        case constrained(name: String, regex: String)
        case catchAll(String)
    }

    enum Origin: CaseIterable {
        // none, "https://h.example", "app://", "https://*.example", "https://h.example:8443"
        case any, https, app, wildcard, port

        var prefix: String {
            switch self {
            case .any: ""
            case .https: "https://h.example"
            case .app: "app://"
            case .wildcard: "https://*.example"
            case .port: "https://h.example:8443"
            }
        }

        /// The README's tie rule on origins, greater first: an exact host (a port before none),
        /// then a wildcard, then a scheme alone, then none.
        var rank: Int {
            switch self {
            case .any: 0
            case .app: 1
            case .wildcard: 2
            case .https: 3
            case .port: 4
            }
        }
    }

    struct ModelRoute {
        let id: RouteID
        let method: String?
        let origin: Origin
        let variants: [[Segment]]
    }

    /// A request as the model sees it: scheme and host, and the path's segments normalized (the
    /// requests hold no dots or empty segments, so normalizing is the escapes' and dropping a
    /// trailing slash).
    struct ModelRequest {
        let scheme: String?
        let host: String?
        /// The URI's port, or its scheme's default.
        let port: Int?
        let segments: [String]

        init(scheme: String?, host: String?, port: Int? = nil, segments: [String]) {
            self.scheme = scheme
            self.host = host
            self.port = port ?? (scheme == "https" ? 443 : nil)
            self.segments = segments.map(Self.normalized)
        }

        /// An escape of an unreserved byte decoded, any other kept with upper-case hex.
        static func normalized(_ segment: String) -> String {
            unescaped(segment) { v in
                (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || (0x30...0x39).contains(v) || "-._~".utf8.contains(v)
            }
        }

        /// A normalized segment's value: every escape decoded (the values here are ASCII).
        static func decoded(_ segment: String) -> String { unescaped(segment) { _ in true } }

        /// `segment` with the escapes of the bytes `decode` accepts decoded, the others kept with
        /// upper-case hex.
        static func unescaped(_ segment: String, decoding decode: (UInt8) -> Bool) -> String {
            var out = ""
            var rest = Substring(segment)
            while let c = rest.first {
                let hex = rest.dropFirst().prefix(2)
                if c == "%", let v = UInt8(hex, radix: 16) {
                    out += decode(v) ? String(Unicode.Scalar(v)) : "%" + hex.uppercased()
                    rest = rest.dropFirst(3)
                } else {
                    out.append(c)
                    rest = rest.dropFirst()
                }
            }
            return out
        }
    }

    static let literals = ["a", "b", "ab", "x", "a%2Fb"]
    /// Two that overlap ("ab" is both), whose order under a node then decides.
    static let constraints = ["\\d+", "[ab]+", "[a-z]+"]
    /// Request segments: the literals, other spellings of them ("%61" is "a"; "a%2fb" is
    /// "a%2Fb", one segment whose value is "a/b"), other cases, numbers and text no route names.
    static let values = ["a", "b", "ab", "x", "1", "12", "A", "Ab", "xyz", "%61", "a%2Fb", "a%2fb", "%31%32",
                         "a.b", "1.2", "x-1", "ab.b", "v1.2", "a-b.b", "va"]
    /// Segments mixing text and parameters: their texts meet the values' (".", "-", "a", "v").
    static func randomMixed(_ rng: inout SplitMix, _ i: Int) -> [Piece] {
        switch rng.next() % 6 {
        case 0: return [.parameter("m\(i)a"), .text(pick([".", "-"], &rng)), .parameter("m\(i)b")]
        case 1: return [.text(pick(["a", "x", "v"], &rng)), .parameter("m\(i)a")]
        case 2: return [.parameter("m\(i)a"), .text(pick([".b", "-1", "~b"], &rng))]
        case 3: return [.text("v"), .constrained(name: "m\(i)a", regex: "\\d+"), .text("."), .parameter("m\(i)b")]
        case 4: return [.parameter("m\(i)a"), .text("."), .constrained(name: "m\(i)b", regex: pick(constraints, &rng))]
        default: return [.constrained(name: "m\(i)a", regex: pick(constraints, &rng)), .text(pick([".", "-"], &rng)), .parameter("m\(i)b")]
        }
    }
    static let methods: [String?] = [nil, nil, "GET", "POST"]

    // MARK: Random routes and requests

    /// A random route: its pattern as written and its variants.
    static func randomRoute(_ rng: inout SplitMix) -> (pattern: String, method: String?, origin: Origin, variants: [[Segment]]) {
        var base: [Segment] = []
        for i in 0..<Int(rng.next() % 4) {
            switch rng.next() % 9 {
            case 0, 1: base.append(.parameter("p\(i)"))
            case 2: base.append(.constrained(name: "c\(i)", regex: pick(constraints, &rng)))
            case 3: base.append(.mixed(randomMixed(&rng, i)))
            default: base.append(.literal(pick(literals, &rng)))
            }
        }
        var variants = [base]
        var tail = ""
        // A catch-all only after a segment: one at the root (that takes any method) leaves no
        // request unmatched.
        switch base.isEmpty ? 2 + rng.next() % 8 : rng.next() % 10 {
        case 0:
            variants = [base + [.catchAll("rest")]]
            tail = "/*rest"
        case 1:
            variants = [base + [.catchAll("*")]]
            tail = "/*"
        case 2:
            let l = pick(literals, &rng)
            variants.append(base + [.literal(l)])
            tail = "(/\(l))"
        case 3:
            let l = pick(literals, &rng)
            variants += [base + [.parameter("o")], base + [.parameter("o"), .literal(l)]]
            tail = "(/:o(/\(l)))"
        case 4:
            let text = pick(["a", "v", "x."], &rng)
            variants = [base + [.mixed([.text(text), .catchAll("rest")])]]
            tail = "/\(text)*rest"
        default: break
        }
        var path = ""
        for s in base {
            switch s {
            case .literal(let l): path += "/" + l
            case .constrained(let name, let regex): path += "/:\(name)(\(regex))"
            case .parameter(let name): path += "/:" + name
            case .catchAll: break
            case .mixed(let pieces):
                path += "/"
                for p in pieces {
                    switch p {
                    case .text(let t): path += t
                    case .parameter(let name): path += ":" + name
                    case .constrained(let name, let regex): path += ":\(name)(\(regex))"
                    case .catchAll(let name): path += "*" + name
                    }
                }
            }
        }
        path += tail
        if path.isEmpty { path = "/" }
        let origin = pick(Origin.allCases + [.any, .any], &rng)
        let method = pick(methods, &rng)
        return ((method.map { $0 + " " } ?? "") + origin.prefix + path, method, origin, variants)
    }

    /// A random request; under `strictSlash` a trailing slash is an empty last segment.
    static func randomRequest(_ rng: inout SplitMix, strictSlash: Bool) -> (uri: String, request: ModelRequest) {
        var segments: [String] = []
        for _ in 0..<Int(rng.next() % 5) { segments.append(pick(values, &rng)) }
        let trailingSlash = rng.next() % 6 == 0 && !segments.isEmpty
        let path = segments.joined(separator: "/") + (trailingSlash ? "/" : "")
        if trailingSlash && strictSlash { segments.append("") }
        switch rng.next() % 8 {
        case 0: return ("https://h.example/" + path, ModelRequest(scheme: "https", host: "h.example", segments: segments))
        case 1:
            // Other spellings of that origin: the scheme and host lower-cased, a port and user
            // information set apart.
            let origin = pick(["HTTPS://H.Example", "https://h.example:8443", "https://user@h.example", "https://h.example:443",
                               "https://h.example:08443"], &rng)
            return (origin + "/" + path, ModelRequest(scheme: "https", host: "h.example", port: origin.split(separator: ":").last.flatMap { Int($0) },
                                                      segments: segments))
        case 2: return ("https://other.example/" + path, ModelRequest(scheme: "https", host: "other.example", segments: segments))
        case 3: return (pick(["app://", "APP://"], &rng) + path, ModelRequest(scheme: "app", host: nil, segments: segments))
        default: return ("/" + path, ModelRequest(scheme: nil, host: nil, segments: segments))
        }
    }

    // MARK: The model

    /// The routes the model holds, and at each node of the path (its segments' shapes so far)
    /// the constraints in the order first registered there.
    struct Model {
        let fold: Bool
        var routes: [ModelRoute] = []
        var constraintOrder: [String: [String]] = [:]
        /// At each node, its mixed segments' shapes in the order first registered there.
        var mixedOrder: [String: [String]] = [:]

        /// A segment's shape: what makes two routes the same route, parameter names aside.
        func shape(_ s: Segment) -> String {
            switch s {
            case .literal(let l): return "L" + (fold ? String(decoding: l.utf8.map(lowercased), as: UTF8.self) : l)
            case .constrained(_, let regex): return "C" + regex
            case .parameter: return "P"
            case .catchAll: return "*"
            case .mixed(let pieces):
                return "M" + pieces.map { p in
                    switch p {
                    case .text(let t): fold ? String(decoding: t.utf8.map(lowercased), as: UTF8.self) : t
                    case .parameter: "\u{1}P"
                    case .constrained(_, let regex): "\u{1}C" + regex
                    case .catchAll: "\u{1}*"
                    }
                }.joined(separator: "\u{2}")
            }
        }

        func shape(_ v: ArraySlice<Segment>) -> String { v.map(shape).joined(separator: "/") }

        /// The route an added route conflicts with: same method, origin and shape of a variant
        /// (the route `replacing` names aside: it is the one being replaced).
        func conflict(method: String?, origin: Origin, variants: [[Segment]], replacing: RouteID? = nil) -> RouteID? {
            for r in routes where r.method == method && r.origin == origin && r.id != replacing {
                for a in r.variants { for b in variants where shape(a[...]) == shape(b[...]) { return r.id } }
            }
            return nil
        }

        /// Takes route `id` out; a node's constraints keep their order, less those no route uses
        /// there any more (the tree prunes a constrained node no route goes through).
        mutating func remove(_ id: RouteID) {
            routes.removeAll { $0.id == id }
            var used: Set<String> = []
            for r in routes {
                for v in r.variants {
                    for (i, s) in v.enumerated() {
                        if case .constrained(_, let regex) = s { used.insert(shape(v[..<i]) + "\u{0}" + regex) }
                        if case .mixed = s { used.insert(shape(v[..<i]) + "\u{0}" + shape(s)) }
                    }
                }
            }
            for (node, order) in constraintOrder {
                constraintOrder[node] = order.filter { used.contains(node + "\u{0}" + $0) }
            }
            for (node, order) in mixedOrder {
                mixedOrder[node] = order.filter { used.contains(node + "\u{0}" + $0) }
            }
        }

        mutating func add(_ route: ModelRoute) {
            routes.append(route)
            for v in route.variants {
                for (i, s) in v.enumerated() {
                    let node = shape(v[..<i])
                    if case .mixed = s, !mixedOrder[node, default: []].contains(shape(s)) { mixedOrder[node, default: []].append(shape(s)) }
                    guard case .constrained(_, let regex) = s else { continue }
                    if !constraintOrder[node, default: []].contains(regex) { constraintOrder[node, default: []].append(regex) }
                }
            }
        }

        func accepts(_ origin: Origin, _ r: ModelRequest) -> Bool {
            switch origin {
            case .any: return true
            case .https: return r.scheme == "https" && r.host == "h.example"
            case .app: return r.scheme == "app"
            case .wildcard: return r.scheme == "https" && (r.host?.hasSuffix(".example") ?? false) && r.host != ".example"
            case .port: return r.scheme == "https" && r.host == "h.example" && r.port == 8443
            }
        }

        static func matches(_ regex: String, _ value: String) -> Bool {
            switch regex {
            case "\\d+": return value.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            case "[a-z]+": return value.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A }
            default: return value.utf8.allSatisfy { $0 == 0x61 || $0 == 0x62 }
            }
        }

        /// The variant's parameters and its precedence key if its path matches the request's:
        /// per segment literal 1; text mixed with parameters 2 (then more literal bytes, more
        /// constrained parameters, its place among the node's mixed segments); constrained 3
        /// (then its place among the node's constraints); parameter 4; catch-all after text 5
        /// (then as a mixed segment); catch-all 6; a path ending where the variant ends 0 (before
        /// a catch-all taking no segment).
        func match(_ v: [Segment], _ segments: [String]) -> (parameters: [(String, String)], key: [Int])? {
            var parameters: [(String, String)] = []
            var key: [Int] = []
            for (i, s) in v.enumerated() {
                if case .catchAll(let name) = s {
                    parameters.append((name, segments[min(i, segments.count)...].map(ModelRequest.decoded).joined(separator: "/")))
                    key += [6, 0, 0, 0]
                    return (parameters, key)
                }
                if case .mixed(let pieces) = s {
                    guard i < segments.count else { return nil }
                    let endsInCatchAll = if case .catchAll = pieces.last { true } else { false }
                    // A catch-all after text reads the rest of the path; other pieces one segment.
                    let subject = endsInCatchAll ? segments[i...].joined(separator: "/") : segments[i]
                    guard let values = split(pieces[...], Substring(subject)) else { return nil }
                    let names = pieces.compactMap { p -> String? in
                        switch p {
                        case .text: nil
                        case .parameter(let n), .constrained(let n, _), .catchAll(let n): n
                        }
                    }
                    parameters += zip(names, values.map(ModelRequest.decoded))
                    var bytes = 0, constrained = 0
                    for p in pieces {
                        if case .text(let t) = p { bytes += t.utf8.count }
                        if case .constrained = p { constrained += 1 }
                    }
                    key += [endsInCatchAll ? 5 : 2, -bytes, -constrained, mixedOrder[shape(v[..<i])]?.firstIndex(of: shape(s)) ?? -1]
                    if endsInCatchAll { return (parameters, key) }
                    continue
                }
                guard i < segments.count else { return nil }
                let value = segments[i]
                switch s {
                case .literal(let l):
                    let same = fold ? l.utf8.map(lowercased) == value.utf8.map(lowercased) : l == value
                    guard same else { return nil }
                    key += [1, 0, 0, 0]
                case .constrained(let name, let regex):
                    guard !value.isEmpty, Self.matches(regex, value) else { return nil }
                    parameters.append((name, ModelRequest.decoded(value)))
                    key += [3, constraintOrder[shape(v[..<i])]?.firstIndex(of: regex) ?? -1, 0, 0]
                case .parameter(let name):
                    guard !value.isEmpty else { return nil }
                    parameters.append((name, ModelRequest.decoded(value)))
                    key += [4, 0, 0, 0]
                case .catchAll, .mixed: break
                }
            }
            guard v.count == segments.count else { return nil }
            return (parameters, key + [0, 0, 0, 0])
        }

        /// The values of `pieces` in `s` (normalized bytes), as the README reads a mixed segment:
        /// each parameter at least one byte, as few as let the rest match, never across a "/";
        /// a catch-all the rest. Nil if they do not match.
        func split(_ pieces: ArraySlice<Piece>, _ s: Substring) -> [String]? {
            guard let piece = pieces.first else { return s.isEmpty ? [] : nil }
            switch piece {
            case .text(let t):
                let head = s.prefix(t.count)
                let same = fold ? head.lowercased() == t.lowercased() : head == t
                guard same, head.count == t.count else { return nil }
                return split(pieces.dropFirst(), s.dropFirst(t.count))
            case .catchAll:
                return [String(s)]
            case .parameter, .constrained:
                var end = s.startIndex
                while end < s.endIndex {
                    guard s[end] != "/" else { return nil }
                    end = s.index(after: end)
                    let value = s[s.startIndex..<end]
                    if case .constrained(_, let regex) = piece, !Self.matches(regex, String(value)) { continue }
                    if let rest = split(pieces.dropFirst(), s[end...]) { return [String(value)] + rest }
                }
                return nil
            }
        }

        enum Answer: Equatable, CustomStringConvertible {
            case matched(RouteID, [String])     // parameters as "name=value"
            case notFound
            case methodNotAllowed(Set<String>)

            var description: String {
                switch self {
                case .matched(let id, let p): return "route \(id) \(p)"
                case .notFound: return "not found"
                case .methodNotAllowed(let m): return "method not allowed \(m.sorted())"
                }
            }
        }

        func answer(_ r: ModelRequest, method: String?) -> Answer {
            var best: (key: [Int], route: ModelRoute, parameters: [(String, String)])? = nil
            var allowed = Set<String>()
            for route in routes where accepts(route.origin, r) {
                for v in route.variants {
                    guard let (parameters, key) = match(v, r.segments) else { continue }
                    if let m = route.method, let method, m != method {
                        allowed.insert(m)
                        continue
                    }
                    if let b = best, !Self.beats(key, route, b.key, b.route) { continue }
                    best = (key, route, parameters)
                }
            }
            if let best { return .matched(best.route.id, best.parameters.map { "\($0.0)=\($0.1)" }) }
            return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
        }

        /// Whether a candidate wins over the best so far: the more specific path, then an explicit
        /// scheme or host, then an explicit method, then the route registered first.
        static func beats(_ key: [Int], _ route: ModelRoute, _ bestKey: [Int], _ best: ModelRoute) -> Bool {
            if key != bestKey { return key.lexicographicallyPrecedes(bestKey) }
            if route.origin.rank != best.origin.rank { return route.origin.rank > best.origin.rank }
            if (route.method != nil) != (best.method != nil) { return route.method != nil }
            return route.id < best.id
        }
    }

    // MARK: The comparison

    static func answer(of router: Router, _ uri: String, method: String?) throws -> Model.Answer {
        switch try router.match(uri, method: method) {
        case .matched(let m): return .matched(m.routeID, m.parameters.map { "\($0.name)=\($0.value)" })
        case .notFound: return .notFound
        case .methodNotAllowed(let allowed): return .methodNotAllowed(Set(allowed))
        }
    }

    @Test func routersAnswerAsTheModelSays() throws {
        var counts: [String: Int] = [:]
        var conflicts = 0, removals = 0
        for seed: UInt64 in 1...24 { try compare(seed: seed, counts: &counts, conflicts: &conflicts, removals: &removals) }
        // The comparison means something only if the requests reach every kind of answer.
        #expect(counts["with parameters", default: 0] >= 10_000 && counts["matched", default: 0] >= 5_000
                && counts["not found", default: 0] >= 5_000 && counts["method not allowed", default: 0] >= 1_000
                && counts["mixed", default: 0] >= 1_000 && conflicts >= 50 && removals >= 100,
                "\(counts), \(conflicts) conflicts, \(removals) removals")
    }

    func compare(seed: UInt64, counts: inout [String: Int], conflicts: inout Int, removals: inout Int) throws {
        var rng = SplitMix(seed: seed &* 0x9E37_79B1)
        let fold = seed % 3 == 1, strictSlash = seed % 3 == 2
        let options: RouterOptions = fold ? .caseInsensitive : strictSlash ? .strictSlash : []
        // The router as made, one with a dispatch node wherever there are children, and one that
        // tries the all-literal table first on every table.
        let routers = [Router(options: options), Router(options: options, walkUnits: false, unitBudget: 1),
                       Router(options: options, staticProbe: .always)]
        var model = Model(fold: fold)

        func lookUp(_ n: Int) throws {
            for _ in 0..<n {
                let (uri, request) = Self.randomRequest(&rng, strictSlash: strictSlash)
                let method = pick(Self.methods + ["PUT"], &rng)
                let expected = model.answer(request, method: method)
                switch expected {
                case .matched(_, let p):
                    counts[p.isEmpty ? "matched" : "with parameters", default: 0] += 1
                    if p.contains(where: { $0.hasPrefix("m") || $0.hasPrefix("rest=") }) { counts["mixed", default: 0] += 1 }
                case .notFound: counts["not found", default: 0] += 1
                case .methodNotAllowed: counts["method not allowed", default: 0] += 1
                }
                for (k, router) in routers.enumerated() {
                    let got = try Self.answer(of: router, uri, method: method)
                    #expect(got == expected, "router \(k), seed \(seed): \(method ?? "*") \(uri): \(got), the model says \(expected)")
                }
                // The explanation names the same winner, and lists every route the model finds
                // would take the path under another method as refused for its method.
                // (The explanation reads the compiled table: as one regex, and as dispatch nodes.)
                for router in routers[0...1] {
                    let explained = try router.explain(uri, method: method)
                    let winner = explained.candidates.first { $0.rejection == nil }?.routeID
                    if case .matched(let id, _) = expected {
                        #expect(winner == id, "seed \(seed): \(method ?? "*") \(uri): explained winner \(winner ?? 0), the model says \(id)")
                    } else {
                        #expect(winner == nil, "seed \(seed): \(method ?? "*") \(uri): explained winner \(winner ?? 0), the model says \(expected)")
                    }
                    if case .methodNotAllowed(let allowed) = expected {
                        let refused = Set(explained.candidates.compactMap { if case .method(let m)? = $0.rejection { m } else { nil } })
                        #expect(refused == allowed, "seed \(seed): \(uri): explained methods \(refused), the model says \(allowed)")
                    }
                }
            }
        }

        for round in 1...40 {
            let (pattern, method, origin, variants) = Self.randomRoute(&rng)
            let existing = model.conflict(method: method, origin: origin, variants: variants)
            var id: RouteID = 0
            for router in routers {
                do {
                    id = try router.addRoute(pattern)
                    #expect(existing == nil, "\(pattern) was added; the model says it conflicts with route \(existing ?? 0)")
                } catch {
                    #expect(error.code == .conflict && existing != nil, "\(pattern): \(error)")
                }
            }
            if existing == nil {
                model.add(ModelRoute(id: id, method: method, origin: origin, variants: variants))
            } else {
                conflicts += 1
            }
            // Every fourth round, a route removed or replaced: tables shrink as well as grow.
            if round % 4 == 0, !model.routes.isEmpty {
                let victim = pick(model.routes, &rng)
                if rng.next() % 2 == 0 {
                    for router in routers { try router.removeRoute(victim.id) }
                    model.remove(victim.id)
                    removals += 1
                } else {
                    let (pattern, method, origin, variants) = Self.randomRoute(&rng)
                    let existing = model.conflict(method: method, origin: origin, variants: variants, replacing: victim.id)
                    for router in routers {
                        do {
                            try router.replaceRoute(victim.id, with: pattern)
                            #expect(existing == nil, "\(pattern) replaced route \(victim.id); the model says it conflicts with \(existing ?? 0)")
                        } catch {
                            #expect(error.code == .conflict && existing != nil, "\(pattern): \(error)")
                        }
                    }
                    if existing == nil {
                        model.remove(victim.id)
                        model.add(ModelRoute(id: victim.id, method: method, origin: origin, variants: variants))
                        removals += 1
                    }
                }
            }
            // Lookups between changes too: a change recompiles only the part of the table it
            // touched, and the lookups after it must see the whole table as it now is.
            if round % 10 == 0 { try lookUp(round == 40 ? 1_000 : 200) }
        }
    }
}
