import ArgumentParser
import Interlock

/// `interlock explain ROUTES URI`: why a URI ends where it does.
struct Explain: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Explain a match: the routes tried, in order, why each did or did not take the URI, and why the winner won.",
        discussion: "Each route is named by its line in the route file, in reasons too; a route with optional parts is listed once per form tried, with the form. --json prints the library's JSON form (routes by id)."
    )

    @OptionGroup var file: RouteFileOptions

    @Argument(help: "The URI to explain.")
    var uri: String

    @Option(name: [.customShort("X"), .long], help: "The request method (none: any method).")
    var method: String?

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let (router, ids, text) = try file.router()
        // The route file's lines, for naming routes the way their author sees them.
        let lines = Dictionary(uniqueKeysWithValues: zip(ids, (try? RouteFile.parse(text).map(\.line)) ?? []))
        let explanation: MatchExplanation
        do {
            explanation = try router.explain(uri, method: method)
        } catch {
            printError("interlock: \(uri): \(error.description)")
            throw ExitCode(1)
        }
        if json { return print(explanation.json) }
        switch explanation.answer {
        case .matched(let m):
            let params = m.parameters.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            print("\(uri) -> line \(lines[m.routeID] ?? 0): \(m.pattern)\(params.isEmpty ? "" : "  [\(params)]")")
        case .notFound:
            print("\(uri) -> no route")
        case .methodNotAllowed(let allowed):
            print("\(uri) -> method not allowed; allowed: \(allowed.joined(separator: ", "))")
        }
        // One numbering throughout: every route by its line, in reasons too.
        func line(_ id: RouteID) -> String { "line \(lines[id] ?? 0)" }
        if let reason = explanation.reason(naming: line) { print("why: \(reason)") }
        print("tried, in order:")
        for c in explanation.candidates {
            let mark = c.rejection == nil ? "*" : " "
            // A route with optional parts is tried once per form: which one this is.
            let form = c.form.map { " (as \($0))" } ?? ""
            print(" \(mark) \(line(c.routeID)): \(c.pattern)\(form)  -- \(c.rejection.map { $0.description(naming: line) } ?? "takes it")")
        }
        if explanation.truncated { print("   (more routes were tried)") }
    }
}
