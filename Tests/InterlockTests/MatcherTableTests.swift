import Testing
@testable import Interlock

/// The matcher looks up in the compiled table it is handed and knows nothing of routers: the
/// router hands it its current table when it is not the one held.
@Suite("Matcher and table")
struct MatcherTableTests {
    @Test func aMatcherAnswersFromTheTableItHolds() throws {
        let r = Router()
        let first = try r.addRoute("GET /a/:id")
        let m = Matcher()
        let old = try r.compiledTable()
        m.take(old)
        let second = try r.addRoute("GET /b/:id")
        func lookup(_ uri: String) throws -> RouteID? {
            let outcome = try Array(uri.utf8).withUnsafeBytes { (u) throws(InterlockError) in try m.lookup(method: nil, uri: u) }
            return outcome == .matched ? m.routeID : nil
        }
        // The table handed before the addition: it has the first route, not the second.
        #expect(try lookup("/a/1") == first && lookup("/b/1") == nil)
        #expect(!m.holds(source: r.serial, generation: r.generation.load(ordering: .acquiring)))
        // Through the router, the matcher is handed the new table.
        let outcome = try Array("/b/1".utf8).withUnsafeBytes { (u) throws(InterlockError) in try m.match(r, method: nil, uri: u) }
        #expect(outcome == .matched && m.routeID == second)
        #expect(m.holds(source: r.serial, generation: r.generation.load(ordering: .acquiring)))
        // Another router's table is another source, even at the same generation.
        let other = Router()
        try other.addRoute("GET /b/:id")
        try other.addRoute("GET /a/:id")
        _ = try Array("/a/1".utf8).withUnsafeBytes { (u) throws(InterlockError) in try m.match(other, method: nil, uri: u) }
        #expect(m.routeID == 2)
        #expect(!m.holds(source: r.serial, generation: r.generation.load(ordering: .acquiring)))
    }

    /// A table carries its router's match limit: a matcher takes it with the table.
    @Test func aTableCarriesItsMatchLimit() throws {
        let r = Router()
        try r.addRoute("/x/:v((a+)+b)")
        r.setMatchLimit(123)
        let table = try r.compiledTable()
        #expect(table.matchLimit == 123)
        let m = Matcher()
        m.take(table)
        #expect(m.appliedMatchLimit == 123)
    }
}
