import Testing
@testable import Interlock

/// A table compiles to one regex when it is small, to dispatch nodes over smaller regexes when it
/// is large, and walks subtrees of literals and plain parameters in Swift. Which shape a table
/// takes must never change an answer: the same random tables (constraints, optional parts,
/// catch-alls, methods, schemes and hosts), compiled every way, answer random requests alike.
@Suite("Every shape of a table answers alike")
struct TableShapeTests {
    static let literals = ["a", "b", "ab", "x"]
    static let values = ["a", "b", "ab", "x", "1", "12", "A", "a%2Fb", "b.c"]
    static let methods: [String?] = [nil, "GET", "POST"]
    static let origins = ["", "", "", "https://h.example", "app://"]

    func pick<T>(_ items: [T], _ rng: inout SplitMix) -> T { items[Int(rng.next() % UInt64(items.count))] }

    func randomPattern(_ rng: inout SplitMix) -> String {
        var path = ""
        for s in 0..<Int(rng.next() % 4) {
            switch rng.next() % 6 {
            case 0: path += "/:p\(s)"
            case 1: path += "/:c\(s)(\\d+)"
            case 2: path += "/:w\(s)([ab]+)"
            default: path += "/" + pick(Self.literals, &rng)
            }
        }
        switch rng.next() % 8 {
        case 0: path += "/*rest"
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
        switch rng.next() % 6 {
        case 0: return "https://h.example" + path
        case 1: return "https://other.example" + path
        case 2: return "app://" + (path.isEmpty ? "" : String(path.dropFirst()))
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
        let reference = Router(options: options, simpleUnits: false, unitBudget: 1_000_000)
        let shapes = [
            Router(options: options, simpleUnits: false, unitBudget: 1),      // a dispatch node wherever there are children
            Router(options: options, simpleUnits: false, unitBudget: 150),
            Router(options: options, simpleUnits: true, unitBudget: 150),     // walks under dispatch nodes
            Router(options: options, simpleUnits: true, unitBudget: 1_000_000),
            Router(options: options, simpleUnits: true, staticProbe: .always, unitBudget: 150),
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
        for _ in 0..<2_000 {
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
