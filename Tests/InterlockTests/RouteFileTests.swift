import Testing
@testable import Interlock

/// Route files: one route a line, names and data, comments; all or nothing, errors placed.
@Suite("Route files")
struct RouteFileTests {
    static let file = """
        # The app's deep links and its API.
        GET /users/:id          name=user   owner=accounts
        \tPOST  /users     name=create-user
        myapp://settings/profile  name=settings   # the settings screen
        /HOME team=web

        /files/:name.json
        """

    @Test func aFileAddsItsRoutesWithNamesAndData() throws {
        let r = Router()
        let ids = try r.load(Self.file)
        #expect(ids == [1, 2, 3, 4, 5])
        #expect(r.routes.map(\.pattern.source) == ["GET /users/:id", "POST /users", "myapp://settings/profile", "/HOME", "/files/:name.json"])
        #expect(r.route(named: "create-user")?.id == 2)
        #expect(r.data(for: 1) as? [String: String] == ["owner": "accounts"])
        #expect(r.data(for: 4) as? [String: String] == ["team": "web"])
        #expect(r.data(for: 2) == nil)
        #expect(try r.match("/users/7", method: "GET").routeMatch?.data as? [String: String] == ["owner": "accounts"])
        // No destination until one is set by name.
        #expect(try r.resolve("/users/7", method: "GET").status == .ok)
        try r.setDestination({ _, response in response.status = 202 }, for: try #require(r.route(named: "user")).id)
        #expect(try r.resolve("/users/7", method: "GET").response.status == 202)
    }

    @Test func aBadLineAddsNothingAndSaysWhere() throws {
        let r = Router()
        try r.addRoute("/before")
        let text = "GET /a   name=a\nGET    /b//c\n/d\n"
        let e = try #require(caught { () throws(InterlockError) in try r.load(text) })
        #expect(e.code == .pattern && e.message == "line 2, column 11: empty segment")
        #expect(e.offset == 26)          // the second "/" of "//" in the text
        #expect(r.count == 1 && r.route(named: "a") == nil)
        #expect(try r.addRoute("/after") == 2)      // no id was given away

        let conflict = try #require(caught { () throws(InterlockError) in try r.load("/x/:a\n/y\n/x/:b\n") })
        #expect(conflict.code == .conflict && conflict.message.hasPrefix("line 3, column 1:") && conflict.message.contains("(line 1)"))
        #expect(r.count == 2)
        let name = try #require(caught { () throws(InterlockError) in try r.load("/n1 name=a\n/n2 name=a\n") })
        #expect(name.code == .conflict && name.message.hasPrefix("line 2, column 1:") && name.message.contains("(line 1)"))
        let outside = try #require(caught { () throws(InterlockError) in try r.load("/before\n") })
        #expect(outside.code == .conflict && outside.message.contains("(route 1)"))
    }

    @Test func malformedLines() throws {
        func problem(_ text: String) -> String? { caught { () throws(InterlockError) in try RouteFile.parse(text) }?.message }
        #expect(problem("/a name=") == "line 1, column 4: empty route name")
        #expect(problem("/a x=1 x=2") == "line 1, column 8: key 'x' given twice")
        #expect(problem("\n/a oops") == "line 2, column 4: expected key=value after the pattern")
        #expect(problem("/a\u{1}") == "line 1, column 3: control byte in the line")
        // A method alone, or before pairs, is no route "/GET"; a method in lower case is named.
        #expect(problem("GET") == "line 1, column 4: method 'GET' with no pattern after it (a path of that name is written '/GET')")
        #expect(problem("/a\n  HOME team=web") == "line 2, column 7: method 'HOME' with no pattern after it (a path of that name is written '/HOME')")
        #expect(problem("get /x name=x") == "line 1, column 1: method 'get' must be upper case ('GET')")
        #expect(problem("Get\t/x") == "line 1, column 1: method 'Get' must be upper case ('GET')")
        #expect(try RouteFile.parse("/GET\nGET /x\nget=1 a=b").map(\.pattern) == ["/GET", "GET /x", "get=1"])
        #expect(try RouteFile.parse("# only a comment\n\n  \r\n").isEmpty)
        #expect(try RouteFile.parse("GET /a\r\n").map(\.pattern) == ["GET /a"])
        #expect(try RouteFile.parse("\u{FEFF}/a name=x").map(\.pattern) == ["/a"])      // a byte-order mark
    }
}
