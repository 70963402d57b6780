import Testing
@testable import Interlock

/// Subtrees of literals and plain parameters are walked in Swift instead of running a regex. The
/// walk must answer exactly as the regex does: the same route, parameters, misses and allowed
/// methods, on random tables (small ones, one unit; large ones, under dispatch nodes) and requests.
@Suite("Walked subtrees answer as regexes do")
struct SimpleUnitTests {
    static let literals = ["a", "b", "ab", "A", "x", "%41", "a.b"]
    /// Methods that prefix each other, and eight bytes and longer that differ in their last byte.
    static let methods: [String?] = [nil, "GET", "POST", "GETX", "PROPFIND", "PROPFINX", "PROPPATCH", "PROPPATCX"]

    func randomPath(_ rng: inout SplitMix, parameters: Bool, maxSegments: Int) -> String {
        var path = ""
        for i in 0..<Int(rng.next() % UInt64(maxSegments + 1)) {
            if parameters && rng.next() % 3 == 0 {
                path += "/:p\(i)"
            } else {
                path += "/" + Self.literals[Int(rng.next() % UInt64(Self.literals.count))]
            }
        }
        return path
    }

    @Test func leafRecordsLieWithinOneCacheLine() throws {
        // On a large table a lookup's cost is its cache misses: a leaf's record is read whole, so
        // it must not straddle two lines (32 bytes, 32-aligned in the unit's block).
        #expect(MemoryLayout<LeafRecord>.stride == 32)
        let r = Router()
        for path in ["/a", "/a/:id", "/ab/c/:x", "/b/:y/z"] { try r.addRoute("GET " + path) }
        guard case .walk(let unit) = try r.compiledTable().root else { Issue.record("the table was not walked"); return }
        #expect(Int(bitPattern: unit.table.records) % 32 == 0)
    }

    @Test(arguments: [(RouterOptions(), 60), (.caseInsensitive, 60), (.strictSlash, 60), (RouterOptions(), 4_000)])
    func sameAnswersAsTheRegexes(options: RouterOptions, routes: Int) throws {
        var rng = SplitMix(seed: UInt64(routes) &* 31 &+ UInt64(options.rawValue))
        let walked = Router(options: options)
        let regex = Router(options: options, walkUnits: false)
        for i in 0..<routes {
            var pattern = randomPath(&rng, parameters: true, maxSegments: 4)
            // A wide root (dispatch nodes), with a parameter child beside its literal ones: when a
            // literal child's walk fails after taking parameters, the parameter child runs next.
            if routes > 100 { pattern = (rng.next() % 8 == 0 ? "/:q" : "/r\(i % 700)") + pattern }
            if options.contains(.strictSlash) && rng.next() % 4 == 0 { pattern += "/" }
            if let m = Self.methods[Int(rng.next() % UInt64(Self.methods.count))] { pattern = m + " " + pattern }
            let a = caught { () throws(InterlockError) in try walked.addRoute(pattern) }
            let b = caught { () throws(InterlockError) in try regex.addRoute(pattern) }
            #expect(a?.code == b?.code, "\(pattern)")
        }
        for _ in 0..<3_000 {
            var uri = randomPath(&rng, parameters: false, maxSegments: 5)
            if routes > 100 { uri = "/r\(rng.next() % 800)" + uri }
            if rng.next() % 5 == 0 { uri += "/" }
            if rng.next() % 7 == 0 { uri = uri.uppercased() }
            let method = Self.methods[Int(rng.next() % UInt64(Self.methods.count))]
            let a = try walked.match(uri, method: method)
            let b = try regex.match(uri, method: method)
            #expect(a == b, "\(method ?? "*") \(uri)")
        }
        // The comparison means something only if one router walked and the other ran regexes.
        let walkedRoot = try walked.compiledTable().root, regexRoot = try regex.compiledTable().root
        if routes <= 100 {
            guard case .walk = walkedRoot else { Issue.record("the small table was not walked"); return }
            guard case .unit = regexRoot else { Issue.record("the small table was not one regex"); return }
        } else {
            guard case .dispatch(let d) = walkedRoot, case .walk = d.literals.buckets[0].entries[0].value else {
                Issue.record("the large table's subtrees were not walked"); return
            }
        }
    }
}

@Suite("Walks under dispatch nodes")
struct WalkUnderDispatchTests {
    /// "/a/1/c": the literal child "a" is walked, takes "1" for `x`, and fails at "c"; the
    /// parameter child then matches with its own values, not shifted by the failed walk's.
    @Test func aFailedWalkLeavesNoParameterBehind() throws {
        let router = Router()
        for i in 0..<3_000 { try router.addRoute("/r\(i)/:id/x\(i)/:k/y") }   // a dispatch root
        try router.addRoute("/a/:x/b")
        let wanted = try router.addRoute("/:p/:y/c")
        guard case .dispatch = try router.compiledTable().root else { Issue.record("the root is not a dispatch node"); return }
        let m = try router.match("/a/1/c").routeMatch
        #expect(m?.routeID == wanted)
        #expect(m?.parameters.map(\.name) == ["p", "y"])
        #expect(m?.parameters.map(\.value) == ["a", "1"])
    }

    /// A lookup notes where its values lie and copies them out when first read: whatever was
    /// read or not before, the values are those of the last lookup (walked or captured by a
    /// regex, with escapes or without), and a miss has none.
    @Test func valuesAreTheLastLookupsWhetherReadOrNot() throws {
        let router = Router()
        let walked = try router.addRoute("/users/:name/posts/:post")
        let captured = try router.addRoute("/n/:id(\\d+)/:tail(/more/:extra)")
        let matcher = Matcher()
        func look(_ uri: String) throws -> MatchOutcome {
            var uri = uri
            return try uri.withUTF8 { (u) throws(InterlockError) in try matcher.match(router, method: nil, uri: UnsafeRawBufferPointer(u)) }
        }
        func values() -> [String] {
            (0..<matcher.parameterCount).map { i in
                guard let (p, n) = matcher.parameterValue(i) else { Issue.record("no value \(i)"); return "" }
                #expect(p[n] == 0)   // NUL-terminated, as the C interface promises
                return String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
            }
        }
        #expect(try look("/users/al%20ice/posts/1") == .matched)            // never read
        #expect(try look("/users/bob/posts/22") == .matched)
        #expect(matcher.routeID == walked)
        #expect(values() == ["bob", "22"])
        #expect(values() == ["bob", "22"])                                   // read twice
        #expect(try look("/users/c%C3%A9%2F/posts/3") == .matched)
        #expect(values() == ["cé/", "3"])
        #expect(try look("/n/42/t%41il/more/x") == .matched)
        #expect(matcher.routeID == captured)
        #expect(values() == ["42", "tAil", "x"])
        #expect(try look("/n/7/z") == .matched)
        #expect(matcher.routeID == captured)
        #expect(values() == ["7", "z"])
        #expect(try look("/users/dan/posts/4") == .matched)                 // read after a regex's
        #expect(values() == ["dan", "4"])
        #expect(try look("/nothing/here") == .notFound)
        #expect(matcher.parameterCount == 0)
        #expect(values() == [])
    }
}

/// A constraint that is one repeated character class is tested by a byte test in a walk, with no
/// PCRE2 call: it must accept exactly the segments PCRE2 accepts; any other constraint is left to
/// PCRE2, its compiled code shared by every route that has the same constraint.
@Suite("Constraints in walks")
struct WalkConstraintTests {
    /// Sources the byte test takes, and some it must leave to PCRE2.
    static let classes = ["\\d+", "[0-9]+", "[a-z]+", "[A-Za-z0-9_-]+", "[0-9a-f]{8}", "\\w{2,5}", "[^.]{2,}", ".+",
                          "[-a]+", "[a\\-z]{1,2}", "[\\d.]+", "[\\w\\.]{3}", "[%-9]+", "[^a-c]+"]
    static let others = ["a+", "\\d*x", "[[:alpha:]]+", "[]a]+", "\\s+", "[a-z]+?", "[a-z]++", "(ab)+", "\\d{,3}", "[\\x41]+", "é+"]

    @Test func byteClassesAcceptWhatPCRE2Accepts() throws {
        let alphabet = Array("aAbz09_-.%~9fé/Z".utf8)
        var rng = SplitMix(seed: 41)
        for source in Self.classes {
            guard let c = ByteClass.parse(source) else { Issue.record("\(source) was not read as a byte class"); continue }
            for _ in 0..<400 {
                let segment = (0..<Int(1 + rng.next() % 10)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
                let byTest = segment.withUnsafeBufferPointer { c.accepts($0.baseAddress!, $0.count) }
                #expect(byTest == (try ConstraintCheck.matches(source, segment)), "\(source) on \(segment.string)")
            }
        }
        for source in Self.others { #expect(ByteClass.parse(source) == nil, "\(source)") }
    }

    /// 3,000 routes with the same constraints under a dispatch node: each walk unit tests `\d+`
    /// without a regex, and every unit's `[a-z]+x` runs one compiled code.
    @Test func aConstraintsCodeIsSharedAndAByteClassHasNone() throws {
        let router = Router()
        for i in 0..<3_000 { try router.addRoute("/r\(i)/:id(\\d+)/:name([a-z]+x)") }
        guard case .dispatch(let d) = try router.compiledTable().root else { Issue.record("the root is not a dispatch node"); return }
        var codes: [ObjectIdentifier] = []
        for bucket in d.literals.buckets {
            for entry in bucket.entries {
                guard case .walk(let u) = entry.value, u.branching else { Issue.record("a subtree was not walked"); return }
                #expect(u.constraints.count == 1)
                codes += u.constraints.map { ObjectIdentifier($0.code) }
            }
        }
        #expect(codes.count == 3_000 && Set(codes).count == 1)
        #expect(try router.match("/r7/42/abcx").routeMatch?.parameters.map(\.value) == ["42", "abcx"])
        #expect(try router.match("/r7/4a/abcx") == .notFound)
    }
}
