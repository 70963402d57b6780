import Testing
@testable import Interlock

/// A change costs what its part of the table costs: adding, removing or replacing one route
/// compiles the same units and writes about as many hash-table entries (buckets rebuilt, pages of
/// them copied, all-literal paths and filter words) in a table of 100,000 routes as in one of 1,000.
/// Counted, not timed.
@Suite("Change cost")
struct ChangeCostTests {
    /// Units compiled and entries written by changes to a table of `groups` × 4 routes: half of
    /// them all-literal (so lookups try the all-literal table), and thousands of literal children
    /// under the root (a dispatch node).
    static func work(groups: Int, options: RouterOptions) throws -> (units: Int, entries: Int) {
        let r = Router(options: options)
        for k in 0..<groups {
            try r.addRoute("GET /p\(k)/:id")
            try r.addRoute("GET /c\(k)/:cat/:sub")
            try r.addRoute("GET /s\(k)")
            try r.addRoute("GET /s\(k)/about")
        }
        try r.compile()
        #expect(try r.compiledTable().probesStatic)
        let (units, entries) = (r.compiledUnits, r.entryCounter.load(ordering: .relaxed))
        let k = groups / 2
        let dynamic = RouteID(4 * k + 1), literal = RouteID(4 * k + 3)
        // Each change, then a lookup that compiles it and finds (or not) what changed.
        try r.removeRoute(dynamic)
        #expect(try r.match("/p\(k)/7", method: "GET") == .notFound)
        let added = try r.addRoute("GET /p\(k)/:id")
        #expect(try r.match("/p\(k)/7", method: "GET").routeMatch?.routeID == added)
        try r.removeRoute(literal)
        #expect(try r.match("/s\(k)", method: "GET") == .notFound)
        let again = try r.addRoute("GET /s\(k)")
        #expect(try r.match("/s\(k)", method: "GET").routeMatch?.routeID == again)
        try r.replaceRoute(again, with: "GET /s\(k)/new")
        #expect(try r.match("/s\(k)/new", method: "GET").routeMatch?.routeID == again)
        #expect(try r.match("/s\(k)", method: "GET") == .notFound)
        #expect(try r.match("/s\(k + 1)", method: "GET").routeMatch?.routeID == RouteID(4 * (k + 1) + 3))
        return (r.compiledUnits - units, r.entryCounter.load(ordering: .relaxed) - entries)
    }

    @Test(arguments: [RouterOptions(), .caseInsensitive])
    func aChangesWorkDoesNotGrowWithTheTable(options: RouterOptions) throws {
        let small = try Self.work(groups: 250, options: options)        // 1,000 routes
        let large = try Self.work(groups: 25_000, options: options)     // 100,000 routes
        #expect(large.units <= small.units + 2, "units: \(small.units) at 1,000 routes, \(large.units) at 100,000")
        // A change copies one page of buckets (or filter words) and the list of pages: at 100
        // times the routes, lists 100 times longer, a few times the work. Copying a whole node's
        // buckets (about 9,000 at the root), or the whole all-literal table, would be 20 times it.
        #expect(large.entries <= 4 * small.entries,
                "entries: \(small.entries) at 1,000 routes, \(large.entries) at 100,000")
    }

    /// Parts and page pointers copied by changes made between resolves to a table of `count`
    /// routes with destinations: each resolve holds the pipeline as it stood, so the change after
    /// it copies what it writes.
    static func partsCopied(count: Int) throws -> Int {
        let r = Router()
        for k in 0..<count { try r.addRoute("/p\(k)/:id") { _, _ in } }
        let before = r.state.withLock { $0.pipeline.routes.copied }
        let k = RouteID(count / 2)
        #expect(try r.resolve("/p\(k - 1)/1").status == .ok)
        try r.setDestination({ _, response in response.status = 201 }, for: k)
        #expect(try r.resolve("/p\(k - 1)/1").response.status == 201)
        try r.replaceRoute(k, with: "/q/:id")
        #expect(try r.resolve("/q/1").response.status == 201)
        try r.removeRoute(k)
        #expect(try r.resolve("/q/1").status == .notFound)
        let added = try r.addRoute("/q/:id") { _, response in response.status = 202 }
        #expect(try r.resolve("/q/1").response.status == 202)
        try r.setData("d", for: added)
        return r.state.withLock { $0.pipeline.routes.copied } - before
    }

    /// A change after a resolve copies the page of parts it writes and that page's directory,
    /// not every route's parts, nor a pointer for every page.
    @Test func aChangeAfterAResolveCopiesOnePageOfParts() throws {
        let small = try Self.partsCopied(count: 1_000)
        let large = try Self.partsCopied(count: 100_000)
        #expect(small > 0, "the resolves held the pipeline, so the changes copied")
        // A page of parts and a directory of page pointers at most, against a page and a
        // directory of 8 pages at 1,000 routes: a list of every page (782 at 100,000 routes)
        // would be over six times it.
        #expect(large <= 2 * small, "parts and page pointers copied: \(small) at 1,000 routes, \(large) at 100,000")
    }

    /// A change leaves the spare resolve runs stale; their matchers go back to the pool, and the
    /// next resolve takes one there rather than making a matcher (its buffers, PCRE2's match data
    /// and JIT stack: most of what a removal cost, freed, then made again).
    @Test func aChangeKeepsTheStaleRunsMatchers() throws {
        let r = Router()
        let id = try r.addRoute("/a") { _, _ in }
        _ = try r.addRoute("/b") { _, _ in }
        #expect(try r.resolve("/a").status == .ok)
        let (pooled, spare) = r.state.withLock { ($0.pool.count, $0.runs.count) }
        #expect(spare == 1, "the resolve gave its run back")
        try r.removeRoute(id)
        #expect(r.state.withLock { ($0.pool.count, $0.runs.count) } == (pooled + 1, 0))
        #expect(try r.resolve("/b").status == .ok)
        #expect(r.state.withLock { ($0.pool.count, $0.runs.count) } == (pooled, 1), "the new run took the kept matcher")
        #expect(try r.resolve("/a").status == .notFound)
        // An addition leaves the run stale too; the next resolve keeps its matcher before taking one.
        _ = try r.addRoute("/c") { _, _ in }
        #expect(try r.resolve("/c").status == .ok)
        #expect(r.state.withLock { ($0.pool.count, $0.runs.count) } == (pooled, 1), "the new run took the stale run's matcher")
    }
}
