import Synchronization
import Testing
@testable import Interlock

/// A realistic generated table: per resource, nested REST routes and deep links.
func generatedRoutes(resources: Int) -> [(pattern: String, method: String?, uri: String, params: [String])] {
    var out: [(String, String?, String, [String])] = []
    for k in 0..<resources {
        let r = "res\(k)"
        out.append(("GET /api/\(r)", "GET", "/api/\(r)", []))
        out.append(("POST /api/\(r)", "POST", "/api/\(r)", []))
        out.append(("GET /api/\(r)/:id", "GET", "/api/\(r)/i\(k)", ["i\(k)"]))
        out.append(("PUT /api/\(r)/:id", "PUT", "/api/\(r)/i\(k)", ["i\(k)"]))
        out.append(("DELETE /api/\(r)/:id", "DELETE", "/api/\(r)/i\(k)", ["i\(k)"]))
        out.append(("GET /api/\(r)/:id/children", "GET", "/api/\(r)/x/children", ["x"]))
        out.append(("GET /api/\(r)/:id/children/:cid(\\d+)", "GET", "/api/\(r)/x/children/\(k)", ["x", "\(k)"]))
        out.append(("myapp://\(r)/:id", nil, "myapp://\(r)/d\(k)?src=push", ["d\(k)"]))
        out.append(("GET /api/\(r)/:id/files/*path", "GET", "/api/\(r)/f/files/a/b\(k)", ["f", "a/b\(k)"]))
        out.append(("GET /api/\(r)/search(/:q)", "GET", "/api/\(r)/search/q\(k)", ["q\(k)"]))
    }
    return out
}

final class Flags: Sendable {
    let done = Atomic<Bool>(false)
    let wrong = Atomic<Int>(0)
    let torn = Atomic<Int>(0)
}

@Suite("Scale and concurrency")
struct ScaleTests {
    @Test func hundredThousandRoutes() throws {
        let routes = generatedRoutes(resources: 10_000)
        #expect(routes.count == 100_000)
        let r = Router()
        for (i, route) in routes.enumerated() {
            #expect(try r.addRoute(route.pattern) == RouteID(i + 1))
        }
        // Every 7th route, and the last ones, resolve to themselves with their values.
        for i in stride(from: 0, to: routes.count, by: 7).map({ $0 }) + [routes.count - 1] {
            let route = routes[i]
            let m = try r.match(route.uri, method: route.method).routeMatch
            #expect(m?.routeID == RouteID(i + 1), "\(route.uri)")
            #expect(m?.parameters.map(\.value) == route.params, "\(route.uri)")
        }
        #expect(try r.match("/api/res77/x/children/notdigits", method: "GET") == .notFound)
        #expect(try r.match("/api/res77", method: "PATCH") == .methodNotAllowed(allowed: ["GET", "POST"]))
        // Split into many regexes, none over the budget.
        #expect(r.compiledUnits > 100)
    }

    @Test func addingOneAtATimeRecompilesOnlyWhatChanged() throws {
        let routes = generatedRoutes(resources: 400)
        let r = Router()
        for (i, route) in routes.enumerated() {
            try r.addRoute(route.pattern)
            let m = try r.match(route.uri, method: route.method).routeMatch
            #expect(m?.routeID == RouteID(i + 1))
        }
        // An addition recompiles the units on its own path, not the table: a few units per route
        // (a node outgrowing one regex compiles its children once, when it is split).
        #expect(r.compiledUnits <= 3 * routes.count)
        #expect(r.compiledUnits >= routes.count)
    }

    /// A removal, too, recompiles the units on its route's path: removing every route one at a
    /// time (each followed by a lookup) compiles a few units a route, and each lookup after a
    /// removal finds the routes that are left and not the one removed.
    @Test func removingOneAtATimeRecompilesOnlyWhatChanged() throws {
        let routes = generatedRoutes(resources: 400)
        let r = Router()
        for route in routes { try r.addRoute(route.pattern) }
        try r.compile()
        let before = r.compiledUnits
        for (i, route) in routes.enumerated().reversed() {
            try r.removeRoute(RouteID(i + 1))
            #expect(try r.match(route.uri, method: route.method).routeMatch?.routeID != RouteID(i + 1))
            if i > 0 {
                let previous = routes[i - 1]
                #expect(try r.match(previous.uri, method: previous.method).routeMatch?.routeID == RouteID(i), "\(previous.uri)")
            }
        }
        #expect(r.count == 0 && r.routes.isEmpty)
        #expect(r.compiledUnits - before <= 3 * routes.count)
        #expect(try r.match("/api/res0", method: "GET") == .notFound)
        // Its slot is not reused while 4,096 or fewer are free: the next id is a new slot's.
        #expect(try r.addRoute("GET /again") == RouteID(routes.count + 1))
    }

    @Test func matchingWhileAddingNeverSeesATornTable() throws {
        let r = Router()
        try r.addRoute("GET /stable/:a/x/:b")
        let flags = Flags()
        let matcher: (Int) -> @Sendable () -> Void = { t in
            {
                var i = 0
                while !flags.done.load(ordering: .relaxed) || i < 2_000 {
                    let values = try? r.match("/stable/\(t)/x/\(i)", method: "GET").routeMatch?.parameters.map(\.value)
                    if values != ["\(t)", "\(i)"] { flags.wrong.add(1, ordering: .relaxed) }
                    // Both variants of a route added with an optional part appear together: once
                    // one lookup sees a variant, a later lookup sees the other.
                    let (first, second) = i % 2 == 0 ? ("/grow/3/p/leaf3", "/grow/3/p/leaf3/more") : ("/grow/3/p/leaf3/more", "/grow/3/p/leaf3")
                    let seenFirst = (try? r.match(first, method: "GET").routeMatch) != nil
                    let seenSecond = (try? r.match(second, method: "GET").routeMatch) != nil
                    if seenFirst && !seenSecond { flags.torn.add(1, ordering: .relaxed) }
                    i += 1
                }
            }
        }
        onThreads([matcher(0), matcher(1), {
            for i in 0..<1_500 {
                _ = try? r.addRoute("GET /grow/\(i % 13)/:p/leaf\(i)(/more)")
            }
            flags.done.store(true, ordering: .relaxed)
        }])
        #expect(flags.wrong.load(ordering: .relaxed) == 0)
        #expect(flags.torn.load(ordering: .relaxed) == 0)
        #expect(r.count == 1_501)
        #expect(try r.match("/grow/12/z/leaf1000/more", method: "GET").routeMatch?.routeID == 1_002)
    }
}

/// The all-literal fast path: its filter never hides a path that has routes, as paths are added
/// between compilations and the filter grows, and lets few other paths through to the table.
@Suite("All-literal paths")
struct StaticPathTests {
    @Test(arguments: [RouterOptions(), .caseInsensitive])
    func everyStaticPathIsFoundAndFewOthersReachTheTable(options: RouterOptions) throws {
        let r = Router(options: options)
        var paths: [String] = []
        for batch in 0..<6 {
            for i in 0..<(500 * (batch + 1)) {
                let path = "/static/b\(batch)/page\(i)"
                try r.addRoute("GET \(path)")
                paths.append(path)
            }
            try r.addRoute("GET /dynamic\(batch)/:id")
            let probe = try r.compiledTable().staticPaths.probe
            for path in paths {
                let key = Array((options.contains(.caseInsensitive) ? path.uppercased() : path).utf8)
                let found = key.withUnsafeBufferPointer { probe.lookup($0.baseAddress!, $0.count) }
                #expect(found != nil, "\(path) after batch \(batch)")
            }
        }
        // Paths with parameters mostly stop at the filter (about one in sixteen passes it).
        let probe = try r.compiledTable().staticPaths.probe
        var passed = 0
        for i in 0..<4_000 {
            let key = Array("/dynamic\(i % 6)/value\(i)".utf8)
            let bit = StaticFilter.bit(pathHash(key, fold: probe.fold), probe.filterMask)
            if probe.filter![bit >> 6] & (1 << UInt64(bit & 63)) != 0 { passed += 1 }
        }
        #expect(passed < 4_000 / 5, "\(passed) of 4,000 passed the filter")
    }

    /// Paths that differ only in their last bytes ("/page1", "/page2") spread over slots and filter
    /// bits as others do (the hash used to leave those bits to the first and last words' tops).
    @Test func pathsDifferingAtTheEndSpread() {
        let keys = (0..<200).map { Array("/docs/page\($0)".utf8) }
        let mask = StaticFilter.mask(for: keys.count)
        let slots = Set(keys.map { pathHash($0, fold: false) & 0xFFFF })
        let bits = Set(keys.map { StaticFilter.bit(pathHash($0, fold: false), mask) })
        #expect(slots.count >= 195, "\(slots.count) slots")
        #expect(bits.count >= 180, "\(bits.count) filter bits of \(mask + 1)")
    }

    /// Paths that differ only in their middle (numbered pages) have hashes of their own: the hash
    /// once read only the first and last eight bytes, so all of these paths shared one
    /// hash, and a lookup compared its path with all of them.
    @Test(arguments: [false, true])
    func pathsDifferingInTheMiddleHaveHashesOfTheirOwn(fold: Bool) {
        let keys = (0..<10_000).map { Array("/docs/p\(String(100_000 + $0).dropFirst())/index.html".utf8) }
        let hashes = Set(keys.map { pathHash($0, fold: fold) })
        #expect(hashes.count == keys.count, "\(hashes.count) hashes for \(keys.count) paths")
    }
}

/// The all-literal table is a shortcut: the tree holds the same routes, so a router that tries it
/// first and one that never does answer alike; by default only tables mostly of all-literal
/// routes try it.
@Suite("All-literal shortcut")
struct StaticProbeTests {
    @Test(arguments: [RouterOptions(), .caseInsensitive, .strictSlash])
    func sameAnswersWithAndWithoutTheShortcut(options: RouterOptions) throws {
        var rng = SplitMix(seed: 77 &+ UInt64(options.rawValue))
        let probing = Router(options: options, staticProbe: .always)
        let walking = Router(options: options, staticProbe: .never)
        let tests = SimpleUnitTests()
        for i in 0..<600 {
            var pattern = "/r\(i % 40)" + tests.randomPath(&rng, parameters: rng.next() % 2 == 0, maxSegments: 3)
            if let m = SimpleUnitTests.methods[Int(rng.next() % UInt64(SimpleUnitTests.methods.count))] { pattern = m + " " + pattern }
            let a = caught { () throws(InterlockError) in try probing.addRoute(pattern) }
            let b = caught { () throws(InterlockError) in try walking.addRoute(pattern) }
            #expect(a?.code == b?.code, "\(pattern)")
        }
        #expect(try probing.compiledTable().probesStatic && !walking.compiledTable().probesStatic)
        var matched = 0
        for _ in 0..<3_000 {
            var uri = "/r\(rng.next() % 44)" + tests.randomPath(&rng, parameters: false, maxSegments: 4)
            if rng.next() % 5 == 0 { uri += "/" }
            if rng.next() % 7 == 0 { uri = uri.uppercased() }
            let method = SimpleUnitTests.methods[Int(rng.next() % UInt64(SimpleUnitTests.methods.count))]
            let a = try probing.match(uri, method: method)
            #expect(a == (try walking.match(uri, method: method)), "\(method ?? "*") \(uri)")
            if case .matched = a { matched += 1 }
        }
        #expect(matched > 300)   // the comparison covers real matches, not only misses
    }

    /// A URI whose path is, byte for byte, one the table holds is copied instead of parsed: its
    /// query and fragment are still checked, and every other spelling of the path is parsed.
    @Test(arguments: [RouterOptions(), .strictSlash])
    func aPathTakenAsItIsStillHasItsQueryChecked(options: RouterOptions) throws {
        let probing = Router(options: options, staticProbe: .always)
        let walking = Router(options: options, staticProbe: .never)
        for pattern in ["/docs/a", "GET /docs/b", "/a%2Fb/c", "/x/:id", "/docs/a/", "/~u/p+q", "POST /docs/a", "/caf%C3%A9"] {
            let a = caught { () throws(InterlockError) in try probing.addRoute(pattern) }
            let b = caught { () throws(InterlockError) in try walking.addRoute(pattern) }
            #expect(a?.code == b?.code, "\(pattern)")
        }
        let paths = ["/docs/a", "/docs/b", "/a%2Fb/c", "/a%2fb/c", "/docs//a", "/docs/./a", "/docs/a/", "/DOCS/a", "/~u/p+q",
                     "/%7Eu/p+q", "/x/1", "/docs/a%", "/caf%C3%A9", "/caf%c3%a9", "/", "/docs/a\u{0}"]
        let tails = ["", "?", "?q=1", "?bad%zz", "#f", "?q#f", "#bad%", "?a b", "#", "?%41#%"]
        var matched = 0, failed = 0
        for path in paths {
            for tail in tails {
                for method in [nil, "GET", "POST", "PUT"] {
                    let uri = path + tail
                    let a = Result { () throws(InterlockError) in try probing.match(uri, method: method) }
                    let b = Result { () throws(InterlockError) in try walking.match(uri, method: method) }
                    switch (a, b) {
                    case (.success(let x), .success(let y)):
                        #expect(x == y, "\(method ?? "*") \(uri)")
                        if case .matched = x { matched += 1 }
                    case (.failure(let x), .failure(let y)):
                        #expect(x.code == y.code && x.offset == y.offset && x.description == y.description, "\(uri): \(x) / \(y)")
                        failed += 1
                    default:
                        Issue.record("\(method ?? "*") \(uri): \(a) / \(b)")
                    }
                }
            }
        }
        #expect(matched > 100 && failed > 100)   // both kinds of answer are compared
    }

    /// A bare path the table holds is answered from the path's entry alone when one of its
    /// routes takes the request's method (a common one, or none), through either lookup (a method
    /// as bytes, or NUL-terminated as the C door gives it). The answers must be the tree's:
    /// routes bound to a scheme or host, methods the shortcut does not recognize, a method not
    /// allowed, a less specific route that takes the method, and every lookup after it on the
    /// same matcher.
    @Test(arguments: [RouterOptions(), .caseInsensitive, .strictSlash])
    func theWholePathShortcutAnswersAsTheTree(options: RouterOptions) throws {
        let r = Router(options: options, staticProbe: .always)
        let walking = Router(options: options, staticProbe: .never)
        for pattern in ["GET /docs/a", "POST /docs/a", "/docs/b", "https://example.com/docs/c", "GET /docs/c",
                        "myapp://open/docs/d", "/docs/:name", "PUT /docs/:name/edit", "OPTIONS /docs/e", "PURGEALLOFIT /docs/f",
                        "HEAD /docs/g", "DELETE /docs/g", "/docs/a/", "/x%2Fy/z", "GET /"] {
            #expect(try r.addRoute(pattern) == walking.addRoute(pattern))
        }
        #expect(try r.compiledTable().probesStatic && !walking.compiledTable().probesStatic)
        let uris = ["/docs/a", "/docs/b", "/docs/c", "/docs/d", "/docs/e", "/docs/f", "/docs/g", "/docs/a/", "/docs/z",
                    "/docs/z/edit", "/DOCS/a", "/x%2Fy/z", "/x%2fy/z", "/docs/a?q=1", "/docs/b#f", "/docs/a?bad%zz", "/",
                    "https://example.com/docs/c", "/docs//a", "/nothing"]
        let methods: [String?] = [nil, "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PURGEALLOFIT", "get", "G T", ""]
        let m = Matcher()
        var answered = 0, refused = 0, notAllowed = 0
        for uri in uris {
            for method in methods {
                let tree = Result { () throws(InterlockError) in try walking.match(uri, method: method) }
                let viaBytes = Result { () throws(InterlockError) in try r.match(uri, method: method) }
                var methodBytes = Array((method ?? "").utf8)
                methodBytes.append(0)
                let uriBytes = Array(uri.utf8)
                let viaC = methodBytes.withUnsafeBufferPointer { p in
                    uriBytes.withUnsafeBytes { u in
                        Result { () throws(InterlockError) -> MatchResult in
                            switch try m.match(r, methodCString: method == nil ? nil : p.baseAddress!, uri: u) {
                            case .matched: return m.routeMatch().map(MatchResult.matched) ?? .notFound
                            case .notFound: return .notFound
                            case .methodNotAllowed: return .methodNotAllowed(allowed: m.allowedMethods)
                            }
                        }
                    }
                }
                for got in [viaBytes, viaC] {
                    switch (tree, got) {
                    case (.success(let x), .success(let y)):
                        #expect(x == y, "\(method ?? "*") \(uri)")
                        if case .matched = y { answered += 1 }
                        if case .methodNotAllowed = y { notAllowed += 1 }
                    case (.failure(let x), .failure(let y)):
                        #expect(x.code == y.code && x.offset == y.offset, "\(uri): \(x) / \(y)")
                        refused += 1
                    default:
                        Issue.record("\(method ?? "*") \(uri): \(tree) / \(got)")
                    }
                }
            }
        }
        // A resolve builds its request from the lookup: the same parts either way.
        var resolved = 0
        for uri in uris {
            for method in methods {
                guard let a = try? r.resolve(uri, method: method), let b = try? walking.resolve(uri, method: method) else { continue }
                #expect(a.status == b.status && a.route?.id == b.route?.id, "\(method ?? "*") \(uri)")
                #expect(a.request.uri == b.request.uri && a.request.path == b.request.path && a.request.query == b.request.query
                        && a.request.fragment == b.request.fragment && a.request.scheme == b.request.scheme
                        && a.request.host == b.request.host && a.request.method == b.request.method, "\(method ?? "*") \(uri)")
                #expect(a.request.parameters.map { "\($0.name)=\($0.value)" } == b.request.parameters.map { "\($0.name)=\($0.value)" })
                if a.route != nil { resolved += 1 }
            }
        }
        #expect(resolved > 40)
        #expect(answered > 80 && notAllowed > 10 && refused > 10, "\(answered) matched, \(notAllowed) not allowed, \(refused) refused")
    }

    @Test func onlyMostlyAllLiteralTablesTryTheShortcut() throws {
        let r = Router()
        for i in 0..<10 { try r.addRoute("/static/\(i)") }
        for i in 0..<9 { try r.addRoute("/items\(i)/:id") }
        #expect(try r.compiledTable().probesStatic)         // 10 of 19
        try r.addRoute("/more/:id")
        try r.addRoute("/again/:id")
        #expect(try !r.compiledTable().probesStatic)        // 10 of 21
        #expect(try r.match("/static/3").routeMatch?.routeID == 4)   // still found, by the walk
    }

    /// A table that turns to the shortcut builds it whole, at any size: every all-literal path is
    /// in it, those added before as well as after.
    @Test(arguments: [2, 40])
    func turningToTheShortcutFindsEveryPath(size: Int) throws {
        let r = Router()
        for i in 0..<size { try r.addRoute("/static/\(i)") }
        for i in 0...size { try r.addRoute("/items\(i)/:id") }
        #expect(try !r.compiledTable().probesStatic)
        for i in size..<(3 * size) { try r.addRoute("/static/\(i)") }
        let table = try r.compiledTable()
        #expect(table.probesStatic)
        for i in 0..<(3 * size) {
            let key = Array("/static/\(i)".utf8)
            #expect(key.withUnsafeBufferPointer { table.staticPaths.probe.lookup($0.baseAddress!, $0.count) } != nil, "/static/\(i)")
        }
    }
}

/// Literal children under dispatch nodes are found by a hash of the segment read eight bytes at a
/// time; on a case-insensitive router the segment is lower-cased a word at a time.
@Suite("Literal children of large nodes")
struct LiteralChildrenTests {
    /// Numbered names ("item001", "v1item42") spread over slots and buckets as others do: the hash
    /// used to leave a word's last bytes to the top bits only (500 such keys took 5 slots).
    @Test func numberedNamesSpread() {
        func pad(_ i: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(i).count)) + String(i) }
        for make in [{ "item" + pad($0, 3) }, { "v1item" + pad($0, 2) }, { "res\($0)" }, { "abcdefgh\($0)" }] as [(Int) -> String] {
            let keys = (0..<100).map { Array(make($0).utf8) }
            let slots = Set(keys.map { Int(truncatingIfNeeded: segmentHash($0) >> 1) & 1023 })
            let buckets = Set(keys.map { LiteralBuckets.bucket(segmentHash($0), count: 64) })
            #expect(slots.count >= 90 && buckets.count >= 40, "\(make(0)): \(slots.count) slots, \(buckets.count) buckets")
        }
    }

    @Test func wordLowerCasingAgreesWithByteLowerCasing() {
        var rng = SplitMix(seed: 7)
        for _ in 0..<20_000 {
            let w = rng.next()
            var expected: UInt64 = 0
            for i in 0..<8 { expected |= UInt64(lowercased(UInt8(truncatingIfNeeded: w >> UInt64(8 * i)))) << UInt64(8 * i) }
            #expect(asciiLowered(w) == expected, "\(String(w, radix: 16))")
        }
    }

    @Test func aSegmentHashesAsItsLowerCasedKeyDoes() {
        var rng = SplitMix(seed: 9)
        let alphabet = Array("aZz09-_.~A@[`{".utf8)
        for _ in 0..<5_000 {
            let n = Int(rng.next() % 21)
            let segment = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let padded = segment + [UInt8](repeating: 0xFF, count: 8)   // what follows must not count
            let hashed = padded.withUnsafeBufferPointer { segmentHash($0.baseAddress!, n, lower: true) }
            #expect(hashed == segmentHash(segment.map(lowercased)), "\(segment)")
        }
    }

    @Test(arguments: [RouterOptions(), .caseInsensitive])
    func thousandsOfLiteralChildrenAreEachFound(options: RouterOptions) throws {
        let r = Router(options: options)
        let names = (0..<5_000).map { "Res-\($0)_\(String(repeating: "x", count: $0 % 13))" }
        for name in names { try r.addRoute("GET /api/\(name)/:id") }
        for (i, name) in names.enumerated() {
            let uri = "/api/\(options.contains(.caseInsensitive) && i % 2 == 0 ? name.uppercased() : name)/7"
            #expect(try r.match(uri, method: "GET").routeMatch?.routeID == RouteID(i + 1), "\(uri)")
        }
        #expect(try r.match("/api/res-1_y/7", method: "GET") == .notFound)
        #expect(r.compiledUnits > 100)   // the children sit under a dispatch node, not in one unit
    }

    /// A dispatch node with few literal children compares the segment with each in turn (no
    /// hash): keys of every length around the eight bytes compared at once, keys that share
    /// their first eight bytes, and segments that are a key's prefix or extension, all answer
    /// as the route table says, on exact-case and case-insensitive routers.
    @Test(arguments: [RouterOptions(), .caseInsensitive])
    func fewLiteralChildrenOfALargeNodeAreEachFound(options: RouterOptions) throws {
        let r = Router(options: options)
        for k in 0..<3_000 { try r.addRoute("GET /api/v1/r\(k)/:id") }                 // "api", "v1": large nodes
        let keys = ["abcdefgh1", "abcdefgh2", "abcdefg"]                                // with "v1": four under "api"
        var ids: [String: RouteID] = [:]
        for key in keys { ids[key] = try r.addRoute("GET /api/\(key)/:id") }
        let root = try r.compiledTable().root
        guard case .dispatch(let top) = root, let api = top.literals.buckets.first?.entries.first?.value,
              case .dispatch(let apiNode) = api else { Issue.record("\"/api\" is not a dispatch node"); return }
        #expect(apiNode.literalProbe.few != nil || options.contains(.caseInsensitive))
        for key in keys {
            #expect(try r.match("/api/\(key)/7", method: "GET").routeMatch?.routeID == ids[key], "\(key)")
        }
        #expect(try r.match("/api/v1/r2999/7", method: "GET").routeMatch?.routeID == 3_000)
        for miss in ["abcdefgh", "abcdefgh3", "abcdefgh12", "abcdef", "abcdefgx", "x", "v", "v2"] {
            #expect(try r.match("/api/\(miss)/7", method: "GET") == .notFound, "\(miss)")
        }
        #expect(try r.match("/api/ABCDEFGH2/7", method: "GET").routeMatch?.routeID
                == (options.contains(.caseInsensitive) ? ids["abcdefgh2"] : nil))
    }
}
