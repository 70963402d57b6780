// The answer: the winner's record, its parameters' values (decoded when first read), and the
// methods allowed when no route took the request's.

import CPCRE2

private let unset = -1  // PCRE2_UNSET: ~(PCRE2_SIZE)0, which a size_t imported as Int reads as -1

extension Matcher {
    /// Notes the winning leaf and where its parameters' values lie in the subject. `groups`: the
    /// capture groups of those the leaf's regex captured (none for walk units and static paths).
    /// The values are copied out (and decoded) when first read (`copyValues`), not here: most
    /// lookups' callers read the route and few or none of its values. `mixed`: the unit's mixed
    /// segments, which a negative entry of `groups` names (see `RegexEmitter.mixedValue`).
    func record(_ r: UnsafePointer<LeafRecord>, groups: UnsafePointer<Int32>, mixed: UnsafeMutablePointer<MixedRef>?) {
        winner = r
        routeID = r.pointee.routeID
        let count = Int(r.pointee.parameterCount)
        let fromSpans = count - Int(r.pointee.groupCount)
        parameterCount = count
        guard fromSpans < count else { valuesPlace = .spans; return }
        for i in 0..<fromSpans {
            valueStart[i] = spanStart[i]; valueLength[i] = spanEnd[i] - spanStart[i]
        }
        let ovector = pcre2_get_ovector_pointer_8(matchData)!
        for i in fromSpans..<count {
            let g = Int(groups[i - fromSpans])
            if g < 0 {
                // Parameter j of a mixed segment: the first one splits the segment for them all.
                let v = -g - 1
                if v & 7 == 0, let mixed { mixedValues(mixed[v >> 3], ovector: ovector, at: i) }
                continue
            }
            let s = ovector[2 * g], e = ovector[2 * g + 1]
            (valueStart[i], valueLength[i]) = s == unset ? (0, 0) : (s, e - s)
        }
        valuesPlace = .subject
    }

    /// Notes the winning leaf of a walked unit or a static path: they capture nothing, so its
    /// values are the spans, left where they are (nothing writes them until the next lookup).
    @inline(__always) func record(_ r: UnsafePointer<LeafRecord>) {
        winner = r
        routeID = r.pointee.routeID
        parameterCount = Int(r.pointee.parameterCount)
        valuesPlace = .spans
    }

    /// Where value `i` of the last match lies in the subject (start, length), before `copyValues`.
    @inline(__always) private func subjectSpan(_ i: Int) -> (Int, Int) {
        valuesPlace == .spans ? (spanStart[i], spanEnd[i] - spanStart[i]) : (valueStart[i], valueLength[i])
    }

    /// Copies the last match's values out of the subject into the decode buffer, percent-decoded
    /// and each NUL-terminated; `valueStart` and `valueLength` then say where they are there.
    private func copyValues() {
        var o = 0
        for i in 0..<parameterCount {
            var (s, e) = subjectSpan(i)
            e += s
            valueStart[i] = o
            if !spans.pathHasEscapes {
                // No escapes: copied eight bytes at a time (both buffers have room past the end).
                let n = e - s
                var k = 0
                while k < n {
                    UnsafeMutableRawPointer(decoded + o + k).storeBytes(
                        of: UnsafeRawPointer(subject + s + k).loadUnaligned(as: UInt64.self), as: UInt64.self)
                    k += 8
                }
                o += n; s = e
            }
            while s < e {
                let c = subject[s]
                if c == percent {
                    // The normalizer left only well-formed escapes.
                    decoded[o] = hexValue(subject[s + 1])! << 4 | hexValue(subject[s + 2])!
                    s += 3
                } else {
                    decoded[o] = c
                    s += 1
                }
                o += 1
            }
            valueLength[i] = o - valueStart[i]
            decoded[o] = 0; o += 1
        }
        valuesPlace = .decoded
    }

    /// The enumerating variant's callout after a leaf's mark: that leaf fits (see `RegexRun`).
    func calloutHit(_ mark: UnsafePointer<UInt8>?) {
        guard let mark, let unit = regexRun.enumerated else { return }
        noteFitting(unit.leaves[Matcher.markIndex(mark)], listing: regexRun.listing)
    }

    /// In an enumeration, a leaf whose path fits (with its scheme, host and port, and the method
    /// the subject names, if any): listed for `fittingLeaves`, else its method allowed.
    func noteFitting(_ leaf: Leaf, listing: Bool) {
        if listing { listed.append(leaf) } else { noteAllowed(leaf.route) }
    }

    /// `noteFitting` for a walk's leaves, by their records, those that take the subject's method
    /// (a walk checks the method in Swift, not in a regex). Out of line: walks run it only in an
    /// enumeration.
    @inline(never) func noteFitting(_ records: UnsafePointer<LeafRecord>, count: Int, _ lookup: Lookup) {
        for i in 0..<count where records[i].accepts(method: lookup.methodWord, subject + lookup.methodStart, lookup.methodLength) {
            noteFitting(Leaf(route: records[i].route.takeUnretainedValue(), names: records[i].names.takeUnretainedValue()),
                        listing: lookup.mode == .listing)
        }
    }

    /// In the method-not-allowed pass: `route`'s path fits, so its method is allowed.
    func noteAllowed(_ route: Route) {
        guard let method = route.pattern.method else { return }
        if allowedRoutes.contains(where: { $0.pattern.method == method }) { return }
        if allowedRoutes.count < allowedRoutes.capacity { allowedRoutes.append(route) }
    }

    // MARK: Results

    /// The name of parameter `i` of the last match, NUL-terminated, valid while the matcher holds
    /// this table (until a lookup after the router changed).
    ///
    /// - Parameter i: The parameter's index, in path order.
    /// - Returns: The name's first byte and its length in bytes (without the NUL), or nil if the
    ///   last lookup did not match or `i` is not below ``parameterCount``.
    public func parameterName(_ i: Int) -> (UnsafePointer<CChar>, Int)? {
        guard i >= 0, i < parameterCount, let winner else { return nil }
        return winner.pointee.names._withUnsafeGuaranteedRef { names in (names.pointer(i), names.lengths[i]) }
    }

    /// The decoded value of parameter `i`, NUL-terminated, valid until the next lookup.
    ///
    /// - Parameter i: The parameter's index, in path order.
    /// - Returns: The percent-decoded value's first byte and its length in bytes (without the NUL),
    ///   or nil if the last lookup did not match or `i` is not below ``parameterCount``.
    public func parameterValue(_ i: Int) -> (UnsafePointer<CChar>, Int)? {
        guard i >= 0, i < parameterCount else { return nil }
        return decodedValue(i)
    }

    /// `parameterValue(_:)` for an index known to be in range.
    private func decodedValue(_ i: Int) -> (UnsafePointer<CChar>, Int) {
        if valuesPlace != .decoded { copyValues() }
        return (UnsafeRawPointer(decoded + valueStart[i]).assumingMemoryBound(to: CChar.self), valueLength[i])
    }

    // For the C door, out of line: inlined into the C module, reads of the matcher's state there
    // were checked for exclusivity at run time (the attribute exempting them stays here), which
    // cost more than the reads.

    /// The number of parameters the last lookup bound (0 if it matched none).
    @inline(never) package var boundParameterCount: Int { parameterCount }

    /// The id of the route the last lookup matched (0 if none).
    @inline(never) package var matchedRouteID: RouteID { routeID }

    /// Parameter `i`'s name and decoded value, each NUL-terminated with its length, or nil if `i`
    /// is not below ``parameterCount``.
    @inline(never) package func parameter(at i: Int) -> (name: UnsafePointer<CChar>, nameLength: Int,
                                                         value: UnsafePointer<CChar>, valueLength: Int)? {
        guard i >= 0, i < parameterCount, let (n, nl) = parameterName(i), let (v, vl) = parameterValue(i) else { return nil }
        return (n, nl, v, vl)
    }

    /// Parameter `i`'s decoded value, not NUL-terminated, valid until the next lookup: read in
    /// place from the subject when the path had no escapes (no copy), else from the decode
    /// buffer. For callers that copy the values anyway (a resolve's request, a batch).
    package func parameterValueBytes(_ i: Int) -> (UnsafePointer<CChar>, Int) {
        if valuesPlace != .decoded && !spans.pathHasEscapes {
            let (start, length) = subjectSpan(i)
            return (UnsafeRawPointer(subject + start).assumingMemoryBound(to: CChar.self), length)
        }
        return decodedValue(i)
    }

    /// The last match's parameters as "name\0value\0name\0value\0..." (values decoded), for
    /// callers that hand them on in one piece (the C door's packed match, a batch). Writes them
    /// at `out` only if they fit in `capacity` bytes; returns their length either way.
    package func packParameters(into out: UnsafeMutableRawPointer?, capacity: Int) -> Int {
        let count = parameterCount
        guard count > 0 else { return 0 }
        return winner!.pointee.names._withUnsafeGuaranteedRef { names in
            // Names and values are short: with eight bytes to spare at `out`, each is copied eight
            // bytes at a time (names, the subject and the decode buffer may all be read so), the
            // bytes past it overwritten by what follows; without, byte for byte.
            func write(_ out: UnsafeMutableRawPointer, wide: Bool) -> Int {
                @inline(__always) func put(_ from: UnsafeRawPointer, _ n: Int, at o: Int) {
                    if wide {
                        // The count first: an empty value may lie at the very end of its buffer.
                        var k = 0
                        while k < n {
                            out.storeBytes(of: (from + k).loadUnaligned(as: UInt64.self), toByteOffset: o + k, as: UInt64.self)
                            k += 8
                        }
                    } else {
                        (out + o).copyMemory(from: from, byteCount: n)
                    }
                    out.storeBytes(of: 0, toByteOffset: o + n, as: UInt8.self)
                }
                var o = 0
                for i in 0..<count {
                    let nameLength = names.lengths[i]
                    put(names.pointer(i), nameLength, at: o)
                    o += nameLength + 1
                    let (value, length) = parameterValueBytes(i)
                    put(value, length, at: o)
                    o += length + 1
                }
                return o
            }
            // The values lie apart in the subject (and decode no longer), so this bounds the
            // length: when it fits, nobody measures first.
            if let out, names.totalBytes + subjectLength + count + 8 <= capacity { return write(out, wide: true) }
            var need = 0
            for i in 0..<count { need += names.lengths[i] + parameterValueBytes(i).1 + 2 }
            guard let out, need <= capacity else { return need }
            return write(out, wide: need + 8 <= capacity)
        }
    }

    /// The index of the parameter with this name, if the last match has one.
    ///
    /// - Parameter name: The parameter's name, as UTF-8 bytes.
    /// - Returns: The index to pass to ``parameterValue(_:)``, or nil if the last lookup bound no
    ///   parameter of that name.
    public func parameterIndex(_ name: UnsafeRawBufferPointer) -> Int? {
        guard let names else { return nil }
        for i in 0..<parameterCount where names.lengths[i] == name.count {
            let p = UnsafeRawPointer(names.pointer(i))
            if name.isEmpty || memcmp(p, name.baseAddress!, name.count) == 0 { return i }
        }
        return nil
    }

    /// Methods under which the path of the last lookup would have matched (method not allowed).
    public var allowedMethods: [String] { allowedRoutes[0..<allowedCount].compactMap { $0.pattern.method } }

    /// Allowed method `i` of the last method-not-allowed answer, NUL-terminated, owned by its route.
    ///
    /// - Parameter i: The method's index, from 0.
    /// - Returns: The method, or nil if `i` is not below ``allowedMethodCount``.
    package func allowedMethodCString(_ i: Int) -> UnsafePointer<CChar>? {
        i < allowedCount ? allowedRoutes[i].methodCString.map { UnsafePointer($0) } : nil
    }

    /// The number of allowed methods of the last method-not-allowed answer.
    public var allowedMethodCount: Int { allowedCount }

    /// The last match as a value.
    ///
    /// - Returns: The route's id, pattern and name, and the parameters with their decoded values;
    ///   nil if the last lookup did not match.
    public func routeMatch() -> RouteMatch? {
        guard let route else { return nil }
        return RouteMatch(routeID: route.id, pattern: route.pattern.source, name: route.name, parameters: parameterList())
    }

    /// The last match's parameter names and decoded values.
    func parameterList() -> [(name: String, value: String)] {
        guard let names = self.names, parameterCount > 0 else { return [] }
        var params: [(name: String, value: String)] = []
        params.reserveCapacity(parameterCount)
        for i in 0..<parameterCount {
            let (v, n) = decodedValue(i)
            params.append((names.names[i], String(decoding: UnsafeRawBufferPointer(start: v, count: n), as: UTF8.self)))
        }
        return params
    }
}

@_silgen_name("memcmp") private func memcmp(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ n: Int) -> Int32

extension Matcher {
    /// The normalized path of the last lookup ("" for the root), in the matcher's buffer.
    var pathBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: subject, count: spans.pathLength) }
}

/// Where a matcher holds the values of its last match.
enum ValuesPlace {
    /// In the subject, at the walk's spans (`spanStart`, `spanEnd`): a walk unit or static path.
    case spans
    /// In the subject, at `valueStart` and `valueLength`: a regex's captures among them.
    case subject
    /// Copied out and decoded, at `valueStart` and `valueLength` in the decode buffer.
    case decoded
}
