import ArgumentParser
import Interlock

/// `interlock check ROUTES`: every problem of a route file, for people and for CI.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a route file: malformed lines, conflicts, and routes that never win their own URIs.",
        discussion: """
            Prints each problem as FILE:LINE:COLUMN: PROBLEM (a conflict names the other line), then \
            a summary. A route that never wins is found by building a URI from the route itself and \
            matching it: another route that takes it is named. Exit status 0 if there is no problem, 1 \
            if there is one, 2 if the file cannot be read.
            """
    )

    @OptionGroup var file: RouteFileOptions

    func run() throws {
        let text = try readFile(file.routes)
        let router = Router(options: file.options)
        var lineOf: [RouteID: Int] = [:]
        var problems = 0
        // Line by line, so that every bad line is reported, each against the routes before it.
        // By bytes: "\r\n" is one Character, so a split on "\n" would not split a CRLF file.
        for (index, line) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            do {
                for id in try router.load(String(decoding: line, as: UTF8.self)) { lineOf[id] = number }
            } catch {
                let message = error.message.replacing("line 1, column ", with: "line \(number), column ")
                print(located(file.routes, naming(message, lineOf)))
                problems += 1
            }
        }
        for route in router.routes {
            guard let (uri, winner) = sampleTaken(route, router), let line = lineOf[route.id] else { continue }
            let by = lineOf[winner.routeID].map { "line \($0)" } ?? "route \(winner.routeID)"
            print("\(file.routes):\(line):1: '\(route.pattern.source)' never wins '\(uri)': \(by) ('\(winner.pattern)') takes it")
            problems += 1
        }
        print("\(counted(router.count, "route")), \(problems == 0 ? "no problems" : counted(problems, "problem"))")
        if problems > 0 { throw ExitCode(1) }
    }

    /// `message` with each "(route N)" of a route from the file as "(line L)". The message is
    /// scanned once and each id looked up: trying every route of the file on every message made a
    /// file of many conflicting lines take time in the square of its length.
    private func naming(_ message: String, _ lineOf: [RouteID: Int]) -> String {
        var out = ""
        var rest = message[...]
        while let open = rest.firstRange(of: "(route ") {
            let digits = rest[open.upperBound...].prefix(while: \.isASCII).prefix(while: \.isNumber)
            let close = digits.endIndex
            guard !digits.isEmpty, close < rest.endIndex, rest[close] == ")",
                  let id = RouteID(digits), let line = lineOf[id] else {
                out += rest[..<open.upperBound]
                rest = rest[open.upperBound...]
                continue
            }
            out += rest[..<open.lowerBound] + "(line \(line))"
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// "1 route", "2 routes".
    private func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// A URI built from `route` (its parameters given sample values) that another route wins, if
    /// one does: the route is then shadowed for that URI, and most likely for all of its own.
    private func sampleTaken(_ route: Route, _ router: Router) -> (String, RouteMatch)? {
        let samples = ["x", "1", "a"]
        for sample in samples {
            var values: [String: String] = [:]
            for name in route.pattern.parameterNames { values[name] = sample }
            if route.pattern.hostIsWildcard { values["host"] = "sample" + String(route.pattern.host!.dropFirst()) }
            guard let uri = try? URLs.build(route, values, in: router) else { continue }
            guard case .matched(let m)? = try? router.match(uri, method: route.pattern.method) else { continue }
            return m.routeID == route.id ? nil : (uri, m)
        }
        return nil
    }
}

/// URL building for a route that may have no name.
enum URLs {
    /// The URI of `route` with `values`, through a router holding only it (`url(for:)` names routes).
    static func build(_ route: Route, _ values: [String: String], in router: Router) throws -> String {
        let scratch = Router(options: router.options)
        try scratch.addRoute(route.pattern.source, name: "r")
        return try scratch.url(for: "r", parameters: values)
    }
}
