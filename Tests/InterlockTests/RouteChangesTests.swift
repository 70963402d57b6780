import Testing
@testable import Interlock

/// Removing and replacing routes, their data, and compiling ahead (the precedence model and the
/// table shapes check the answers on tables that shrink; `test_threads.c` the concurrency).
@Suite("Changing a table")
struct RouteChangesTests {
    @Test func removedRoutesAreGoneAndTheirIdsNeverComeBack() throws {
        let r = Router()
        let a = try r.addRoute("GET /users/:id", name: "user")
        let b = try r.addRoute("GET /users/me")
        try r.removeRoute(b)
        #expect(try r.match("/users/me", method: "GET").routeMatch?.routeID == a)     // the less specific one now
        #expect(r.route(b) == nil && r.count == 1 && r.routes.map(\.id) == [a])
        let again = caught { () throws(InterlockError) in try r.removeRoute(b) }
        #expect(again?.code == .unknownRoute && again?.message == "route 2 was removed")
        #expect(caught { () throws(InterlockError) in try r.removeRoute(9) }?.message == "no route has id 9")
        #expect(caught { () throws(InterlockError) in try r.setData(1, for: b) }?.code == .unknownRoute)
        // The name is free again, and the next id is new.
        try r.removeRoute(a)
        #expect(r.route(named: "user") == nil)
        #expect(try r.addRoute("GET /people/:id", name: "user") == 3)
        #expect(try r.url(for: "user", parameters: ["id": "7"]) == "/people/7")
    }

    @Test func routesAreVisitedInIdOrder() throws {
        let r = Router()
        for p in ["/a", "/b", "/c", "/d"] { try r.addRoute(p) }
        try r.removeRoute(2)
        try r.removeRoute(4)
        var ids: [RouteID] = []
        var at: RouteID = 0
        while let next = r.route(after: at) { ids.append(next.id); at = next.id }
        #expect(ids == [1, 3])
    }

    @Test func aReplacedRouteKeepsItsIdNameCallbacksAndData() throws {
        let r = Router()
        let id = try r.addRoute("GET /old/:x", name: "item") { request, response in
            response.body = Array("\(request.routeData ?? "none") \(request[parameter: "x"] ?? "")".utf8)
        }
        try r.setData("payload", for: id)
        try r.replaceRoute(id, with: "GET /new/:x")
        #expect(try r.match("/old/1", method: "GET") == .notFound)
        let m = try #require(try r.match("/new/1", method: "GET").routeMatch)
        #expect(m.routeID == id && m.name == "item" && m.pattern == "GET /new/:x" && m.data as? String == "payload")
        #expect(try r.resolve("/new/2", method: "GET").response.body == Array("payload 2".utf8))
        #expect(try r.url(for: "item", parameters: ["x": "3"]) == "/new/3")
        // A replacement that conflicts or is malformed leaves the route as it was.
        try r.addRoute("GET /taken/:y")
        let conflict = caught { () throws(InterlockError) in try r.replaceRoute(id, with: "GET /taken/:z") }
        #expect(conflict?.code == .conflict)
        let malformed = caught { () throws(InterlockError) in try r.replaceRoute(id, with: "GET /a//b") }
        #expect(malformed?.code == .pattern && malformed?.offset == 7)
        #expect(try r.match("/new/1", method: "GET").routeMatch?.routeID == id)
        // Replacing a route by its own shape under another method is no conflict with itself.
        try r.replaceRoute(id, with: "PUT /new/:x")
        #expect(try r.match("/new/1", method: "GET") == .methodNotAllowed(allowed: ["PUT"]))
    }

    @Test func dataIsTheRoutesAndAResolveKeepsWhatItMatched() throws {
        let r = Router()
        let seen = Log()
        let id = try r.addRoute("/d") { request, _ in
            // Set again while this resolve runs: the request keeps what it matched with.
            try? r.setData(2, for: request.route?.id ?? 0)
            seen.add("\(request.routeData as? Int ?? -1)")
        }
        #expect(r.data(for: id) == nil)
        try r.setData(1, for: id)
        #expect(r.data(for: id) as? Int == 1)
        _ = try r.resolve("/d")
        #expect(seen.all == ["1"] && r.data(for: id) as? Int == 2)
        try r.setData(nil, for: id)
        #expect(try r.match("/d").routeMatch?.data == nil)
        #expect(r.data(for: 99) == nil)
    }

    /// A resolve runs a pattern with the callbacks and data that went with it: here its pipeline
    /// (taken when it began) predates the new pattern its redirect finds, so the route's parts
    /// are taken as they stand (the pattern with the data set before it was never a state).
    @Test func aResolveNeverRunsAPatternWithDataFromAnotherMoment() throws {
        let r = Router()
        let seen = Log()
        let b = try r.addRoute("/b1") { request, _ in seen.add("\(request.route?.pattern.source ?? "") \(request.routeData ?? "none")") }
        try r.setData("old", for: b)
        r.addFilter(Filter(name: "change") { request, chain in
            guard request.path == "/a" else { return .proceed(try chain.next(request)) }
            try r.setData("new", for: b)
            try r.replaceRoute(b, with: "/b2")
            return .redirect("/b2")
        })
        _ = try r.resolve("/a")
        #expect(seen.all == ["/b2 new"])
    }

    /// A node compiled as a dispatch node, shrunk by removals into one regex, then grown into a
    /// dispatch node again, is rebuilt from what it holds: the removed routes stay gone (the
    /// dispatch node it had before was reused, and answered for them).
    @Test func aNodeThatShrinksAndGrowsAgainForgetsWhatWasRemoved() throws {
        for r in [Router(unitBudget: 2_000), Router(walkUnits: false, unitBudget: 2_000)] {
            let first = try (0..<200).map { try r.addRoute("GET /k\($0)/:x") }
            #expect(try r.match("/k100/a", method: "GET").routeMatch?.routeID == first[100])
            for id in first { try r.removeRoute(id) }
            #expect(try r.match("/k100/a", method: "GET") == .notFound)
            for k in 0..<200 { try r.addRoute("GET /m\(k)/:x") }
            #expect(try r.match("/k100/a", method: "GET") == .notFound)
            #expect(try r.match("/m100/a", method: "GET").routeMatch?.pattern == "GET /m100/:x")
        }
    }

    @Test func compilingAheadLeavesNothingForTheFirstLookup() throws {
        let r = Router()
        for k in 0..<200 { try r.addRoute("GET /r\(k)/:id(\\d+)/x") }
        try r.compile()
        let units = r.compiledUnits
        #expect(units > 0)
        #expect(try r.match("/r7/12/x", method: "GET").routeMatch?.routeID == 8)
        #expect(r.compiledUnits == units)
    }
}
