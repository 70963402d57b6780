import ArgumentParser
import Foundation
import Interlock

/// `interlock match ROUTES [URI...]`: one JSON answer a line.
struct Match: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Match URIs against a route file: one JSON line an answer.",
        discussion: """
            URIs are the arguments, or standard input's lines when there is none or one is "-". Each \
            answer is {"uri", "route", "name", "pattern", "params"} for a match, {"uri", \
            "status": "not found"}, {"uri", "status": "method not allowed", "allowed"}, or \
            {"uri", "error", "offset"} for a malformed URI.
            """
    )

    @OptionGroup var file: RouteFileOptions

    @Option(name: [.customShort("X"), .long], help: "The request method (none: any method).")
    var method: String?

    @Argument(help: "URIs to match (\"-\" or none: standard input, one a line).")
    var uris: [String] = []

    func run() throws {
        let (router, _) = try file.router()
        var out = ""
        out.reserveCapacity(1 << 16)
        func answer(_ uri: String) {
            out += line(for: uri, router) + "\n"
            if out.utf8.count >= 1 << 16 { FileHandle.standardOutput.write(Data(out.utf8)); out = "" }
        }
        if uris.isEmpty || uris == ["-"] {
            while let uri = readLine(strippingNewline: true) { answer(uri) }
        } else {
            for uri in uris { answer(uri) }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }

    /// The JSON answer for one URI.
    private func line(for uri: String, _ router: Router) -> String {
        do {
            switch try router.match(uri, method: method) {
            case .matched(let m):
                let params = m.parameters.map { "\(json($0.name)):\(json($0.value))" }.joined(separator: ",")
                let name = m.name.map(json) ?? "null"
                return "{\"uri\":\(json(uri)),\"route\":\(m.routeID),\"name\":\(name),\"pattern\":\(json(m.pattern)),\"params\":{\(params)}}"
            case .notFound:
                return "{\"uri\":\(json(uri)),\"status\":\"not found\"}"
            case .methodNotAllowed(let allowed):
                return "{\"uri\":\(json(uri)),\"status\":\"method not allowed\",\"allowed\":[\(allowed.map(json).joined(separator: ","))]}"
            }
        } catch {
            return "{\"uri\":\(json(uri)),\"error\":\(json(error.message)),\"offset\":\(error.offset.map(String.init) ?? "null")}"
        }
    }
}
