import Testing
@testable import Interlock

/// An explanation reports what the matcher decided, from the same compiled rules (issue 37,
/// items 3, 4 and 16; issue 38, item 5).
@Suite("Explain")
struct ExplainTests {
    static func winner(_ e: MatchExplanation) -> RouteID? { e.candidates.first { $0.rejection == nil }?.routeID }

    static func answer(_ e: MatchExplanation) -> RouteID? {
        if case .matched(let m) = e.answer { return m.routeID }
        return nil
    }

    /// A wildcard takes whole, non-empty labels: the matcher refuses `..example.com` (a host with an
    /// empty label is no host: the URI is refused, at the same byte by both), and the explanation
    /// refuses a host the wildcard does not take (it listed the route as taking the request).
    @Test func aHostTheMatcherRefusesIsRefused() throws {
        for r in [Router(), Router(walkUnits: false, unitBudget: 1)] {
            let route = try r.addRoute("https://*.example.com/w/:a")
            for uri in ["https://..example.com/w/x", "https://a..example.com/w/x"] {
                let refused = #expect(throws: InterlockError.self) { try r.match(uri) }
                let explained = #expect(throws: InterlockError.self) { try r.explain(uri) }
                #expect(refused?.code == .uri && explained == refused, "\(uri)")
            }
            for uri in ["https://example.com/w/x", "https://example.org/w/x"] {
                let e = try r.explain(uri)
                #expect(e.answer == .notFound)
                #expect(Self.winner(e) == nil, "\(uri)")
                #expect(e.candidates.first { $0.routeID == route }?.rejection == .host("*.example.com"), "\(uri)")
            }
            let e = try r.explain("https://a.b.example.com/w/x")
            #expect(Self.answer(e) == route && Self.winner(e) == route)
        }
    }

    /// Its work is a lookup's, a few times over: each constraint of a fitting segment runs a
    /// bounded number of times, however long the segment (a 16 KB URI took minutes: every split,
    /// and a constraint compiled and run for each).
    @Test func itsWorkIsBoundedLikeALookups() throws {
        for r in MixedSegmentTests.routers() {
            let slug = try r.addRoute("/s/:slug([a-z]+(?:-[a-z]+)*).json")
            try r.addRoute("/:y-:m-:d.json")
            let plain = try r.addRoute("/:slug")
            try r.addRoute("/s/:any")
            let pooled = r.takeMatcher()
            r.returnMatcher(pooled)     // the next to be taken: explain's
            for bytes in [1_000, 16_000] {
                let words = String(repeating: "a-", count: bytes / 2) + "x"
                let before = pooled.matcher.constraintRuns
                let e = try r.explain("/s/\(words).json")
                #expect(Self.answer(e) == slug && Self.winner(e) == slug)
                #expect(pooled.matcher.constraintRuns - before <= 4, "\(pooled.matcher.constraintRuns - before) constraint runs")
                let f = try r.explain("/\(words)")
                #expect(Self.answer(f) == plain && Self.winner(f) == plain)
            }
        }
    }

    /// A route with optional parts is tried once per form, and each candidate says which.
    @Test func eachFormOfARouteWithOptionalPartsIsNamed() throws {
        let r = Router()
        let o = try r.addRoute("/o(/:a)(/:b)")
        try r.addRoute("/p/:x")
        let e = try r.explain("/o/1")
        let forms = e.candidates.filter { $0.routeID == o }.map(\.form)
        #expect(forms.count == 4 && Set(forms) == ["/o", "/o/:a", "/o/:b", "/o/:a/:b"], "\(forms)")
        // The form that takes it is the one whose parameter the answer binds (`/o/1` reads as b).
        let bound = try #require(try r.match("/o/1").routeMatch?.parameters.map(\.name))
        #expect(e.candidates.first { $0.rejection == nil }?.form == "/o/:" + bound.joined())
        #expect(e.candidates.first { $0.routeID != o }?.form == nil)
        #expect(e.json.contains("\"form\":\"/o/:a/:b\""))
    }

    /// Reasons name routes as the caller does.
    @Test func reasonsNameRoutesAsTheCallerDoes() throws {
        let r = Router()
        let first = try r.addRoute("GET /u/:id")
        let second = try r.addRoute("GET /u/:id(\\d+)")
        let e = try r.explain("/u/7", method: "GET")
        #expect(e.reason == "at segment 2, a parameter constrained by (\\d+) before a parameter (route \(first))")
        #expect(e.reason { "line \($0 + 10)" } == "at segment 2, a parameter constrained by (\\d+) before a parameter (line \(first + 10))")
        let taken = e.candidates.first { $0.routeID == first }?.rejection
        #expect(taken == .tookBy(second))
        #expect(taken?.description(naming: { "line \($0 + 10)" }) == "taken first by line \(second + 10)")
    }

    /// The explanation's winner is the matcher's answer on random tables of every pattern form
    /// (hosts, wildcards, ports, constraints, mixed segments, optional parts, catch-alls), under
    /// every table shape.
    @Test func theWinnerIsTheMatchersAnswer() throws {
        var rng = SplitMix(seed: 0xE7_9141)
        let hosts = ["", "https://*.example.com", "https://a.example.com", "http://*.b.example.com:8080", "myapp://"]
        let paths = ["/w/:a", "/w/x", "/w/:a(\\d+)", "/:f.:e", "/:y-:m-:d.json", "/w(/:b)", "/w/*rest", "/w/v*p",
                     "/s/:s([a-z]+(?:-[a-z]+)*).json", "/:a", "/w/:a/:b"]
        let uris = ["https://..example.com/w/x", "https://a..example.com/w/x", "https://a.example.com/w/x",
                    "https://c.a.example.com/w/12", "http://q.b.example.com:8080/w/v1", "http://q.b.example.com/w/x",
                    "myapp://w/x", "/w/x", "/w/12", "/a.b.c", "/2026-11-28.json", "/w", "/w/x/y", "/s/my-post.json",
                    "/a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z-a-b-c-d-e-f-g-h-i-j-k-l"]
        var compared = 0, matched = 0
        for round in 0..<30 {
            for r in [Router(), Router(walkUnits: false, unitBudget: 1), Router(options: .caseInsensitive)] {
                for _ in 0..<6 {
                    let method = pick(["", "GET ", "POST "], &rng)
                    _ = try? r.addRoute(method + pick(hosts, &rng) + pick(paths, &rng))
                }
                for uri in uris {
                    for method in [nil, "GET", "PUT"] {
                        // A URI the lookup refuses, the explanation refuses alike.
                        guard let answer = try? r.match(uri, method: method) else {
                            let refused = #expect(throws: InterlockError.self) { try r.match(uri, method: method) }
                            #expect(throws: refused ?? InterlockError(.uri, "")) { try r.explain(uri, method: method) }
                            continue
                        }
                        let e = try r.explain(uri, method: method)
                        #expect(e.answer == answer, "round \(round): \(uri)")
                        let expected: RouteID? = if case .matched(let m) = answer { m.routeID } else { nil }
                        #expect(Self.winner(e) == expected, "round \(round): \(method ?? "*") \(uri): \(Self.winner(e) ?? 0) vs \(expected ?? 0)")
                        compared += 1
                        if expected != nil { matched += 1 }
                    }
                }
            }
        }
        #expect(compared > 1_000 && matched > 300, "\(compared) compared, \(matched) matched")
    }

    /// A value's quotes, backslashes and control characters stay one JSON string in `json`.
    @Test func theJSONFormEscapesWhatJSONNeedsEscaped() throws {
        let r = Router()
        try r.addRoute("/q/:v")
        let e = try r.explain("/q/a%22b%5C%09")
        #expect(e.json.contains(#"{"v":"a\"b\\\t"}"#), "\(e.json)")
        #expect(JSONText.quoted("t\u{1}\n\r\té") == #""t\u0001\n\r\té""#)
    }
}
