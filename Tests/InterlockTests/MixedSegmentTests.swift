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

/// A mixed segment's work is linear in the segment: its texts are found by one scan, and each
/// constraint runs once on what its parameter took (issue 37, item 2).
@Suite("Mixed segments: bounded work")
struct MixedSegmentWorkTests {
    /// A plain table never runs out of the match limit: the 76-byte segment took over 10,000
    /// steps, one per way of splitting it.
    @Test func aPlainTableNeverRunsOutOfSteps() throws {
        for r in MixedSegmentTests.routers() {
            try r.addRoute("/:y-:m-:d.json")
            let slug = try r.addRoute("/:slug")
            let date = try r.addRoute("/d/:y-:m-:d.json")
            for words in [12, 38, 5_000] {
                let segment = (0..<words).map { _ in "a" }.joined(separator: "-")
                #expect(try r.match("/" + segment).routeMatch?.routeID == slug)
                #expect(try r.match("/d/" + segment + ".json").routeMatch?["d"] == (0..<(words - 2)).map { _ in "a" }.joined(separator: "-"))
                #expect(try r.match("/d/" + segment) == .notFound)
            }
            #expect(try r.match("/d/2026-11-28.json").routeMatch?.routeID == date)
        }
    }

    /// The README's slug constraint in a mixed segment runs once a lookup, however long the
    /// segment (it ran once per candidate end: 16 KB stopped at the limit).
    @Test func aConstraintRunsOncePerSegment() throws {
        for r in MixedSegmentTests.routers() {
            let route = try r.addRoute("/s/:slug([a-z]+(?:-[a-z]+)*).json")
            let other = try r.addRoute("/s/:any")
            let matcher = Matcher()
            for bytes in [1_000, 4_000, 16_000] {     // 8,000 words: the constraint alone takes about a step a word
                let slug = String(repeating: "a-", count: bytes / 2) + "x"
                for (uri, expected) in [("/s/\(slug).json", route), ("/s/\(slug)", other), ("/s/\(slug).jsonx", other)] {
                    let before = matcher.constraintRuns
                    let outcome = try Array(uri.utf8).withUnsafeBytes { (u) throws(InterlockError) in try matcher.match(r, method: nil, uri: u) }
                    #expect(outcome == .matched && matcher.routeID == expected)
                    #expect(matcher.constraintRuns - before <= 1, "\(bytes) bytes: \(matcher.constraintRuns - before) constraint runs")
                }
            }
            #expect(try r.match("/s/my-first-post.json").routeMatch?["slug"] == "my-first-post")
        }
    }

    /// The rule: a parameter ends at the first occurrence of the text after it; a constraint
    /// accepts or refuses that split, and no other is tried.
    @Test func aConstraintJudgesTheOneSplit() throws {
        for r in MixedSegmentTests.routers() {
            try r.addRoute("/:a([a-z.]+).:b(\\d+)")
            let any = try r.addRoute("/:name")
            #expect(try r.match("/x.3").routeMatch?["a"] == "x")
            #expect(try r.match("/x.y.3").routeMatch?.routeID == any)     // a = "x", b = "y.3": refused
            try r.addRoute("/o/:a-ab-:b")
            #expect(try r.match("/o/x-a-ab-y").routeMatch.map { [$0["a"], $0["b"]] } == ["x-a", "y"])
            try r.addRoute("/c/:a-*rest")
            #expect(try r.match("/c/x-y-z/w").routeMatch.map { [$0["a"], $0["rest"]] } == ["x", "y-z/w"])
        }
    }

    /// Without constraints, the rule gives the split that giving each parameter as few bytes as
    /// let the rest of the segment match gives (the rule before), found by trying every split.
    @Test func theRuleIsTheShortestSplitWithoutConstraints() throws {
        var rng = SplitMix(seed: 37)
        let alphabet: [Character] = ["a", "b", "-", "."]
        for _ in 0..<300 {
            var pieces: [String] = []
            var parameter = Bool.random(using: &rng)
            for _ in 0..<Int.random(in: 2...5, using: &rng) {
                if parameter { pieces.append(":p\(pieces.count)") } else {
                    // After a parameter, a byte that cannot continue its name.
                    let first: Character = pieces.isEmpty ? alphabet.randomElement(using: &rng)! : ["-", "."].randomElement(using: &rng)!
                    pieces.append(String(first) + String((0..<Int.random(in: 0...2, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
                }
                parameter.toggle()
            }
            let pattern = "/" + pieces.joined()
            guard pieces.count > 1 else { continue }
            for r in [Router(), Router(walkUnits: false, unitBudget: 1)] {
                guard (try? r.addRoute(pattern)) != nil else { continue }
                for _ in 0..<20 {
                    let segment = String((0..<Int.random(in: 1...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
                    if segment.allSatisfy({ $0 == "." }) { continue }     // a dot segment: normalized away
                    let expected = Self.shortestSplit(pieces[...], segment[...])
                    let got = try r.match("/" + segment).routeMatch?.parameters.map(\.value)
                    #expect(got == expected, "\(pattern) on /\(segment)")
                }
            }
        }
    }

    /// Every split tried in turn, each parameter as short as the rest allows.
    static func shortestSplit(_ pieces: ArraySlice<String>, _ s: Substring) -> [String]? {
        guard let piece = pieces.first else { return s.isEmpty ? [] : nil }
        if !piece.hasPrefix(":") {
            guard s.hasPrefix(piece) else { return nil }
            return shortestSplit(pieces.dropFirst(), s.dropFirst(piece.count))
        }
        var end = s.startIndex
        while end < s.endIndex {
            end = s.index(after: end)
            if let rest = shortestSplit(pieces.dropFirst(), s[end...]) { return [String(s[..<end])] + rest }
        }
        return nil
    }
}
