import ArgumentParser
import Interlock
// The C library's stdout and stderr are global variables, which Swift 6 cannot prove safe: the
// command is one thread.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// `interlock`: route files checked, URIs matched, URLs built and logs counted, from the shell.
@main
struct InterlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interlock",
        abstract: "Check route files, explain and match URIs, build URLs and count a log's requests by route.",
        discussion: "Exit status: 0 when all is well, 1 when the routes or URIs have problems, 2 when a file cannot be read.",
        subcommands: [Check.self, Explain.self, Match.self, URL.self, Count.self]
    )
}

/// The options every subcommand that reads a route file takes.
struct RouteFileOptions: ParsableArguments {
    @Argument(help: "The route file: one route a line, [METHOD ]pattern, then name=... and key=value pairs.")
    var routes: String

    @Flag(name: .long, help: "Compare literal segments ASCII case-insensitively.")
    var caseInsensitive = false

    @Flag(name: .long, help: "Make a trailing slash significant.")
    var strictSlash = false

    var options: RouterOptions {
        var o: RouterOptions = []
        if caseInsensitive { o.insert(.caseInsensitive) }
        if strictSlash { o.insert(.strictSlash) }
        return o
    }

    /// The router with the file's routes, their ids and the text they were read from (read once:
    /// a pipe or a file being rewritten gives no second reading), or the file's first problem
    /// printed as file:line:column (exit 1), or a file that cannot be read (exit 2).
    func router() throws -> (router: Router, ids: [RouteID], text: String) {
        let text = try readFile(routes)
        let router = Router(options: options)
        do {
            return (router, try router.load(text), text)
        } catch {
            printError(located(routes, error.message))
            throw ExitCode(1)
        }
    }
}

/// The file's text, or one message and exit status 2.
func readFile(_ path: String) throws -> String {
    guard let bytes = readBytes(path) else {
        printError("interlock: cannot read \(path)")
        throw ExitCode(2)
    }
    let text: Result<String, InterlockError> = bytes.withUnsafeBytes { bytes in Result { () throws(InterlockError) in try RouteFile.text(bytes) } }
    switch text {
    case .success(let text): return text
    case .failure(let error):
        printError(located(path, error.message))
        throw ExitCode(1)
    }
}

/// A file's bytes, or nil if it cannot be opened or read (the C library's calls: the command uses
/// no Foundation, which would make it, and the wheel that carries it, several times larger).
private func readBytes(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        bytes += chunk[..<n]
        if n < chunk.count { return ferror(file) != 0 ? nil : bytes }
    }
}

/// "line L, column C: problem" as compilers write it: "FILE:L:C: problem".
func located(_ path: String, _ message: String) -> String {
    guard message.hasPrefix("line "), let comma = message.firstIndex(of: ","),
          let colon = message.firstIndex(of: ":") else { return "\(path): \(message)" }
    let line = message[message.index(message.startIndex, offsetBy: 5)..<comma]
    let column = message[message.index(comma, offsetBy: 9)..<colon]     // ", column "
    return "\(path):\(line):\(column):\(message[message.index(after: colon)...])"
}

/// Writes a line to standard error.
func printError(_ line: String) {
    write(line + "\n", to: .error)
}

/// Where `write` writes.
enum Stream { case output, error }

/// Writes text, NUL bytes included, to standard output (where `print` writes: the same buffer)
/// or standard error (after standard output's buffer, so that the two come in order).
func write(_ text: String, to stream: Stream = .output) {
    if stream == .error { fflush(stdout) }
    let file = stream == .output ? stdout : stderr
    var text = text
    text.withUTF8 { _ = fwrite($0.baseAddress, 1, $0.count, file) }
}

/// A string as a JSON string literal, escaped as the library's JSON forms escape it.
func json(_ s: String) -> String { JSONText.quoted(s) }
