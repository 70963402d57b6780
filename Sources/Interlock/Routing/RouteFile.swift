// Route files: a table as text, one route a line, shared by an app, its backend and its tests.
//
//     # comment
//     GET /users/:id            name=user  owner=accounts
//     myapp://settings/profile  name=settings
//
// A line is `[METHOD ]pattern`, then `key=value` pairs: `name=` names the route, the others are its
// data (strings). Tokens are separated by spaces or tabs (a value holds none); `#` at the start of
// a token begins a comment; blank lines are skipped. The first token is the method when it is
// upper-case letters, and a pattern must follow it: a line holding `GET` alone is refused, not read
// as the path `/GET` (write `/GET` for that). A method in lower case is refused by name.
import Synchronization

/// One route of a route file, as read from its line.
public struct RouteFileEntry: Sendable, Equatable {
    /// The line it is on, from 1.
    public let line: Int
    /// The pattern with its method, as ``Router/addRoute(_:name:)`` takes it.
    public let pattern: String
    /// Its `name=`, if it has one.
    public let name: String?
    /// Its other `key=value` pairs, in the order written.
    public let data: [RouteFileValue]
    /// Where its line starts, its method (if any) and its path, as byte offsets in the text: the
    /// pattern is "METHOD path" with one space, the line may have more between them.
    let lineStart: Int, methodStart: Int?, pathStart: Int
}

/// One `key=value` pair of a route file's line.
public struct RouteFileValue: Sendable, Equatable {
    /// The key.
    public let key: String
    /// The value.
    public let value: String
}

/// Reading route files.
public enum RouteFile {
    /// The routes of a route file, in order, without adding them anywhere.
    ///
    /// - Parameter text: The file's text (UTF-8).
    /// - Returns: One entry per route line.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/pattern`` whose message begins with
    ///   "line L, column C:" and whose `offset` is the byte offset in `text`, for a line that is not
    ///   `[METHOD ]pattern` and `key=value` pairs (a pair without a key, a key twice, an empty
    ///   name, a NUL or control byte). A pattern's own errors are found when the routes are added.
    public static func parse(_ text: String) throws(InterlockError) -> [RouteFileEntry] {
        var bytes = Array(text.utf8)
        // A byte-order mark some editors write first is no part of the first pattern (it becomes
        // spaces, so that columns and offsets stay the file's).
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.replaceSubrange(0..<3, with: [0x20, 0x20, 0x20]) }
        var entries: [RouteFileEntry] = []
        var lineStart = 0, lineNumber = 1
        while lineStart <= bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            var end = lineEnd
            if end > lineStart, bytes[end - 1] == 0x0D { end -= 1 }     // CRLF
            if let entry = try parseLine(bytes, lineStart, end, line: lineNumber) { entries.append(entry) }
            lineStart = lineEnd + 1
            lineNumber += 1
        }
        return entries
    }

    private static func parseLine(_ bytes: [UInt8], _ start: Int, _ end: Int, line: Int) throws(InterlockError) -> RouteFileEntry? {
        func fail(_ message: String, _ at: Int) -> InterlockError {
            InterlockError(.pattern, "line \(line), column \(at - start + 1): \(message)", offset: at)
        }
        // Tokens, up to a comment.
        var tokens: [Range<Int>] = []
        var i = start
        while i < end {
            let c = bytes[i]
            if c == 0x20 || c == 0x09 { i += 1; continue }
            if c == 0x23 { break }                                 // "#": the rest is a comment
            if c < 0x20 || c == 0x7F { throw fail("control byte in the line", i) }
            let tokenStart = i
            while i < end, bytes[i] != 0x20, bytes[i] != 0x09 {
                if bytes[i] < 0x20 || bytes[i] == 0x7F { throw fail("control byte in the line", i) }
                i += 1
            }
            tokens.append(tokenStart..<i)
        }
        guard let first = tokens.first else { return nil }
        func isPair(_ t: Range<Int>) -> Bool {
            guard let eq = bytes[t].firstIndex(of: 0x3D), eq > t.lowerBound else { return false }
            return bytes[t.lowerBound..<eq].allSatisfy { isAlpha($0) || isDigit($0) || $0 == 0x5F || $0 == 0x2D || $0 == 0x2E }
        }
        var next = 1
        if bytes[first].allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) {
            // "GET /x"; "GET" alone (or before pairs) would otherwise be the path "/GET".
            guard tokens.count > 1, !isPair(tokens[1]) else {
                let method = Array(bytes[first]).string
                throw fail("method '\(method)' with no pattern after it (a path of that name is written '/\(method)')", first.upperBound)
            }
            next = 2
        } else if tokens.count > 1, !isPair(tokens[1]), bytes[first].allSatisfy(isAlpha) {
            // "get /x": a method, but methods are compared case-sensitively and written upper case.
            let method = Array(bytes[first]).string
            throw fail("method '\(method)' must be upper case ('\(method.uppercased())')", first.lowerBound)
        }
        var name: String? = nil
        var data: [RouteFileValue] = []
        var seen: Set<String> = []
        for t in tokens[next...] {
            guard isPair(t), let eq = bytes[t].firstIndex(of: 0x3D) else {
                throw fail("expected key=value after the pattern", t.lowerBound)
            }
            let key = Array(bytes[t.lowerBound..<eq]).string, value = Array(bytes[(eq + 1)..<t.upperBound]).string
            guard seen.insert(key).inserted else { throw fail("key '\(key)' given twice", t.lowerBound) }
            if key == "name" {
                guard !value.isEmpty else { throw fail("empty route name", t.lowerBound) }
                name = value
            } else {
                data.append(RouteFileValue(key: key, value: value))
            }
        }
        // The method and the path with one space between, whatever the line had.
        var text = Array(bytes[first]).string
        if next == 2 { text += " " + Array(bytes[tokens[1]]).string }
        return RouteFileEntry(line: line, pattern: text, name: name, data: data, lineStart: start,
                              methodStart: next == 2 ? first.lowerBound : nil,
                              pathStart: next == 2 ? tokens[1].lowerBound : first.lowerBound)
    }
}

extension RouteFile {
    /// A route file's bytes as text.
    ///
    /// - Parameter bytes: The file's bytes.
    /// - Returns: The text.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/pattern``, "line L, column C:" and the
    ///   byte offset, for a NUL byte or bytes that are not UTF-8.
    public static func text(_ bytes: UnsafeRawBufferPointer) throws(InterlockError) -> String {
        var utf8 = UTF8Validator()
        var line = 1, lineStart = 0, sequenceStart = 0
        for i in 0..<bytes.count {
            let b = bytes[i]
            if utf8.isComplete { sequenceStart = i }
            let what = b == 0 ? "NUL byte" : "bytes that are not UTF-8"
            guard b != 0, utf8.feed(b) else {
                throw InterlockError(.pattern, "line \(line), column \(sequenceStart - lineStart + 1): \(what)", offset: sequenceStart)
            }
            if b == 0x0A { line += 1; lineStart = i + 1 }
        }
        guard utf8.isComplete else {
            throw InterlockError(.pattern, "line \(line), column \(sequenceStart - lineStart + 1): bytes that are not UTF-8", offset: sequenceStart)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Router {
    /// Adds every route of a route file (see ``RouteFile``), or none: a file with one bad line
    /// leaves the router as it was (and gives no id away). A route's `key=value` pairs become its
    /// data, a `[String: String]` (``data(for:)``); it has no destination until one is set
    /// (``setDestination(_:for:)``, by the id ``route(named:)`` gives).
    ///
    /// - Parameter text: The route file's text.
    /// - Returns: The ids of the routes added, in the file's order.
    /// - Throws: ``InterlockError``, with the message beginning "line L, column C:" and the
    ///   `offset` the byte offset in `text`: ``ErrorCode/pattern`` for a malformed line or pattern,
    ///   ``ErrorCode/conflict`` for a route of the same shape or name as another (in the router, or
    ///   on an earlier line: the message names it), ``ErrorCode/limit`` past the limits.
    @discardableResult
    public func load(_ text: String) throws(InterlockError) -> [RouteID] {
        try load(text, capacity: .max) { _ in }
    }

    /// As ``load(_:)``, refusing (`.limit`, having added nothing) a file of more than `capacity`
    /// routes, after telling `tooMany` how many it has (for the C door, which writes the ids into
    /// the caller's array).
    package func load(_ text: String, capacity: Int, tooMany: (Int) -> Void) throws(InterlockError) -> [RouteID] {
        let entries = try RouteFile.parse(text)
        if entries.count > capacity {
            tooMany(entries.count)
            throw InterlockError(.limit, "the file has \(entries.count) routes; the array holds \(capacity) ids")
        }
        var parsed: [(RouteFileEntry, RoutePattern)] = []
        for entry in entries {
            do throws(InterlockError) {
                parsed.append((entry, try PatternParser.parse(entry.pattern, strictSlash: options.contains(.strictSlash))))
            } catch {
                throw entry.locate(error)
            }
        }
        return try treeLock.withLock { (_: inout Void) throws(InterlockError) -> [RouteID] in
            try state.withLock { (s: inout State) throws(InterlockError) -> [RouteID] in
                var added: [State.Added] = []
                var lines: [RouteID: Int] = [:]
                for (entry, pattern) in parsed {
                    let data = entry.data.isEmpty ? nil : RouteData(pairs: entry.pairs)
                    do throws(InterlockError) {
                        let route = try s.add(pattern, name: entry.name, data: data)
                        added.append(route)
                        lines[route.route.id] = entry.line
                    } catch {
                        s.undoAdding(added)
                        var located = entry.locate(error)
                        // A conflict with an earlier line names that line (its id is given back).
                        for (id, line) in lines {
                            located.message = replacingAll("(route \(id))", with: "(line \(line))", in: located.message)
                        }
                        throw located
                    }
                }
                if !added.isEmpty { WrittenGeneration.note(generation.add(1, ordering: .releasing).newValue) }
                return added.map({ $0.route.id })
            }
        }
    }
}

extension RouteFileEntry {
    /// The entry's `key=value` pairs, the first of a key repeated.
    var pairs: [String: String] {
        var pairs: [String: String] = [:]
        for item in data where pairs[item.key] == nil { pairs[item.key] = item.value }
        return pairs
    }

    /// `error` about this entry's pattern, placed in the file: "line L, column C: ..." and the
    /// byte offset in the file's text.
    func locate(_ error: InterlockError) -> InterlockError {
        var at = pathStart
        if let offset = error.offset {
            if let methodStart, offset <= methodTokenLength {
                at = methodStart + offset
            } else {
                at = pathStart + offset - (methodStart == nil ? 0 : methodTokenLength + 1)
            }
        }
        return InterlockError(error.code, "line \(line), column \(at - lineStart + 1): \(error.message)", offset: at)
    }

    /// The method token's length in `pattern` (0 without one).
    private var methodTokenLength: Int {
        guard methodStart != nil, let space = pattern.utf8.firstIndex(of: 0x20) else { return 0 }
        return pattern.utf8.distance(from: pattern.utf8.startIndex, to: space)
    }
}

/// `text` with every `target` in it replaced by `replacement` (`String.replacing` is not in
/// Embedded Swift's standard library).
private func replacingAll(_ target: String, with replacement: String, in text: String) -> String {
    let t = Array(text.utf8), old = Array(target.utf8)
    var out: [UInt8] = []
    var i = 0
    while i < t.count {
        if !old.isEmpty, i + old.count <= t.count, t[i..<i + old.count].elementsEqual(old) {
            out += replacement.utf8
            i += old.count
        } else {
            out.append(t[i])
            i += 1
        }
    }
    return String(decoding: out, as: UTF8.self)
}
