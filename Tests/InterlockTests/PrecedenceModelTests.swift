import Testing
@testable import Interlock

/// Random tables (literals, constrained and plain parameters, catch-alls, optional parts, methods,
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
    }

    enum Origin: CaseIterable {
        case any, https, app    // none, "https://h.example", "app://"
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
        let segments: [String]

        init(scheme: String?, host: String?, segments: [String]) {
            self.scheme = scheme
            self.host = host
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
    static let values = ["a", "b", "ab", "x", "1", "12", "A", "Ab", "xyz", "%61", "a%2Fb", "a%2fb", "%31%32"]
    static let methods: [String?] = [nil, nil, "GET", "POST"]

    // MARK: Random routes and requests

    /// A random route: its pattern as written and its variants.
    static func randomRoute(_ rng: inout SplitMix) -> (pattern: String, method: String?, origin: Origin, variants: [[Segment]]) {
        var base: [Segment] = []
        for i in 0..<Int(rng.next() % 4) {
            switch rng.next() % 7 {
            case 0, 1: base.append(.parameter("p\(i)"))
            case 2: base.append(.constrained(name: "c\(i)", regex: pick(constraints, &rng)))
            default: base.append(.literal(pick(literals, &rng)))
            }
        }
        var variants = [base]
        var tail = ""
        // A catch-all only after a segment: one at the root (that takes any method) leaves no
        // request unmatched.
        switch base.isEmpty ? 2 + rng.next() % 7 : rng.next() % 9 {
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
        default: break
        }
        var path = ""
        for s in base {
            switch s {
            case .literal(let l): path += "/" + l
            case .constrained(let name, let regex): path += "/:\(name)(\(regex))"
            case .parameter(let name): path += "/:" + name
            case .catchAll: break
            }
        }
        path += tail
        if path.isEmpty { path = "/" }
        let origin = pick(Origin.allCases + [.any, .any], &rng)
        let method = pick(methods, &rng)
        let prefix = switch origin { case .any: ""; case .https: "https://h.example"; case .app: "app://" }
        return ((method.map { $0 + " " } ?? "") + prefix + path, method, origin, variants)
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
            let origin = pick(["HTTPS://H.Example", "https://h.example:8443", "https://user@h.example"], &rng)
            return (origin + "/" + path, ModelRequest(scheme: "https", host: "h.example", segments: segments))
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

        /// A segment's shape: what makes two routes the same route, parameter names aside.
        func shape(_ s: Segment) -> String {
            switch s {
            case .literal(let l): return "L" + (fold ? String(decoding: l.utf8.map(lowercased), as: UTF8.self) : l)
            case .constrained(_, let regex): return "C" + regex
            case .parameter: return "P"
            case .catchAll: return "*"
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
                    }
                }
            }
            for (node, order) in constraintOrder {
                constraintOrder[node] = order.filter { used.contains(node + "\u{0}" + $0) }
            }
        }

        mutating func add(_ route: ModelRoute) {
            routes.append(route)
            for v in route.variants {
                for (i, s) in v.enumerated() {
                    guard case .constrained(_, let regex) = s else { continue }
                    let node = shape(v[..<i])
                    if !constraintOrder[node, default: []].contains(regex) { constraintOrder[node, default: []].append(regex) }
                }
            }
        }

        func accepts(_ origin: Origin, _ r: ModelRequest) -> Bool {
            switch origin {
            case .any: return true
            case .https: return r.scheme == "https" && r.host == "h.example"
            case .app: return r.scheme == "app"
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
        /// per segment literal 1, constrained 2 (then its place among the node's constraints),
        /// parameter 3, catch-all 4; a path ending where the variant ends 0 (before a catch-all
        /// taking no segment).
        func match(_ v: [Segment], _ segments: [String]) -> (parameters: [(String, String)], key: [Int])? {
            var parameters: [(String, String)] = []
            var key: [Int] = []
            for (i, s) in v.enumerated() {
                if case .catchAll(let name) = s {
                    parameters.append((name, segments[min(i, segments.count)...].map(ModelRequest.decoded).joined(separator: "/")))
                    key += [4, 0]
                    return (parameters, key)
                }
                guard i < segments.count else { return nil }
                let value = segments[i]
                switch s {
                case .literal(let l):
                    let same = fold ? l.utf8.map(lowercased) == value.utf8.map(lowercased) : l == value
                    guard same else { return nil }
                    key += [1, 0]
                case .constrained(let name, let regex):
                    guard !value.isEmpty, Self.matches(regex, value) else { return nil }
                    parameters.append((name, ModelRequest.decoded(value)))
                    key += [2, constraintOrder[shape(v[..<i])]?.firstIndex(of: regex) ?? -1]
                case .parameter(let name):
                    guard !value.isEmpty else { return nil }
                    parameters.append((name, ModelRequest.decoded(value)))
                    key += [3, 0]
                case .catchAll: break
                }
            }
            guard v.count == segments.count else { return nil }
            return (parameters, key + [0, 0])
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
            if (route.origin != .any) != (best.origin != .any) { return route.origin != .any }
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
                && conflicts >= 50 && removals >= 100, "\(counts), \(conflicts) conflicts, \(removals) removals")
    }

    func compare(seed: UInt64, counts: inout [String: Int], conflicts: inout Int, removals: inout Int) throws {
        var rng = SplitMix(seed: seed &* 0x9E37_79B1)
        let fold = seed % 3 == 1, strictSlash = seed % 3 == 2
        let options: RouterOptions = fold ? .caseInsensitive : strictSlash ? .strictSlash : []
        // The router as made, and one with a dispatch node wherever there are children.
        let routers = [Router(options: options), Router(options: options, walkUnits: false, unitBudget: 1)]
        var model = Model(fold: fold)

        func lookUp(_ n: Int) throws {
            for _ in 0..<n {
                let (uri, request) = Self.randomRequest(&rng, strictSlash: strictSlash)
                let method = pick(Self.methods + ["PUT"], &rng)
                let expected = model.answer(request, method: method)
                switch expected {
                case .matched(_, let p): counts[p.isEmpty ? "matched" : "with parameters", default: 0] += 1
                case .notFound: counts["not found", default: 0] += 1
                case .methodNotAllowed: counts["method not allowed", default: 0] += 1
                }
                for (k, router) in routers.enumerated() {
                    let got = try Self.answer(of: router, uri, method: method)
                    #expect(got == expected, "router \(k), seed \(seed): \(method ?? "*") \(uri): \(got), the model says \(expected)")
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
