import Testing
@testable import Interlock

/// A table compiles to one regex when it is small, to dispatch nodes over smaller regexes when it
/// is large, and walks subtrees in Swift (plainly, or with branches: constraints, byte classes,
/// mixed segments, catch-alls, schemes, hosts and ports). Which shape a table takes must never
/// change an answer: the same random tables (constraints, optional parts, catch-alls, methods,
/// schemes, exact and wildcard hosts and ports), compiled every way, answer random requests alike.
@Suite("Every shape of a table answers alike")
struct TableShapeTests {
    static let literals = ["a", "b", "ab", "x"]
    static let values = ["a", "b", "ab", "x", "1", "12", "A", "a%2Fb", "b.c", "1.2", "a.b.c", "x-1"]
    static let methods: [String?] = [nil, "GET", "POST"]
    static let origins = ["", "", "", "https://h.example", "app://", "https://*.example", "https://h.example:8443",
                          "http://*.h.example"]
    /// Constraints: byte classes (tested without PCRE2 in a walk) and regexes that are not.
    static let constraints = ["\\d+", "[ab]+", "[a-c.]{1,3}", "[^.]{2}", "\\w+", "a|12", "[ab]+x?"]

    func randomPattern(_ rng: inout SplitMix) -> String {
        var path = ""
        for s in 0..<Int(rng.next() % 4) {
            switch rng.next() % 8 {
            case 0: path += "/:p\(s)"
            case 1: path += "/:c\(s)(\\d+)"
            case 2: path += "/:w\(s)(" + pick(Self.constraints, &rng) + ")"
            case 3: path += "/:m\(s)" + pick([".", "-"], &rng) + ":n\(s)"
            case 4: path += pick(["/x:m\(s)", "/:m\(s)(\\d+).:n\(s)", "/:m\(s).c"], &rng)
            default: path += "/" + pick(Self.literals, &rng)
            }
        }
        switch rng.next() % 9 {
        case 0: path += "/*rest"
        case 8: path += "/" + pick(["a", "x-"], &rng) + "*rest"
        case 1: path += "(/" + pick(Self.literals, &rng) + ")"
        case 2: path += "(/:o(/" + pick(Self.literals, &rng) + "))"
        default: break
        }
        if path.isEmpty { path = "/" }
        let origin = pick(Self.origins, &rng)
        let method = pick(Self.methods, &rng)
        return (method.map { $0 + " " } ?? "") + origin + path
    }

    func randomURI(_ rng: inout SplitMix) -> String {
        var path = ""
        for _ in 0..<Int(rng.next() % 5) { path += "/" + pick(Self.values, &rng) }
        if rng.next() % 6 == 0 { path += "/" }
        switch rng.next() % 10 {
        case 0: return "https://h.example" + path
        case 1: return "https://other.example" + path
        case 2: return "app://" + (path.isEmpty ? "" : String(path.dropFirst()))
        case 3: return pick(["https://h.example:8443", "https://h.example:443", "http://h.example:8443"], &rng) + path
        case 4: return "https://" + pick(["a.h.example", "a.b.h.example", "h.example", "x.example"], &rng) + path
        case 5: return "http://" + pick(["a.h.example", "h.example", "a.b.example", "x.y.h.example:81"], &rng) + path
        default: return path.isEmpty ? "/" : path
        }
    }

    @Test func sameAnswersAtEveryBudget() throws {
        var outcomes: [String: Int] = [:]
        for seed: UInt64 in 1...6 { try compare(seed: seed, counting: &outcomes) }
        // The comparison means something only if the requests reach every kind of answer.
        #expect(outcomes["with parameters", default: 0] >= 1_000 && outcomes["matched", default: 0] >= 200
                && outcomes["method not allowed", default: 0] >= 100 && outcomes["not found", default: 0] >= 300, "\(outcomes)")
    }

    func compare(seed: UInt64, counting outcomes: inout [String: Int]) throws {
        var rng = SplitMix(seed: seed &* 0x51ED)
        let options: RouterOptions = seed % 3 == 0 ? .caseInsensitive : seed % 3 == 1 ? .strictSlash : []
        // The reference: the whole table as one regex.
        let reference = Router(options: options, walkUnits: false, unitBudget: 1_000_000)
        let shapes = [
            Router(options: options, walkUnits: false, unitBudget: 1),      // a dispatch node wherever there are children
            Router(options: options, walkUnits: false, unitBudget: 150),
            Router(options: options, walkUnits: true, unitBudget: 150),     // walks under dispatch nodes
            Router(options: options, walkUnits: true, unitBudget: 1_000_000),
            Router(options: options, walkUnits: true, staticProbe: .always, unitBudget: 150),
        ]
        for _ in 0..<70 {
            let pattern = randomPattern(&rng)
            let expected = caught { () throws(InterlockError) in try reference.addRoute(pattern) }
            for r in shapes {
                let got = caught { () throws(InterlockError) in try r.addRoute(pattern) }
                #expect(got?.code == expected?.code, "\(pattern)")
            }
        }
        guard case .unit = try reference.compiledTable().root else { Issue.record("the reference is not one regex"); return }
        guard case .dispatch = try shapes[0].compiledTable().root else { Issue.record("budget 1 made no dispatch node"); return }
        // The walk, not a regex, answers the walked shapes, with branches on these tables.
        guard case .walk(let u) = try shapes[3].compiledTable().root, u.branching else {
            Issue.record("the whole table was not walked with branches"); return
        }
        try lookUps(1_000)
        // Then the table shrinks and changes: each shape recompiles only what the changes touched.
        for route in reference.routes where rng.next() % 3 == 0 {
            let replacement = rng.next() % 2 == 0 ? randomPattern(&rng) : nil
            let expected = caught { () throws(InterlockError) in
                if let replacement { try reference.replaceRoute(route.id, with: replacement) } else { try reference.removeRoute(route.id) }
            }
            for r in shapes {
                let got = caught { () throws(InterlockError) in
                    if let replacement { try r.replaceRoute(route.id, with: replacement) } else { try r.removeRoute(route.id) }
                }
                #expect(got?.code == expected?.code, "\(replacement ?? "removal") of \(route.pattern.source)")
            }
        }
        try lookUps(1_000)

        func lookUps(_ n: Int) throws {
            for _ in 0..<n {
                let uri = randomURI(&rng)
                let method = pick(Self.methods + ["PUT"], &rng)
                let expected = try reference.match(uri, method: method)
                switch expected {
                case .matched(let m): outcomes[m.parameters.isEmpty ? "matched" : "with parameters", default: 0] += 1
                case .methodNotAllowed: outcomes["method not allowed", default: 0] += 1
                case .notFound: outcomes["not found", default: 0] += 1
                }
                for (k, r) in shapes.enumerated() {
                    let got = try r.match(uri, method: method)
                    #expect(got == expected, "shape \(k): \(method ?? "*") \(uri)")
                }
            }
        }
    }
}

/// The same comparison on a wider grammar and wider requests: two-literal segments, escapes,
/// non-ASCII, dot segments, trailing and doubled slashes, queries and fragments, upper-case
/// schemes and hosts, methods that are and are not among the common ones, both options at once,
/// and the all-literal table tried first on every table. (It found the all-literal table taking
/// "/#f" for a strict router's "HEAD /", which then matched no URI: the parser read the root after
/// a method as a trailing slash.)
@Suite("Every shape answers alike on wider requests")
struct WideTableShapeTests {
    static let literals = ["a", "b", "ab", "x", "A", "a.b", "%41", "~", "a-b", "é"]
    static let values = ["a", "b", "ab", "x", "1", "12", "A", "a%2Fb", "b.c", "%41", "%61b", "", "..", ".", "é",
                         "%C3%A9", "AB", "a.b", "~", "a-b", "123456789012345678901234567890"]
    static let methods: [String?] = [nil, "GET", "POST", "HEAD", "PROPFIND", "get"]
    static let origins = ["", "", "", "", "https://h.example", "app://", "http://h.example", "APP://", "https://*.example"]

    func randomPattern(_ rng: inout SplitMix) -> String {
        var path = ""
        for s in 0..<Int(rng.next() % 5) {
            switch rng.next() % 7 {
            case 0: path += "/:p\(s)"
            case 1: path += "/:c\(s)(\\d+)"
            case 2: path += "/:w\(s)([ab]+)"
            case 3: path += "/" + pick(Self.literals, &rng) + pick(Self.literals, &rng)
            default: path += "/" + pick(Self.literals, &rng)
            }
        }
        switch rng.next() % 8 {
        case 0: path += "/*rest"
        case 1: path += "(/" + pick(Self.literals, &rng) + ")"
        case 2: path += "(/:o(/" + pick(Self.literals, &rng) + "))"
        case 3: path += "/"
        default: break
        }
        if path.isEmpty { path = "/" }
        return (pick(Self.methods, &rng).map { $0 + " " } ?? "") + pick(Self.origins, &rng) + path
    }

    func randomURI(_ rng: inout SplitMix) -> String {
        var path = ""
        for _ in 0..<Int(rng.next() % 6) {
            path += "/" + pick(Self.values, &rng)
            if rng.next() % 9 == 0 { path += "/" }
        }
        if rng.next() % 6 == 0 { path += "/" }
        if rng.next() % 8 == 0 { path += "?q=" + pick(Self.values, &rng) }
        if rng.next() % 10 == 0 { path += "#f" }
        switch rng.next() % 8 {
        case 0: return "https://h.example" + path
        case 1: return "https://other.example" + path
        case 2: return "app://" + (path.isEmpty ? "" : String(path.dropFirst()))
        case 3: return "HTTPS://H.EXAMPLE" + path
        case 4: return "http://h.example" + path
        case 5: return "https://A.H.Example" + path
        default: return path.isEmpty ? "/" : path
        }
    }

    @Test(arguments: Array(UInt64(1)...UInt64(48)))
    func sameAnswers(seed: UInt64) throws {
        var rng = SplitMix(seed: seed &* 0x9E37)
        let options: RouterOptions = [[], .caseInsensitive, .strictSlash, [.caseInsensitive, .strictSlash]][Int(seed % 4)]
        let reference = Router(options: options, walkUnits: false, staticProbe: .never, unitBudget: 1_000_000)
        let shapes = [
            Router(options: options, walkUnits: false, unitBudget: 1),
            Router(options: options, walkUnits: true, unitBudget: 150),
            Router(options: options, walkUnits: true, staticProbe: .always, unitBudget: 150),
            Router(options: options, walkUnits: true, staticProbe: .always, unitBudget: 1),
            Router(options: options),
        ]
        for _ in 0..<(20 + Int(rng.next() % 120)) {
            let pattern = randomPattern(&rng)
            let expected = caught { () throws(InterlockError) in try reference.addRoute(pattern) }
            for r in shapes {
                #expect(caught { () throws(InterlockError) in try r.addRoute(pattern) }?.code == expected?.code, "\(pattern)")
            }
        }
        var matched = 0
        for _ in 0..<1_500 {
            let uri = randomURI(&rng)
            let method = pick(Self.methods + ["PUT"], &rng)
            let expected = Result { () throws(InterlockError) in try reference.match(uri, method: method) }
            if case .success(.matched) = expected { matched += 1 }
            for (k, r) in shapes.enumerated() {
                let got = Result { () throws(InterlockError) in try r.match(uri, method: method) }
                switch (expected, got) {
                case (.success(let a), .success(let b)): #expect(a == b, "shape \(k): \(method ?? "*") \(uri)")
                case (.failure(let a), .failure(let b)): #expect(a.code == b.code && a.offset == b.offset, "shape \(k): \(method ?? "*") \(uri)")
                default: Issue.record("shape \(k): \(method ?? "*") \(uri): \(expected) against \(got)")
                }
            }
        }
        // The comparison means something only if requests match.
        #expect(matched >= 50, "\(matched) of 1,500 requests matched")
    }
}
