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

/// What a lookup needs of a leaf, in a couple of cache lines, stored flat in its unit (or static
/// entry): the leaf's method check and the winning leaf's answer are read with no pointer chase and
/// no reference count. The owner keeps the leaf (its route and names) alive; the record only points
/// at them.
struct LeafRecord {
    /// Capture groups kept inline; a leaf with more reads them all from `overflow`.
    static let inlineGroups = 4

    let routeID: RouteID
    let parameterCount: Int32
    /// How many of the leaf's parameters the unit's regex captured (the rest, before them, were
    /// captured by dispatch nodes above), and in which groups.
    let groupCount: Int32
    let inline: (Int32, Int32, Int32, Int32)
    /// The route's method (owned by the route, shared per router) and its length; nil for any.
    let methodLength: Int32
    let method: UnsafeRawPointer?
    let overflow: UnsafeMutablePointer<Int32>?
    /// `names`' storage, offsets and lengths (owned by `names`).
    let nameStorage: UnsafeMutablePointer<CChar>
    let nameOffsets: UnsafeMutablePointer<Int>
    let nameLengths: UnsafeMutablePointer<Int>
    let route: Unmanaged<Route>
    let names: Unmanaged<ParameterNames>

    init(_ leaf: Leaf, groups: [Int32], overflow: UnsafeMutablePointer<Int32>?) {
        routeID = leaf.route.id
        parameterCount = Int32(leaf.names.count)
        groupCount = Int32(groups.count)
        func at(_ i: Int) -> Int32 { i < groups.count ? groups[i] : 0 }
        inline = (at(0), at(1), at(2), at(3))
        method = leaf.route.methodCString.map { UnsafeRawPointer($0) }
        methodLength = Int32(leaf.route.pattern.method?.utf8.count ?? 0)
        self.overflow = overflow
        nameStorage = leaf.names.storage
        nameOffsets = leaf.names.offsets
        nameLengths = leaf.names.lengths
        route = .passUnretained(leaf.route)
        names = .passUnretained(leaf.names)
    }

    /// Capture group number `i` of the leaf's own parameters.
    @inline(__always) func group(_ i: Int) -> Int {
        switch i {
        case 0: return Int(inline.0)
        case 1: return Int(inline.1)
        case 2: return Int(inline.2)
        case 3: return Int(inline.3)
        default: return Int(overflow![i])
        }
    }

    /// Records for `leaves` (with their capture groups, if any) in `records`, and the group lists
    /// too long to keep inline in one buffer the caller deallocates (nil when there are none).
    static func initialize(_ records: UnsafeMutablePointer<LeafRecord>, _ leaves: [Leaf], groups: [[Int32]]) -> UnsafeMutablePointer<Int32>? {
        let long = groups.filter { $0.count > inlineGroups }.reduce(0) { $0 + $1.count }
        let store: UnsafeMutablePointer<Int32>? = long > 0 ? .allocate(capacity: long) : nil
        var o = 0
        for (i, leaf) in leaves.enumerated() {
            let g = i < groups.count ? groups[i] : []
            var overflow: UnsafeMutablePointer<Int32>? = nil
            if g.count > inlineGroups, let store {
                overflow = store + o
                (store + o).initialize(from: g, count: g.count)
                o += g.count
            }
            (records + i).initialize(to: LeafRecord(leaf, groups: g, overflow: overflow))
        }
        return store
    }
}

struct RegexEmitter {
    let caseInsensitive: Bool
    var out: [UInt8] = []
    var leaves: [Leaf] = []
    /// Per leaf, the capture groups of its parameters captured inside the unit.
    var groups: [[Int32]] = []

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
        leaves.append(leaf)
        groups.append(captured)
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
