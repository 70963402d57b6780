import Testing
@testable import Interlock

/// The work of one lookup is bounded: a constraint runs on its segment alone, each regex under the
/// router's match limit, and a constraint that runs out is an error naming its route.
@Suite("Match limit")
struct MatchLimitTests {
    @Test func aHostileConstraintStopsWithAnErrorNamingItsRoute() throws {
        let router = Router()
        try router.addRoute("/r/:x((a+)+b)")
        let hostile = "/r/" + String(repeating: "a", count: 60) + "bc"
        var stopped: InterlockError? = nil
        do { _ = try router.match(hostile) } catch { stopped = error }
        #expect(stopped?.code == .limit)
        #expect(stopped?.message.contains("route '/r/:x((a+)+b)'") == true, "\(String(describing: stopped))")
        #expect(try router.match("/r/aab").routeMatch != nil)
    }

    /// A constraint in a segment mixing text and parameters that runs out names its route too,
    /// on every table shape (the regex's own steps ran out first, naming none).
    @Test func aHostileConstraintInAMixedSegmentNamesItsRoute() throws {
        for r in MixedSegmentTests.routers() {
            try r.addRoute("/w/:x((a+)+b).json")
            try r.addRoute("/w/:y-:z.txt")
            let hostile = "/w/" + String(repeating: "a", count: 60) + "bc.json"
            var stopped: InterlockError? = nil
            do { _ = try r.match(hostile) } catch { stopped = error }
            #expect(stopped?.code == .limit)
            #expect(stopped?.message.contains("route '/w/:x((a+)+b).json'") == true, "\(String(describing: stopped))")
            #expect(try r.match("/w/aab.json").routeMatch?["x"] == "aab")
        }
    }

    @Test func theLimitIsTheRoutersAndZeroRestoresTheDefault() throws {
        let router = Router()
        try router.addRoute("/s/:slug([a-z]+(?:-[a-z]+)*)")
        let slug = "/s/" + String(repeating: "ab-", count: 1_300) + "ab"
        #expect(router.currentMatchLimit == defaultMatchLimit)
        #expect(try router.match(slug).routeMatch != nil)         // about a step a word
        router.setMatchLimit(100)
        #expect(router.currentMatchLimit == 100)
        var stopped: InterlockError? = nil
        do { _ = try router.match(slug) } catch { stopped = error }
        #expect(stopped?.code == .limit)
        #expect(stopped?.message.contains("limit 100 steps") == true)
        router.setMatchLimit(0)
        #expect(router.currentMatchLimit == defaultMatchLimit)
        #expect(try router.match(slug).routeMatch != nil)
    }

    /// What a constraint can read ends with its segment, on a table compiled to one regex and on
    /// one split into dispatch nodes alike.
    @Test(arguments: [Interlock.unitBudget, 1])
    func aConstraintSeesItsSegmentAlone(budget: Int) throws {
        let router = Router(walkUnits: false, unitBudget: budget)
        try router.addRoute("/t/:x((.*a){3})/:y")
        try router.addRoute("/u/:x(.*z)")
        #expect(try router.match("/t/xaxa/a") == .notFound)      // the third "a" is the next segment's
        #expect(try router.match("/t/aaa/b").routeMatch?["x"] == "aaa")
        #expect(try router.match("/u/abc/z") == .notFound)
        #expect(try router.match("/u/abz").routeMatch?["x"] == "abz")
    }
}
