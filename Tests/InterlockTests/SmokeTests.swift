import Testing
@testable import Interlock

@Suite struct SmokeTests {
    @Test func basics() throws {
        let r = Router()
        let a = try r.addRoute("GET /users/:id")
        let b = try r.addRoute("/users/admin/settings")
        let c = try r.addRoute("/users/:id/profile")
        let d = try r.addRoute("myapp://user/:id(\\d+)")
        let e = try r.addRoute("/files/*path")
        let f = try r.addRoute("POST /users/:id")
        #expect(try r.match("/users/42", method: "GET").routeMatch?.routeID == a)
        #expect(try r.match("/users/42", method: "GET").routeMatch?["id"] == "42")
        #expect(try r.match("/users/admin/settings").routeMatch?.routeID == b)
        #expect(try r.match("/users/bob/profile").routeMatch?.routeID == c)
        #expect(try r.match("myapp://user/42?x=1").routeMatch?.routeID == d)
        #expect(try r.match("myapp://user/abc") == .notFound)
        #expect(try r.match("/files/a/b%2Fc").routeMatch?["path"] == "a/b/c")
        #expect(try r.match("/files").routeMatch?["path"] == "")
        #expect(try r.match("/users/42", method: "POST").routeMatch?.routeID == f)
        #expect(try r.match("/users/42", method: "PUT") == .methodNotAllowed(allowed: ["GET", "POST"]))
        _ = e
    }
}
