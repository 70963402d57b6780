import Testing
@testable import Interlock

@Suite("Which route wins")
struct PrecedenceTests {
    @Test func literalBeforeConstrainedBeforeParameterBeforeCatchAll() throws {
        let r = Router()
        let all = try r.addRoute("/items/*rest")
        let param = try r.addRoute("/items/:id")
        let constrained = try r.addRoute("/items/:id(\\d+)")
        let literal = try r.addRoute("/items/new")
        #expect(try matchedID(r, "/items/new") == literal)
        #expect(try matchedID(r, "/items/42") == constrained)
        #expect(try matchedID(r, "/items/abc") == param)
        #expect(try matchedID(r, "/items/abc/def") == all)
        #expect(try matchedID(r, "/items") == all)
    }

    @Test func registrationOrderDoesNotDecideSpecificity() throws {
        // The same table in the opposite order gives the same answers.
        let r = Router()
        let literal = try r.addRoute("/items/new")
        let constrained = try r.addRoute("/items/:id(\\d+)")
        let param = try r.addRoute("/items/:id")
        #expect(try matchedID(r, "/items/new") == literal)
        #expect(try matchedID(r, "/items/42") == constrained)
        #expect(try matchedID(r, "/items/x") == param)
    }

    @Test func backtracksWhenTheSpecificBranchFailsLater() throws {
        // The r3 bug: a parameter route added first must not hide a static route, and a static
        // prefix that fails further on must fall back to the parameter.
        let r = Router()
        let profile = try r.addRoute("/users/:id/profile")
        let settings = try r.addRoute("/users/admin/settings")
        #expect(try matchedID(r, "/users/admin/settings") == settings)
        #expect(try matchedID(r, "/users/admin/profile") == profile)
        #expect(try matchedID(r, "/users/bob/profile") == profile)
        #expect(try matchedID(r, "/users/bob/settings") == nil)
    }

    @Test func firstDifferenceDecides() throws {
        let r = Router()
        let a = try r.addRoute("/:a/b/:c")
        let b = try r.addRoute("/x/:b/:c")
        // Segment one: the literal "x" is more specific, whatever follows.
        #expect(try matchedID(r, "/x/b/c") == b)
        #expect(try matchedID(r, "/y/b/c") == a)
    }

    @Test func constrainedParametersInRegistrationOrder() throws {
        let r = Router()
        let digits = try r.addRoute("/v/:n(\\d+)")
        let hex = try r.addRoute("/v/:h([0-9a-f]+)")
        #expect(try matchedID(r, "/v/123") == digits)
        #expect(try matchedID(r, "/v/12ab") == hex)
        #expect(try matchedID(r, "/v/xyz") == nil)
    }

    @Test func constraintsMatchTheWholeSegmentAndNeverASlash() throws {
        let r = Router()
        let id = try r.addRoute("/a/:id(\\d+)/b")
        let slashy = try r.addRoute("/c/:x(.+)")
        let twoParts = try r.addRoute("/d/:x(\\w+/\\w+)")
        #expect(try matchedID(r, "/a/12/b") == id)
        #expect(try matchedID(r, "/a/12x/b") == nil)
        #expect(try matchedID(r, "/a/x12/b") == nil)
        #expect(try matchedID(r, "/c/one") == slashy)
        #expect(try matchedID(r, "/c/one/two") == nil)
        #expect(try matchedID(r, "/d/one/two") == nil)
        #expect(try matchedID(r, "/d/one") == nil)
        _ = twoParts
        // "%2F" is part of the segment, so a constraint sees it escaped.
        #expect(try r.match("/c/a%2Fb").routeMatch?["x"] == "a/b")
    }

    @Test func tiesExplicitSchemeOrHostThenMethodThenOrder() throws {
        let r = Router()
        let any = try r.addRoute("/u/:id")
        let get = try r.addRoute("GET /u/:id")
        let scheme = try r.addRoute("myapp://u/:id")
        let getAgain = try r.addRoute("GET /u/:name(\\w+)")
        #expect(try matchedID(r, "/u/1", method: "GET") == getAgain)   // constrained beats plain
        #expect(try matchedID(r, "/u/-", method: "GET") == get)        // method beats any
        #expect(try matchedID(r, "/u/-", method: "POST") == any)
        #expect(try matchedID(r, "myapp://u/-", method: "GET") == scheme)  // scheme beats method
        #expect(try matchedID(r, "other://u/-") == get)                // no method given: any route, explicit method first
    }

    @Test func hostRoutes() throws {
        let r = Router()
        let shop = try r.addRoute("https://shop.example.com/p/:sku")
        let anyHost = try r.addRoute("/p/:sku")
        #expect(try matchedID(r, "https://SHOP.example.com/p/1") == shop)
        #expect(try matchedID(r, "http://shop.example.com/p/1") == anyHost)
        #expect(try matchedID(r, "https://other.example.com/p/1") == anyHost)
        #expect(try matchedID(r, "/p/1") == anyHost)
    }

    @Test func schemeMismatchFallsBackToALessSpecificPath() throws {
        let r = Router()
        let admin = try r.addRoute("myapp://user/admin")
        let user = try r.addRoute("/user/:id")
        #expect(try matchedID(r, "myapp://user/admin") == admin)
        #expect(try matchedID(r, "web://user/admin") == user)
    }

    @Test func methodFallsBackBeforeMethodNotAllowed() throws {
        let r = Router()
        let getAdmin = try r.addRoute("GET /users/admin")
        let postUser = try r.addRoute("POST /users/:id")
        #expect(try matchedID(r, "/users/admin", method: "POST") == postUser)
        #expect(try matchedID(r, "/users/admin", method: "GET") == getAdmin)
        #expect(try r.match("/users/admin", method: "PUT") == .methodNotAllowed(allowed: ["GET", "POST"]))
        #expect(try r.match("/users/bob", method: "PUT") == .methodNotAllowed(allowed: ["POST"]))
        #expect(try r.match("/nothing", method: "PUT") == .notFound)
        #expect(try matchedID(r, "/users/admin") == getAdmin)
    }

    /// The C door's methods: the common ones, recognized by a compare, answer as every other
    /// method does through the checked path, and so do near misses of them.
    @Test func commonMethodsAnswerAsAnyMethod() throws {
        let r = Router()
        let common = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
        var ids: [String: RouteID] = [:]
        for m in common + ["GETS", "PU", "DELET", "OPTIONS"] { ids[m] = try r.addRoute("\(m) /x/:id") }
        let tried = common + ["GETS", "GE", "G", "POS", "POSTS", "PU", "PUTT", "PA", "PATC", "PATCHY", "DELET",
                              "DELETES", "HEA", "HEADS", "get", "Get", "pOST", "OPTIONS", "P", "D", "H", "X"]
        let m = Matcher()
        for method in tried {
            var bytes = Array(method.utf8)
            let checked = try bytes.withUnsafeBytes { b in try m.match(r, method: b, uri: UnsafeRawBufferPointer(start: nil, count: 0)) }
            #expect(checked == .notFound, "\(method): the root path has no route")
            bytes.append(0)
            let uri = Array("/x/7".utf8)
            let viaCString = try bytes.withUnsafeBufferPointer { p in
                try uri.withUnsafeBytes { u in (try m.match(r, methodCString: p.baseAddress!, uri: u), m.routeID) }
            }
            let viaBuffer = try matchedID(r, "/x/7", method: method)
            #expect(viaCString.1 == (viaBuffer ?? 0), "\(method)")
            #expect(viaBuffer == ids[method] || (ids[method] == nil && viaCString.0 == .methodNotAllowed), "\(method)")
            if let (word, length) = bytes.withUnsafeBufferPointer({ Matcher.commonMethod($0.baseAddress!) }) {
                #expect(common.contains(method) && length == method.utf8.count && word == MethodWord.of(Array(method.utf8)))
            } else {
                #expect(!common.contains(method), "\(method) is common")
            }
            // The same methods recognized from their bytes alone (no NUL after them).
            let fromBytes = Array(method.utf8).withUnsafeBytes { Matcher.commonMethod($0) }
            let fromCString = bytes.withUnsafeBufferPointer { Matcher.commonMethod($0.baseAddress!) }
            #expect(fromBytes?.0 == fromCString?.0 && fromBytes?.1 == fromCString?.1, "\(method)")
        }
    }

    /// Several routes on one path shape, told apart by method only (methods that prefix each other,
    /// parameter names that differ per method), in a small table (one unit) and a large one
    /// (dispatch nodes).
    @Test(arguments: [0, 3_000])
    func routesSharingATailPickByMethodAndTieRule(filler: Int) throws {
        let r = Router()
        for i in 0..<filler { try r.addRoute("GET /filler/f\(i)/:x") }
        let get = try r.addRoute("GET /u/:id")
        let getx = try r.addRoute("GETX /u/:key")
        let any = try r.addRoute("/u/:other")
        let put = try r.addRoute("PUT /u/:name")
        let onlyMethods = try r.addRoute("DELETE /v/:id")
        let onlyMethods2 = try r.addRoute("PATCH /v/:id")
        #expect(try matchedID(r, "/u/1", method: "GET") == get)
        #expect(try r.match("/u/1", method: "GETX").routeMatch?.parameters.first?.name == "key")
        #expect(try matchedID(r, "/u/1", method: "GETX") == getx)
        #expect(try matchedID(r, "/u/1", method: "PUT") == put)
        #expect(try matchedID(r, "/u/1", method: "GE") == any)
        #expect(try matchedID(r, "/u/1") == get)                       // no method: explicit method first, then order
        #expect(try matchedID(r, "/v/1", method: "PATCH") == onlyMethods2)
        #expect(try matchedID(r, "/v/1") == onlyMethods)
        #expect(try r.match("/v/1", method: "GET") == .methodNotAllowed(allowed: ["DELETE", "PATCH"]))
        #expect(try r.match("/v/1", method: "GETX") == .methodNotAllowed(allowed: ["DELETE", "PATCH"]))
        // Methods of eight bytes and longer (a leaf holds up to eight in one word, longer ones are
        // compared byte for byte): ones that differ only in their last byte are told apart.
        let eight = try r.addRoute("PROPFIND /w/:id")
        let nine = try r.addRoute("PROPPATCH /w/:id")
        let fifteen = try r.addRoute("VERSION-CONTROL /w/:id")
        #expect(try matchedID(r, "/w/1", method: "PROPFIND") == eight)
        #expect(try matchedID(r, "/w/1", method: "PROPPATCH") == nine)
        #expect(try matchedID(r, "/w/1", method: "VERSION-CONTROL") == fifteen)
        for near in ["PROPFINX", "PROPFIN", "PROPPATCX", "PROPPATCHX", "VERSION-CONTROX"] {
            #expect(try r.match("/w/1", method: near) == .methodNotAllowed(allowed: ["PROPFIND", "PROPPATCH", "VERSION-CONTROL"]), "\(near)")
        }
        let ci = Router(options: .caseInsensitive)
        let ciGet = try ci.addRoute("GET /A/:id")
        let ciPost = try ci.addRoute("POST /a/:id")
        #expect(try matchedID(ci, "/a/1", method: "POST") == ciPost)
        #expect(try matchedID(ci, "/A/1", method: "GET") == ciGet)
        #expect(try ci.match("/a/1", method: "get") == .methodNotAllowed(allowed: ["GET", "POST"]))  // methods are case-sensitive
    }

    @Test func allLiteralPathsKeepEveryRule() throws {
        // The hash fast path for all-literal paths must answer exactly as the regexes do.
        let r = Router()
        let getStatic = try r.addRoute("GET /users/admin")
        let anyParam = try r.addRoute("/users/:id")
        let hostStatic = try r.addRoute("https://a.example/users/admin")
        let schemeStatic = try r.addRoute("myapp://users/admin")
        let anyStatic = try r.addRoute("/users/admin")
        #expect(try matchedID(r, "/users/admin", method: "GET") == getStatic)
        #expect(try matchedID(r, "/users/admin", method: "POST") == anyStatic)
        #expect(try matchedID(r, "https://a.example/users/admin", method: "POST") == hostStatic)
        #expect(try matchedID(r, "https://b.example/users/admin", method: "POST") == anyStatic)
        #expect(try matchedID(r, "myapp://users/admin", method: "GET") == schemeStatic)
        #expect(try matchedID(r, "/users/bob", method: "GET") == anyParam)
        // Added later, between lookups: the fast path sees it.
        let later = try r.addRoute("PUT /users/admin")
        #expect(try matchedID(r, "/users/admin", method: "PUT") == later)
        let ci = Router(options: .caseInsensitive)
        let root = try ci.addRoute("GET /")
        let upper = try ci.addRoute("/Docs/Intro")
        #expect(try matchedID(ci, "/docs/INTRO") == upper)
        #expect(try matchedID(ci, "https://x.example", method: "GET") == root)
    }

    @Test func optionalPartsAndParameters() throws {
        let r = Router()
        let search = try r.addRoute("/search(/:query(/page/:n(\\d+)))")
        #expect(try r.match("/search").routeMatch?.parameters.isEmpty == true)
        #expect(try r.match("/search/cats").routeMatch?["query"] == "cats")
        let paged = try r.match("/search/cats/page/2").routeMatch
        #expect(paged?.routeID == search)
        #expect(paged?.parameters.map(\.name) == ["query", "n"])
        #expect(paged?.parameters.map(\.value) == ["cats", "2"])
        #expect(try r.match("/search/cats/page/x") == .notFound)
    }

    @Test func catchAllValues() throws {
        let r = Router()
        try r.addRoute("/files/*path")
        try r.addRoute("/*")
        #expect(try r.match("/files/a/b/c.txt").routeMatch?["path"] == "a/b/c.txt")
        #expect(try r.match("/files/").routeMatch?["path"] == "")
        #expect(try r.match("/anything/else").routeMatch?["*"] == "anything/else")
        #expect(try r.match("/").routeMatch?["*"] == "")
    }

    @Test func parametersAreDecodedAfterMatching() throws {
        let r = Router()
        try r.addRoute("/tags/:tag/items")
        let m = try r.match("/tags/a%2Fb%20c%C3%A9/items").routeMatch
        #expect(m?["tag"] == "a/b cé")
        #expect(try r.match("/tags/a/b/items") == .notFound)
    }

    @Test func caseSensitivity() throws {
        let strict = Router()
        let a = try strict.addRoute("/Users/:id")
        #expect(try matchedID(strict, "/Users/1") == a)
        #expect(try matchedID(strict, "/users/1") == nil)
        let loose = Router(options: .caseInsensitive)
        let b = try loose.addRoute("GET /Users/:id")
        #expect(try matchedID(loose, "/uSERS/Bob", method: "GET") == b)
        #expect(try loose.match("/uSERS/Bob", method: "GET").routeMatch?["id"] == "Bob")
        #expect(try loose.match("/users/x", method: "get") == .methodNotAllowed(allowed: ["GET"]))
        #expect(caught { () throws(InterlockError) in try loose.addRoute("GET /users/:x") }?.code == .conflict)
    }

    @Test func trailingSlashRules() throws {
        let lenient = Router()
        let a = try lenient.addRoute("/a/b")
        #expect(try matchedID(lenient, "/a/b/") == a)
        let strict = Router(options: .strictSlash)
        let noSlash = try strict.addRoute("/a/b")
        let slash = try strict.addRoute("/a/b/")
        #expect(try matchedID(strict, "/a/b") == noSlash)
        #expect(try matchedID(strict, "/a/b/") == slash)
        #expect(try matchedID(strict, "/a/b//") == slash)
    }

    /// The root is no trailing slash, whatever comes before it: under a strict router "GET /" was
    /// read as an empty segment after the root (the path "//"), so it matched no URI at all.
    @Test func theRootUnderAStrictRouterAfterAMethodSchemeOrHost() throws {
        let strict = Router(options: .strictSlash)
        let get = try strict.addRoute("GET /", name: "home")
        let host = try strict.addRoute("POST https://h.example/")
        let scheme = try strict.addRoute("PUT app:///")
        let below = try strict.addRoute("GET /a/")
        #expect(try matchedID(strict, "/", method: "GET") == get)
        #expect(try matchedID(strict, "/?q=1#f", method: "GET") == get)
        #expect(try matchedID(strict, "https://h.example/", method: "POST") == host)
        #expect(try matchedID(strict, "https://h.example", method: "POST") == host)
        #expect(try matchedID(strict, "app://", method: "PUT") == scheme)
        #expect(try matchedID(strict, "/a/", method: "GET") == below)
        #expect(try strict.match("/a", method: "GET") == .notFound)
        #expect(try strict.url(for: "home", parameters: [:]) == "/")
        // The same shape as the root without a method: a conflict, as without a strict router.
        #expect(caught { () throws(InterlockError) in try strict.addRoute("GET ") }?.code == .conflict)
        for probe in [StaticProbeUse.always, .never] {
            let r = Router(options: .strictSlash, staticProbe: probe)
            let id = try r.addRoute("HEAD /")
            #expect(try matchedID(r, "/", method: "HEAD") == id)
            #expect(try matchedID(r, "/#f", method: nil) == id)
            #expect(try r.match("/", method: "GET") == .methodNotAllowed(allowed: ["HEAD"]))
        }
    }

    @Test func emptySegmentsAndDotSegmentsNeverMatchDifferently() throws {
        let r = Router()
        let id = try r.addRoute("/a/:x/c")
        #expect(try matchedID(r, "//a///b//c") == id)
        #expect(try matchedID(r, "/a/b/./c") == id)
        #expect(try matchedID(r, "/a/z/../b/c") == id)
    }
}

@Suite("Conflicts")
struct ConflictTests {
    @Test func sameShapeConflictsNamingTheExistingPattern() throws {
        let r = Router()
        try r.addRoute("GET /users/:id")
        let e = caught { () throws(InterlockError) in try r.addRoute("GET /users/:name") }
        #expect(e?.code == .conflict)
        #expect(e?.message.contains("GET /users/:id") == true)
        #expect(r.count == 1)
    }

    @Test func differentMethodSchemeHostOrConstraintDoNotConflict() throws {
        let r = Router()
        try r.addRoute("GET /users/:id")
        try r.addRoute("POST /users/:id")
        try r.addRoute("/users/:id")
        try r.addRoute("myapp://users/:id")
        try r.addRoute("https://a.example/users/:id")
        try r.addRoute("GET /users/:id(\\d+)")
        #expect(r.count == 6)
        #expect(caught { () throws(InterlockError) in try r.addRoute("GET /users/:x(\\d+)") }?.code == .conflict)
        #expect(caught { () throws(InterlockError) in try r.addRoute("https://A.example/users/:y") }?.code == .conflict)
    }

    @Test func optionalVariantsConflict() throws {
        let r = Router()
        try r.addRoute("/search")
        let e = caught { () throws(InterlockError) in try r.addRoute("/search(/:q)") }
        #expect(e?.code == .conflict && e?.message.contains("'/search'") == true)
        // The refused route left nothing behind.
        #expect(try r.match("/search/x") == .notFound)
    }

    @Test func catchAllNamesAside() throws {
        let r = Router()
        try r.addRoute("/f/*a")
        #expect(caught { () throws(InterlockError) in try r.addRoute("/f/*b") }?.code == .conflict)
        #expect(caught { () throws(InterlockError) in try r.addRoute("/f/*") }?.code == .conflict)
    }

    @Test func leadingSlashDoesNotMakeADifferentRoute() throws {
        let r = Router()
        try r.addRoute("user/:id")
        #expect(caught { () throws(InterlockError) in try r.addRoute("/user/:id") }?.code == .conflict)
    }

    @Test func duplicateNames() throws {
        let r = Router()
        try r.addRoute("/a", name: "home")
        #expect(caught { () throws(InterlockError) in try r.addRoute("/b", name: "home") }?.code == .conflict)
        #expect(r.route(named: "home")?.pattern.source == "/a")
    }
}
