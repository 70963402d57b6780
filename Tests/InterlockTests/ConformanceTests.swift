import Foundation
import Synchronization
import Testing
import Interlock

// The conformance suite (the JSON files of spec/conformance, described in its README.md) through the
// Swift door: every table's lookups, url(for:) and explain cases, every refused pattern and every
// conflict. The same data runs through C (test_conformance.c) and Python (test_conformance.py).
// Foundation reads the JSON here only: the library itself never imports it.

/// The data's files.
private func specFiles() -> [(name: String, root: [String: Any])] {
    let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("spec/conformance")
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()
    return names.compactMap { name in
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return (name, root)
    }
}

/// The data names statuses as the header does, without the `ILK_` prefix.
private func errorCode(_ name: String) -> ErrorCode? {
    switch name {
    case "EINVAL": .invalidArgument
    case "EPATTERN": .pattern
    case "ECONFLICT": .conflict
    case "EURI": .uri
    case "ENOMEM": .noMemory
    case "ELIMIT": .limit
    case "ENOROUTE": .unknownRoute
    case "ECALLBACK": .callback
    default: nil
    }
}

/// One section's entries across every file, with where each comes from.
private func entries(_ section: String) -> [(place: String, case: [String: Any])] {
    specFiles().flatMap { file in
        ((file.root[section] as? [[String: Any]]) ?? []).enumerated().map { ("\(file.name) \(section)[\($0.offset)]", $0.element) }
    }
}

private func flag(_ object: Any?, _ key: String) -> Bool {
    ((object as? [String: Any])?[key] as? Bool) ?? false
}

@Suite("Conformance data")
struct ConformanceTests {
    @Test func theDataIsThere() {
        #expect(!specFiles().isEmpty)
        #expect(!entries("tables").isEmpty)
    }

    @Test func tables() throws {
        for (place, table) in entries("tables") {
            let name = "\(place) \(table["name"] as? String ?? ""): \(table["rule"] as? String ?? "")"
            var options: RouterOptions = []
            if flag(table["options"], "case_insensitive") { options.insert(.caseInsensitive) }
            if flag(table["options"], "strict_slash") { options.insert(.strictSlash) }
            let router = Router(options: options)
            let routes = table["routes"] as? [Any] ?? []
            var ids: [RouteID] = []
            for route in routes {
                if let pattern = route as? String {
                    ids.append(try router.addRoute(pattern))
                } else if let route = route as? [String: Any], let pattern = route["pattern"] as? String {
                    ids.append(try router.addRoute(pattern, name: route["name"] as? String))
                }
            }
            for c in table["match"] as? [[String: Any]] ?? [] {
                checkMatch(router, ids, c, name)
            }
            for c in table["url_for"] as? [[String: Any]] ?? [] {
                let route = routes[c["route"] as? Int ?? 0] as? [String: Any]
                let params = c["params"] as? [String: String] ?? [:]
                let routeName = route?["name"] as? String ?? ""
                do {
                    let uri = try router.url(for: routeName, parameters: params)
                    #expect(uri == c["uri"] as? String, "\(name): url(for: \(routeName), \(params))")
                } catch {
                    #expect(c["uri"] == nil && error.code == errorCode(c["status"] as? String ?? ""),
                            "\(name): url(for: \(routeName), \(params)): \(error)")
                }
            }
            for c in table["explain"] as? [[String: Any]] ?? [] {
                let uri = c["uri"] as? String ?? ""
                let explained = try router.explain(uri, method: c["method"] as? String)
                let winner = (c["winner"] as? Int).map { ids[$0] }
                #expect(explained.answer.routeMatch?.routeID == winner, "\(name): explain \(uri)")
                #expect(explained.candidates.filter { $0.rejection == nil }.map(\.routeID) == (winner.map { [$0] } ?? []),
                        "\(name): explain \(uri): \(explained.candidates)")
            }
        }
    }

    private func checkMatch(_ router: Router, _ ids: [RouteID], _ c: [String: Any], _ name: String) {
        let uri = c["uri"] as? String ?? ""
        let where_ = "\(name): \(c["method"] as? String ?? "") \(uri)"
        let status = c["status"] as? String ?? "OK"
        do {
            let answer = try router.match(uri, method: c["method"] as? String)
            switch answer {
            case .matched(let m):
                #expect(status == "OK", "\(where_): matched \(m.routeID)")
                if status == "OK", let index = c["route"] as? Int {
                    #expect(m.routeID == ids[index], "\(where_)")
                }
                if let params = c["params"] as? [String: String] {
                    #expect(m.parameters.count == params.count && m.parameters.allSatisfy { params[$0.name] == $0.value },
                            "\(where_): \(m.parameters)")
                }
            case .notFound:
                #expect(status == "NOT_FOUND", "\(where_): not found")
            case .methodNotAllowed(let allowed):
                #expect(status == "METHOD_NOT_ALLOWED", "\(where_): method not allowed")
                if let expected = c["allowed"] as? [String] {
                    #expect(allowed.sorted() == expected.sorted(), "\(where_): \(allowed)")
                }
            }
        } catch {
            #expect(error.code == errorCode(status), "\(where_): \(error)")
            if let offset = c["offset"] as? Int {
                #expect(error.offset == offset, "\(where_): \(error)")
            }
        }
    }

    @Test func patterns() {
        for (place, c) in entries("patterns") {
            let pattern = c["pattern"] as? String ?? ""
            let status = c["status"] as? String ?? ""
            do {
                _ = try Router().addRoute(pattern)
                #expect(status == "OK", "\(place) \(pattern): accepted")
            } catch {
                #expect(error.code == errorCode(status), "\(place) \(pattern): \(error)")
                if let offset = c["offset"] as? Int {
                    #expect(error.offset == offset, "\(place) \(pattern): \(error)")
                }
            }
        }
    }

    @Test func conflicts() throws {
        for (place, c) in entries("conflicts") {
            let routes = c["routes"] as? [String] ?? []
            let router = Router()
            for pattern in routes.dropLast() { _ = try router.addRoute(pattern) }
            let last = routes.last ?? ""
            do {
                _ = try router.addRoute(last)
                #expect(c["with"] as? Int == nil, "\(place) \(last): accepted")
            } catch {
                let with = (c["with"] as? Int).map { routes[$0] }
                #expect(error.code == .conflict && with.map { error.message.contains("'\($0)'") } == true,
                        "\(place) \(last): \(error)")
            }
        }
    }

    @Test func pipelines() throws {
        for (place, c) in entries("pipelines") {
            let name = "\(place) \(c["name"] as? String ?? ""): \(c["rule"] as? String ?? "")"
            let router = Router()
            let script = Script()
            var ids: [RouteID] = []
            for route in c["routes"] as? [[String: Any]] ?? [] {
                let routeName = route["name"] as? String ?? ""
                let routeGuard = (route["guard"] as? String).map { script.guardian(routeName, allow: $0 == "allow") }
                let id = try router.addRoute(route["pattern"] as? String ?? "", name: routeName, guard: routeGuard,
                                             destination: script.destination(routeName))
                ids.append(id)
                for spec in route["request_interceptors"] as? [[String: Any]] ?? [] {
                    try router.addRequestInterceptor(script.requestInterceptor(spec), route: id)
                }
                for spec in route["response_interceptors"] as? [[String: Any]] ?? [] {
                    try router.addResponseInterceptor(script.responseInterceptor(spec), route: id)
                }
            }
            if flag(c, "default") { router.defaultDestination = script.destination("default") }
            for spec in c["filters"] as? [[String: Any]] ?? [] { router.addFilter(script.filter(spec)) }
            for spec in c["request_interceptors"] as? [[String: Any]] ?? [] {
                try router.addRequestInterceptor(script.requestInterceptor(spec))
            }
            for spec in c["response_interceptors"] as? [[String: Any]] ?? [] {
                try router.addResponseInterceptor(script.responseInterceptor(spec))
            }
            for step in c["resolve"] as? [[String: Any]] ?? [] {
                let uri = step["uri"] as? String ?? ""
                script.ran.withLock { $0 = [] }
                let resolution = try router.resolve(uri, method: step["method"] as? String)
                #expect(ending(resolution.status) == step["status"] as? String, "\(name): \(uri): \(resolution.status)")
                #expect(script.ran.withLock { $0 } == step["ran"] as? [String] ?? [], "\(name): \(uri)")
                #expect(resolution.route?.id == (step["route"] as? Int).map { ids[$0] }, "\(name): \(uri)")
                if let redirects = step["redirects"] as? [String] {
                    #expect(resolution.redirects == redirects, "\(name): \(uri)")
                }
                if step.keys.contains("pending") {
                    #expect(router.pendingLink?.uri == step["pending"] as? String, "\(name): \(uri)")
                }
                if let want = (step["response"] as? [String: Any]).map(response) {
                    let got = resolution.response
                    #expect(got.status == want.status && got.body == want.body
                            && got.headers.map { [$0.name, $0.value] } == want.headers.map { [$0.name, $0.value] },
                            "\(name): \(uri): \(got.status) \(got.headers)")
                }
            }
        }
    }
}

/// The data's name for how a resolve ended: the header's, without `ILK_`.
private func ending(_ status: ResolveStatus) -> String {
    switch status {
    case .ok: "OK"
    case .notFound: "NOT_FOUND"
    case .methodNotAllowed: "METHOD_NOT_ALLOWED"
    case .stopped: "STOPPED"
    case .guarded: "GUARDED"
    case .aborted: "ABORTED"
    case .redirectLoop: "REDIRECT_LOOP"
    case .retryLimit: "RETRY_LIMIT"
    case .error: "ERROR"
    }
}

/// The data's `{"status", "headers", "body"}` as a response.
private func response(_ spec: [String: Any]) -> Response {
    var response = Response()
    response.status = spec["status"] as? Int ?? 0
    response.headers = (spec["headers"] as? [[String]] ?? []).map { (name: $0[0], value: $0[1]) }
    response.body = Array((spec["body"] as? String ?? "").utf8)
    return response
}

/// Plays a pipeline scenario's callbacks: each records `kind:name` when it runs, then does what
/// its `do` says.
private final class Script: Sendable {
    let ran = Mutex<[String]>([])

    func record(_ entry: String) { ran.withLock { $0.append(entry) } }

    func destination(_ name: String) -> Destination {
        { _, _ in self.record("destination:\(name)") }
    }

    func guardian(_ name: String, allow: Bool) -> Guard {
        { _ in self.record("guard:\(name)"); return allow }
    }

    func filter(_ spec: [String: Any]) -> Filter {
        let name = spec["name"] as? String ?? "", todo = spec["do"] as? String ?? ""
        let when = spec["when"] as? String, to = spec["to"] as? String ?? ""
        let answer = (spec["respond"] as? [String: Any]).map(response)
        return Filter(name: name) { request, chain in
            self.record("filter:\(name)")
            if todo == "next" || (when != nil && when != request.path) { return .proceed(try chain.next(request)) }
            guard todo == "stop" else { return .redirect(to) }
            return answer.map { .respond($0) } ?? .stop
        }
    }

    func requestInterceptor(_ spec: [String: Any]) -> RequestInterceptor {
        let name = spec["name"] as? String ?? "", todo = spec["do"] as? String ?? ""
        return RequestInterceptor(name: name) { _ in
            self.record("request:\(name)")
            return todo == "abort" ? .abort("\(name) aborts") : .proceed
        }
    }

    func responseInterceptor(_ spec: [String: Any]) -> ResponseInterceptor {
        let name = spec["name"] as? String ?? "", todo = spec["do"] as? String ?? ""
        return ResponseInterceptor(name: name) { _, request in
            self.record("response:\(name)")
            if todo == "abort" { return .abort("\(name) aborts") }
            let key = "retried:\(name)"
            if todo == "retry" || (todo == "retry_once" && request.state[key] == nil) {
                request.state[key] = true
                return .retry
            }
            return .proceed
        }
    }
}

