// Walks with branches: the precedence rule on a unit whose nodes have children other than
// literals and plain parameters (constrained, mixed, catch-all), or whose leaves name a scheme or
// host. The same answers as the regex the subtree would otherwise compile to (TableShapeTests).

import CPCRE2

extension Matcher {
    /// The precedence rule from node 0 at `p` (a "/" or the "\n" ending the path): at each node
    /// its leaves when the path ends there, else its literal child, then its branches in order
    /// (mixed, constrained, plain parameter, catch-alls after text, catch-all). A loop over a
    /// stack of choice points, one per node on the way down: each notes the next alternative of
    /// its node, which the walk resumes when everything below fails, as recursion would.
    ///
    /// Each node is entered at most once, as in the plain walk: a node is entered only from its
    /// parent, which tries each of its children once. So each constraint runs at most once, on
    /// its segment alone, under the match limit (a stopped one throws, naming its route), and each
    /// mixed segment's rule runs at most once, in time linear in its segment.
    func walkBranches(_ u: WalkTable, at start: Int, _ lookup: inout Lookup) throws(InterlockError) -> Bool {
        let nodes = u.nodes, slots = u.slots, edges = u.edges, keys = u.keyBytes
        let ranges = u.nodeBranches, branches = u.branches
        let fold = u.caseInsensitive
        let subject = self.subject, segmentEnds = self.segmentEnds
        let pathEnd = spans.pathLength
        let entrySpans = spanCount
        var tail: RequestTail? = nil
        var depth = 0
        // The node, where it was entered, its next alternative (0: its leaves or literal child;
        // 1 + k: branch k) and the span count on entering it.
        var n = 0, p = start, next = 0, base = spanCount
        while true {
            let node = nodes + n
            if next == 0 {
                next = 1
                if subject[p] == newline {
                    if node.pointee.leafCount > 0 {
                        if tail == nil, u.anyOrigin(Int(node.pointee.firstLeaf), Int(node.pointee.leafCount)) { tail = requestTail(lookup) }
                        if leaves(u, node, tail, &lookup) { return true }
                    }
                } else {
                    let segment = p + 1, end = Int(segmentEnds[p])
                    let target = literalChild(node, subject + segment, end - segment, slots, edges, keys, fold)
                    if target >= 0 {
                        choiceNode[depth] = n; choiceAt[depth] = p; choiceNext[depth] = next; choiceSpans[depth] = base
                        depth += 1
                        n = target; p = end; next = 0; base = spanCount
                        continue
                    }
                }
            }
            // The node's branches from `next - 1`.
            let range = ranges[n]
            var entered = false
            while next - 1 < Int(range.count) {
                let branch = branches + Int(range.first) + next - 1
                next += 1
                spanCount = base
                let to = try take(branch.pointee, u, at: p, pathEnd: pathEnd)
                if to >= 0 {
                    choiceNode[depth] = n; choiceAt[depth] = p; choiceNext[depth] = next; choiceSpans[depth] = base
                    depth += 1
                    n = Int(branch.pointee.target); p = to; next = 0; base = spanCount
                    entered = true
                    break
                }
            }
            if entered { continue }
            // Every alternative of this node failed: back to its parent's next one.
            guard depth > 0 else { spanCount = entrySpans; return false }
            depth -= 1
            n = choiceNode[depth]; p = choiceAt[depth]; next = choiceNext[depth]; base = choiceSpans[depth]
            spanCount = base
        }
    }

    /// Tries `node`'s leaves (the path ends at it) in tie order: records the first that takes the
    /// request's scheme, host, port and method; in an enumeration notes every one that does.
    /// Notes in `lookup` a leaf that refused the method alone.
    @inline(__always) private func leaves(_ u: WalkTable, _ node: UnsafePointer<WalkUnit.Node>, _ tail: RequestTail?,
                                          _ lookup: inout Lookup) -> Bool {
        let first = Int(node.pointee.firstLeaf), count = Int(node.pointee.leafCount)
        let origins = u.origins
        for i in first..<(first + count) {
            let o = origins + i
            if o.pointee.checks {
                guard let tail, tail.accepts(o.pointee, u.keyBytes, subject) else { continue }
            }
            let leaf = u.records + i
            if lookup.enumerating { noteFitting(leaf, count: 1, lookup); continue }
            if !leaf.pointee.accepts(method: lookup.methodWord, subject + lookup.methodStart, lookup.methodLength) {
                lookup.pathFitted = true
                continue
            }
            record(leaf)
            return true
        }
        return false
    }

    /// The literal child of `node` named by the segment at `s` (`length` bytes), or -1.
    @inline(__always) private func literalChild(_ node: UnsafePointer<WalkUnit.Node>, _ s: UnsafePointer<UInt8>, _ length: Int,
                                                _ slots: UnsafePointer<Int32>, _ edges: UnsafePointer<WalkUnit.Edge>,
                                                _ keys: UnsafePointer<UInt8>, _ fold: Bool) -> Int {
        let count = node.pointee.edgeCount
        if count == 1 {
            let edge = edges + Int(node.pointee.firstEdge)
            if Int(edge.pointee.keyLength) == length, length == 0 || same(keys + Int(edge.pointee.keyStart), s, length, fold) {
                return Int(edge.pointee.target)
            }
            return -1
        }
        guard count > 0 else { return -1 }
        let mask = Int(node.pointee.slotMask)
        let base = slots + Int(node.pointee.firstSlot)
        var slot = WalkUnit.slot(s, length) & mask
        while true {
            let e = Int(base[slot]) - 1
            if e < 0 { return -1 }
            let edge = edges + e
            if Int(edge.pointee.keyLength) == length, length == 0 || same(keys + Int(edge.pointee.keyStart), s, length, fold) {
                return Int(edge.pointee.target)
            }
            slot = HashSlots.next(slot, mask: mask)
        }
    }

    /// Takes `branch` at `p`: pushes the values it binds and returns where its child is entered,
    /// or -1 if the segment (or the rest of the path) does not fit it.
    @inline(__always) private func take(_ branch: Branch, _ u: WalkTable, at p: Int, pathEnd: Int) throws(InterlockError) -> Int {
        if branch.kind == .catchAll {
            // The rest of the path, or nothing where the path ends (the regex's optional group).
            if subject[p] == newline { push(p, p); return p }
            push(p + 1, pathEnd)
            return pathEnd
        }
        guard subject[p] == slash else { return -1 }
        let segment = p + 1, end = Int(segmentEnds[p])
        let length = end - segment
        switch branch.kind {
        case .parameter:
            guard length > 0 else { return -1 }
        case .byteClass:
            guard length > 0, u.classes[Int(branch.item)].accepts(subject + segment, length) else { return -1 }
        case .constraint:
            guard length > 0 else { return -1 }
            let rc = constraintCode(u.constraints[Int(branch.item)], from: segment, to: end)
            if rc == PCRE2_ERROR_NOMATCH { return -1 }
            if rc < 0 { throw stopped(rc) }
        case .mixed, .mixedCatchAll:
            let catchAll = branch.kind == .mixedCatchAll
            guard catchAll || length > 0 else { return -1 }
            let m = u.mixed[Int(branch.item)]
            let rc = m._withUnsafeGuaranteedRef { m in
                mixedCode(m, from: segment, segmentEnd: end, pathEnd: catchAll ? pathEnd : end,
                          starts: spanStart + spanCount, ends: spanEnd + spanCount)
            }
            if rc == 1 { return -1 }
            if rc < 0 { throw stopped(rc) }
            spanCount += m._withUnsafeGuaranteedRef { $0.parameterCount }
            return catchAll ? pathEnd : end
        case .catchAll:
            break
        }
        push(segment, end)
        return end
    }

    @inline(__always) private func push(_ start: Int, _ end: Int) {
        spanStart[spanCount] = start; spanEnd[spanCount] = end
        spanCount += 1
    }

    @inline(__always) private func same(_ key: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ n: Int, _ fold: Bool) -> Bool {
        fold ? sameBytesFolded(key, s, n) : sameBytes(key, s, n)
    }

    /// Where the request's scheme, host and port lie in the subject's tail (see `writeSubject`).
    /// Out of line: only leaves naming a scheme or host need it, once a walk.
    @inline(never) func requestTail(_ lookup: Lookup) -> RequestTail {
        var i = lookup.methodStart + lookup.methodLength + 1
        let schemeStart = i
        while i < subjectLength, subject[i] != newline { i += 1 }
        let schemeEnd = i
        guard i < subjectLength else {
            return RequestTail(schemeStart: schemeStart, schemeEnd: schemeEnd, schemeEnded: false,
                               hostStart: i, hostEnd: i, hostEnded: false, portStart: i, portEnd: i)
        }
        i += 1
        let hostStart = i
        while i < subjectLength, subject[i] != newline { i += 1 }
        let hostEnd = i
        let hostEnded = i < subjectLength
        return RequestTail(schemeStart: schemeStart, schemeEnd: schemeEnd, schemeEnded: true, hostStart: hostStart, hostEnd: hostEnd,
                           hostEnded: hostEnded, portStart: hostEnded ? i + 1 : i, portEnd: subjectLength)
    }
}

/// The request's scheme, host and port in the subject: offsets, and whether a "\n" follows the
/// scheme and the host (a bare path's tail has neither; a deep link's has a scheme and no host).
struct RequestTail {
    let schemeStart: Int, schemeEnd: Int, schemeEnded: Bool
    let hostStart: Int, hostEnd: Int, hostEnded: Bool
    let portStart: Int, portEnd: Int

    /// Whether the request has the scheme, host and port `o` names (bytes in `keys`), exactly as
    /// the leaf's regex tail checks them: the scheme whole; the host whole, or for a wildcard one
    /// or more whole non-empty labels then "." and the suffix; the port whole, ending the subject.
    func accepts(_ o: Origin, _ keys: UnsafePointer<UInt8>, _ subject: UnsafePointer<UInt8>) -> Bool {
        guard schemeEnded else { return false }     // the leaf's tail names a scheme field
        if o.scheme >= 0 {
            let n = Int(o.schemeLength)
            guard schemeEnd - schemeStart == n, n == 0 || sameBytes(keys + Int(o.scheme), subject + schemeStart, n) else { return false }
        }
        guard o.host >= 0 else { return true }
        guard hostEnded else { return false }
        let n = Int(o.hostLength), length = hostEnd - hostStart
        if o.wildcard {
            // host = labels "." suffix: at least one label byte and the dot before the suffix.
            guard length >= n + 2, subject[hostEnd - n - 1] == 0x2E,
                  n == 0 || sameBytes(keys + Int(o.host), subject + hostEnd - n, n) else { return false }
            let labelsEnd = hostEnd - n - 1
            guard subject[hostStart] != 0x2E, subject[labelsEnd - 1] != 0x2E else { return false }
            var i = hostStart + 1
            while i < labelsEnd {
                if subject[i] == 0x2E && subject[i - 1] == 0x2E { return false }
                i += 1
            }
        } else {
            guard length == n, n == 0 || sameBytes(keys + Int(o.host), subject + hostStart, n) else { return false }
        }
        guard o.port >= 0 else { return true }
        let p = Int(o.portLength)
        return portEnd - portStart == p && sameBytes(keys + Int(o.port), subject + portStart, p)
    }
}

extension WalkTable {
    /// Whether any of the `count` leaves from `first` names a scheme or host.
    @inline(__always) func anyOrigin(_ first: Int, _ count: Int) -> Bool {
        let o = origins
        for i in first..<(first + count) where o[i].checks { return true }
        return false
    }
}
