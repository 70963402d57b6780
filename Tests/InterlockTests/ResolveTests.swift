import Testing
@testable import Interlock

struct Failure: Error, CustomStringConvertible {
    var description: String { "backend unavailable" }
}

@Suite("Resolving")
struct ResolveTests {
    @Test func requestCarriesEveryPart() throws {
        let r = Router()
        let id = try r.addRoute("GET https://shop.example.com/p/:sku", name: "product") { request, response in
            response.status = 202
            response.body = Array((request[parameter: "sku"] ?? "").utf8)
            response.addHeader("X-Pattern", request.route?.pattern.source ?? "")
        }
        let res = try r.resolve("HTTPS://Shop.Example.com:8443/p/caf%C3%A9/./?q=a+b&q=c&flag#sec%20two", method: "GET")
        #expect(res.status == .ok)
        #expect(res.response.status == 202)
        #expect(res.response.body == Array("café".utf8))
        #expect(res.response.headers.map(\.value) == ["GET https://shop.example.com/p/:sku"])
        let q = res.request
        #expect(q.uri == "HTTPS://Shop.Example.com:8443/p/caf%C3%A9/./?q=a+b&q=c&flag#sec%20two")
        #expect(q.method == "GET")
        #expect(q.scheme == "https" && q.host == "shop.example.com" && q.port == "8443")
        #expect(q.path == "/p/caf%C3%A9")
        #expect(q.query.all("q") == ["a b", "c"] && q.query["flag"] == "")
        #expect(q.fragment == "sec two")
        #expect(q.route?.id == id && q.route?.name == "product")
        #expect(q.parameters.map(\.name) == ["sku"])
    }

    /// A request keeps the URI's parts as bytes until one is changed: copies stay independent, and
    /// a change keeps every other part.
    @Test func requestsAreValuesWhoseChangesKeepTheOtherParts() throws {
        let r = Router()
        try r.addRoute("/u/:id/:tab") { _, _ in }
        let original = try r.resolve("https://h.example/u/7/%41b?x=1#f").request
        var changed = original
        changed.parameters[0].value = "8"
        changed.metadata["k"] = "v"
        #expect(original.parameters.map(\.value) == ["7", "Ab"] && original.metadata.isEmpty)
        #expect(changed.parameters.map(\.value) == ["8", "Ab"] && changed.metadata == ["k": "v"])
        #expect(changed.uri == original.uri && changed.path == "/u/7/Ab" && changed.host == "h.example")
        #expect(changed.query["x"] == "1" && changed.fragment == "f" && changed.scheme == "https")
        var moved = changed
        moved.path = "/elsewhere"
        moved.uri = "/elsewhere"
        #expect(moved.path == "/elsewhere" && changed.path == "/u/7/Ab")
        #expect(moved.parameters.map(\.value) == ["8", "Ab"] && moved[parameter: "tab"] == "Ab")
        #expect(moved.parameterCount == 2 && original.parameterCount == 2)
        let made = Request(uri: "/given", method: "GET")
        #expect(made.path == "/" && made.uri == "/given" && made.route == nil && made.parameters.isEmpty)
        // The trace's match entry names the URI as received, whatever the request became.
        let trace = try r.resolve("/u/1/2").trace
        #expect(trace.first?.stage == .match && trace.first?.name == "/u/1/2")
    }

    @Test func notFoundDefaultAndMethodNotAllowed() throws {
        let r = Router()
        try r.addRoute("GET /a") { _, _ in }
        #expect(try r.resolve("/b").status == .notFound)
        #expect(try r.resolve("/a", method: "POST").status == .methodNotAllowed(allowed: ["GET"]))
        r.defaultDestination = { request, response in
            response.status = 404
            response.body = Array(request.path.utf8)
        }
        let res = try r.resolve("/b/../c")
        #expect(res.status == .ok && res.response.status == 404 && res.response.body == Array("/c".utf8))
        #expect(res.request.route == nil && res.request.parameters.isEmpty)
        // A route without destination still resolves, with nothing run.
        try r.addRoute("/quiet")
        let quiet = try r.resolve("/quiet")
        #expect(quiet.status == .ok && quiet.request.route?.pattern.source == "/quiet")
    }

    /// The response says what happened: 404 when nothing ran, 405 with an `Allow` header, and
    /// after too many retries the last attempt's response (each was an empty 200 before).
    @Test func responsesSayWhatHappened() throws {
        let r = Router()
        try r.addRoute("GET /m") { _, _ in }
        try r.addRoute("PUT /m") { _, _ in }
        let wrong = try r.resolve("/m", method: "POST")
        #expect(wrong.status == .methodNotAllowed(allowed: ["GET", "PUT"]))
        #expect(wrong.response.status == 405)
        #expect(wrong.response.headers.map { "\($0.name): \($0.value)" } == ["Allow: GET, PUT"])
        #expect(try r.resolve("/none").response.status == 404)
        let id = try r.addRoute("/busy") { _, response in response.status = 503 }
        try r.addResponseInterceptor(ResponseInterceptor(name: "again") { _, _ in .retry }, route: id)
        let retried = try r.resolve("/busy")
        #expect(retried.status == .retryLimit && retried.response.status == 503)
    }

    /// A status outside 100...599 left by a Swift callback ends the resolve with an error naming
    /// it (the C and Python doors refuse it when it is set).
    @Test func statusesOutsideTheirRangeAreErrors() throws {
        let r = Router()
        try r.addRoute("/low") { _, response in response.status = 99 }
        try r.addRoute("/high") { _, response in response.status = 1_000_000 }
        try r.addRoute("/edge") { _, response in response.status = 599 }
        #expect(try r.resolve("/low").status == .error("response status 99 is outside 100...599"))
        #expect(try r.resolve("/high").status == .error("response status 1000000 is outside 100...599"))
        #expect(try r.resolve("/edge").response.status == 599)
    }

    /// A filter decides once: calling `next` and then stopping or redirecting is an error naming
    /// it (with stop the result said "stopped" though the destination ran; with a redirect both
    /// destinations ran).
    @Test func aFilterThatCalledNextCannotStopOrRedirect() throws {
        let r = Router()
        let ran = Log()
        try r.addRoute("/a") { _, _ in ran.add("a") }
        try r.addRoute("/b", name: "b") { _, _ in ran.add("b") }
        r.addFilter(Filter(name: "late") { request, chain in
            _ = try chain.next(request)
            return request.path == "/a" ? .stop : .redirect("/b")
        })
        let stopped = try r.resolve("/a")
        #expect(stopped.status == .error("filter 'late' called next and then returned stop; a filter that calls next passes on what it gave (the destination already ran)"))
        let redirected = try r.resolve("/c")
        #expect(redirected.status == .error("filter 'late' called next and then returned redirect; a filter that calls next passes on what it gave (the destination already ran)"))
        #expect(redirected.redirects.isEmpty && ran.all == ["a"])
    }

    /// Setting a parameter to nil removes it: the destination no longer sees it.
    @Test func removedParametersDoNotReachTheDestination() throws {
        let r = Router()
        let seen = Log()
        try r.addRoute("/p/:a/:b") { request, _ in
            seen.add(request.parameters.map { "\($0.name)=\($0.value)" }.joined(separator: ","))
        }
        try r.addRequestInterceptor(RequestInterceptor(name: "unset") { request in
            request[parameter: "a"] = nil
            request[parameter: "c"] = "3"
            request[parameter: "b"] = "two"
            return .proceed
        })
        _ = try r.resolve("/p/1/2")
        #expect(seen.all == ["b=two,c=3"])
    }

    @Test func destinationErrorsEndTheResolveAndTheRouterStaysUsable() throws {
        let r = Router()
        try r.addRoute("/fail") { _, _ in throw Failure() }
        try r.addRoute("/ok") { _, response in response.status = 201 }
        #expect(try r.resolve("/fail").status == .error("backend unavailable"))
        #expect(try r.resolve("/ok").response.status == 201)
    }

    @Test func malformedURIsThrow() {
        let r = Router()
        let e = caught { () throws(InterlockError) in try r.resolve("/a%zz") }
        #expect(e?.code == .uri && e?.offset == 2)
        #expect(caught { () throws(InterlockError) in try r.resolve("/a", method: "BAD METHOD") }?.code == .invalidArgument)
    }

    /// A resolve's method is checked as a lookup's is, whatever its length, and each resolve on a
    /// router (which reuses its runs) reads its own.
    @Test func methodsAreCheckedAndNeverCarriedOver() throws {
        let r = Router()
        try r.addRoute("GET /a") { _, response in response.status = 200 }
        let bad = caught { () throws(InterlockError) in try r.resolve("/a", method: "GE T") }
        #expect(bad?.code == .invalidArgument && bad?.offset == 2)
        // "" is any method at every door, as nil is (the batch's methods cannot say nil).
        let empty = try r.resolve("/a", method: "")
        #expect(empty.status == .ok && empty.request.method == nil)
        let long = String(repeating: "X", count: maximumMethodLength + 1)
        #expect(caught { () throws(InterlockError) in try r.resolve("/a", method: long) }?.message
                == "method is longer than \(maximumMethodLength) bytes")
        let longest = String(repeating: "X", count: maximumMethodLength)
        #expect(try r.resolve("/a", method: longest).status == .methodNotAllowed(allowed: ["GET"]))
        #expect(try r.resolve("/a", method: "GET").status == .ok)
        #expect(try r.resolve("/a", method: "POST").status == .methodNotAllowed(allowed: ["GET"]))
        #expect(try r.resolve("/a").status == .ok)
        #expect(try r.resolve("/a", method: "GET").request.method == "GET")
    }

    @Test func destinationsMayResolveAndAddRoutes() throws {
        let r = Router()
        try r.addRoute("/outer") { _, response in
            let inner = try r.resolve("/inner")
            response.body = inner.response.body
            try r.addRoute("/added-later")
        }
        try r.addRoute("/inner") { _, response in response.body = Array("inner".utf8) }
        #expect(try r.resolve("/outer").response.body == Array("inner".utf8))
        #expect(try r.resolve("/added-later").status == .ok)
    }

    /// A resolve reads what runs around a route from the pipeline it began with: a destination
    /// replaced between resolves runs from the next one, and a route a filter adds mid-resolve
    /// (newer than that pipeline) runs its own destination when the filter redirects to it.
    @Test func routePartsChangedBetweenOrDuringResolvesAreTheOnesThatRun() throws {
        let r = Router()
        let a = try r.addRoute("/a") { _, response in response.body = Array("first".utf8) }
        #expect(try r.resolve("/a").response.body == Array("first".utf8))
        try r.setDestination({ _, response in response.body = Array("second".utf8) }, for: a)
        #expect(try r.resolve("/a").response.body == Array("second".utf8))
        try r.setGuard({ _ in false }, for: a)
        #expect(try r.resolve("/a").status == .guarded)

        r.addFilter(Filter(name: "maker") { request, chain in
            guard request.path == "/start" else { return .proceed(try chain.next(request)) }
            try r.addRoute("/made") { _, response in response.body = Array("made".utf8) }
            return .redirect("/made")
        })
        let made = try r.resolve("/start")
        #expect(made.status == .ok)
        #expect(made.response.body == Array("made".utf8))
        #expect(made.redirects == ["/made"])
        #expect(try r.resolve("/made").response.body == Array("made".utf8))
    }
}
