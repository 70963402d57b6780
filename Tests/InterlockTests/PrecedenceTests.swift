import Testing
@testable import Interlock

@Suite("Which route wins")
struct PrecedenceTests {
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

    /// The all-literal probe sees a route added between lookups, and folds case on a
    /// case-insensitive router (the rules themselves: spec/conformance, precedence.json).
    @Test func allLiteralPathsSeeChangesAndFoldCase() throws {
        let r = Router()
        let getStatic = try r.addRoute("GET /users/admin")
        try r.addRoute("/users/:id")
        #expect(try matchedID(r, "/users/admin", method: "GET") == getStatic)
        let later = try r.addRoute("PUT /users/admin")
        #expect(try matchedID(r, "/users/admin", method: "PUT") == later)
        let ci = Router(options: .caseInsensitive)
        let root = try ci.addRoute("GET /")
        let upper = try ci.addRoute("/Docs/Intro")
        #expect(try matchedID(ci, "/docs/INTRO") == upper)
        #expect(try matchedID(ci, "https://x.example", method: "GET") == root)
        // Literals that differ only in case are one shape there.
        try ci.addRoute("GET /Users/:id")
        #expect(caught { () throws(InterlockError) in try ci.addRoute("GET /users/:x") }?.code == .conflict)
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

}

@Suite("Conflicts")
struct ConflictTests {
    @Test func optionalVariantsConflict() throws {
        let r = Router()
        try r.addRoute("/search")
        let e = caught { () throws(InterlockError) in try r.addRoute("/search(/:q)") }
        #expect(e?.code == .conflict && e?.message.contains("'/search'") == true)
        // The refused route left nothing behind.
        #expect(try r.match("/search/x") == .notFound)
    }

    @Test func duplicateNames() throws {
        let r = Router()
        try r.addRoute("/a", name: "home")
        #expect(caught { () throws(InterlockError) in try r.addRoute("/b", name: "home") }?.code == .conflict)
        #expect(r.route(named: "home")?.pattern.source == "/a")
    }
}
