// Walked units: the precedence rule on the flat tree, and the segment index it reads.

extension Matcher {
    /// The precedence rule on the tree, from node 0 at `p` (a "/" or the "\n" ending the path):
    /// at each node its leaves when the path ends there, else the literal child, then the
    /// parameter child. A loop rather than recursion: when a node offers both children the walk
    /// takes the literal and notes the node as a choice point; when a deeper step fails it resumes
    /// from the latest choice point with the parameter, which is the order recursion would take.
    ///
    /// A walk needs no step limit (a regex has PCRE2's match limit): it enters each node of its
    /// unit at most once, since a node is entered only from its parent, each of whose two
    /// children is taken at most once (the choice point is dropped when resumed). Its work is at
    /// most the unit's size, however the request backtracks.
    func walk(_ u: WalkTable, at start: Int, _ lookup: inout Lookup) -> Bool {
        let nodes = u.nodes, slots = u.slots, edges = u.edges, keys = u.keyBytes
        let fold = u.caseInsensitive
        let method = lookup.methodWord, methodBytes = subject + lookup.methodStart, methodLength = lookup.methodLength
        let enumerating = lookup.enumerating
        // Locals: the call that notes leaves in an enumeration could, for all the compiler knows,
        // change the properties, which it would then read again at every step.
        let subject = self.subject, segmentEnds = self.segmentEnds
        var n = 0, p = start
        var choices = 0
        while true {
            let node = nodes + n
            if subject[p] == newline {
                let first = Int(node.pointee.firstLeaf)
                if enumerating { noteFitting(u.records + first, count: Int(node.pointee.leafCount), lookup) }
                for i in first..<(enumerating ? first : first + Int(node.pointee.leafCount)) {
                    let leaf = u.records + i
                    if !leaf.pointee.accepts(method: method, methodBytes, methodLength) { continue }
                    record(leaf)
                    return true
                }
                if node.pointee.leafCount > 0 { lookup.pathFitted = true }
            } else {
                let segment = p + 1
                let end = Int(segmentEnds[p])
                let length = end - segment
                var next = -1
                if node.pointee.edgeCount == 1 {
                    // One literal child (most nodes deep in a table): compared directly, no hash.
                    let edge = edges + Int(node.pointee.firstEdge)
                    if Int(edge.pointee.keyLength) == length,
                       length == 0 || sameKey(keys + Int(edge.pointee.keyStart), subject + segment, length, fold) {
                        next = Int(edge.pointee.target)
                    }
                } else if node.pointee.edgeCount > 0 {
                    let mask = Int(node.pointee.slotMask)
                    let base = slots + Int(node.pointee.firstSlot)
                    var slot = WalkUnit.slot(subject + segment, length) & mask
                    while true {
                        let e = Int(base[slot]) - 1
                        if e < 0 { break }
                        let edge = edges + e
                        if Int(edge.pointee.keyLength) == length,
                           length == 0 || sameKey(keys + Int(edge.pointee.keyStart), subject + segment, length, fold) {
                            next = Int(edge.pointee.target)
                            break   // literal siblings differ: no other can match
                        }
                        slot = HashSlots.next(slot, mask: mask)
                    }
                }
                if node.pointee.parameter >= 0 && length > 0 {
                    if next >= 0 {
                        choiceNode[choices] = n; choiceAt[choices] = p; choiceSpans[choices] = spanCount
                        choices += 1
                    } else {
                        spanStart[spanCount] = segment; spanEnd[spanCount] = end
                        spanCount += 1
                        next = Int(node.pointee.parameter)
                    }
                }
                if next >= 0 { n = next; p = end; continue }
            }
            // This branch failed: the parameter child of the latest choice point, if any.
            guard choices > 0 else { return false }   // spans pushed stay: `dispatch` resets them
            choices -= 1
            let at = choiceAt[choices]
            let end = Int(segmentEnds[at])
            spanCount = choiceSpans[choices]
            spanStart[spanCount] = at + 1; spanEnd[spanCount] = end
            spanCount += 1
            n = Int(nodes[choiceNode[choices]].parameter)
            p = end
        }
    }

    /// Where the segment after the "/" at `slash` ends: the next "/" or the "\n" ending the path.
    @inline(__always) func segmentEnd(after slash: Int) -> Int { Int(segmentEnds[slash]) }

    /// Notes every segment's end (see `segmentEnds`) for a path the parse did not index: one
    /// normalized by the general normalizer, or taken as it was by `takeStaticPath`. Eight bytes
    /// at a time; the subject buffer has room past the tail for the last read, and only bytes
    /// before the first "/" or "\n" found decide anything.
    @inline(never) func indexSegments() {
        var p = 0
        while subject[p] == slash {
            var e = p + 1
            while true {
                let found = bytesEqual(UnsafeRawPointer(subject + e).loadUnaligned(as: UInt64.self), slash, or: newline)
                if found != 0 { e += found.trailingZeroBitCount / 8; break }
                e += 8
            }
            segmentEnds[p] = UInt32(truncatingIfNeeded: e)
            p = e
        }
        spans.segmentsIndexed = true
    }

    /// Segments are short: compared here rather than by a call to memcmp.
    @inline(__always) private func sameKey(_ key: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ n: Int, _ fold: Bool) -> Bool {
        fold ? sameBytesFolded(key, s, n) : sameBytes(key, s, n)
    }
}
