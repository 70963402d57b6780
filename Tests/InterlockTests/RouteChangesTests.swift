import Testing
@testable import Interlock

/// Removing and replacing routes, their data, and compiling ahead (the precedence model and the
/// table shapes check the answers on tables that shrink; `test_threads.c` the concurrency).
@Suite("Changing a table")
struct RouteChangesTests {
    @Test func removedRoutesAreGoneAndTheirIdsNameNoRoute() throws {
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

    /// A removed route's slot is reused (here at once: the router keeps no reserve of free
    /// slots), under another id: the removed route's id names no route at any function that
    /// takes one, and the new route's id names only the new route.
    @Test func aRemovedRoutesIdNamesNoRouteOnceItsSlotIsReused() throws {
        let r = Router(slotReserve: 0)
        let seen = Log()
        let a = try r.addRoute("/a", name: "a") { _, _ in seen.add("a") }
        try r.setData("a's", for: a)
        try r.removeRoute(a)
        let d = try r.addRoute("/d", name: "d") { _, _ in seen.add("d") }
        #expect(RouteSlots.slot(d) == RouteSlots.slot(a) && d == (1 << 22) + 1)
        #expect(r.route(a) == nil && r.data(for: a) == nil && r.dataCString("k", for: a) == nil)
        let refusals: [(String, () throws(InterlockError) -> Void)] = [
            ("remove", { () throws(InterlockError) in try r.removeRoute(a) }),
            ("replace", { () throws(InterlockError) in try r.replaceRoute(a, with: "/a2") }),
            ("data", { () throws(InterlockError) in try r.setData(1, for: a) }),
            ("destination", { () throws(InterlockError) in try r.setDestination({ _, _ in seen.add("x") }, for: a) }),
            ("guard", { () throws(InterlockError) in try r.setGuard({ _ in false }, for: a) }),
            ("request interceptor", { () throws(InterlockError) in
                try r.addRequestInterceptor(RequestInterceptor(name: "i") { _ in .proceed }, route: a) }),
            ("response interceptor", { () throws(InterlockError) in
                try r.addResponseInterceptor(ResponseInterceptor(name: "o") { _, _ in .proceed }, route: a) }),
        ]
        for (what, call) in refusals {
            let error = caught(call)
            #expect(error?.code == .unknownRoute && error?.message == "route 1 was removed", "\(what)")
        }
        #expect(r.unknownRoute(a).message == "route 1 was removed")
        // The new route is untouched by all that, and the slot's next id is another again.
        #expect(r.route(d)?.pattern.source == "/d" && r.data(for: d) == nil && r.route(named: "d")?.id == d)
        #expect(r.route(after: 0)?.id == d && r.route(after: a)?.id == nil && r.routes.map(\.id) == [d])
        _ = try r.resolve("/d")
        #expect(seen.all == ["d"])
        try r.removeRoute(d)
        let e = try r.addRoute("/e")
        #expect(RouteSlots.slot(e) == RouteSlots.slot(a) && e != a && e != d && r.route(d) == nil && r.count == 1)
    }

    /// A resolve whose pipeline was taken before a route's slot was given to another route never
    /// runs the new route with the old one's callbacks: a reused slot's route has a revision no
    /// route of the slot had (without it, the redirect below ran `a`'s destination for `/d`).
    @Test func aResolveNeverRunsARouteWithTheCallbacksOfItsSlotsEarlierRoute() throws {
        let r = Router(slotReserve: 0)
        let seen = Log()
        let a = try r.addRoute("/a") { _, _ in seen.add("a") }
        r.addFilter(Filter(name: "swap") { request, chain in
            guard request.path == "/swap" else { return .proceed(try chain.next(request)) }
            try r.removeRoute(a)
            let d = try r.addRoute("/d") { _, _ in seen.add("d") }
            #expect(RouteSlots.slot(d) == RouteSlots.slot(a))
            return .redirect("/d")
        })
        _ = try r.resolve("/swap")
        #expect(seen.all == ["d"])
    }

    /// A router that adds and removes routes forever keeps working, in as many slots as it held
    /// routes at once plus its reserve; an id is given again only after its slot's generations
    /// went round, `reserve` x 1,024 additions later at the least (here with a reserve of 3).
    @Test func aRouterThatChangesForeverHoldsBoundedSlotsAndReusesIdsLate() throws {
        let r = Router(slotReserve: 3)
        let kept = try r.addRoute("/kept/:x")
        var lastGiven: [RouteID: Int] = [:]
        var repeats = 0
        for n in 0..<20_000 {
            let id = try r.addRoute("/churn/\(n % 7)")
            if let previous = lastGiven[id] {
                repeats += 1
                #expect(n - previous >= 3 * 1024, "id \(id) given at \(previous) and \(n)")
            }
            lastGiven[id] = n
            if n % 1000 == 0 { #expect(try r.match("/churn/\(n % 7)").routeMatch?.routeID == id) }
            try r.removeRoute(id)
        }
        #expect(repeats > 0)      // the generations went round: the bound above was tested
        #expect(r.state.withLock { $0.slots.capacity } <= 2 + 3 + 1)
        #expect(try r.match("/kept/1").routeMatch?.routeID == kept && r.count == 1)
    }

    /// Once a slot's generations went round, an id of any earlier generation is still "removed"
    /// (it said "no route has id" for the generations above the slot's current one).
    @Test func anIdFromBeforeTheGenerationsWentRoundIsStillRemoved() throws {
        let r = Router(slotReserve: 0)
        var given: [RouteID] = []
        for _ in 0..<1_030 {
            let id = try r.addRoute("/a")
            given.append(id)
            try r.removeRoute(id)
        }
        #expect(Set(given.map(RouteSlots.slot)).count == 1)
        let late = given[1_000]      // generation 1,000: above the slot's current one
        #expect(r.unknownRoute(late).message == "route \(late) was removed")
        #expect(r.unknownRoute(RouteID(1 << 31) | 5).message == "no route has id \(RouteID(1 << 31) | 5)")
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
