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
}
