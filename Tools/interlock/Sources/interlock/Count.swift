import ArgumentParser
import Interlock
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `interlock count ROUTES LOG`: which routes a log's requests took.
struct Count: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count a log's requests by route, and list the unmatched and malformed ones by frequency.",
        discussion: """
            LOG has one URI a line, or is an access log in the common or combined format (the request \
            field, "METHOD URI PROTOCOL", is read, method included). A line that is not UTF-8, or \
            whose URI is malformed, is counted as malformed with its line number.
            """
    )

    @OptionGroup var file: RouteFileOptions

    @Argument(help: "The log (\"-\": standard input).")
    var log: String

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Option(name: .long, help: "How many unmatched and malformed entries to list.")
    var top = 20

    func run() throws {
        let router = try file.router().router
        guard let input = log == "-" ? fdopen(0, "r") : fopen(log, "r") else {
            printError("interlock: cannot read \(log)")
            throw ExitCode(2)
        }
        defer { fclose(input) }
        var byRoute: [RouteID: Int] = [:]
        var unmatched: [String: Int] = [:]
        var malformed: [String: (count: Int, firstLine: Int)] = [:]
        var lines = 0
        let progress = isatty(2) != 0
        var buffer: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        defer { free(buffer) }
        while true {
            let n = getline(&buffer, &capacity, input)
            guard n >= 0, let buffer else { break }
            lines += 1
            if progress && lines % 1_000_000 == 0 { write("\rcounted \(lines) lines", to: .error) }
            var length = n
            while length > 0, buffer[length - 1] == 0x0A || buffer[length - 1] == 0x0D { length -= 1 }
            if length == 0 { continue }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                malformed["line is not UTF-8", default: (0, lines)].count += 1
                continue
            }
            let (method, uri) = Count.request(in: text)
            do {
                switch try router.match(uri, method: method) {
                case .matched(let m): byRoute[m.routeID, default: 0] += 1
                case .notFound, .methodNotAllowed: unmatched[(method.map { $0 + " " } ?? "") + uri, default: 0] += 1
                }
            } catch {
                malformed[error.message, default: (0, lines)].count += 1
            }
        }
        if progress && lines >= 1_000_000 { write("\r", to: .error) }
        let routes = router.routes.map { ($0, byRoute[$0.id] ?? 0) }.sorted { $0.1 > $1.1 }
        let misses = unmatched.sorted { $0.value > $1.value }.prefix(top)
        let bad = malformed.sorted { $0.value.count > $1.value.count }.prefix(top)
        if json {
            let r = routes.map { "{\"route\":\($0.0.id),\"name\":\($0.0.name.map(Interlock_json) ?? "null"),\"pattern\":\(Interlock_json($0.0.pattern.source)),\"count\":\($0.1)}" }
            let u = misses.map { "{\"request\":\(Interlock_json($0.key)),\"count\":\($0.value)}" }
            let m = bad.map { "{\"problem\":\(Interlock_json($0.key)),\"count\":\($0.value.count),\"first_line\":\($0.value.firstLine)}" }
            print("{\"lines\":\(lines),\"routes\":[\(r.joined(separator: ","))],\"unmatched\":[\(u.joined(separator: ","))],\"malformed\":[\(m.joined(separator: ","))]}")
            return
        }
        print("\(lines) lines")
        print(pad("count", 10) + "  route")
        for (route, count) in routes { print(pad(String(count), 10) + "  " + route.pattern.source + (route.name.map { "  (\($0))" } ?? "")) }
        if !misses.isEmpty {
            print("\nunmatched (\(unmatched.values.reduce(0, +)))")
            for (request, count) in misses { print(pad(String(count), 10) + "  " + request) }
        }
        if !bad.isEmpty {
            print("\nmalformed (\(malformed.values.reduce(0) { $0 + $1.count }))")
            for (problem, v) in bad { print(pad(String(v.count), 10) + "  " + problem + " (first on line \(v.firstLine))") }
        }
    }

    /// The method and URI of a log line: an access log's request field, or the whole line.
    static func request(in line: String) -> (String?, String) {
        guard let open = line.firstIndex(of: "\"") else { return (nil, line) }
        let rest = line[line.index(after: open)...]
        guard let close = rest.firstIndex(of: "\"") else { return (nil, line) }
        let parts = rest[..<close].split(separator: " ")
        guard parts.count == 3 else { return (nil, line) }
        return (String(parts[0]), String(parts[1]))
    }

    private func pad(_ s: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - s.count)) + s
    }
}

/// `json(_:)` under a name the flag `json` does not hide.
func Interlock_json(_ s: String) -> String { json(s) }
