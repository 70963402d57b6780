import ArgumentParser
import Interlock

/// `interlock url ROUTES NAME key=value...`: a named route's URI.
struct URL: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build the URI of a named route from key=value parameters.",
        discussion: "A route with a wildcard host takes its host as host=.... Exit status 1 for an unknown name or a bad value."
    )

    @OptionGroup var file: RouteFileOptions

    @Argument(help: "The route's name.")
    var name: String

    @Argument(help: "Parameters, each key=value.")
    var parameters: [String] = []

    func run() throws {
        let router = try file.router().router
        var values: [String: String] = [:]
        for p in parameters {
            guard let eq = p.firstIndex(of: "="), eq != p.startIndex else {
                printError("interlock: '\(p)' is not key=value")
                throw ExitCode(1)
            }
            values[String(p[..<eq])] = String(p[p.index(after: eq)...])
        }
        do {
            print(try router.url(for: name, parameters: values))
        } catch {
            printError("interlock: \(error.message)")
            throw ExitCode(1)
        }
    }
}
