import Testing
@testable import Interlock

@Suite("Route pattern grammar")
struct PatternGrammarTests {
    func parse(_ s: String, strict: Bool = false) throws(InterlockError) -> RoutePattern {
        try PatternParser.parse(s, strictSlash: strict)
    }

    @Test func methodSchemeAndHost() throws {
        let p = try parse("GET /users/:id")
        #expect(p.method == "GET")
        #expect(p.scheme == nil && p.host == nil)
        #expect(p.variants == [[.literal(Array("users".utf8)), .parameter(name: "id", constraint: nil)]])

        let deep = try parse("myapp://user/:id")
        #expect(deep.scheme == "myapp" && deep.host == nil)
        #expect(deep.variants == [[.literal(Array("user".utf8)), .parameter(name: "id", constraint: nil)]])

        let web = try parse("HTTPS://Example.COM/u/:id")
        #expect(web.scheme == "https" && web.host == "example.com")
        #expect(web.variants.first?.count == 2)
    }

    /// A registered route keeps its pattern without the parsed variants (the tree holds them) and
    /// gives the same pattern back.
    @Test func registeredRoutesGiveTheirPatternBack() throws {
        let source = "GET /search(/:query(/page/:n(\\d+)))/"
        let r = Router(options: .strictSlash)
        let id = try r.addRoute(source, name: "search")
        let other = try r.addRoute("POST /search/:query")
        let parsed = try parse(source, strict: true)
        #expect(r.route(id)?.pattern == parsed)
        #expect(r.route(id)?.pattern.variants == parsed.variants)
        #expect(r.route(id)?.pattern.variants.map(\.count) == [2, 3, 5])
        #expect(r.route(id)?.pattern.parameterNames == ["query", "n"])
        #expect(r.route(other)?.pattern.parameterNames == ["query"])
        // URL generation reads the variants again.
        #expect(try r.url(for: "search", parameters: ["query": "a b", "n": "2"]) == "/search/a%20b/page/2/")
        #expect(try r.url(for: "search", parameters: [:]) == "/search/")
    }

    @Test func leadingSlashIsOptional() throws {
        #expect(try parse("user/:id").variants == parse("/user/:id").variants)
        #expect(try parse("/").variants == [[]])
        #expect(try parse("").variants == [[]])
    }

    @Test func constraintsAndCatchAll() throws {
        let p = try parse("/a/:id(\\d+)/*rest")
        #expect(p.variants == [[.literal([0x61]), .parameter(name: "id", constraint: "\\d+"), .catchAll(name: "rest")]])
        #expect(p.parameterNames == ["id", "rest"])
        // Anchors are implied and dropped; groups inside a constraint are allowed.
        #expect(try parse("/:v(^(a|b)+$)").variants == [[.parameter(name: "v", constraint: "(a|b)+")]])
        #expect(try parse("/files/*").variants == [[.literal(Array("files".utf8)), .catchAll(name: "*")]])
    }

    @Test func optionalPartsExpand() throws {
        let p = try parse("/search(/:query(/page/:n))")
        #expect(p.variants.map(\.count) == [1, 2, 4])
        #expect(p.parameterNames == ["query", "n"])
        // "(" after a parameter, followed by "/", opens an optional part, not a constraint.
        #expect(try parse("/user/:id(/edit)").variants.map(\.count) == [2, 3])
        #expect(try parse("/a(/b)(/c)").variants.count == 4)
    }

    @Test func escapesAndNormalizedLiterals() throws {
        #expect(try parse("/a\\:b/\\*x\\(y\\)").variants == [[.literal(Array("a:b".utf8)), .literal(Array("*x(y)".utf8))]])
        // Escapes of unreserved characters are decoded, other bytes are escaped in upper-case hex.
        #expect(try parse("/%7euser/caf\u{e9}/a%2fb").variants
                == [[.literal(Array("~user".utf8)), .literal(Array("caf%C3%A9".utf8)), .literal(Array("a%2Fb".utf8))]])
    }

    @Test func trailingSlash() throws {
        #expect(try parse("/a/").variants == [[.literal([0x61])]])
        #expect(try parse("/a/", strict: true).variants == [[.literal([0x61]), .literal([])]])
        #expect(try parse("/", strict: true).variants == [[]])
    }

    /// (pattern, offset, words the message must contain)
    static let malformed: [(String, Int, String)] = [
        ("/a/(b", 3, "inside its parentheses"),
        ("/a/(b)", 3, "inside its parentheses"),
        ("/sp ace", 3, "space in pattern path"),
        ("app://x/a b", 9, "space in pattern path"),
        ("/a(b)", 2, "must begin with '/'"),
        ("/a(/b", 2, "unbalanced '('"),
        ("/a/b)", 4, "unbalanced ')'"),
        ("/a/:/b", 3, "empty parameter name"),
        ("/a/:id/:id", 7, "duplicate parameter name 'id'"),
        ("/a/:id(/:id)", 8, "duplicate"),
        ("/*rest/a", 1, "must be the last"),
        ("/*rest(/a)", 1, "must be the last"),
        ("/a/:id(\\d+", 6, "unbalanced '(' in constraint"),
        ("/a/:id([0-9)", 6, "unbalanced"),
        ("/a/:id(a{2,1})", 12, "invalid constraint"),
        ("/a/:id(\\d*)", 7, "empty string"),
        ("/a/:id(a|)", 7, "empty string"),
        ("/a/:id((?<x>a))", 7, "named groups"),
        ("/a/:id(a(*ACCEPT))", 8, "backtracking verbs"),
        ("/a/:id()", 6, "empty constraint"),
        ("/a//b", 3, "empty segment"),
        ("/a/:b:c", 5, "literal text between them"),
        ("/a/b*/c", 4, "last segment"),
        ("/a/:id*x", 6, "literal text between them"),
        ("/a?x=1", 2, "'?'"),
        ("/a/%zz", 3, "bad percent-escape"),
        ("/a/%00", 3, "NUL"),
        ("/a/%C3", 3, "UTF-8"),                       // where the sequence cut short begins
        ("/a/x%E2%82%41", 4, "UTF-8 once decoded"),
        ("/a/./b", 3, "'.' and '..'"),
        ("/a/../b", 3, "'.' and '..'"),
        ("G@T /a", 1, "method"),
        (" /a", 0, "begins with a space"),
        ("GET /a b", 6, "space in pattern path"),
        ("https:///a", 8, "no host"),
        ("https://example.com:0/a", 20, "port must be a number from 1 to 65535"),
        ("https://example.com:65536/a", 20, "port must be"),
        ("https://example.com:/a", 20, "port must be"),
        ("https://example.com:8a/a", 20, "port must be"),
        ("https://a*.example.com/x", 9, "whole first label"),
        ("https://*/x", 8, "whole first label"),
        ("https://x.*.example.com/x", 10, "whole first label"),
        ("https://a..b/x", 10, "empty label"),
        ("https://*..b/x", 10, "empty label"),
        // A constraint is compiled on its own, not inside a wrapper it could close: as
        // "(?n:...)\\z" this one's first branch, "(", had no end anchor and took any segment
        // beginning with "(".
        ("/r/:id(\\Q(\\E)|(?:x\\Q)\\E)", 12, "invalid constraint"),
        // Brackets only around an IP literal that is the whole host (no URI reaches any other).
        ("https://[a.example/x", 8, "unterminated IP literal"),
        ("https://a[b]/x", 9, "invalid character in host"),
        ("https://[::1]x/y", 13, "IP literal is the whole host"),
        ("https://[::1]:x/y", 14, "port must be"),
        ("https://[]/y", 8, "empty IP literal"),
        ("https://[a/b]/y", 8, "unterminated IP literal"),
        ("/a\u{1}b", 2, "control byte"),
        ("/a\\", 2, "'\\' at the end"),
    ]

    @Test(arguments: malformed)
    func malformedPatternsAreRefused(_ c: (String, Int, String)) {
        expectRefused(c.0, .pattern, at: c.1, saying: c.2) { () throws(InterlockError) in _ = try parse(c.0) }
    }

    @Test func anIPLiteralHostMatchesItsURIs() throws {
        let router = Router()
        let id = try router.addRoute("https://[::1]/x")
        #expect(try router.match("https://[::1]/x").routeMatch?.routeID == id)
        #expect(try router.match("https://[::1]:8443/x").routeMatch?.routeID == id)
        #expect(try router.match("https://[::2]/x") == .notFound)
    }

    @Test func limits() {
        let many = "/a" + String(repeating: "(/x)", count: 7)
        #expect(caught { () throws(InterlockError) in try parse(many) }?.code == .limit)
        let deep = String(repeating: "/s", count: 300)
        #expect(caught { () throws(InterlockError) in try parse(deep) }?.code == .limit)
        // Optional parts nested past the variant limit are refused where the first one too deep
        // opens, before any deeper recursion (100,000 levels overflowed the stack); 60 levels are
        // 61 variants, within it.
        func nested(_ n: Int) -> String { "/a" + String(repeating: "(/a", count: n) + String(repeating: ")", count: n) }
        #expect(caught { () throws(InterlockError) in try parse(nested(60)) } == nil)
        for n in [65, 100_000] {
            let error = caught { () throws(InterlockError) in try parse(nested(n)) }
            #expect(error?.code == .limit && error?.offset == 2 + 3 * 64, "\(error?.description ?? "no error")")
            #expect(error?.message.contains("nested more than 64 deep") == true)
        }
    }

    /// A scheme or host of up to 255 bytes is taken, and a longer one refused where it begins:
    /// a host of 70,000 bytes used to be accepted, then made every lookup on its router fail
    /// ("regular expression is too large", the table's regex holding it).
    @Test func schemeAndHostLengths() throws {
        let router = Router()
        try router.addRoute("GET /users/:id")
        let host = String(repeating: "h", count: 255), scheme = String(repeating: "s", count: 255)
        let withHost = try router.addRoute("GET https://\(host)/p/:x")
        let withScheme = try router.addRoute("GET \(scheme)://p/:x")
        #expect(try matchedID(router, "https://\(host)/p/1", method: "GET") == withHost)
        #expect(try matchedID(router, "\(scheme)://p/1", method: "GET") == withScheme)
        for (pattern, offset, what) in [("GET https://\(host)h/p/:x", 12, "host"), ("GET \(scheme)s://p/:x", 4, "scheme"),
                                        ("https://" + String(repeating: "h", count: 70_000) + "/p", 8, "host")] {
            let error = caught { () throws(InterlockError) in try router.addRoute(pattern) }
            #expect(error?.code == .limit && error?.offset == offset, "\(error?.description ?? "no error")")
            #expect(error?.message == "\(what) is longer than 255 bytes")
        }
        #expect(try matchedID(router, "/users/5", method: "GET") == 1)
    }
}
