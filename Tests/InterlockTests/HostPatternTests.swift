import Testing
@testable import Interlock

/// Hosts in patterns: wildcards of whole labels, ports, IP literals, and which wins.
@Suite("Hosts and ports")
struct HostPatternTests {
    /// Every shape: the default, dispatch nodes everywhere, and the all-literal table tried first.
    static func routers() -> [Router] {
        [Router(), Router(walkUnits: false, unitBudget: 1), Router(staticProbe: .always)]
    }

    @Test func wildcardsTakeWholeLabels() throws {
        for r in Self.routers() {
            let id = try r.addRoute("https://*.example.com/a")
            func routeID(_ uri: String) throws -> RouteID? { try r.match(uri).routeMatch?.routeID }
            #expect(try routeID("https://api.example.com/a") == id)
            #expect(try routeID("https://a.b.example.com/a") == id)        // one or more labels
            #expect(try routeID("https://API.Example.COM/a") == id)
            #expect(try routeID("https://example.com/a") == nil)           // no label before the suffix
            #expect(try routeID("https://apiexample.com/a") == nil)        // the suffix is whole labels
            #expect(try routeID("https://api.example.com.evil/a") == nil)
            #expect(try routeID("http://api.example.com/a") == nil)        // the scheme still counts
        }
    }

    @Test func portsAreTheURIsOrTheSchemesDefault() throws {
        for r in Self.routers() {
            let tls = try r.addRoute("https://example.com:8443/a")
            let standard = try r.addRoute("https://example.com:443/a")
            let any = try r.addRoute("https://example.com/b")
            func routeID(_ uri: String) throws -> RouteID? { try r.match(uri).routeMatch?.routeID }
            #expect(try routeID("https://example.com:8443/a") == tls)
            #expect(try routeID("https://example.com:08443/a") == tls)
            #expect(try routeID("https://example.com/a") == standard)      // https's default
            #expect(try routeID("https://example.com:443/a") == standard)
            #expect(try routeID("https://example.com:80/a") == nil)
            #expect(try routeID("https://example.com:9/b") == any)         // no port: any port
            #expect(try routeID("https://example.com/b") == any)
        }
    }

    @Test func wsDefaultsToPort80AndWssTo443() throws {
        for r in Self.routers() {
            let ws = try r.addRoute("ws://example.com:80/x")
            let wss = try r.addRoute("wss://example.com:443/x")
            #expect(try r.match("ws://example.com/x").routeMatch?.routeID == ws)
            #expect(try r.match("wss://example.com/x").routeMatch?.routeID == wss)
            #expect(try r.match("ws://example.com:443/x") == .notFound)
        }
    }

    @Test func aWildcardHostCannotHaveAParameterCalledHost() {
        let e = caught { () throws(InterlockError) in try Router().addRoute("https://*.example.com/u/:host") }
        #expect(e?.code == .pattern && e?.message.contains("'host'") == true)
    }

    @Test func anExactHostBeatsAWildcardALongerSuffixAShorterOneAndAnyWildcardNoHost() throws {
        for r in Self.routers() {
            let none = try r.addRoute("/p")
            let short = try r.addRoute("https://*.com/p")
            let long = try r.addRoute("https://*.example.com/p")
            let exact = try r.addRoute("https://api.example.com/p")
            let port = try r.addRoute("https://*.example.com:8443/p")
            func routeID(_ uri: String) throws -> RouteID? { try r.match(uri).routeMatch?.routeID }
            #expect(try routeID("https://api.example.com/p") == exact)
            #expect(try routeID("https://www.example.com/p") == long)
            #expect(try routeID("https://www.example.com:8443/p") == port)   // a port beats none
            #expect(try routeID("https://www.other.com/p") == short)
            #expect(try routeID("https://other.org/p") == none)
            #expect(try routeID("/p") == none)
        }
    }

    @Test func ipLiteralsAreHostsWithPorts() throws {
        for r in Self.routers() {
            let any = try r.addRoute("https://[::1]/x")
            let port = try r.addRoute("https://[::1]:8080/x")
            #expect(try r.match("https://[::1]/x").routeMatch?.routeID == any)
            #expect(try r.match("https://[::1]:8080/x").routeMatch?.routeID == port)
        }
    }

    @Test func conflictsCountHostsAndPorts() throws {
        let r = Router()
        try r.addRoute("https://*.example.com/a")
        try r.addRoute("https://example.com/a")
        try r.addRoute("https://*.example.com:8443/a")
        #expect(caught { () throws(InterlockError) in try r.addRoute("https://*.Example.com/a") }?.code == .conflict)
        #expect(caught { () throws(InterlockError) in try r.addRoute("https://*.example.com:8443/a") }?.code == .conflict)
    }

    @Test func urlsOfWildcardHostsNeedTheHost() throws {
        let r = Router()
        try r.addRoute("https://*.example.com:8443/u/:id", name: "user")
        #expect(try r.url(for: "user", parameters: ["id": "7", "host": "API.example.com"]) == "https://api.example.com:8443/u/7")
        let missing = caught { () throws(InterlockError) in try r.url(for: "user", parameters: ["id": "7"]) }
        #expect(missing?.code == .invalidArgument && missing?.message.contains("'host'") == true)
        let wrong = caught { () throws(InterlockError) in try r.url(for: "user", parameters: ["id": "7", "host": "example.com"]) }
        #expect(wrong?.code == .invalidArgument)
        let other = caught { () throws(InterlockError) in try r.url(for: "user", parameters: ["id": "7", "host": "a.example.org"]) }
        #expect(other?.code == .invalidArgument)
    }

    /// A host spelt otherwise (escapes, case, a trailing dot) is the same host: its route is not
    /// passed by for a route of any host. The answer, explain's winner and the request's host agree.
    @Test func aHostSpeltOtherwiseIsTheSameHost() throws {
        for r in Self.routers() {
            let admin = try r.addRoute("https://admin.example.com/*rest")
            let any = try r.addRoute("/*rest")
            try expectOneHost(r, ["https://admin.example.com/x", "https://%61dmin.example.com/x", "https://admin.example.com./x",
                                  "https://%41DMIN.Example.COM.:443/x", "https://admin%2Eexample.com/x"],
                              route: admin, host: "admin.example.com")
            #expect(try matchedID(r, "https://admin.example.org/x") == any)
        }
    }

    @Test func ipv6LiteralsAreOneHostHoweverWritten() throws {
        for r in Self.routers() {
            let loopback = try r.addRoute("https://[::1]/x")
            let written = try r.addRoute("https://[2001:0DB8:0:0:0:0:0:1]:8443/y")
            for uri in ["https://[0:0:0:0:0:0:0:1]/x", "https://[0::1]/x", "https://[::0:1]/x", "https://[::0.0.0.1]/x"] {
                #expect(try matchedID(r, uri) == loopback, "\(uri)")
                #expect(try r.explain(uri).candidates.first { $0.rejection == nil }?.routeID == loopback, "\(uri)")
                #expect(try r.resolve(uri).request.host == "[::1]", "\(uri)")
            }
            #expect(try matchedID(r, "https://[2001:db8::1]:8443/y") == written)
            #expect(try matchedID(r, "https://[::2]/x") == nil)
        }
    }

    /// An IPv4 address spelt as resolvers also read it (fewer parts, hex, octal, one number) is the
    /// address: a route on 127.0.0.1 is not passed by for 127.1.
    @Test func ipv4AddressesAreOneHostHoweverWritten() throws {
        for r in Self.routers() {
            let local = try r.addRoute("https://127.0.0.1/admin")
            let written = try r.addRoute("https://0x7f.1/other")
            try r.addRoute("/*rest")
            try expectOneHost(r, ["https://127.1/admin", "https://2130706433/admin", "https://0177.0.0.1/admin", "https://0x7F.0.0.1./admin"],
                              route: local, host: "127.0.0.1")
            #expect(try matchedID(r, "https://127.0.0.1/other") == written)
        }
    }

    @Test func wildcardsTakeHostsSpeltOtherwise() throws {
        for r in Self.routers() {
            let id = try r.addRoute("https://*.example.com/w/:a")
            #expect(try matchedID(r, "https://x.example.com./w/v") == id)
            #expect(try matchedID(r, "https://x%2Eexample.com/w/v") == id)
            #expect(try matchedID(r, "https://x.Example.%63om/w/v") == id)
        }
    }

    /// An empty label is refused at every door, not matched by a wildcard at one and refused by another.
    @Test func emptyLabelsAreRefusedByMatchAndExplainAlike() throws {
        let r = Router()
        try r.addRoute("https://*.example.com/w/:a")
        for uri in ["https://a..example.com/w/v", "https://..example.com/w/v", "https://x.example.com../w/v"] {
            #expect(caught { () throws(InterlockError) in try r.match(uri) }?.code == .uri, "\(uri)")
            #expect(caught { () throws(InterlockError) in try r.explain(uri) }?.code == .uri, "\(uri)")
            #expect(caught { () throws(InterlockError) in try r.resolve(uri) }?.code == .uri, "\(uri)")
        }
    }

    /// A pattern's host is normalized as a URI's is: spellings of one host are one route.
    @Test func patternHostsAreNormalized() throws {
        let r = Router()
        let id = try r.addRoute("https://Admin.Example.com./x")
        #expect(r.route(id)?.pattern.host == "admin.example.com")
        #expect(try matchedID(r, "https://admin.example.com/x") == id)
        let conflict = caught { () throws(InterlockError) in try r.addRoute("https://%61dmin.example.com/x") }
        #expect(conflict?.code == .conflict)
        let wildcard = try r.addRoute("https://*.Example.com./y")
        #expect(r.route(wildcard)?.pattern.host == "*.example.com")
        let v6 = try r.addRoute("https://[0:0:0:0:0:0:0:1]/z")
        #expect(r.route(v6)?.pattern.host == "[::1]")
        #expect(try matchedID(r, "https://[::1]/z") == v6)
    }

    static let badPatternHosts: [(String, Int, String)] = [
        ("https://a..example.com/x", 10, "empty label"),
        ("https://example.com../x", 20, "empty label"),
        ("https://./x", 8, "empty label"),
        ("https://*./x", 8, "'*'"),
        ("https://a%2Fb.com/x", 9, "decodes to a byte"),
        ("https://a%21b.com/x", 9, "decodes to a byte"),
        ("https://a!b.com/x", 9, "invalid character in host"),
        ("https://[1::2::3]/x", 13, "two '::'"),
        ("https://[fe80::1%25eth0]/x", 16, "zone identifier"),
        ("https://[::1.2.3.4.5]/x", 18, "IPv4"),
        ("https://*.0.1/x", 10, "wildcard host's suffix cannot end in a number"),
        ("https://1.2.3.256/x", 14, "out of range"),
        ("https://a.1/x", 8, "not an IPv4 address"),
    ]

    @Test(arguments: badPatternHosts)
    func malformedPatternHostsAreRefused(_ c: (String, Int, String)) {
        expectRefused(c.0, .pattern, at: c.1, saying: c.2) { () throws(InterlockError) in _ = try Router().addRoute(c.0) }
    }
}

/// Expects every URI of `uris` (one host spelt several ways) to match `route`, explain to say so,
/// and a resolve's request to carry the host's one spelling, `host`.
private func expectOneHost(_ r: Router, _ uris: [String], route: RouteID, host: String,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
    for uri in uris {
        #expect(try matchedID(r, uri) == route, "\(uri)", sourceLocation: sourceLocation)
        #expect(try r.explain(uri).candidates.first { $0.rejection == nil }?.routeID == route, "\(uri)", sourceLocation: sourceLocation)
        #expect(try r.resolve(uri).request.host == host, "\(uri)", sourceLocation: sourceLocation)
    }
}
