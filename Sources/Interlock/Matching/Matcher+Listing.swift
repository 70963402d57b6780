// The leaves a lookup reaches, for an explanation: the lookup's own code decides which routes
// fit, so that an explanation never restates (and drifts from) the matcher's rules.

extension Matcher {
    /// Every leaf that a lookup of `uri` reaches and whose path, scheme, host and port fit, in
    /// the order the lookup tries them; with `method`, only those that also take it. The
    /// method-not-allowed pass, listing every leaf instead of noting methods: each unit's regex
    /// fails after each leaf it reaches, so the next is tried, with the same constraints, mixed
    /// segments and match limit as a lookup, in the table the matcher holds (see `take`). The
    /// subject keeps the parsed URI afterwards.
    ///
    /// - Parameters:
    ///   - method: The request's method, or nil (or empty) for any.
    ///   - uri: The URI's bytes.
    /// - Returns: The leaves (a route with optional parts has one per variant).
    /// - Throws: ``InterlockError`` as a lookup throws.
    func fittingLeaves(method: UnsafeRawBufferPointer?, uri: UnsafeRawBufferPointer) throws(InterlockError) -> [Leaf] {
        guard begin() else { return [] }
        var lookup = try writeSubject(uri, held: .unknown) { (subject) throws(InterlockError) -> Int in
            try Matcher.copyMethod(method, to: subject)
        }
        lookup.mode = .listing
        listed = []
        defer {
            listed = []         // the caller's copy holds the routes, not the matcher
            regexRun = RegexRun()
            winner = nil
            routeID = 0
        }
        _ = try matchTree(&lookup)
        return listed
    }

    /// The segments of the path last parsed, as (start, end) in the subject.
    var pathSegments: [(Int, Int)] {
        var segments: [(Int, Int)] = []
        var p = 0
        while p < spans.pathLength, subject[p] == slash {
            let end = segmentEnd(after: p)
            segments.append((p + 1, end))
            p = end
        }
        return segments
    }
}

extension Matcher {
    /// The scheme, host and port the subject's tail holds for the URI last parsed (nil for a
    /// bare path's), as lookups compare them: lower-cased, the port in decimal or the scheme's.
    var requestOrigin: (scheme: String?, host: String?, port: String?) {
        var fields: [String] = []
        var p = spans.pathLength + 1, start = p
        while p <= subjectLength {
            if p == subjectLength || subject[p] == newline {
                fields.append(String(decoding: UnsafeBufferPointer(start: subject + start, count: p - start), as: UTF8.self))
                start = p + 1
            }
            p += 1
        }
        // method, scheme, host, then after a host its port
        func field(_ i: Int) -> String? { i < fields.count && !fields[i].isEmpty ? fields[i] : nil }
        return (field(1), field(2), field(3))
    }
}
