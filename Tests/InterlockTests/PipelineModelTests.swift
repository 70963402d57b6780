import Synchronization
import Testing
@testable import Interlock

/// Random pipelines (routes with and without guards, destinations and scoped interceptors, global
/// interceptors and filters, a default destination or none, small redirect and retry limits)
/// whose callbacks decide from a script, resolved by the router and by a model of the README's
/// stage order written here: the callbacks that ran, in order, the status and the response must
/// be the model's. The pipeline tests hold one behaviour each; this holds their combinations
/// (a retry after a redirect, an abort in a scoped interceptor of a redirected pass...).
@Suite("Pipeline against a model")
struct PipelineModelTests {
    /// What a callback does on one call.
    enum Act: Equatable {
        case go             // proceed, allow, run, or call `next`
        case stop           // a filter stops; a guard refuses
        case abort          // an interceptor aborts
        case retry          // a response interceptor asks for a retry
        case redirect(Int)  // a filter redirects to route set URI n
        case fail           // the callback throws
    }

    /// Every callback's acts, one per call in a resolve (the last repeats), and the calls made.
    final class Script: @unchecked Sendable {
        var acts: [String: [Act]] = [:]
        var calls: [String: Int] = [:]
        var ran: [String] = []
        func act(_ name: String) -> Act {
            let n = calls[name, default: 0]
            calls[name] = n + 1
            ran.append(name)
            let list = acts[name] ?? [.go]
            return list[min(n, list.count - 1)]
        }
        func reset() { calls = [:]; ran = [] }
    }

    struct Failure: Error {}

    struct RouteShape {
        var guarded = false
        var destination = false
        var requestInterceptors = 0
        var responseInterceptors = 0
    }

    struct Shape {
        var routes: [RouteShape] = []
        var requestInterceptors = 0
        var filters = 0
        var responseInterceptors = 0
        var defaultDestination = false
        var redirectLimit = 0
        var retryLimit = 0
    }

    /// The URIs resolved and redirected to: the routes', one that matches nothing, and one that
    /// matches only under POST.
    static func uri(_ n: Int, routes: Int) -> String { n < routes ? "/r\(n)" : n == routes ? "/none" : "/post" }

    enum Outcome: Equatable {
        case ok(body: String, headers: [String])
        case notFound, methodNotAllowed, stopped, guarded, aborted(String), redirectLoop, retryLimit, error
    }

    // MARK: The model

    struct Model {
        let shape: Shape
        let script: Script

        /// How a filter chain's downstream ended (what `next` returns, or an error thrown).
        enum Down { case completed(String, [String]), notFound, methodNotAllowed, stopped, guarded, aborted(String), retry, redirect(Int), error }

        func resolve(_ first: Int) -> Outcome {
            var target = first
            var redirects = 0
            while true {
                var retries = 0
                attempts: while true {
                    switch attempt(target) {
                    case .completed(let body, let headers): return .ok(body: body, headers: headers)
                    case .notFound: return .notFound
                    case .methodNotAllowed: return .methodNotAllowed
                    case .stopped: return .stopped
                    case .guarded: return .guarded
                    case .aborted(let reason): return .aborted(reason)
                    case .error: return .error
                    case .retry:
                        retries += 1
                        if retries > shape.retryLimit { return .retryLimit }
                    case .redirect(let n):
                        if redirects >= shape.redirectLimit { return .redirectLoop }
                        redirects += 1
                        target = n
                        break attempts
                    }
                }
            }
        }

        func attempt(_ target: Int) -> Down {
            let route = target < shape.routes.count ? target : nil
            // The route's scope first, then the global interceptors.
            var names: [String] = []
            if let route { names += (0..<shape.routes[route].requestInterceptors).map { "rq-r\(route)-\($0)" } }
            names += (0..<shape.requestInterceptors).map { "rq-g\($0)" }
            for name in names {
                switch script.act(name) {
                case .go: continue
                case .abort: return .aborted(name)
                default: return .error
                }
            }
            return filter(0, target: target, route: route)
        }

        func filter(_ i: Int, target: Int, route: Int?) -> Down {
            guard i < shape.filters else { return terminal(target: target, route: route) }
            switch script.act("f\(i)") {
            case .go: return filter(i + 1, target: target, route: route)
            case .stop: return .stopped
            case .redirect(let n): return .redirect(n)
            default: return .error
            }
        }

        func terminal(target: Int, route: Int?) -> Down {
            var body = ""
            if let route {
                let r = shape.routes[route]
                if r.guarded {
                    switch script.act("guard-r\(route)") {
                    case .go: break
                    case .stop: return .guarded
                    default: return .error
                    }
                }
                if r.destination {
                    if script.act("dest-r\(route)") != .go { return .error }
                    body = "r\(route)"
                }
            } else if target > shape.routes.count {
                return .methodNotAllowed
            } else if shape.defaultDestination {
                if script.act("default") != .go { return .error }
                body = "default"
            } else {
                return .notFound
            }
            // The global response interceptors first, then the route's scope.
            var names = (0..<shape.responseInterceptors).map { "rs-g\($0)" }
            if let route { names += (0..<shape.routes[route].responseInterceptors).map { "rs-r\(route)-\($0)" } }
            var headers: [String] = []
            var retry = false
            for name in names {
                switch script.act(name) {
                case .go: headers.append(name)
                case .retry: headers.append(name); retry = true
                case .abort: return .aborted(name)
                default: return .error
                }
            }
            return retry ? .retry : .completed(body, headers)
        }
    }

    // MARK: The router

    static func router(_ shape: Shape, _ script: Script) throws -> Router {
        let r = Router()
        @Sendable func act(_ name: String) -> Act { script.act(name) }
        for (k, route) in shape.routes.enumerated() {
            let id = try r.addRoute("/r\(k)", name: "r\(k)")
            if route.destination {
                try r.setDestination({ _, response in
                    if act("dest-r\(k)") != .go { throw Failure() }
                    response.body = Array("r\(k)".utf8)
                }, for: id)
            }
            if route.guarded {
                try r.setGuard({ _ in
                    switch act("guard-r\(k)") {
                    case .go: return true
                    case .stop: return false
                    default: throw Failure()
                    }
                }, for: id)
            }
            for i in 0..<route.requestInterceptors { try r.addRequestInterceptor(requestInterceptor("rq-r\(k)-\(i)", script), route: id) }
            for i in 0..<route.responseInterceptors { try r.addResponseInterceptor(responseInterceptor("rs-r\(k)-\(i)", script), route: id) }
        }
        try r.addRoute("POST /post")
        for i in 0..<shape.requestInterceptors { try r.addRequestInterceptor(requestInterceptor("rq-g\(i)", script)) }
        for i in 0..<shape.responseInterceptors { try r.addResponseInterceptor(responseInterceptor("rs-g\(i)", script)) }
        let routes = shape.routes.count
        for i in 0..<shape.filters {
            r.addFilter(Filter(name: "f\(i)") { request, chain in
                switch act("f\(i)") {
                case .go: return .proceed(try chain.next(request))
                case .stop: return .stop
                case .redirect(let n): return .redirect(uri(n, routes: routes))
                default: throw Failure()
                }
            })
        }
        if shape.defaultDestination {
            r.defaultDestination = { _, response in
                if act("default") != .go { throw Failure() }
                response.body = Array("default".utf8)
            }
        }
        r.redirectLimit = shape.redirectLimit
        r.retryLimit = shape.retryLimit
        return r
    }

    static func requestInterceptor(_ name: String, _ script: Script) -> RequestInterceptor {
        RequestInterceptor(name: name) { _ in
            switch script.act(name) {
            case .go: return .proceed
            case .abort: return .abort(name)
            default: throw Failure()
            }
        }
    }

    static func responseInterceptor(_ name: String, _ script: Script) -> ResponseInterceptor {
        ResponseInterceptor(name: name) { response, _ in
            switch script.act(name) {
            case .go: response.addHeader(name, ""); return .proceed
            case .retry: response.addHeader(name, ""); return .retry
            case .abort: return .abort(name)
            default: throw Failure()
            }
        }
    }

    static func outcome(_ res: Resolution) -> Outcome {
        switch res.status {
        case .ok: return .ok(body: String(decoding: res.response.body, as: UTF8.self), headers: res.response.headers.map(\.name))
        case .notFound: return .notFound
        case .methodNotAllowed: return .methodNotAllowed
        case .stopped: return .stopped
        case .guarded: return .guarded
        case .aborted(let reason): return .aborted(reason)
        case .redirectLoop: return .redirectLoop
        case .retryLimit: return .retryLimit
        case .error: return .error
        }
    }

    @Test func randomPipelinesRunAsTheModelSays() throws {
        var rng = SplitMix(seed: 0xF17E_2026)
        var failures: [String] = []
        var seen: [String: Int] = [:]
        for round in 0..<400 {
            var shape = Shape()
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                shape.routes.append(RouteShape(guarded: rng.next() % 3 == 0, destination: rng.next() % 4 != 0,
                                               requestInterceptors: Int(rng.next() % 3), responseInterceptors: Int(rng.next() % 3)))
            }
            shape.requestInterceptors = Int(rng.next() % 3)
            shape.filters = Int(rng.next() % 4)
            shape.responseInterceptors = Int(rng.next() % 3)
            shape.defaultDestination = rng.next() % 2 == 0
            shape.redirectLimit = Int(rng.next() % 3)
            shape.retryLimit = Int(rng.next() % 3)
            let uris = shape.routes.count + 2
            let script = Script()
            let router = try Self.router(shape, script)
            for _ in 0..<8 {
                // New acts for every resolve: mostly going on, sometimes each of the others.
                script.acts = [:]
                func acts(_ name: String, _ others: [Act]) {
                    script.acts[name] = (0..<4).map { _ in rng.next() % 4 == 0 ? pick(others, &rng) : .go }
                }
                for (k, route) in shape.routes.enumerated() {
                    for i in 0..<route.requestInterceptors { acts("rq-r\(k)-\(i)", [.abort, .fail]) }
                    for i in 0..<route.responseInterceptors { acts("rs-r\(k)-\(i)", [.retry, .retry, .abort, .fail]) }
                    acts("guard-r\(k)", [.stop, .fail])
                    acts("dest-r\(k)", [.fail])
                }
                for i in 0..<shape.requestInterceptors { acts("rq-g\(i)", [.abort, .fail]) }
                for i in 0..<shape.responseInterceptors { acts("rs-g\(i)", [.retry, .retry, .abort, .fail]) }
                for i in 0..<shape.filters { acts("f\(i)", (0..<uris).map { Act.redirect($0) } + [.stop, .fail]) }
                acts("default", [.fail])
                let first = Int(rng.next() % UInt64(uris))

                script.reset()
                let expected = Model(shape: shape, script: script).resolve(first)
                let expectedRan = script.ran
                script.reset()
                let got = Self.outcome(try router.resolve(Self.uri(first, routes: shape.routes.count), method: "GET"))
                seen["\(expected)".prefix { $0 != "(" }.description, default: 0] += 1
                if (got != expected || script.ran != expectedRan) && failures.count < 10 {
                    failures.append("round \(round) \(shape) from \(first) acts \(script.acts):\n  expected \(expected) after \(expectedRan)\n  got      \(got) after \(script.ran)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        // Every way a resolve ends comes up.
        for kind in ["ok", "notFound", "methodNotAllowed", "stopped", "guarded", "aborted", "redirectLoop", "retryLimit", "error"] {
            #expect(seen[kind, default: 0] >= 10, "\(kind): \(seen)")
        }
    }
}
