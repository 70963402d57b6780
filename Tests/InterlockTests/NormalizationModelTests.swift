import Testing
@testable import Interlock

/// Random URIs made of pieces whose meaning is known on its own (a slash, a piece of a segment
/// with its normalized spelling, or an error), normalized by the library and by a model of the
/// README's rules written here from those meanings alone: decoded unreserved escapes, upper-case
/// hex, escaped bytes that may not stand in a path, dot segments (also when escaped), collapsed
/// empty segments, the trailing slash, and the offset of the first bad byte. The table-driven URI
/// tests hold single cases; this holds their combinations, through the parser and the lookup.
@Suite("URI normalization against a model")
struct NormalizationModelTests {
    enum Meaning {
        case slash
        case text(String)          // what the piece is in a normalized path
        case error(String)         // the error it raises, at its first byte
    }

    struct Piece {
        let bytes: [UInt8]
        let meaning: Meaning
        init(_ s: String, _ m: Meaning) { bytes = Array(s.utf8); meaning = m }
        init(raw: [UInt8], _ m: Meaning) { bytes = raw; meaning = m }
    }

    static let slash = Piece("/", .slash)

    static let pieces: [Piece] = [
        slash, slash, slash, Piece("//", .slash),
        Piece("a", .text("a")), Piece("Bc", .text("Bc")), Piece("0", .text("0")),
        Piece(".", .text(".")), Piece("..", .text("..")), Piece("...", .text("...")), Piece(".x", .text(".x")),
        Piece("%2E", .text(".")), Piece("%2e", .text(".")), Piece("%2E%2e", .text("..")),
        Piece("%41", .text("A")), Piece("%7e", .text("~")), Piece("%7E", .text("~")), Piece("%5f", .text("_")),
        Piece("%2d", .text("-")), Piece("%30", .text("0")),
        Piece("%2F", .text("%2F")), Piece("%2f", .text("%2F")), Piece("%20", .text("%20")), Piece("%25", .text("%25")),
        Piece("%3a", .text("%3A")), Piece("%2B", .text("%2B")), Piece("%7B", .text("%7B")), Piece("%3F", .text("%3F")),
        Piece("%23", .text("%23")),
        Piece(" ", .text("%20")), Piece("\"", .text("%22")), Piece("<", .text("%3C")), Piece("{", .text("%7B")),
        Piece("|", .text("%7C")), Piece("\\", .text("%5C")), Piece("^", .text("%5E")), Piece("`", .text("%60")),
        Piece("[", .text("%5B")), Piece("%", .error("escape")),
        Piece("\u{E9}", .text("%C3%A9")), Piece("%C3%A9", .text("%C3%A9")), Piece("%c3%a9", .text("%C3%A9")),
        Piece("\u{20AC}", .text("%E2%82%AC")), Piece("%F0%9F%98%80", .text("%F0%9F%98%80")),
        Piece("+", .text("+")), Piece(":", .text(":")), Piece("@", .text("@")), Piece("!", .text("!")),
        Piece("'", .text("'")), Piece("(", .text("(")), Piece("*", .text("*")), Piece("~", .text("~")),
        Piece("=", .text("=")), Piece(",", .text(",")), Piece(";", .text(";")), Piece("$", .text("$")), Piece("&", .text("&")),
        Piece("%G1", .error("escape")), Piece("%00", .error("NUL")), Piece("\t", .error("control")),
        Piece("\u{7F}", .error("control")), Piece("%E9", .error("UTF-8")), Piece(raw: [0xFF], .error("UTF-8")),
        Piece("%C0%80", .error("UTF-8")), Piece("%ED%A0%80", .error("UTF-8")), Piece(raw: [0xC3], .error("UTF-8")),
    ]

    /// What the model says `pieces` (after `prefix`) normalize to: the path, or the offset of the
    /// error and what it names.
    static func model(prefix: Int, _ pieces: [Piece], strict: Bool) -> Result<String, ModelError> {
        var segments: [String] = []
        var current: String? = nil       // the segment being read (nil: none since the last slash)
        var endsWithSlash = false
        var offset = prefix
        var raw: [String?] = []          // every segment as written, nil for an empty one
        for piece in pieces {
            switch piece.meaning {
            case .slash:
                raw.append(current)
                current = nil
                endsWithSlash = true
            case .text(let t):
                current = (current ?? "") + t
                endsWithSlash = false
            case .error(let what):
                return .failure(ModelError(offset: offset, what: what))
            }
            offset += piece.bytes.count
        }
        raw.append(current)
        // Empty segments collapse; then dot segments go (RFC 3986 5.2.4 on what is left).
        for segment in raw {
            guard let segment else { continue }
            if segment == "." { continue }
            if segment == ".." { if !segments.isEmpty { segments.removeLast() }; continue }
            segments.append(segment)
        }
        if segments.isEmpty { return .success("") }
        // A path that ends in a slash or a dot segment keeps one trailing slash when strict.
        let last = raw.last ?? nil
        let trailing = endsWithSlash || last == nil || last == "." || last == ".."
        return .success("/" + segments.joined(separator: "/") + (strict && trailing ? "/" : ""))
    }

    struct ModelError: Error, Equatable {
        let offset: Int
        let what: String
    }

    /// The library's normalized path of `uri` through the parser alone.
    static func parsed(_ uri: [UInt8], strict: Bool) -> Result<String, InterlockError> {
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: URIParser.outputCapacity(for: uri.count))
        defer { out.deallocate() }
        do {
            let spans = try withBytes(uri) { (b) throws(InterlockError) in try URIParser.parse(b, strictSlash: strict, into: out) }
            return .success(String(decoding: UnsafeBufferPointer(start: out, count: spans.pathLength), as: UTF8.self))
        } catch {
            return .failure(error)
        }
    }

    /// The same through a lookup (which takes the plain-path fast path where it can), read back
    /// from the request a resolve builds.
    static func resolved(_ uri: [UInt8], on router: Router) -> Result<String, InterlockError> {
        do {
            let path = try withBytes(uri) { (b) throws(InterlockError) in try router.resolve(bytes: b).request.path }
            return .success(path == "/" ? "" : path)
        } catch {
            return .failure(error)
        }
    }

    /// What comes before the random pieces: written bytes, then pieces the model reads too.
    static let prefixes: [(String, [Piece])] = [
        ("", []), ("", [slash]), ("myapp://", []), ("myapp:", []),
        ("https://h.example", [slash]), ("HTTP://Host.Example", [slash, Piece("x", .text("x")), slash]),
    ]

    @Test func randomPathsNormalizeAsTheModelSays() {
        var rng = SplitMix(seed: 0x5EED_2026)
        let routers = [false: Router(), true: Router(options: .strictSlash)]
        var checked = 0, errors = 0
        var failures: [String] = []
        for _ in 0..<30_000 {
            let (prefix, leading) = pick(Self.prefixes, &rng)
            var chosen = leading
            for _ in 0..<Int(rng.next() % 10) {
                let p = pick(Self.pieces, &rng)
                chosen.append(p)
                if case .error = p.meaning { break }        // one error a URI: the model names its offset
            }
            // A relative path whose first segment holds ':' would be read as a scheme.
            let firstSegment = chosen.prefix { if case .slash = $0.meaning { false } else { true } }
            if prefix.isEmpty, firstSegment.contains(where: { $0.bytes.contains(0x3A) }) { chosen.insert(Self.slash, at: 0) }
            let suffix = pick(["", "", "?q=%2F", "#f", "?a#b"], &rng)
            let uri = Array(prefix.utf8) + chosen.flatMap(\.bytes) + Array(suffix.utf8)
            for strict in [false, true] {
                let expected = Self.model(prefix: prefix.utf8.count, chosen, strict: strict)
                let show = "\(uri.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "\\x\(String($0, radix: 16))" }.joined()) strict: \(strict)"
                for (door, got) in [("parse", Self.parsed(uri, strict: strict)), ("resolve", Self.resolved(uri, on: routers[strict]!))] {
                    checked += 1
                    switch (expected, got) {
                    case (.success(let e), .success(let g)) where e == g:
                        break
                    case (.failure(let e), .failure(let g)) where g.code == .uri && g.offset == e.offset && g.message.contains(e.what):
                        errors += 1
                    default:
                        if failures.count < 20 { failures.append("\(door) \(show): expected \(expected), got \(got)") }
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(errors > 1_000 && checked - errors > 50_000, "the cases cover both outcomes: \(errors) errors of \(checked)")
    }
}
