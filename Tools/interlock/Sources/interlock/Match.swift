import ArgumentParser
import Interlock

/// `interlock match ROUTES [URI...]`: one JSON answer a line.
struct Match: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Match URIs against a route file: one JSON line an answer.",
        discussion: """
            URIs are the arguments, or standard input's lines when there is none or one is "-". Each \
            answer is {"uri", "route", "name", "pattern", "params"} for a match, {"uri", \
            "status": "not found"}, {"uri", "status": "method not allowed", "allowed"}, or \
            {"uri", "error", "offset"} for a malformed URI. Exit status 0 when every URI was \
            answered (a URI no route takes is an answer), 1 for a malformed URI (after every \
            answer) or method, or a bad route file, 2 when a file cannot be read.
            """
    )

    @OptionGroup var file: RouteFileOptions

    @Option(name: [.customShort("X"), .long], help: "The request method (none: any method).")
    var method: String?

    @Argument(help: "URIs to match (\"-\" or none: standard input, one a line).")
    var uris: [String] = []

    func run() throws {
        let router = try file.router().router
        // A malformed method is the command's problem, not each URI's: said once, before any.
        do {
            _ = try router.match("/", method: method)
        } catch where error.code == .invalidArgument {
            printError("interlock: -X \(json(method ?? "")): \(error.description)")
            throw ExitCode(1)
        } catch {}          // anything else about "/" is no problem of the method's
        var malformed = false
        var out = ""
        out.reserveCapacity(1 << 16)
        func answer(_ uri: String) {
            let (text, isError) = line(for: uri, router)
            malformed = malformed || isError
            out += text + "\n"
            if out.utf8.count >= 1 << 16 { write(out); out = "" }
        }
        if uris.isEmpty || uris == ["-"] {
            while let uri = readLine(strippingNewline: true) { answer(uri) }
        } else {
            for uri in uris { answer(uri) }
        }
        write(out)
        if malformed { throw ExitCode(1) }
    }

    /// The JSON answer for one URI, and whether it is an error.
    private func line(for uri: String, _ router: Router) -> (String, Bool) {
        do {
            switch try router.match(uri, method: method) {
            case .matched(let m):
                let params = m.parameters.map { "\(json($0.name)):\(json($0.value))" }.joined(separator: ",")
                let name = m.name.map(json) ?? "null"
                return ("{\"uri\":\(json(uri)),\"route\":\(m.routeID),\"name\":\(name),\"pattern\":\(json(m.pattern)),\"params\":{\(params)}}", false)
            case .notFound:
                return ("{\"uri\":\(json(uri)),\"status\":\"not found\"}", false)
            case .methodNotAllowed(let allowed):
                return ("{\"uri\":\(json(uri)),\"status\":\"method not allowed\",\"allowed\":[\(allowed.map(json).joined(separator: ","))]}", false)
            }
        } catch {
            return ("{\"uri\":\(json(uri)),\"error\":\(json(error.message)),\"offset\":\(error.offset.map(String.init) ?? "null")}", true)
        }
    }
}
