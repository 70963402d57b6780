// The tree from its root: dispatch nodes, and entering their children (regex, walked or
// dispatch units).

extension Matcher {
    /// The tree from its root node at the path's start, whichever kind of unit it is.
    @inline(__always) func matchRoot(_ lookup: inout Lookup) throws(InterlockError) -> Bool {
        var result: Result<Bool, InterlockError> = .success(false)
        if let u = rootUnit {
            result = Result { () throws(InterlockError) in try run(u, at: 0, &lookup) }
        } else if let u = rootWalk {
            result = .success(walk(u, at: 0, &lookup))
        } else if let d = rootDispatch {
            d._withUnsafeGuaranteedRef { node in result = Result { () throws(InterlockError) in try dispatch(node, at: 0, &lookup) } }
        } else if let u = rootWalkBranches {
            result = Result { () throws(InterlockError) in try walkBranches(u, at: 0, &lookup) }
        }
        return try result.get()
    }

    /// `p` is just after the dispatch node's own segment: at "/" or at the "\n" ending the path.
    private func dispatch(_ d: Dispatch, at p: Int, _ lookup: inout Lookup) throws(InterlockError) -> Bool {
        if subject[p] == slash {
            let segStart = p + 1
            let segEnd = segmentEnd(after: p)
            // A child that fails may leave spans it pushed (a walk does): each next child starts
            // from the spans this node had, or its values would be shifted by the failed ones.
            let spans = spanCount
            if let child = d.literalProbe.lookup(subject + segStart, segEnd - segStart) {
                if try enter(child, at: p, segmentEnd: segEnd, &lookup, literalMatched: true) { return true }
                spanCount = spans
            }
            for i in 0..<d.mixed.count {
                if try enter(d.mixedRefs[i], at: p, segmentEnd: segEnd, &lookup) { return true }
                spanCount = spans
            }
            for i in 0..<d.constrained.count {
                if try enter(d.constrainedRefs[i], at: p, segmentEnd: segEnd, &lookup) { return true }
                spanCount = spans
            }
            if let child = d.parameterRef {
                if try enter(child, at: p, segmentEnd: segEnd, &lookup) { return true }
                spanCount = spans
            }
        }
        if let t = d.terminalWalkRef { return try enter(t, at: p, segmentEnd: p, &lookup) }
        for i in 0..<d.terminals.count where try run(d.terminalRefs[i], at: p, &lookup) {
            return true
        }
        return false
    }

    /// `_withUnsafeGuaranteedRef` for a body with typed throws.
    @inline(__always) private func guaranteed<T: AnyObject, R>(
        _ ref: Unmanaged<T>, _ body: (T) throws(InterlockError) -> R
    ) throws(InterlockError) -> R {
        let result: Result<R, InterlockError> = ref._withUnsafeGuaranteedRef { t in Result { () throws(InterlockError) in try body(t) } }
        return try result.get()
    }

    /// Enters `child` at the segment from `p` to `segmentEnd`. `literalMatched`: the literal probe
    /// found the child by that segment, so a walked child starts after it (see `WalkUnit`).
    @inline(__always) private func enter(_ child: NodeRef, at p: Int, segmentEnd: Int, _ lookup: inout Lookup,
                                          literalMatched: Bool = false) throws(InterlockError) -> Bool {
        switch child {
        case .unit(let u):
            return try run(u._withUnsafeGuaranteedRef { UnitRef($0) }, at: p, &lookup)
        case .walk(let u):
            u.prefetch()
            return walk(u, at: literalMatched ? segmentEnd : p, &lookup)
        case .walkBranches(let u):
            u.prefetchAhead()
            return try walkBranches(u, at: literalMatched ? segmentEnd : p, &lookup)
        case .dispatch(let d):
            return try guaranteed(d) { (d) throws(InterlockError) -> Bool in
                if d.capturesEntry {
                    guard segmentEnd > p + 1 else { return false }
                    if let mixed = d.mixedRef {
                        guard try captures(mixed, from: p + 1, to: segmentEnd) else { return false }
                        if try dispatch(d, at: segmentEnd, &lookup) { return true }
                        spanCount -= mixed._withUnsafeGuaranteedRef { $0.parameterCount }
                        return false
                    }
                    if let g = d.guardRef, try !holds(g, from: p + 1, to: segmentEnd) { return false }
                    spanStart[spanCount] = p + 1; spanEnd[spanCount] = segmentEnd
                    spanCount += 1
                    if try dispatch(d, at: segmentEnd, &lookup) { return true }
                    spanCount -= 1
                    return false
                }
                return try dispatch(d, at: segmentEnd, &lookup)
            }
        }
    }
}
