import Testing
@testable import Interlock

@Suite("URI parsing and normalization")
struct URITests {
    /// The normalized path (and the spans) of `uri`.
    func normalize(_ uri: String, strict: Bool = false) throws(InterlockError) -> (path: String, scheme: String?, host: String?, port: String?, query: String?, fragment: String?) {
        let bytes = Array(uri.utf8)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: URIParser.outputCapacity(for: bytes.count))
        defer { out.deallocate() }
        let spans = try withBytes(bytes) { (b) throws(InterlockError) in try URIParser.parse(b, strictSlash: strict, into: out) }
        func text(_ r: Range<Int>?) -> String? { r.map { Array(bytes[$0]).string } }
        let path = String(decoding: UnsafeBufferPointer(start: out, count: spans.pathLength), as: UTF8.self)
        return (path, text(spans.scheme), text(spans.host), text(spans.port), text(spans.query), text(spans.fragment))
    }

    static let paths: [(String, String)] = [
        ("/", ""),
        ("", ""),
        ("/a/b", "/a/b"),
        ("a/b", "/a/b"),
        ("/a//b///c", "/a/b/c"),
        ("/a/b/", "/a/b"),
        ("/a/./b/../c", "/a/c"),
        ("/a/b/..", "/a"),
        ("/../../a", "/a"),
        ("/a/%2E%2E/b", "/b"),
        ("/%7Euser/%41%62%2d", "/~user/Ab-"),
        ("/a%2fb/c", "/a%2Fb/c"),
        ("/a%2Fb", "/a%2Fb"),
        ("/caf%c3%a9", "/caf%C3%A9"),
        ("/caf\u{e9}", "/caf%C3%A9"),
        ("/a b", "/a%20b"),
        ("/a+b:c@d!$&'()*,;=", "/a+b:c@d!$&'()*,;="),
        ("/...", "/..."),
        ("myapp://user/42", "/user/42"),
        ("myapp:///user/42", "/user/42"),
        ("myapp:user/42", "/user/42"),
        ("MyApp://User/42", "/User/42"),
        ("https://example.com", ""),
        ("https://example.com/a/b?x#y", "/a/b"),
        ("//example.com/a", "/example.com/a"),
    ]

    @Test(arguments: paths)
    func pathNormalization(_ c: (String, String)) throws {
        #expect(try normalize(c.0).path == c.1, "\(c.0)")
    }

    /// The plain-path fast path must give what the general normalizer gives, or leave the path to it.
    /// The fast path's table, written out as a literal, says for every byte what `isPathChar`
    /// and the dot rule say.
    @Test func theFastPathTableAgreesWithThePathCharacterRules() {
        #expect(fastPathBytes.utf8CodeUnitCount == 256)
        let table = fastPathBytes.utf8Start
        for c in 0..<256 {
            let inSegment = c < 128 && isPathChar(UInt8(c))
            #expect((table[c] & pathByteInSegment != 0) == inSegment, "byte \(c): in a segment")
            #expect((table[c] & pathByteStartsSegment != 0) == (inSegment && c != 0x2E), "byte \(c): starts a segment")
        }
    }

    @Test func plainFastPathAgreesWithTheGeneralNormalizer() throws {
        let pieces = ["/", "/", "a", "bc", ".", "..", ".x", "x.", "%41", "%2e", "?q", "#f", "~", ":", "@", "%2F", " ", "//",
                      "\u{0}", "Z", "é"]
        var rng = SplitMix(seed: 42)
        let prefixes = ["", "myapp:", "myapp://", "https://h.example"]
        var indexed = 0
        defer { #expect(indexed > 1_000) }   // the check of segment ends ran
        for _ in 0..<20_000 {
            var uri = prefixes[Int(rng.next() % UInt64(prefixes.count))]
            for _ in 0..<Int(rng.next() % 9) { uri += pieces[Int(rng.next() % UInt64(pieces.count))] }
            for strict in [false, true] {
                let bytes = Array(uri.utf8)
                let fast = UnsafeMutablePointer<UInt8>.allocate(capacity: URIParser.outputCapacity(for: bytes.count))
                let slow = UnsafeMutablePointer<UInt8>.allocate(capacity: URIParser.outputCapacity(for: bytes.count))
                let ends = UnsafeMutablePointer<UInt32>.allocate(capacity: URIParser.outputCapacity(for: bytes.count))
                defer { fast.deallocate(); slow.deallocate(); ends.deallocate() }
                let a = try? withBytes(bytes) { (b) throws(InterlockError) in
                    try URIParser.parse(b, strictSlash: strict, into: fast, segmentEnds: ends)
                }
                let b = try? withBytes(bytes) { (b) throws(InterlockError) in
                    try URIParser.parse(b, strictSlash: strict, into: slow, plainFastPath: false)
                }
                #expect((a == nil) == (b == nil), "\(uri)")
                guard let a, let b else { continue }
                #expect(a.pathLength == b.pathLength && a.query == b.query && a.fragment == b.fragment, "\(uri)")
                #expect(Array(UnsafeBufferPointer(start: fast, count: a.pathLength)) == Array(UnsafeBufferPointer(start: slow, count: b.pathLength)),
                        "\(uri) strict: \(strict)")
                // Where the fast path noted segment ends, each "/" has the end of the segment after it.
                if a.segmentsIndexed {
                    indexed += 1
                    let path = Array(UnsafeBufferPointer(start: fast, count: a.pathLength))
                    for (p, c) in path.enumerated() where c == 0x2F {
                        let end = path[(p + 1)...].firstIndex(of: 0x2F) ?? path.count
                        #expect(Int(ends[p]) == end, "\(uri) strict: \(strict), the segment after \(p)")
                    }
                }
            }
        }
    }

    /// Normalizing a normalized path leaves it as it is. The lookup relies on it: a URI whose path
    /// is, byte for byte, one the all-literal table holds is copied, not parsed.
    @Test func normalizingANormalizedPathChangesNothing() throws {
        let pieces = ["/", "a", "bc", ".", "..", ".x", "%41", "%2e", "%2f", "~", ":", "@", "%2F", " ", "//", "Z", "é", "%c3%a9", "+"]
        var rng = SplitMix(seed: 4242)
        for _ in 0..<20_000 {
            var uri = ""
            for _ in 0..<Int(rng.next() % 9) { uri += pieces[Int(rng.next() % UInt64(pieces.count))] }
            for strict in [false, true] {
                guard let once = try? normalize(uri, strict: strict) else { continue }
                #expect(try normalize(once.path, strict: strict).path == once.path, "\(uri) -> \(once.path) strict: \(strict)")
                // What the shortcut takes for a path: up to "?" or "#".
                let bytes = Array((once.path + "?q#f").utf8)
                let end = bytes.withUnsafeBytes { URIParser.barePathEnd($0) }
                #expect(end == (once.path.utf8.count >= 1 ? once.path.utf8.count : nil), "\(once.path)")
            }
        }
    }

    /// The word-at-a-time search for a path's end: every length up to 40, with "?" or "#" at every
    /// place or nowhere, against a byte-by-byte search.
    @Test func barePathEndFindsTheFirstQueryOrFragment() {
        for n in 0...40 {
            for mark in [nil, UInt8(ascii: "?"), UInt8(ascii: "#")] {
                for at in (mark == nil ? [-1] : Array(0..<n)) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: n)
                    if n > 0 { bytes[0] = slash }
                    if let mark, at >= 0 { bytes[at] = mark }
                    if let mark, at + 3 < n { bytes[at + 3] = mark == 0x3F ? 0x23 : 0x3F }   // a later one must not count
                    let expected = n >= 2 && bytes[0] == slash ? (bytes.firstIndex { $0 == 0x3F || $0 == 0x23 } ?? n) : nil
                    #expect(bytes.withUnsafeBytes { URIParser.barePathEnd($0) } == expected, "length \(n), mark at \(at)")
                }
            }
        }
    }

    /// The word-at-a-time comparison the lookup uses for paths and methods: every length up to 40,
    /// equal, and differing at each position.
    @Test func sameBytesFindsEveryDifference() {
        for n in 0...40 {
            let a = (0..<n).map { UInt8(truncatingIfNeeded: 0x41 + $0 * 7) }
            a.withUnsafeBufferPointer { pa in
                var copy = a
                copy.withUnsafeMutableBufferPointer { pb in
                    #expect(sameBytes(pa.baseAddress ?? UnsafePointer(bitPattern: 1)!, UnsafePointer(pb.baseAddress ?? UnsafeMutablePointer(bitPattern: 1)!), n))
                    for i in 0..<n {
                        pb[i] ^= 0x20
                        #expect(!sameBytes(pa.baseAddress!, UnsafePointer(pb.baseAddress!), n), "length \(n), position \(i)")
                        pb[i] ^= 0x20
                    }
                }
            }
        }
    }

    @Test func strictSlashKeepsOneTrailingSlash() throws {
        #expect(try normalize("/a/b/", strict: true).path == "/a/b/")
        #expect(try normalize("/a/b//", strict: true).path == "/a/b/")
        #expect(try normalize("/a/b/.", strict: true).path == "/a/b/")
        #expect(try normalize("/a/b/c/..", strict: true).path == "/a/b/")
        #expect(try normalize("/", strict: true).path == "")
        #expect(try normalize("/a", strict: true).path == "/a")
    }

    @Test func components() throws {
        let u = try normalize("HTTPS://user:pw@Example.COM:8443/p?a=1&b#frag")
        #expect(u.scheme == "HTTPS")        // lower-cased when written into the subject
        #expect(u.host == "Example.COM")
        #expect(u.port == "8443")
        #expect(u.query == "a=1&b")
        #expect(u.fragment == "frag")
        let deep = try normalize("myapp://user/42?coupon=X")
        #expect(deep.host == nil)
        #expect(deep.query == "coupon=X")
        let ipv6 = try normalize("http://[::1]:8080/x")
        #expect(ipv6.host == "[::1]" && ipv6.port == "8080")
    }

    static let malformed: [(String, Int, String)] = [
        ("/a/%G1", 3, "bad percent-escape"),
        ("/a/%4", 3, "bad percent-escape"),
        ("/a%", 2, "bad percent-escape"),
        ("/a\u{0}b", 2, "control byte"),
        ("/a\tb", 2, "control byte"),
        ("/a\u{7f}", 2, "control byte"),
        ("/a/%00", 3, "NUL"),
        // Ill-formed UTF-8 is named where its sequence begins, not where it went wrong (nor past
        // the end, for a sequence cut short).
        ("/a/%C3%28", 3, "UTF-8"),
        ("/a/%ED%A0%80", 3, "UTF-8"),     // a surrogate
        ("/a/%C0%AF", 3, "UTF-8"),        // an overlong "/"
        ("/a/%E2%82", 3, "UTF-8"),        // cut short
        ("/a/b%E2%82/c", 4, "UTF-8"),     // cut short by the segment's end
        ("/a?x=1&y=%C3%28", 9, "UTF-8 once decoded"),
        ("/a?x=%E2%82", 5, "UTF-8 once decoded"),
        ("/a#%E2%82x", 3, "fragment is not valid UTF-8"),
        ("/a?x=%G1", 5, "bad percent-escape in query"),
        ("/a?x=%FF", 5, "UTF-8"),
        ("/a?x=\u{1}", 5, "control byte in query"),
        ("/a#%zz", 3, "bad percent-escape in fragment"),
        ("http:///a", 7, "empty host"),
        ("http://exa mple.com/", 10, "invalid character in host"),
        ("http://example.com:80x/", 21, "port"),
        ("http://[::1/", 7, "IP literal"),
        // The user info takes no part in routing, but its bytes are checked as the query's are.
        ("https://a\u{0}b@x.example.com/w/v", 9, "control byte in user info"),
        ("https://a\u{1b}[2J@x.example.com/w/v", 9, "control byte in user info"),
        ("https://a%00@x.example.com/", 9, "NUL"),
        ("https://a%G1@x.example.com/", 9, "bad percent-escape in user info"),
        ("https://a%C3%28@x.example.com/", 9, "user info is not valid UTF-8"),
        // A host's escapes decode to bytes a name may hold; its labels are not empty (one
        // trailing dot is dropped); an IP literal is an IPv6 address, whole, or an IPvFuture one.
        ("https://a..example.com/", 10, "empty label in host"),
        ("https://.example.com/", 8, "empty label in host"),
        ("https://a.example.com../", 22, "empty label in host"),
        ("https://./", 8, "empty label in host"),
        ("https://a.%2E/", 10, "empty label in host"),
        ("https://a%2Fb.example.com/", 9, "decodes to a byte"),
        ("https://a%C3%A9.example.com/", 9, "decodes to a byte"),
        ("https://a%00.example.com/", 9, "decodes to a byte"),
        ("https://a%4.example.com/", 9, "bad percent-escape in host"),
        ("https://a[b].example.com/", 9, "invalid character in host"),
        ("https://[fe80::1%25eth0]/", 16, "zone identifier"),
        ("https://[1:2:3:4:5:6:7:8:9]/", 25, "more than eight groups"),
        ("https://[1::2::3]/", 13, "two '::'"),
        ("https://[12345::]/", 13, "four hex digits"),
        ("https://[1:2:3]/", 9, "fewer than eight groups"),
        ("https://[1:2:3:4:5:6:7::8]/", 9, "'::' and eight groups"),
        ("https://[:1::]/", 9, "single ':'"),
        ("https://[1::2:]/", 13, "single ':'"),
        ("https://[::1.2.3.256]/", 17, "IPv4"),
        ("https://[::01.2.3.4]/", 11, "IPv4"),
        ("https://[]/", 8, "empty IP literal"),
        ("https://[v1]/", 11, "IPvFuture"),
        ("https://[::g]/", 11, "invalid character in IP literal"),
        ("https://1.2.3.256/", 14, "out of range"),
        ("https://256.1/", 8, "out of range"),
        ("https://1.2.65536/", 12, "out of range"),
        ("https://4294967296/", 8, "out of range"),
        ("https://1.2.3.4.5/", 16, "not an IPv4 address"),
        ("https://a.1/", 8, "not an IPv4 address"),
        ("https://09/", 8, "not an IPv4 address"),
        ("https://0x1g.1/", 8, "not an IPv4 address"),
    ]

    @Test(arguments: malformed)
    func malformedURIsAreRefused(_ c: (String, Int, String)) {
        expectRefused(c.0, .uri, at: c.1, saying: c.2) { () throws(InterlockError) in _ = try normalize(c.0) }
    }

    @Test func invalidRawUTF8IsRefused() throws {
        let bytes: [UInt8] = Array("/a/".utf8) + [0xFF, 0x41]
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        defer { out.deallocate() }
        let error = caught { () throws(InterlockError) in
            try withBytes(bytes) { (b) throws(InterlockError) in try URIParser.parse(b, strictSlash: false, into: out) }
        }
        #expect(error?.code == .uri && error?.offset == 3)
    }

    /// Raw bytes that are not UTF-8 (or a control byte), wherever they stand, refused where they do.
    @Test func everyPartOfAURIIsChecked() throws {
        let cases: [([UInt8], Int, String)] = [
            (Array("https://a".utf8) + [0x1B] + Array("[2J".utf8) + [0xFF] + Array("@x.example.com/w/v".utf8), 9, "control byte in user info"),
            (Array("https://a".utf8) + [0xFF] + Array("@x.example.com/w/v".utf8), 9, "user info is not valid UTF-8"),
            (Array("https://a".utf8) + [0xC3] + Array("@x.example.com/w/v".utf8), 9, "user info is not valid UTF-8"),
            (Array("https://x".utf8) + [0xFF] + Array(".example.com/w/v".utf8), 9, "invalid character in host"),
            (Array("https://x.example.com:8".utf8) + [0xFF] + Array("/w/v".utf8), 23, "port"),
            (Array("https://x.example.com/w/v?a=".utf8) + [0xFF], 28, "query is not valid UTF-8"),
            (Array("https://x.example.com/w/v#".utf8) + [0x7F], 26, "control byte in fragment"),
            // A sequence of a byte and escapes decodes to UTF-8, but the URI is not UTF-8 text.
            (Array("s@s".utf8) + [0xDB] + Array("%8f)v".utf8), 3, "path is not valid UTF-8"),
            (Array("/a?q=".utf8) + [0xC3] + Array("%A9".utf8), 5, "query is not valid UTF-8"),
            (Array("/a?q=%C3".utf8) + [0xA9], 5, "query is not valid UTF-8"),
            (Array("https://u".utf8) + [0xC3] + Array("%A9@x.example.com/".utf8), 9, "user info is not valid UTF-8"),
        ]
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: URIParser.outputCapacity(for: 64))
        defer { out.deallocate() }
        for (bytes, offset, message) in cases {
            let error = caught { () throws(InterlockError) in
                try withBytes(bytes) { (b) throws(InterlockError) in try URIParser.parse(b, strictSlash: false, into: out) }
            }
            #expect(error?.code == .uri && error?.offset == offset, "\(bytes): \(error?.message ?? "no error")")
            #expect(error?.message.contains(message) == true, "\(bytes): \(error?.message ?? "no error")")
        }
    }

    /// The host as the matcher, explain and a resolve's request see it.
    func host(_ uri: String) throws(InterlockError) -> String? {
        let bytes = Array(uri.utf8)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: URIParser.outputCapacity(for: bytes.count))
        defer { out.deallocate() }
        return try withBytes(bytes) { (b) throws(InterlockError) in
            URIParser.normalizedHost(b, try URIParser.parse(b, strictSlash: false, into: out))
        }.map { $0.string }
    }

    static let hosts: [(String, String?)] = [
        ("https://Example.COM/", "example.com"),
        ("https://%61dmin.example.com/x", "admin.example.com"),
        ("https://%41DMIN.example.com.:443/x", "admin.example.com"),
        ("https://admin.example.com./x", "admin.example.com"),
        ("https://admin%2Eexample%2ecom%2E/x", "admin.example.com"),
        ("https://user:pw@a!b.example.com/", "a!b.example.com"),
        ("https://a%21b.example.com/", "a!b.example.com"),
        ("https://localhost/", "localhost"),
        ("https://[0:0:0:0:0:0:0:1]/", "[::1]"),
        ("https://[::1]:8080/", "[::1]"),
        ("https://[::]/", "[::]"),
        ("https://[0::0]/", "[::]"),
        ("https://[2001:DB8:0:0:1:0:0:1]/", "[2001:db8::1:0:0:1]"),   // the first of equal runs
        ("https://[2001:db8:0:0:1:0:0:0]/", "[2001:db8:0:0:1::]"),    // the longest run
        ("https://[2001:0db8:0:1:1:1:1:1]/", "[2001:db8:0:1:1:1:1:1]"), // one zero group stays
        ("https://[1::2:3:4:5:6:7]/", "[1:0:2:3:4:5:6:7]"),
        ("https://[0001:0DB8::0]/", "[1:db8::]"),
        ("https://[::ffff:192.0.2.1]/", "[::ffff:c000:201]"),
        ("https://[::0.0.0.1]/", "[::1]"),
        ("https://[v1F.Ab:C]/", "[v1f.ab:c]"),
        ("myapp://Host/x", nil),
        // A name ending in a number is an IPv4 address, as resolvers read one.
        ("https://127.0.0.1/", "127.0.0.1"),
        ("https://127.1/", "127.0.0.1"),
        ("https://0x7f.0.0.1/", "127.0.0.1"),
        ("https://0X7F.1/", "127.0.0.1"),
        ("https://2130706433/", "127.0.0.1"),
        ("https://0177.0.0.1/", "127.0.0.1"),
        ("https://%31%32%37.0.0.1/", "127.0.0.1"),
        ("https://1.2.3.4./", "1.2.3.4"),
        ("https://1.2.3.0x4/", "1.2.3.4"),
        ("https://0/", "0.0.0.0"),
        ("https://0x/", "0.0.0.0"),
        ("https://255.255.255.255/", "255.255.255.255"),
        ("https://1.2.65535/", "1.2.255.255"),
        ("https://a.1x/", "a.1x"),
        ("https://1x.example/", "1x.example"),
        ("https://0x1g/", "0x1g"),
        ("https://1.0x/", "1.0.0.0"),
    ]

    @Test(arguments: hosts)
    func hostsAreNormalized(_ c: (String, String?)) throws {
        #expect(try host(c.0) == c.1, "\(c.0)")
    }

    @Test func lengthLimit() throws {
        let ok = "/" + String(repeating: "a", count: maximumURILength - 1)
        #expect(try normalize(ok).path.utf8.count == maximumURILength)
        let error = caught { () throws(InterlockError) in try normalize(ok + "a") }
        #expect(error?.code == .uri && error?.offset == maximumURILength)
    }

    @Test func queryItems() {
        let raw = Array("tag=a&tag=b+c&flag&&k%20x=v%2Bw&=e&x=".utf8)
        let q = raw.withUnsafeBufferPointer { QueryItems(parsing: $0) }
        #expect(q.items.map(\.key) == ["tag", "tag", "flag", "k x", "", "x"])
        #expect(q.items.map(\.value) == ["a", "b c", "", "v+w", "e", ""])
        #expect(q["tag"] == "a")
        #expect(q.all("tag") == ["a", "b c"])
        #expect(q["missing"] == nil)
    }
}

/// A seeded generator, so that a failing case can be reproduced.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
