// The all-literal table: the whole-URI shortcut, the probe of the URI's own path before the
// parse, and the probe of the normalized path (see docs/matching.md, "The all-literal probe").

extension Matcher {
    /// Tries the all-literal table with the URI's own path, before any parsing: a path the table
    /// holds byte for byte is already normalized (normalizing it would change nothing), so it is
    /// copied into the subject, its query and fragment are checked, and its entry is returned (the
    /// lookup's `probed`, for `matchStaticPath`). Nil, having written nothing, for any other URI:
    /// it is parsed, and probed again once normalized. Out of line, as `matchStaticPath`.
    ///
    /// The whole URI is probed first (unless `held` says the shortcut found it is not there): no
    /// path the table holds has a "?" or "#", so a URI that is one of them is a bare path (most
    /// requests are), found without looking for where its path ends. Only a URI that is none of
    /// them is looked through for a query or fragment.
    @inline(never) func takeStaticPath(_ uri: UnsafeRawBufferPointer, held: StaticHold) throws(InterlockError) -> StaticEntry? {
        guard let path = wholeURIAsPath(uri) else { return nil }
        var end = uri.count
        var found = held == .no ? nil : staticProbe.lookup(path, end)
        if found == nil {
            guard let pathEnd = URIParser.barePathEnd(uri), pathEnd < end else { return nil }
            end = pathEnd
            found = staticProbe.lookup(path, end)
        }
        guard let entry = found else { return nil }
        try URIParser.parse(uri, normalizedPathEnd: end, into: subject, spans: &spans)
        return entry
    }

    /// The URI itself as a path the all-literal table may hold byte for byte: a bare path ("/"
    /// first) no longer than any URI may be, on a table of exact case; nil for any other.
    @inline(__always) private func wholeURIAsPath(_ uri: UnsafeRawBufferPointer) -> UnsafePointer<UInt8>? {
        guard !staticProbe.fold, let base = uri.baseAddress, uri.count >= 2, uri.count <= maximumURILength,
              uri[0] == slash else { return nil }
        return base.assumingMemoryBound(to: UInt8.self)
    }

    /// The shortcut both lookups try first on a table that probes its all-literal paths, for a
    /// request whose method is `common` (a common method's word and length, or none): see
    /// `matchWholeStaticPath`. Unless it answered (`.matched`), the general lookup takes what it
    /// found out to `takeStaticPath` and goes on from there.
    @inline(__always) func wholeStaticPath(_ uri: UnsafeRawBufferPointer, _ common: (UInt64, Int)?) -> StaticHold {
        guard tableRoot != nil, let (word, length) = common else { return .unknown }
        return matchWholeStaticPath(uri, method: word, length)
    }

    /// Whether the all-literal table holds a URI as it is, as far as a lookup found out.
    enum StaticHold {
        /// Not probed.
        case unknown
        /// It does not (or the URI is not a bare path).
        case no
        /// It does, but none of the path's routes took the request.
        case yes
        /// It does, and the lookup is answered.
        case matched
    }

    /// The whole lookup for a URI that is a bare path the all-literal table holds byte for byte,
    /// under one of the common methods (`word`, `length` bytes) or none: the most frequent lookup
    /// on a mostly static table, answered from the path's entry without parsing or writing the
    /// subject's tail. A bare path has no scheme or host: only routes that name none (or empty
    /// ones, as `matchStatic` compares) take it. Anything but `.matched` leaves what the general
    /// lookup reads as it was, and tells it whether to probe the whole URI again: when none of
    /// the path's routes takes the method, the general lookup decides (less specific routes, or a
    /// method not allowed).
    @inline(never) private func matchWholeStaticPath(_ uri: UnsafeRawBufferPointer, method word: UInt64, _ length: Int) -> StaticHold {
        guard let path = wholeURIAsPath(uri), let entry = staticProbe.lookup(path, uri.count) else { return .no }
        guard uri.count <= subjectCapacity else { return .yes }     // the general lookup grows the subject first
        // `matchStatic`'s test with empty scheme and host, written out: through it (out of line,
        // with its ranges) a static lookup was measurably longer.
        let records = entry.records
        for i in 0..<entry.count where entry.field(i, 0).1 <= 0 && entry.field(i, 1).1 <= 0 {
            // A common method's word is never `MethodWord.long`: no byte of it is read.
            if !records[i].accepts(method: word, subject, length) { continue }
            // What a lookup of this path leaves (`record` sets the rest of the answer): the path
            // in the subject, no other part.
            if allowedCount > 0 { allowedRoutes.removeAll(keepingCapacity: true); allowedCount = 0 }
            UnsafeMutableRawPointer(subject).copyMemory(from: path, byteCount: uri.count)
            spans = URISpans()
            spans.pathLength = uri.count
            record(records + i)
            return .matched
        }
        return .yes
    }

    /// Tries the all-literal table for the path in `subject` (or the entry `takeStaticPath`
    /// found, `lookup.probed`); notes in `lookup` a path that fitted but took no route. Out of
    /// line: on tables that do not probe, its code in `match` made every lookup longer.
    @inline(never) func matchStaticPath(_ lookup: inout Lookup) -> Bool {
        guard let entry = lookup.probed ?? staticProbe.lookup(subject, spans.pathLength) else { return false }
        if matchStatic(entry, lookup) { return true }
        lookup.pathFitted = true
        return false
    }

    /// The first route of an all-literal path that accepts the method, scheme and host, if any.
    private func matchStatic(_ entry: StaticEntry, _ lookup: Lookup) -> Bool {
        let method = lookup.methodStart..<(lookup.methodStart + lookup.methodLength)
        let scheme = lookup.schemeStart..<(lookup.schemeStart + lookup.schemeLength)
        let host = lookup.hostStart..<lookup.hostEnd
        let records = entry.records
        for i in 0..<entry.count {
            // The method by its word in the record (one comparison), the scheme and host by bytes.
            if !records[i].accepts(method: lookup.methodWord, subject + method.lowerBound, method.count) { continue }
            if !accepts(entry.field(i, 0), scheme) || !accepts(entry.field(i, 1), host) { continue }
            record(records + i)
            return true
        }
        return false
    }

    /// Whether a route's scheme or host (`field`: bytes and length, -1 for any) accepts the
    /// request's, at `range` in the subject.
    @inline(__always) private func accepts(_ field: (UnsafePointer<UInt8>, Int), _ range: Range<Int>) -> Bool {
        field.1 < 0 || field.1 == range.count && sameBytes(field.0, subject + range.lowerBound, field.1)
    }
}
