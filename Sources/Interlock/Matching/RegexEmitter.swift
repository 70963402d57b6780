// Turns a subtree into one regex shaped like the tree: each node's alternatives sit in a
// branch-reset group "(?|...)" in precedence order, so PCRE2's ordered, backtracking alternation
// *is* the precedence rule, and shared prefixes are matched once.
//
// The subject is the normalized path, then "\n" method "\n" scheme "\n" host. A leaf's tail checks
// the request against the route's method, scheme and host and ends with "(*MARK:n)", n being the
// leaf's index in the unit. (The method-not-allowed pass uses a copy with a callout after each
// mark, compiled when first needed: see `Unit.enumerationCode`.)
//
// Segment shapes:
//   literal      /lit
//   parameter    /([^/\n]++)
//   constrained  /(?=[^/\n]++([\s\S]*+))(?=(?n:REGEX)\g{R}\z)([^/\n]++)
//                group R holds everything after the segment, so "REGEX then R then the end"
//                holds only if REGEX matches the segment exactly: never across a "/".
//   catch-all    (?:/([^\n]*+))?

/// A leaf as a unit knows it: the route, its parameter names, and which of the unit's capture
/// groups hold the values of the parameters captured inside the unit (the rest, before them, were
/// captured by dispatch nodes above).
final class UnitLeaf: @unchecked Sendable {
    let route: Route
    let names: ParameterNames
    /// Capture group numbers, flat, so that reading them costs no reference counting.
    let groups: UnsafeMutablePointer<Int>
    let groupCount: Int
    /// `names.count`, kept here so the lookup path need not touch `names`.
    let parameterCount: Int
    /// `route.id`, for the same reason.
    let routeID: RouteID
    /// `names`' storage, offsets and lengths, for the same reason (owned by `names`).
    let nameStorage: UnsafeMutablePointer<CChar>
    let nameOffsets: UnsafeMutablePointer<Int>
    let nameLengths: UnsafeMutablePointer<Int>

    init(route: Route, names: ParameterNames, groups: [Int32]) {
        self.route = route
        self.names = names
        self.parameterCount = names.count
        self.routeID = route.id
        self.nameStorage = names.storage
        self.nameOffsets = names.offsets
        self.nameLengths = names.lengths
        self.groupCount = groups.count
        self.groups = .allocate(capacity: max(groups.count, 1))
        for (i, g) in groups.enumerated() { self.groups[i] = Int(g) }
    }

    deinit { groups.deallocate() }
}

/// What a lookup needs of a leaf, in one cache line, stored flat in its unit (or static entry):
/// the winning leaf's answer is read with no pointer chase and no reference count.
struct LeafRecord {
    /// Capture groups kept inline; a leaf with more reads them from its `UnitLeaf`.
    static let inlineGroups = 4

    let routeID: RouteID
    let parameterCount: Int32
    let groupCount: Int32
    let inline: (Int32, Int32, Int32, Int32)
    let overflow: UnsafeMutablePointer<Int>
    let nameStorage: UnsafeMutablePointer<CChar>
    let nameOffsets: UnsafeMutablePointer<Int>
    let nameLengths: UnsafeMutablePointer<Int>
    let leaf: Unmanaged<UnitLeaf>

    init(_ leaf: UnitLeaf) {
        routeID = leaf.routeID
        parameterCount = Int32(leaf.parameterCount)
        groupCount = Int32(leaf.groupCount)
        let g = leaf.groups
        func at(_ i: Int) -> Int32 { i < leaf.groupCount ? Int32(g[i]) : 0 }
        inline = (at(0), at(1), at(2), at(3))
        overflow = g
        nameStorage = leaf.nameStorage
        nameOffsets = leaf.nameOffsets
        nameLengths = leaf.nameLengths
        self.leaf = .passUnretained(leaf)
    }

    /// Capture group number `i` of the leaf's own parameters.
    @inline(__always) func group(_ i: Int) -> Int {
        switch i {
        case 0: return Int(inline.0)
        case 1: return Int(inline.1)
        case 2: return Int(inline.2)
        case 3: return Int(inline.3)
        default: return overflow[i]
        }
    }

    /// Records for `leaves`, in a buffer the caller deallocates (the leaves must outlive it).
    static func buffer(_ leaves: [UnitLeaf]) -> UnsafeMutablePointer<LeafRecord> {
        let p = UnsafeMutablePointer<LeafRecord>.allocate(capacity: max(leaves.count, 1))
        for (i, leaf) in leaves.enumerated() { (p + i).initialize(to: LeafRecord(leaf)) }
        return p
    }
}

struct RegexEmitter {
    let caseInsensitive: Bool
    var out: [UInt8] = []
    var leaves: [UnitLeaf] = []

    init(caseInsensitive: Bool) {
        self.caseInsensitive = caseInsensitive
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
    mutating func emitEntry(_ entry: TreeNode.Entry, group: Int32, captured: [Int32]) -> (Int32, [Int32]) {
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
            put("/(?=[^/\\n]++([\\s\\S]*+))(?=")
            put(caseInsensitive ? "(?-i:(?n:" : "(?n:")
            put(c)
            put(caseInsensitive ? "))" : ")")
            put("\\g{\(group)}\\z)([^/\\n]++)")
            captured.append(group + 1)
            return (group + 2, captured)
        case .catchAll:
            put("(?:/([^\\n]*+))?")
            captured.append(group)
            return (group + 1, captured)
        }
    }

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
        if let h = p.host { putEscaped(Array(h.utf8)); put("\\z") }
        if caseInsensitive { put(")") }
        put("(*MARK:\(leaves.count))")
        leaves.append(UnitLeaf(route: leaf.route, names: leaf.names, groups: captured))
    }

    /// Emits a whole subtree, its entry included.
    mutating func emitSubtree(_ node: TreeNode, group: Int32, captured: [Int32]) {
        let (next, cap) = emitEntry(node.entry, group: group, captured: captured)
        emitAlternatives(leaves: node.leaves, children: node.childrenInOrder, group: next, captured: cap)
    }

    /// Emits leaves and then children as one ordered alternation.
    mutating func emitAlternatives(leaves: [Leaf], children: [TreeNode], group: Int32, captured: [Int32]) {
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
            emitSubtree(child, group: group, captured: captured)
        }
        if count > 1 { put(")") }
    }
}
