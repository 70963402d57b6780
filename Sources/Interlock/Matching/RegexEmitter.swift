// Turns a subtree into one regex shaped like the tree: each node's alternatives sit in a
// branch-reset group "(?|...)" in precedence order, so PCRE2's ordered, backtracking alternation
// *is* the precedence rule, and shared prefixes are matched once.
//
// The subject is the normalized path, then "\n" method "\n" scheme "\n" host, and after a host "\n"
// port. A leaf's tail checks the request against the route's method, scheme, host (a wildcard's
// labels, then its suffix) and port, and ends with "(*MARK:n)", n being the
// leaf's index in the unit. (The method-not-allowed pass uses a copy with a callout after each
// mark, compiled when first needed: see `Unit.enumerationCode`.)
//
// Segment shapes:
//   literal      /lit
//   parameter    /([^/\n]++)
//   constrained  /(?C"i")([^/\n]++)
//                the callout runs the unit's constraint i on the segment alone (see Constraint.swift)
//   catch-all    (?:/([^\n]*+))?
//   mixed        /(?C"mI")([^/\n]++)     the callout runs the unit's mixed segment I (MixedSegment.swift)
//                /(?C"mI")([^\n]*+)      on the segment; the group takes it whole (with a catch-all
//                                        after text, the rest of the path), split when values are read

struct RegexEmitter {
    let caseInsensitive: Bool
    var out: [UInt8] = []
    var leaves: [Leaf] = []
    /// Per leaf, the capture groups of its parameters captured inside the unit.
    var groups: [[Int32]] = []
    /// The constraints the unit's callouts name, in order.
    var constraints: [Constraint] = []
    /// The mixed segments the unit's callouts name, in order, and the group taking each.
    var mixed: [MixedSegment] = []
    var mixedGroups: [Int32] = []
    /// The pattern of a route under the node being emitted, for naming its constraint.
    private var owner = ""
    /// The router's compiled constraints, shared with its other units (nil: compiled per unit).
    let cache: ConstraintCache?

    init(caseInsensitive: Bool, cache: ConstraintCache? = nil) {
        self.caseInsensitive = caseInsensitive
        self.cache = cache
        if caseInsensitive { out += Array("(?i)".utf8) }
    }

    private mutating func put(_ s: String) { out += Array(s.utf8) }

    private mutating func putEscaped(_ bytes: [UInt8]) {
        for b in bytes {
            switch b {
            case 0x5C, 0x5E, 0x24, 0x2E, 0x7C, 0x3F, 0x2A, 0x2B, 0x28, 0x29, 0x5B, 0x5D, 0x7B, 0x7D, 0x23, 0x20:
                out.append(0x5C)
            default: break
            }
            out.append(b)
        }
    }

    /// Emits a node's entry segment; returns the next free group number and the captured groups.
    mutating func emitEntry(_ entry: TreeNode.Entry, group: Int32, captured: [Int32]) throws(InterlockError) -> (Int32, [Int32]) {
        var captured = captured
        switch entry {
        case .root:
            return (group, captured)
        case .literal(let b):
            out.append(slash)
            putEscaped(b)
            return (group, captured)
        case .parameter:
            put("/([^/\\n]++)")
            captured.append(group)
            return (group + 1, captured)
        case .constrained(let c):
            put("/" + RegexEmitter.constraintCallout(constraints.count) + "([^/\\n]++)")
            constraints.append(try Constraint(c, route: owner, cache: cache))
            captured.append(group)
            return (group + 1, captured)
        case .catchAll:
            put("(?:/([^\\n]*+))?")
            captured.append(group)
            return (group + 1, captured)
        case .mixed(let pieces):
            // The rule runs in Swift (see MixedSegment.swift): the regex only takes the segment.
            let segment = try MixedSegment(pieces, caseInsensitive: caseInsensitive, route: owner, cache: cache)
            out.append(slash)
            put(RegexEmitter.mixedCallout(mixed.count))
            put(segment.endsWithCatchAll ? "([^\\n]*+)" : "([^/\\n]++)")
            for j in 0..<segment.parameterCount { captured.append(RegexEmitter.mixedValue(mixed.count, j)) }
            mixed.append(segment)
            mixedGroups.append(group)
            return (group + 1, captured)
        }
    }

    /// Names the route whose constraints the next entries emit (for the error of one that stops).
    mutating func naming(_ route: String) { owner = route }

    /// Emits the tail of one leaf: method, scheme and host checks, then its mark.
    mutating func emitLeaf(_ leaf: Leaf, captured: [Int32]) {
        let p = leaf.route.pattern
        if caseInsensitive { put("(?-i:") }
        out.append(0x5C); out.append(0x6E)  // "\n"
        if let m = p.method {
            put("(?:"); putEscaped(Array(m.utf8)); put(")?\\n")
        } else if p.scheme != nil || p.host != nil {
            put("[^\\n]*+\\n")
        }
        if let s = p.scheme {
            putEscaped(Array(s.utf8)); put("\\n")
        } else if p.host != nil {
            put("[^\\n]*+\\n")
        }
        if let h = p.host {
            if p.hostIsWildcard {       // one or more whole labels, then the suffix (backtracking by label)
                put("(?:[^\\n.]++\\.)+")
                putEscaped(Array(h.utf8.dropFirst(2)))
            } else {
                putEscaped(Array(h.utf8))
            }
            put("\\n")
            if let port = p.port { put("\(port)\\z") }
        }
        if caseInsensitive { put(")") }
        put("(*MARK:\(leaves.count))")
        leaves.append(leaf)
        groups.append(captured)
    }

    /// Emits a whole subtree, its entry included.
    mutating func emitSubtree(_ node: TreeNode, group: Int32, captured: [Int32]) throws(InterlockError) {
        switch node.entry {
        case .constrained, .mixed: owner = RegexEmitter.firstRoute(node)
        default: break
        }
        let (next, cap) = try emitEntry(node.entry, group: group, captured: captured)
        try emitAlternatives(leaves: node.leaves, children: node.childrenInOrder, group: next, captured: cap)
    }

    /// Emits leaves and then children as one ordered alternation.
    mutating func emitAlternatives(leaves: [Leaf], children: [TreeNode], group: Int32, captured: [Int32]) throws(InterlockError) {
        let count = leaves.count + children.count
        if count == 0 { put("(*FAIL)"); return }
        if count > 1 { put("(?|") }
        var first = true
        for leaf in leaves {
            if !first { out.append(0x7C) }
            first = false
            emitLeaf(leaf, captured: captured)
        }
        for child in children {
            if !first { out.append(0x7C) }
            first = false
            try emitSubtree(child, group: group, captured: captured)
        }
        if count > 1 { put(")") }
    }
}
