import Testing
@testable import Interlock

/// Parameters inside a segment: `/files/:name.json`, `/user_:id`, `/:file.:ext`,
/// `/v:major(\d+).:minor(\d+)`, `/assets/v*path`.
@Suite("Parameters inside a segment")
struct MixedSegmentTests {
    /// Every router shape (one regex, dispatch nodes everywhere) reads them alike.
    static func routers() -> [Router] {
        [Router(), Router(walkUnits: false, unitBudget: 1), Router(walkUnits: false, unitBudget: 60)]
    }

    @Test func parametersEndAtTheFirstByteThatCannotBeInAName() throws {
        for r in Self.routers() {
            try r.addRoute("/files/:name.json")
            try r.addRoute("/user_:id")
            try r.addRoute("/:file.:ext")
            try r.addRoute("/v:major(\\d+).:minor(\\d+)")
            try r.addRoute("/assets/v*path")
            func params(_ uri: String) throws -> [String]? {
                try r.match(uri).routeMatch.map { $0.parameters.map { "\($0.name)=\($0.value)" } }
            }
            #expect(try params("/files/report.json") == ["name=report"])
            #expect(try params("/files/a.b.json") == ["name=a.b"])
            #expect(try params("/files/.json") == nil)                 // a parameter takes one byte at least
            #expect(try params("/user_42") == ["id=42"])
            #expect(try params("/user_") == nil)
            #expect(try params("/a.b.c") == ["file=a", "ext=b.c"])     // each parameter as few bytes as it can
            #expect(try params("/v1.20") == ["major=1", "minor=20"])   // more literal bytes: before /:file.:ext
            #expect(try params("/vx.20") == ["file=vx", "ext=20"])     // the constraint refuses: the next one
            #expect(try params("/assets/v2/app.js") == ["path=2/app.js"])
            #expect(try params("/assets/v") == ["path="])
            #expect(try params("/files/caf%C3%A9.json") == ["name=café"])
        }
    }

    @Test func precedenceWithinASegment() throws {
        for r in Self.routers() {
            let literal = try r.addRoute("/x/report.json")
            let mixed = try r.addRoute("/x/:name.json")
            let moreText = try r.addRoute("/x/:name.min.json")
            let constrained = try r.addRoute("/x/:n(\\d+).json")
            let plainParam = try r.addRoute("/x/:any")
            let prefixed = try r.addRoute("/x/r*rest")
            let catchAll = try r.addRoute("/x/*all")
            func id(_ uri: String) throws -> RouteID? { try r.match(uri).routeMatch?.routeID }
            #expect(try id("/x/report.json") == literal)
            #expect(try id("/x/a.min.json") == moreText)        // more literal bytes first
            #expect(try id("/x/12.json") == constrained)        // then constrained before plain
            #expect(try id("/x/ab.json") == mixed)
            #expect(try id("/x/ab") == plainParam)              // a mixed segment before a parameter
            #expect(try id("/x/r/s") == prefixed)               // catch-alls last, text first
            #expect(try id("/x/a/s") == catchAll)
        }
    }

    /// A failure after a mixed segment does not try every other way of splitting the segment
    /// (each split took the match limit's steps: 40 dots ran out of them).
    @Test func aFailureAfterAMixedSegmentDoesNotRetryItsSplits() throws {
        for r in Self.routers() {
            try r.addRoute("GET /:a.:b.:c.:d/end")
            let other = try r.addRoute("GET /:name/other")
            let segment = String(repeating: "x.", count: 400) + "x"
            #expect(try r.match("/\(segment)/other", method: "GET").routeMatch?.routeID == other)
            #expect(try r.match("/\(segment)/end", method: "GET").routeMatch?["a"] == "x")
        }
    }

    @Test func malformedMixedSegments() throws {
        let r = Router()
        let side = caught { () throws(InterlockError) in try r.addRoute("/:a:b") }
        #expect(side?.code == .pattern && side?.offset == 3 && side?.message.contains("literal text between them") == true)
        let star = caught { () throws(InterlockError) in try r.addRoute("/:a*b") }
        #expect(star?.code == .pattern && star?.offset == 3)
        let notLast = caught { () throws(InterlockError) in try r.addRoute("/v*path/x") }
        #expect(notLast?.code == .pattern && notLast?.message.contains("last") == true)
        let many = caught { () throws(InterlockError) in try r.addRoute("/" + (0...8).map { ":p\($0)" }.joined(separator: "-")) }
        #expect(many?.code == .limit)
        // Conflicts: the same text and constraints, names aside.
        try r.addRoute("/f/:name.json")
        #expect(caught { () throws(InterlockError) in try r.addRoute("/f/:other.json") }?.code == .conflict)
        try r.addRoute("/f/:name.xml")
    }

    @Test func urlsAreBuiltAndReadBack() throws {
        let r = Router()
        try r.addRoute("/files/:name.json", name: "file")
        try r.addRoute("/:file.:ext", name: "split")
        try r.addRoute("/v:major(\\d+).:minor(\\d+)", name: "version")
        try r.addRoute("/assets/v*path", name: "asset")
        #expect(try r.url(for: "file", parameters: ["name": "a b"]) == "/files/a%20b.json")
        #expect(try r.url(for: "version", parameters: ["major": "1", "minor": "2"]) == "/v1.2")
        #expect(try r.url(for: "asset", parameters: ["path": "2/app.js"]) == "/assets/v2/app.js")
        #expect(try r.url(for: "split", parameters: ["file": "a", "ext": "b.c"]) == "/a.b.c")
        // "a.b" + "." + "c" reads back as file = 'a', ext = 'b.c': refused, naming it.
        let misread = caught { () throws(InterlockError) in try r.url(for: "split", parameters: ["file": "a.b", "ext": "c"]) }
        #expect(misread?.code == .invalidArgument && misread?.message.contains("as file = 'a'") == true)
        let bad = caught { () throws(InterlockError) in try r.url(for: "version", parameters: ["major": "x", "minor": "2"]) }
        #expect(bad?.code == .invalidArgument)
    }

    @Test func aCaseInsensitiveRouterFoldsTheText() throws {
        for r in [Router(options: .caseInsensitive), Router(options: .caseInsensitive, walkUnits: false, unitBudget: 1)] {
            try r.addRoute("/Files/:name.JSON")
            #expect(try r.match("/files/A.json").routeMatch?["name"] == "A")
        }
    }
}
