import Testing
@testable import Interlock

/// A URI built for a route matches that route with the values it was built from: for random
/// patterns (methods, schemes and hosts, constraints, optional parts, catch-alls, trailing
/// slashes, escaped and non-ASCII literals) under every option, and values holding whatever a
/// URI must escape ("/", "%", "?", "#", spaces, dots, non-ASCII). Each router holds the one route,
/// so nothing more specific can claim the URI.
@Suite("URLs round-trip")
struct URLRoundTripTests {
    static let literals = ["a", "b", "ab", "x", "A", "a.b", "~", "a-b", "é", "%41", "a%2Fb", "_"]
    static let values = ["a", "b", "ab", "1", "12", "A", "a/b", "b.c", "%", "%41", "..", ".", "é", "a b", "?", "#",
                         "a?b#c", "+", ":", "@", "~", "/", "//", "a//b", "x/", "/x", "é/ü", "%2F", "a%b", ";", "=", "&",
                         "'", "*", "(", ")", "!", "$", ",", "[", "]"]
    static let methods: [String?] = [nil, "GET", "POST", "PROPFIND"]
    static let origins = ["", "", "", "https://h.example", "app://", "http://h.example"]

    func randomPattern(_ rng: inout SplitMix) -> String {
        var path = ""
        for s in 0..<Int(rng.next() % 5) {
            switch rng.next() % 6 {
            case 0: path += "/:p\(s)"
            case 1: path += "/:c\(s)(\\d+)"
            case 2: path += "/:w\(s)([ab]+)"
            default: path += "/" + pick(Self.literals, &rng)
            }
        }
        switch rng.next() % 9 {
        case 0: path += "/*rest"
        case 1: path += "(/" + pick(Self.literals, &rng) + ")"
        case 2: path += "(/:o(/" + pick(Self.literals, &rng) + "))"
        case 7: path += "(/:o)(/:q)"                 // two variants of one shape: /:o and /:q
        case 8: path += "(/:o)(/" + pick(Self.literals, &rng) + ")"
        case 3: path += "/"
        case 4: path += "/*"
        default: break
        }
        if path.isEmpty { path = "/" }
        return (pick(Self.methods, &rng).map { $0 + " " } ?? "") + pick(Self.origins, &rng) + path
    }

    @Test(arguments: Array(UInt64(1)...UInt64(100)))
    func builtURIsMatchTheirRoute(seed: UInt64) throws {
        var rng = SplitMix(seed: seed &* 0x7F4A)
        var built = 0
        for k in 0..<40 {
            let options: RouterOptions = [[], .caseInsensitive, .strictSlash, [.caseInsensitive, .strictSlash]][Int((seed + UInt64(k)) % 4)]
            let router = Router(options: options)
            let pattern = randomPattern(&rng)
            guard let id = try? router.addRoute(pattern, name: "r"), let route = router.route(id) else { continue }
            var values: [String: String] = [:]
            for name in route.pattern.parameterNames where rng.next() % 6 != 0 {     // some left out: optional parts drop
                if name.hasPrefix("c") { values[name] = String(rng.next() % 1000) }
                else if name.hasPrefix("w") { values[name] = pick(["a", "b", "ab", "ba"], &rng) }
                else { values[name] = pick(Self.values, &rng) + (rng.next() % 2 == 0 ? pick(Self.values, &rng) : "") }
            }
            // A missing or empty value, one a catch-all cannot carry, or values the route would
            // read otherwise, are refused: nothing to check.
            guard let uri = try? router.url(for: "r", parameters: values) else { continue }
            built += 1
            let context = "\(options) '\(pattern)' \(values) built '\(uri)'"
            guard case .matched(let m) = try router.match(uri, method: route.pattern.method) else {
                Issue.record("\(context): \(try router.match(uri, method: route.pattern.method))"); continue
            }
            #expect(m.routeID == id, "\(context)")
            for (name, value) in m.parameters {
                #expect(values[name] == value, "\(context): \(name) = '\(value)'")
            }
        }
        #expect(built >= 10, "only \(built) of 40 URIs were built")
    }

    /// Values the route would read otherwise are refused, naming the parameter they would bind
    /// (the URI was built, and matched with the value under the other name).
    @Test func valuesTheRouteWouldMisreadAreRefused() throws {
        let router = Router()
        try router.addRoute("/o(/:a)(/:b)", name: "o")
        #expect(try router.url(for: "o", parameters: ["a": "1", "b": "2"]) == "/o/1/2")
        #expect(try router.url(for: "o", parameters: [:]) == "/o")
        var refused: InterlockError? = nil
        do { _ = try router.url(for: "o", parameters: ["a": "10"]) } catch { refused = error }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.message.contains("as b = '10'") == true, "\(String(describing: refused))")
        #expect(try router.url(for: "o", parameters: ["b": "10"]) == "/o/10")
    }

    /// The variant built holds exactly the parameters given: an optional part holding a given
    /// parameter (itself or nested) is built, every other one left out, a part without
    /// parameters too. Before, the fullest variant whose parameters were all given was built:
    /// `/p/reviews` without `page`, and `/q(/reviews)` never as `/q`.
    @Test func optionalPartsAreBuiltForTheParametersGiven() throws {
        let router = Router()
        try router.addRoute("/p(/reviews(/:page(\\d+)))", name: "p")
        try router.addRoute("/q(/reviews)", name: "q")
        try router.addRoute("/s(/:q(/page/:n))", name: "s")
        try router.addRoute("/user/:id(/edit)", name: "user")
        try router.addRoute("/o(/:a/:b)", name: "o")
        #expect(try router.url(for: "p") == "/p")
        #expect(try router.url(for: "p", parameters: ["page": "2"]) == "/p/reviews/2")
        #expect(try router.url(for: "q") == "/q")
        #expect(try router.url(for: "s", parameters: ["q": "x"]) == "/s/x")
        #expect(try router.url(for: "s", parameters: ["q": "x", "n": "2"]) == "/s/x/page/2")
        #expect(try router.url(for: "user", parameters: ["id": "7"]) == "/user/7")
        // A value whose part needs another not given is refused, not dropped.
        let nested = caught { () throws(InterlockError) in try router.url(for: "s", parameters: ["n": "2"]) }
        #expect(nested?.code == .invalidArgument
                && nested?.message == "route 's' holds 'n' only in optional parts that also need 'q': give those too, or leave 'n' out")
        let pair = caught { () throws(InterlockError) in try router.url(for: "o", parameters: ["a": "1"]) }
        #expect(pair?.message == "route 'o' holds 'a' only in optional parts that also need 'b': give those too, or leave 'a' out")
        let required = caught { () throws(InterlockError) in try router.url(for: "user", parameters: [:]) }
        #expect(required?.message == "missing parameter 'id' for route 'user'")
    }

    /// A parameter the route does not have is an error naming it, not ignored.
    @Test func unknownParametersAreRefused() throws {
        let router = Router()
        try router.addRoute("/users/:id", name: "u")
        try router.addRoute("/plain", name: "plain")
        try router.addRoute("https://*.example.com/x/:y", name: "w")
        let unknown = caught { () throws(InterlockError) in try router.url(for: "u", parameters: ["id": "1", "sku": "2"]) }
        #expect(unknown?.code == .invalidArgument && unknown?.message == "route 'u' has no parameter 'sku' (it has 'id')")
        let none = caught { () throws(InterlockError) in try router.url(for: "plain", parameters: ["id": "1"]) }
        #expect(none?.message == "route 'plain' has no parameter 'id' (it has none)")
        #expect(try router.url(for: "w", parameters: ["host": "a.example.com", "y": "1"]) == "https://a.example.com/x/1")
        let host = caught { () throws(InterlockError) in try router.url(for: "u", parameters: ["id": "1", "host": "a"]) }
        #expect(host?.message == "route 'u' has no parameter 'host' (it has 'id')")
    }

    /// A value holding the text between the parameters of its segment is refused with that cause,
    /// not blamed on optional parts the route does not have.
    @Test func aMisreadValueInASegmentOfTextAndParametersNamesItsCause() throws {
        let router = Router()
        try router.addRoute("/dl/:file.:ext", name: "dl")
        let error = caught { () throws(InterlockError) in try router.url(for: "dl", parameters: ["file": "a.b", "ext": "c"]) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "route 'dl' reads '/dl/a.b.c', built from file = 'a.b', ext = 'c', as file = 'a': the values make "
                + "a URI the route reads differently (a value holds text that separates the parameters of its segment)")
        let optional = caught { () throws(InterlockError) in
            try router.addRoute("/o(/:a)(/:b)", name: "o")
            return try router.url(for: "o", parameters: ["a": "10"])
        }
        #expect(optional?.message.hasSuffix("(its optional parts cannot tell these values apart)") == true, "\(String(describing: optional))")
    }
}
