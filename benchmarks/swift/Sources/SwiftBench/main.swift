// Usage: SwiftBench ROUTES REQUESTS TABLE [seconds]. One JSON line per door: Interlock through its
// Swift API (a reused Matcher, the zero-allocation path) and RoutingKit's TrieRouter. Each does the
// whole work for every request: the lookup under the request's method, the route's id, and every
// parameter's name and value (the Matcher's parameterName and parameterValue; RoutingKit's
// Parameters, read by the names of the route's parameters, as a Vapor handler reads them), their
// lengths added up. A pass returns (sum of route ids, sum of those lengths), which each record
// carries ("route_sum", "param_bytes") for the driver to check.
import Interlock
import RoutingKit

#if canImport(Glibc)
import Glibc
#endif

func lines(_ path: String) -> [[String]] {
    guard let f = fopen(path, "r") else { fatalError("cannot open \(path)") }
    defer { fclose(f) }
    var out: [[String]] = []
    var buffer = [CChar](repeating: 0, count: 8192)
    while fgets(&buffer, Int32(buffer.count), f) != nil {
        let line = String(cString: buffer)
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        if fields.count >= 2 { out.append(fields) }
    }
    return out
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// What every pass adds its sums to, so that no lookup's work can be left out.
var sink = 0

func batches(_ door: String, _ table: String, _ perPass: Int, _ seconds: Double, _ extra: String, _ pass: () -> (Int, Int)) {
    let (routeSum, paramBytes) = pass()
    var t = now()
    sink &+= pass().1
    let one = now() - t
    let passes = one > 0 ? Int(seconds / one) + 1 : 1
    var ns: [String] = []
    for _ in 0..<7 {
        t = now()
        for _ in 0..<passes { sink &+= pass().1 }
        let v = (now() - t) / Double(passes * perPass) * 1e9
        ns.append(fmt(v))
    }
    print("{\"door\": \"\(door)\", \"table\": \"\(table)\", \"lookups_per_batch\": \(passes * perPass), \"ns\": [\(ns.joined(separator: ", "))]\(extra), \"route_sum\": \(routeSum), \"param_bytes\": \(paramBytes)}")
}

/// A number with two decimals (no Foundation here).
func fmt(_ x: Double) -> String {
    let hundredths = Int((x * 100).rounded())
    let digits = String(hundredths)
    let padded = digits.count < 3 ? String(repeating: "0", count: 3 - digits.count) + digits : digits
    return padded.dropLast(2) + "." + padded.suffix(2)
}

let args = CommandLine.arguments
let table = args[3]
let seconds = args.count > 4 ? Double(args[4]) ?? 0.2 : 0.2
let routes = lines(args[1])
let requests = lines(args[2]).filter { $0.count >= 3 && $0[2] != "bad" }

/// Door `door`, `lookup` answering request i with its route's id (0 for none) and the lengths of
/// its parameters' names and values: its answers checked against the requests' ids, then timed
/// in batches of passes over every request, each pass adding up what the lookups found.
@inline(__always)
func timeDoor(_ door: String, compileMs: Double, _ lookup: (Int) -> (Int, Int)) {
    var wrong = 0
    for i in requests.indices where lookup(i).0 != Int(requests[i][2])! { wrong += 1 }
    batches(door, table, requests.count, seconds,
            ", \"routes\": \(routes.count), \"checked\": \(requests.count), \"wrong\": \(wrong), \"compile_ms\": \(fmt(compileMs))") {
        var ids = 0, bytes = 0
        for i in requests.indices {
            let (id, b) = lookup(i)
            ids += id; bytes += b
        }
        return (ids, bytes)
    }
}

// Interlock
let router = Router()
var t0 = now()
for r in routes { _ = try router.addRoute(r[0] == "-" ? r[1] : "\(r[0]) \(r[1])") }
let matcher = Matcher(preallocate: true)
let uris = requests.map { Array($0[1].utf8) }
let methods = requests.map { $0[0] == "-" ? nil : Array($0[0].utf8) }
_ = try uris[0].withUnsafeBytes { try matcher.match(router, method: nil, uri: $0) }
let compiled = (now() - t0) * 1e3
/// Request i: the route's id (0 for none) and the lengths of its parameters' names and values.
func interlockLookup(_ i: Int) -> (Int, Int) {
    uris[i].withUnsafeBytes { u in
        let outcome: MatchOutcome?
        if let m = methods[i] {
            outcome = m.withUnsafeBytes { mb in try? matcher.match(router, method: mb, uri: u) }
        } else {
            outcome = try? matcher.match(router, method: nil, uri: u)
        }
        guard outcome == .matched else { return (0, 0) }
        var bytes = 0
        for k in 0..<matcher.parameterCount {
            if let (_, nameLength) = matcher.parameterName(k), let (_, valueLength) = matcher.parameterValue(k) {
                bytes += nameLength + valueLength
            }
        }
        return (Int(matcher.routeID), bytes)   // routeID: no reference counting
    }
}
timeDoor("Swift Interlock Matcher", compileMs: compiled, interlockLookup)

// RoutingKit: the method is the first path component, as Vapor registers routes.
let plain = routes.allSatisfy { $0[0] != "-" && !$0[1].contains("://") && !$0[1].contains("(") }
if !plain {
    print("{\"door\": \"RoutingKit TrieRouter (Swift)\", \"table\": \"\(table)\", \"unsupported\": \"schemes, constraints, optional parts or routes without a method\"}")
} else {
    t0 = now()
    let trie = TrieRouter(Int.self)
    var parameterNames: [[String]] = [[]]      // by route id: its parameters' names, in path order
    for (i, r) in routes.enumerated() {
        let components = r[1].split(separator: "/").map { part -> PathComponent in
            part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : part == "*" ? .anything : .constant(String(part))
        }
        trie.register(i + 1, at: [.constant(r[0])] + components)
        parameterNames.append(r[1].split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) })
    }
    let rkCompiled = (now() - t0) * 1e3
    let paths = requests.map { [$0[0]] + $0[1].split(separator: "/").map(String.init) }
    func rkLookup(_ i: Int) -> (Int, Int) {
        var parameters = Parameters()
        guard let id = trie.route(path: paths[i], parameters: &parameters) else { return (0, 0) }
        var bytes = 0
        for name in parameterNames[id] {
            if let value = parameters.get(name) { bytes += name.utf8.count + value.utf8.count }
        }
        return (id, bytes)
    }
    timeDoor("RoutingKit TrieRouter (Swift)", compileMs: rkCompiled, rkLookup)
}
if sink < 0 { print("sink \(sink)") }   // the sums are used, so nothing of a pass is left out
