import Synchronization
import Testing
@testable import Interlock

/// Collects what ran, in order, from any callback.
final class Log: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ s: String) { lines.withLock { $0.append(s) } }
    var all: [String] { lines.withLock { $0 } }
}

func requestLogger(_ log: Log, _ name: String) -> RequestInterceptor {
    RequestInterceptor(name: name) { _ in log.add(name); return .proceed }
}

func responseLogger(_ log: Log, _ name: String) -> ResponseInterceptor {
    ResponseInterceptor(name: name) { _, _ in log.add(name); return .proceed }
}

@Suite("Pipeline")
struct PipelineTests {
    @Test func traceRecordsAreSixteenBytes() {
        // A resolve writes one record per stage into the run's inline buffer and moves it into the
        // resolution: the layout (subject first, the rest in its padding) keeps that buffer small.
        #expect(MemoryLayout<TraceLog.Record>.stride == 16)
    }

    @Test func stagesRunInTheNormativeOrder() throws {
        let log = Log()
        let r = Router()
        let id = try r.addRoute("/a/:x", name: "a", guard: { _ in log.add("guard"); return true }) { _, _ in log.add("destination") }
        try r.addRequestInterceptor(requestLogger(log, "global-req-1"))
        try r.addRequestInterceptor(requestLogger(log, "route-req-1"), route: id)
        try r.addRequestInterceptor(requestLogger(log, "global-req-2"))
        try r.addRequestInterceptor(requestLogger(log, "route-req-2"), route: id)
        try r.addResponseInterceptor(responseLogger(log, "route-res-1"), route: id)
        try r.addResponseInterceptor(responseLogger(log, "global-res-1"))
        try r.addResponseInterceptor(responseLogger(log, "route-res-2"), route: id)
        try r.addResponseInterceptor(responseLogger(log, "global-res-2"))
        r.addFilter(Filter(name: "f1") { req, chain in log.add("f1-in"); let d = try chain.next(req); log.add("f1-out"); return .proceed(d) })
        r.addFilter(Filter(name: "f2") { req, chain in log.add("f2-in"); let d = try chain.next(req); log.add("f2-out"); return .proceed(d) })
        let res = try r.resolve("/a/1")
        #expect(res.status == .ok)
        #expect(log.all == ["route-req-1", "route-req-2", "global-req-1", "global-req-2", "f1-in", "f2-in", "guard",
                            "destination", "global-res-1", "global-res-2", "route-res-1", "route-res-2", "f2-out", "f1-out"])
        #expect(res.trace.map(\.stage) == [.match, .requestInterceptor, .requestInterceptor, .requestInterceptor, .requestInterceptor,
                                           .filter, .filter, .guard, .destination, .responseInterceptor, .responseInterceptor,
                                           .responseInterceptor, .responseInterceptor])
        #expect(res.trace.first == TraceEntry(stage: .match, name: "/a/1", decision: "a"))
        #expect(res.trace[5] == TraceEntry(stage: .filter, name: "f1", decision: "continue"))
        #expect(res.trace[7] == TraceEntry(stage: .guard, name: "a", decision: "allow"))
    }

    @Test func filtersRunForUnmatchedRequestsAndMayActOnTheResult() throws {
        let r = Router()
        r.addFilter(Filter(name: "stamp") { req, chain in
            var d = try chain.next(req)
            d.response.addHeader("X-Filtered", "yes")
            return .proceed(d)
        })
        r.defaultDestination = { _, response in response.status = 404 }
        let res = try r.resolve("/nowhere")
        #expect(res.status == .ok)
        #expect(res.response.status == 404)
        #expect(res.response.headers.map(\.name) == ["X-Filtered"])
    }

    /// A filter that changes the request's route sends it to that route's guard, destination and
    /// scoped interceptors; one that clears it, to the default destination.
    @Test func aRouteAFilterSetsIsTheOneThatRuns() throws {
        let r = Router()
        try r.addRoute("/a") { _, response in response.body = Array("a".utf8) }
        let b = try r.addRoute("/b", name: "b", guard: { _ in true }) { _, response in response.body = Array("b".utf8) }
        try r.addResponseInterceptor(ResponseInterceptor(name: "b-scope") { response, _ in
            response.addHeader("X-Scope", "b")
            return .proceed
        }, route: b)
        let routeB = try #require(r.route(b))
        r.addFilter(Filter(name: "swap") { req, chain in
            var next = req
            if req.path == "/a" { next.route = routeB } else if req.path == "/b" { next.route = nil }
            return .proceed(try chain.next(next))
        })
        r.defaultDestination = { _, response in response.body = Array("default".utf8) }
        let swapped = try r.resolve("/a")
        #expect(swapped.response.body == Array("b".utf8) && swapped.response.headers.map(\.value) == ["b"])
        #expect(swapped.trace.map(\.description).suffix(3) == ["guard b: allow", "destination b: ran", "response-interceptor b-scope: continue"])
        let cleared = try r.resolve("/b")
        #expect(cleared.response.body == Array("default".utf8) && cleared.response.headers.isEmpty)
    }

    @Test func stopEndsWithoutTheDestination() throws {
        let log = Log()
        let r = Router()
        try r.addRoute("/a") { _, _ in log.add("destination") }
        r.addFilter(Filter(name: "gate") { _, _ in .stop })
        let res = try r.resolve("/a")
        #expect(res.status == .stopped)
        #expect(log.all.isEmpty)
        #expect(res.trace.last == TraceEntry(stage: .filter, name: "gate", decision: "stop"))
    }

    /// A filter that stops may answer (a 401): the result is `stopped` with its response, and no
    /// destination runs; a filter that answers after calling next is an error, as a stop is.
    @Test func aFilterStopsWithAResponse() throws {
        let log = Log()
        let r = Router()
        try r.addRoute("/a") { _, _ in log.add("destination") }
        try r.addRoute("/late") { _, _ in log.add("late destination") }
        r.addFilter(Filter(name: "gate") { request, chain in
            var denied = Response()
            denied.status = 401
            denied.body = Array("no".utf8)
            if request.path == "/a" { return .respond(denied) }
            _ = try chain.next(request)
            return .respond(denied)
        })
        let res = try r.resolve("/a")
        #expect(res.status == .stopped && res.response.status == 401 && res.response.body == Array("no".utf8))
        #expect(log.all.isEmpty)
        #expect(res.trace.last == TraceEntry(stage: .filter, name: "gate", decision: "stop"))
        let late = try r.resolve("/late")
        if case .error = late.status {} else { Issue.record("a respond after next must be an error: \(late.status)") }
        #expect(log.all == ["late destination"])
    }

    @Test func nextTwiceIsAnErrorAndTheDestinationRunsOnce() throws {
        let log = Log()
        let r = Router()
        try r.addRoute("/a") { _, _ in log.add("destination") }
        r.addFilter(Filter(name: "twice") { req, chain in
            _ = try chain.next(req)
            return .proceed(try chain.next(req))
        })
        let res = try r.resolve("/a")
        guard case .error(let message) = res.status else { Issue.record("expected an error, got \(res.status)"); return }
        #expect(message.contains("twice"))
        #expect(log.all == ["destination"])
        // The router stays usable.
        r.addFilter(Filter(name: "noop") { req, chain in .proceed(try chain.next(req)) })
    }

    @Test func aChainKeptPastItsResolveRunsNothing() throws {
        let log = Log()
        let r = Router()
        try r.addRoute("/a") { _, _ in log.add("destination") }
        let kept = Mutex<FilterChain?>(nil)
        r.addFilter(Filter(name: "keeper") { _, chain in
            kept.withLock { $0 = chain }
            return .stop                         // next not called: the chain is still unused
        })
        #expect(try r.resolve("/a").status == .stopped)
        let chain = try #require(kept.withLock { $0 })
        #expect { try chain.next(Request(uri: "/a")) } throws: { error in
            (error as? InterlockError)?.description.contains("after its request was resolved") == true
        }
        #expect(log.all.isEmpty)
    }

    /// A chain kept from one resolve and called while a later one runs (on a router whose
    /// resolves reuse their state) runs nothing of the later one.
    @Test func aKeptChainCalledDuringALaterResolveRunsNothing() throws {
        let log = Log()
        let r = Router()
        let kept = Mutex<FilterChain?>(nil)
        let lateCall = Mutex<String?>(nil)
        try r.addRoute("/a") { _, _ in
            log.add("destination")
            if let chain = kept.withLock({ $0 }) {
                do { _ = try chain.next(Request(uri: "/a")) } catch { lateCall.withLock { $0 = "\(error)" } }
            }
        }
        r.addFilter(Filter(name: "keeper") { request, chain in
            if kept.withLock({ $0 }) == nil { kept.withLock { $0 = chain }; return .stop }
            return .proceed(try chain.next(request))
        })
        #expect(try r.resolve("/a").status == .stopped)
        for _ in 0..<3 { #expect(try r.resolve("/a").status == .ok) }
        #expect(log.all == ["destination", "destination", "destination"])
        #expect(lateCall.withLock { $0 }?.contains("after its request was resolved") == true)
    }

    /// What one resolve recorded (trace, redirects, state, method) never shows in the next,
    /// though the router reuses the state a resolve runs with.
    @Test func eachResolveStartsClean() throws {
        let r = Router()
        try r.addRoute("/old") { _, _ in }
        try r.addRoute("/new") { request, response in response.body = Array((request.state.string("k") ?? "-").utf8) }
        try r.addRoute("/other") { request, response in response.body = Array((request.state.string("k") ?? "-").utf8) }
        r.addFilter(Filter(name: "move") { request, chain in
            request.state["k"] = "set"
            if request.path == "/old" { return .redirect("/new") }
            return .proceed(try chain.next(request))
        })
        let first = try r.resolve("/old", method: "GET")
        #expect(first.redirects == ["/new"] && first.response.body == Array("set".utf8))
        let firstTrace = first.trace.map(\.description)
        let second = try r.resolve("/other", method: "POST")
        #expect(second.redirects.isEmpty)
        #expect(second.request.method == "POST")
        #expect(second.trace.map(\.description) == ["match /other: /other", "filter move: continue", "destination /other: ran"])
        #expect(first.trace.map(\.description) == firstTrace)         // the first resolution is unchanged
        #expect(first.state !== second.state)
        let plain = Router()
        try plain.addRoute("/x") { request, response in response.body = Array((request.state.string("k") ?? "-").utf8) }
        _ = try plain.resolve("/x")
        plain.addFilter(Filter(name: "late") { request, chain in .proceed(try chain.next(request)) })
        #expect(try plain.resolve("/x").trace.map(\.name).contains("late"))   // a change reaches the next resolve
    }

    /// A replaced default destination is let go of by the resolves after the change (the state
    /// they reuse belongs to the pipeline as it was).
    @Test func aReplacedDefaultDestinationIsLetGo() throws {
        final class Captured: Sendable {}
        weak var captured: Captured?
        let r = Router()
        do {
            let object = Captured()
            captured = object
            r.defaultDestination = { _, _ in _ = object }
            #expect(try r.resolve("/nothing").status == .ok)
        }
        r.defaultDestination = { _, _ in }
        #expect(try r.resolve("/nothing").status == .ok)
        #expect(captured == nil)
    }

    /// Setting a route's destination or guard, or the default destination, changes the table of
    /// what runs around each route in place: no copy of it while no resolve holds it. (Keeping
    /// the whole pipeline as it was until after the lock copied the table at every change, so
    /// adding 100,000 routes with destinations took 88 s instead of 0.6.) A resolve takes a
    /// snapshot that shares the table: the first change after it copies the page it writes, once.
    @Test func changingCallbacksCopiesNoTable() throws {
        let r = Router()
        func copied() -> Int { r.state.withLock { $0.pipeline.routes.copied } }
        var ids: [RouteID] = []
        for i in 0..<64 { ids.append(try r.addRoute("/r\(i)") { _, _ in }) }
        for id in ids {
            try r.setDestination({ _, _ in }, for: id)
            try r.setGuard({ _ in true }, for: id)
        }
        r.defaultDestination = { _, _ in }
        #expect(copied() == 0)
        #expect(try r.resolve("/r1").status == .ok)
        try r.setDestination({ _, _ in }, for: ids[0])
        #expect(copied() == 64 + 1)     // the page's parts, its directory's one page pointer
        try r.setDestination({ _, _ in }, for: ids[1])
        #expect(copied() == 64 + 1)
    }

    /// Past 64 filters the once-only rule still holds (their marks are kept apart).
    @Test func nextTwiceIsCaughtPastSixtyFourFilters() throws {
        let r = Router()
        let ran = Mutex(0)
        try r.addRoute("/a") { _, _ in ran.withLock { $0 += 1 } }
        for i in 0..<70 { r.addFilter(Filter(name: "f\(i)") { req, chain in .proceed(try chain.next(req)) }) }
        #expect(try r.resolve("/a").status == .ok)
        r.addFilter(Filter(name: "last") { req, chain in
            _ = try chain.next(req)
            return .proceed(try chain.next(req))
        })
        guard case .error(let message) = try r.resolve("/a").status else { Issue.record("expected an error"); return }
        #expect(message.contains("'last' called next twice"))
        #expect(ran.withLock { $0 } == 2)
    }

    @Test func redirectsRunThePipelineAgainWithTheSameState() throws {
        let r = Router()
        try r.addRoute("/old/:id") { _, _ in Issue.record("the old destination ran") }
        try r.addRoute("/new/:id", name: "new") { request, response in
            response.body = Array("\(request[parameter: "id"]!) \(request.state.string("com.example.seen") ?? "-")".utf8)
        }
        r.addFilter(Filter(name: "move") { req, chain in
            req.state["com.example.seen"] = "yes"
            if req.path.hasPrefix("/old/") { return .redirectToRoute("new", ["id": req[parameter: "id"]!]) }
            return .proceed(try chain.next(req))
        })
        let res = try r.resolve("/old/7")
        #expect(res.status == .ok)
        #expect(res.redirects == ["/new/7"])
        #expect(res.response.body == Array("7 yes".utf8))
        #expect(res.route?.name == "new")
        #expect(res.trace.contains(TraceEntry(stage: .filter, name: "move", decision: "redirect /new/7")))
    }

    /// A resolve through a redirect and a retry: more entries than the log keeps inline, names
    /// from both passes' routes, read after the router is gone.
    @Test func traceNamesEveryStageAcrossPassesAndOutlivesTheRouter() throws {
        func resolution(_ uri: String) throws -> Resolution {
            let r = Router()
            try r.addRoute("/old/:id") { _, _ in Issue.record("the old destination ran") }
            let new = try r.addRoute("/new/:id", name: "new", guard: { _ in true }) { _, _ in }
            try r.addRequestInterceptor(RequestInterceptor(name: "scoped") { _ in .proceed }, route: new)
            r.addFilter(Filter(name: "move") { req, chain in
                if req.path.hasPrefix("/old/") { return .redirect("/new/" + req[parameter: "id"]!) }
                return .proceed(try chain.next(req))
            })
            try r.addResponseInterceptor(ResponseInterceptor(name: "again") { _, req in
                guard req.route != nil, req.state["tries"] == nil else { return .proceed }
                req.state["tries"] = 1
                return .retry
            })
            r.defaultDestination = { _, _ in }
            return try r.resolve(uri)
        }
        let moved = try resolution("/old/7")
        #expect(moved.status == .ok)
        let pass = [TraceEntry(stage: .requestInterceptor, name: "scoped", decision: "continue"),
                    TraceEntry(stage: .filter, name: "move", decision: "continue"),
                    TraceEntry(stage: .guard, name: "new", decision: "allow"),
                    TraceEntry(stage: .destination, name: "new", decision: "ran")]
        #expect(moved.trace == [TraceEntry(stage: .match, name: "/old/7", decision: "/old/:id"),
                                TraceEntry(stage: .filter, name: "move", decision: "redirect /new/7"),
                                TraceEntry(stage: .match, name: "/new/7", decision: "new")]
                + pass + [TraceEntry(stage: .responseInterceptor, name: "again", decision: "retry"),
                          TraceEntry(stage: .retry, name: "/new/7", decision: "attempt 2")]
                + pass + [TraceEntry(stage: .responseInterceptor, name: "again", decision: "continue")])
        let unmatched = try resolution("/nowhere")
        #expect(unmatched.trace == [TraceEntry(stage: .match, name: "/nowhere", decision: "no route"),
                                    TraceEntry(stage: .filter, name: "move", decision: "continue"),
                                    TraceEntry(stage: .destination, name: "default", decision: "ran"),
                                    TraceEntry(stage: .responseInterceptor, name: "again", decision: "continue")])
    }

    /// The state is made on first use, here on a copy an interceptor made, and still every request
    /// of the resolve (the retry's, the redirect's) finds the same one.
    @Test func stateMadeOnACopyIsSharedByRetriesAndRedirects() throws {
        let r = Router()
        try r.addRoute("/a") { _, _ in Issue.record("/a's destination ran") }
        let seenBy = Mutex<[ObjectIdentifier]>([])
        try r.addRoute("/b") { request, _ in seenBy.withLock { $0.append(ObjectIdentifier(request.state)) } }
        try r.addRequestInterceptor(RequestInterceptor(name: "count") { request in
            request.metadata["tag"] = "x"           // the pipeline's request is shared: this copies it
            request.state["seen"] = (request.state["seen"] as? Int ?? 0) + 1
            return .proceed
        })
        r.addFilter(Filter(name: "move") { req, chain in
            req.path == "/a" ? .redirect("/b") : .proceed(try chain.next(req))
        })
        try r.addResponseInterceptor(ResponseInterceptor(name: "once") { _, req in
            guard req.state["retried"] == nil else { return .proceed }
            req.state["retried"] = true
            return .retry
        })
        let res = try r.resolve("/a")
        #expect(res.status == .ok)
        #expect(res.state["seen"] as? Int == 3)     // /a, /b, /b again
        let seen = seenBy.withLock { $0 }
        #expect(seen.count == 2 && seen.allSatisfy { $0 == ObjectIdentifier(res.state) })
        // Another resolve starts its own.
        #expect(try r.resolve("/a").state !== res.state)
        // A state set on a request replaces the resolve's for that request and its copies only.
        var request = Request(uri: "/x")
        let own = ResolveState()
        request.state = own
        let copy = request
        #expect(copy.state === own && Request(uri: "/x").state !== own)
    }

    /// A resolution keeps its trace but none of the router's callbacks: what they capture goes
    /// with the router.
    @Test func aResolutionDoesNotKeepTheRoutersCallbacks() throws {
        final class Captured: Sendable {}
        weak var captured: Captured?
        var resolution: Resolution?
        do {
            let object = Captured()
            captured = object
            let r = Router()
            let id = try r.addRoute("/a", name: "a") { _, _ in _ = object }
            r.addFilter(Filter(name: "f") { req, chain in _ = object; return .proceed(try chain.next(req)) })
            try r.addRequestInterceptor(RequestInterceptor(name: "scoped") { _ in _ = object; return .proceed }, route: id)
            try r.addResponseInterceptor(ResponseInterceptor(name: "global") { _, _ in _ = object; return .proceed })
            resolution = try r.resolve("/a")
        }
        #expect(captured == nil)
        #expect(resolution?.trace.map(\.name) == ["/a", "scoped", "f", "a", "global"])
    }

    @Test func redirectLoopsEndAtTheLimit() throws {
        let r = Router()
        try r.addRoute("/a") { _, _ in }
        try r.addRoute("/b") { _, _ in }
        r.addFilter(Filter(name: "pingpong") { req, _ in .redirect(req.path == "/a" ? "/b" : "/a") })
        let res = try r.resolve("/a")
        #expect(res.status == .redirectLoop)
        #expect(res.redirects.count == 8)
        r.redirectLimit = 2
        #expect(try r.resolve("/a").redirects.count == 2)
        // A malformed redirect target ends the resolve with an error, not a throw.
        let bad = Router()
        bad.addFilter(Filter(name: "bad") { _, _ in .redirect("/x%zz") })
        guard case .error(let m) = try bad.resolve("/a").status else { Issue.record("expected an error"); return }
        #expect(m.contains("bad percent-escape"))
    }

    @Test func guardRefusalKeepsThePendingLink() throws {
        let loggedIn = Mutex(false)
        let r = Router()
        try r.addRoute("myapp://account/:section", guard: { req in
            #expect(req[parameter: "section"] == "billing")
            return loggedIn.withLock { $0 }
        }) { _, response in response.body = Array("account".utf8) }
        try r.addRoute("myapp://home") { _, _ in }
        #expect(r.pendingLink == nil)
        let refused = try r.resolve("myapp://account/billing?from=push")
        #expect(refused.status == .guarded)
        #expect(refused.response.body.isEmpty)
        #expect(r.pendingLink == PendingLink(uri: "myapp://account/billing?from=push", method: nil))
        // Other links do not overwrite it; only another refusal does.
        _ = try r.resolve("myapp://home")
        #expect(r.pendingLink?.uri == "myapp://account/billing?from=push")
        // Replay while still refused: pending again.
        #expect(try r.replayPendingLink()?.status == .guarded)
        #expect(r.pendingLink != nil)
        loggedIn.withLock { $0 = true }
        let replayed = try r.replayPendingLink()
        #expect(replayed?.status == .ok && replayed?.response.body == Array("account".utf8))
        #expect(r.pendingLink == nil)
        #expect(try r.replayPendingLink() == nil)
        // take reads and clears
        loggedIn.withLock { $0 = false }
        _ = try r.resolve("myapp://account/billing")
        #expect(r.takePendingLink()?.uri == "myapp://account/billing")
        #expect(r.pendingLink == nil)
    }

    @Test func abortInEachPhase() throws {
        let log = Log()
        let r = Router()
        let id = try r.addRoute("/a") { _, response in log.add("destination"); response.status = 500 }
        try r.addRequestInterceptor(RequestInterceptor(name: "deny") { req in
            req.metadata["x"] == "deny" ? .abort("denied") : .proceed
        }, route: id)
        try r.addRequestInterceptor(RequestInterceptor(name: "mark") { req in req.metadata["x"] = "deny"; return .proceed })
        // The route interceptor runs first and sees no mark: proceed; the global one marks.
        try r.addResponseInterceptor(validateStatus())
        let res = try r.resolve("/a")
        #expect(res.status == .aborted("status 500 is outside 200...299"))
        #expect(res.response.body.isEmpty)
        #expect(log.all == ["destination"])

        let r2 = Router()
        try r2.addRoute("/a") { _, _ in log.add("destination2") }
        try r2.addRequestInterceptor(RequestInterceptor(name: "first") { _ in .abort("no entry") })
        try r2.addRequestInterceptor(RequestInterceptor(name: "never") { _ in Issue.record("ran after abort"); return .proceed })
        let res2 = try r2.resolve("/a")
        #expect(res2.status == .aborted("no entry"))
        #expect(!log.all.contains("destination2"))
        #expect(res2.trace.last == TraceEntry(stage: .requestInterceptor, name: "first", decision: "abort: no entry"))
    }

    @Test func retryRunsAgainFromTheOriginalRequestUpToTheLimit() throws {
        let r = Router()
        let attempts = Mutex(0)
        try r.addRoute("/flaky") { request, response in
            let n = attempts.withLock { $0 += 1; return $0 }
            // Headers added by interceptors of earlier attempts never pile up.
            #expect(request.metadata["count"] == "1")
            response.status = n < 3 ? 429 : 200
        }
        try r.addRequestInterceptor(RequestInterceptor(name: "count") { req in
            req.metadata["count"] = String(Int(req.metadata["count"] ?? "0")! + 1)
            return .proceed
        })
        // In the manner of CDT's replay-on-429: a retry count kept in the state, bounded.
        try r.addResponseInterceptor(ResponseInterceptor(name: "replay-429") { response, request in
            guard response.status == 429 else { return .proceed }
            let done = request.state["com.example.replay429.count"] as? Int ?? 0
            guard done < 5 else { return .proceed }
            request.state["com.example.replay429.count"] = done + 1
            return .retry
        })
        let res = try r.resolve("/flaky")
        #expect(res.status == .ok && res.response.status == 200)
        #expect(attempts.withLock { $0 } == 3)
        #expect(res.state["com.example.replay429.count"] as? Int == 2)
        #expect(res.trace.filter { $0.stage == .retry }.count == 2)

        let always = Router()
        try always.addRoute("/x") { _, _ in }
        try always.addResponseInterceptor(ResponseInterceptor(name: "again") { _, _ in .retry })
        #expect(try always.resolve("/x").status == .retryLimit)
        always.retryLimit = 0
        #expect(try always.resolve("/x").status == .retryLimit)
    }

    @Test func compositionOrderNests() throws {
        let log = Log()
        let a = requestLogger(log, "a"), b = requestLogger(log, "b"), c = requestLogger(log, "c"), d = requestLogger(log, "d")
        let r = Router()
        try r.addRoute("/x") { _, _ in }
        try r.addRequestInterceptor(a.before(b))
        try r.addRequestInterceptor(a.after(b))
        try r.addRequestInterceptor(.chain(inOrder: [c, d.before(a), .chain(inOrder: [b])]))
        let res = try r.resolve("/x")
        #expect(log.all == ["a", "b", "b", "a", "c", "d", "a", "b"])
        #expect(res.trace.filter { $0.stage == .requestInterceptor }.map(\.name) == ["a", "b", "b", "a", "c", "d", "a", "b"])

        let rlog = Log()
        let x = responseLogger(rlog, "x"), y = responseLogger(rlog, "y")
        try r.addResponseInterceptor(.chain(inOrder: [y.after(x), x.before(y)]))
        _ = try r.resolve("/x")
        #expect(rlog.all == ["x", "y", "x", "y"])
    }

    @Test func loggingInterceptor() throws {
        let log = Log()
        let logger = LoggingInterceptor { log.add($0) }
        let r = Router()
        try r.addRoute("GET /u/:id") { _, response in response.body = [1, 2, 3] }
        try r.addRequestInterceptor(logger.request)
        try r.addResponseInterceptor(logger.response)
        _ = try r.resolve("/u/7", method: "GET")
        #expect(log.all == ["-> GET /u/7 route=GET /u/:id params=id=7", "<- status 200, 3 bytes for /u/7"])
    }

    @Test func callbackErrorsEndWithErrorAndTheRouterStaysUsable() throws {
        for stage in ["request", "filter", "guard", "destination", "response"] {
            let r = Router()
            try r.addRoute("/a", guard: { _ in if stage == "guard" { throw Failure() }; return true }) { _, _ in
                if stage == "destination" { throw Failure() }
            }
            try r.addRequestInterceptor(RequestInterceptor(name: "ri") { _ in if stage == "request" { throw Failure() }; return .proceed })
            r.addFilter(Filter(name: "fi") { req, chain in if stage == "filter" { throw Failure() }; return .proceed(try chain.next(req)) })
            try r.addResponseInterceptor(ResponseInterceptor(name: "rs") { _, _ in if stage == "response" { throw Failure() }; return .proceed })
            let res = try r.resolve("/a")
            #expect(res.status == .error("backend unavailable"), "\(stage)")
            #expect(res.trace.last?.decision == "error: backend unavailable", "\(stage)")
        }
    }

    /// A filter whose redirect fails (a route no one named, a URI that does not parse) ran: it is in
    /// the trace with the error, as every stage that ran is (the trace held only the match).
    @Test func aRedirectThatFailsIsInTheTrace() throws {
        let r = Router()
        try r.addRoute("/a")
        r.addFilter(Filter(name: "outer") { req, chain in .proceed(try chain.next(req)) })
        r.addFilter(Filter(name: "mover") { req, _ in
            req.path == "/a" ? .redirectToRoute("nowhere", [:]) : .redirect("/b%zz")
        })
        let toRoute = try r.resolve("/a")
        guard case .error(let message) = toRoute.status else { Issue.record("\(toRoute.status)"); return }
        #expect(message.contains("nowhere"))
        #expect(toRoute.trace == [TraceEntry(stage: .match, name: "/a", decision: "/a"),
                                  TraceEntry(stage: .filter, name: "outer", decision: "continue"),
                                  TraceEntry(stage: .filter, name: "mover", decision: "error: \(message)"),
                                  TraceEntry(stage: .filter, name: "outer", decision: "error: \(message)")])

        let toURI = try r.resolve("/b")
        guard case .error(let why) = toURI.status else { Issue.record("\(toURI.status)"); return }
        #expect(toURI.trace.map(\.stage) == [.match, .filter, .filter, .redirect])
        #expect(toURI.trace[2] == TraceEntry(stage: .filter, name: "mover", decision: "redirect /b%zz"))
        #expect(toURI.trace[3].name == "/b%zz" && toURI.trace[3].decision == "error: \(why)")
    }

    /// Two threads using a request's state for the first time at once get the same one.
    @Test func aStateFirstUsedOnTwoThreadsIsOne() throws {
        let r = Router()
        let split = Mutex(0)
        try r.addRoute("/a") { request, _ in
            let seen = Mutex<[ObjectIdentifier]>([])
            onThreads((0..<2).map { _ in { seen.withLock { $0.append(ObjectIdentifier(request.state)) } } })
            let both = seen.withLock { $0 }
            if both.count != 2 || both[0] != both[1] || both[0] != ObjectIdentifier(request.state) { split.withLock { $0 += 1 } }
        }
        for _ in 0..<200 { _ = try r.resolve("/a") }
        #expect(split.withLock { $0 } == 0)
    }

    /// Resolves on several threads while another changes the pipeline (so that spare runs go
    /// stale and are let go of): every answer is right, and every filter added is seen once added.
    @Test func resolvesStayRightWhileThePipelineChanges() throws {
        let r = Router()
        try r.addRoute("/n/:n") { request, response in response.body = Array(request[parameter: "n"]!.utf8) }
        let wrong = Mutex(0)
        let added = Atomic<Int>(0)
        var bodies: [@Sendable () -> Void] = (0..<3).map { t in
            {
                for i in 0..<400 {
                    let n = "\(t)-\(i)"
                    let before = added.load(ordering: .acquiring)
                    guard let res = try? r.resolve("/n/\(n)") else { wrong.withLock { $0 += 1 }; continue }
                    let filters = res.trace.filter { $0.stage == .filter }.count
                    if res.status != .ok || res.response.body != Array(n.utf8) || filters < before {
                        wrong.withLock { $0 += 1 }
                    }
                }
            }
        }
        bodies.append {
            for k in 0..<20 {
                r.addFilter(Filter(name: "f\(k)") { request, chain in .proceed(try chain.next(request)) })
                added.store(k + 1, ordering: .releasing)
                let fallback: Destination = { _, _ in }
                r.defaultDestination = k % 2 == 0 ? fallback : nil
            }
        }
        onThreads(bodies)
        #expect(wrong.withLock { $0 } == 0)
        #expect(try r.resolve("/n/x").trace.filter { $0.stage == .filter }.count == 20)
    }

    @Test func concurrentResolvesDoNotShareState() throws {
        let r = Router()
        try r.addRoute("/n/:n") { request, response in
            let n = request[parameter: "n"]!
            #expect(request.state["k"] == nil)
            request.state["k"] = n
            response.body = Array((request.state.string("k") ?? "").utf8)
        }
        let wrong = Mutex(0)
        onThreads((0..<2).map { t in
            {
                for i in 0..<500 {
                    let n = "\(t)-\(i)"
                    if (try? r.resolve("/n/\(n)").response.body) != Array(n.utf8) { wrong.withLock { $0 += 1 } }
                }
            }
        })
        #expect(wrong.withLock { $0 } == 0)
    }
}

@Suite("URL generation")
struct URLGenerationTests {
    @Test func roundTrips() throws {
        let r = Router()
        let cases: [(String, [String: String], String)] = [
            ("/users/:id", ["id": "42"], "/users/42"),
            ("/tags/:tag", ["tag": "a/b c%"], "/tags/a%2Fb%20c%25"),
            ("myapp://user/:id(\\d+)", ["id": "7"], "myapp://user/7"),
            ("https://shop.example.com/p/:sku", ["sku": "X-1"], "https://shop.example.com/p/X-1"),
            ("/search(/:q(/page/:n(\\d+)))", ["q": "café"], "/search/caf%C3%A9"),
            ("/files/*path", ["path": "a/b/c.txt"], "/files/a/b/c.txt"),
            ("/", [:], "/"),
            ("GET /cal/:day", ["day": "2024:01@x"], "/cal/2024:01@x"),
        ]
        for (i, c) in cases.enumerated() {
            let id = try r.addRoute(c.0, name: "r\(i)")
            let uri = try r.url(for: "r\(i)", parameters: c.1)
            #expect(uri == c.2)
            let m = try r.match(uri).routeMatch
            #expect(m?.routeID == id, "\(uri)")
            for (k, v) in c.1 { #expect(m?[k] == v, "\(uri) \(k)") }
        }
        #expect(try r.url(for: "r4", parameters: ["q": "x", "n": "3"]) == "/search/x/page/3")
        #expect(try r.url(for: "r4") == "/search")
    }

    @Test func errors() throws {
        let r = Router()
        try r.addRoute("/users/:id(\\d+)/posts/:post", name: "post")
        #expect(caught { () throws(InterlockError) in try r.url(for: "nope") }?.code == .unknownRoute)
        // A destination or guard for a route id that does not exist is refused, naming the id.
        let noDestination = caught { () throws(InterlockError) in try r.setDestination({ _, _ in }, for: 9) }
        #expect(noDestination?.code == .unknownRoute && noDestination?.message.contains("9") == true)
        #expect(caught { () throws(InterlockError) in try r.setGuard({ _ in true }, for: 0) }?.code == .unknownRoute)
        #expect(caught { () throws(InterlockError) in try r.setGuard(nil, for: 1) } == nil)
        let missing = caught { () throws(InterlockError) in try r.url(for: "post", parameters: ["id": "1"]) }
        #expect(missing?.code == .invalidArgument && missing?.message.contains("'post'") == true)
        let invalid = caught { () throws(InterlockError) in try r.url(for: "post", parameters: ["id": "x", "post": "1"]) }
        #expect(invalid?.code == .invalidArgument && invalid?.message.contains("constraint") == true)
        #expect(caught { () throws(InterlockError) in try r.url(for: "post", parameters: ["id": "1", "post": ""]) }?.code == .invalidArgument)
        #expect(caught { () throws(InterlockError) in try r.url(for: "post", parameters: ["id": "1", "post": ".."]) }?.code == .invalidArgument)
    }
}
