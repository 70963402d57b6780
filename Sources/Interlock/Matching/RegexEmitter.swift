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
//   constrained  /(?C"i")([^/\n]++)
//                the callout runs the unit's constraint i on the segment alone (see Constraint.swift)
//   catch-all    (?:/([^\n]*+))?

/// What a lookup needs of a leaf, in 32 bytes (half a cache line), stored flat in its unit (or
/// static entry): the leaf's method check and the winning leaf's answer are read with no pointer
/// chase and no reference count. The owner keeps the leaf (its route and names) alive; the record
/// only points at them. Small because on a large table a lookup's cost is its cache misses, and
/// the records are most of a walked unit's bytes. A regex unit's capture groups are kept beside
/// its records (see `Unit`), not in them: walked units and static entries have none.
struct LeafRecord {
    let routeID: RouteID
    let parameterCount: UInt16
    /// How many of the leaf's parameters the unit's regex captured (the rest, before them, were
    /// captured by dispatch nodes above).
    let groupCount: UInt16
    /// The route's method as a `MethodWord` (0 for any method).
    let method: UInt64
    let route: Unmanaged<Route>
    let names: Unmanaged<ParameterNames>

    init(_ leaf: Leaf, groupCount: Int) {
        routeID = leaf.route.id
        parameterCount = UInt16(leaf.names.count)   // at most `maximumPatternSegments`
        self.groupCount = UInt16(groupCount)
        method = leaf.route.pattern.method.map { MethodWord.of($0.utf8) } ?? MethodWord.any
        route = .passUnretained(leaf.route)
        names = .passUnretained(leaf.names)
    }

    /// Whether the leaf accepts the request's method, `word` (`MethodWord.of` the bytes at
    /// `bytes`, `length` long; `MethodWord.any` when the request gave none).
    @inline(__always) func accepts(method word: UInt64, _ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if method == MethodWord.any || word == MethodWord.any { return true }
        if method != word { return false }
        return word != MethodWord.long || sameLongMethod(bytes, length)
    }

    /// Both methods are longer than a word: compared byte for byte with the route's (rare).
    @inline(never) private func sameLongMethod(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        route._withUnsafeGuaranteedRef { r in
            r.pattern.method.map { $0.utf8.elementsEqual(UnsafeBufferPointer(start: bytes, count: length)) } ?? true
        }
    }

    /// Records for `leaves` in `records`; leaf `i` had `groupCounts[i]` parameters captured by the
    /// unit's regex (none when `groupCounts` is shorter).
    static func initialize(_ records: UnsafeMutablePointer<LeafRecord>, _ leaves: [Leaf], groupCounts: [Int] = []) {
        for (i, leaf) in leaves.enumerated() {
            (records + i).initialize(to: LeafRecord(leaf, groupCount: i < groupCounts.count ? groupCounts[i] : 0))
        }
    }
}

/// A method in one 64-bit word, so that a leaf's check is one comparison: its bytes (at most
/// eight; every common method fits), zero-padded. Method bytes are token characters, never 0 or
/// 0xFF, so `any` and `long` are no method's word; two long methods are compared byte for byte.
enum MethodWord {
    /// Any method: a route that names none, or a request that gives none.
    static let any: UInt64 = 0
    /// A method longer than eight bytes.
    static let long: UInt64 = .max
    /// The common methods' words (what `Matcher.commonMethod` recognizes).
    static let get: UInt64 = 0x54_45_47, post: UInt64 = 0x54_53_4F_50, put: UInt64 = 0x54_55_50
    static let patch: UInt64 = 0x48_43_54_41_50, delete: UInt64 = 0x45_54_45_4C_45_44, head: UInt64 = 0x44_41_45_48

    static func of<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64 {
        if bytes.isEmpty { return any }
        if bytes.count > 8 { return long }
        var w: UInt64 = 0
        for (i, b) in bytes.enumerated() { w |= UInt64(b) << (8 * UInt64(i)) }
        return w
    }

    /// The word of the `length` method bytes at `p`, which may be read eight bytes past it.
    @inline(__always) static func at(_ p: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
        if length == 0 { return any }
        if length > 8 { return long }
        let w = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
        return length == 8 ? w : w & ((1 << (8 * UInt64(length))) - 1)
    }
}

struct RegexEmitter {
    let caseInsensitive: Bool
    var out: [UInt8] = []
    var leaves: [Leaf] = []
    /// Per leaf, the capture groups of its parameters captured inside the unit.
    var groups: [[Int32]] = []
    /// The constraints the unit's callouts name, in order.
    var constraints: [Constraint] = []
    /// The pattern of a route under the node being emitted, for naming its constraint.
    private var owner = ""

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
            constraints.append(try Constraint(c, route: owner))
            captured.append(group)
            return (group + 1, captured)
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
    mutating func emitSubtree(_ node: TreeNode, group: Int32, captured: [Int32]) throws(InterlockError) {
        if case .constrained = node.entry { owner = RegexEmitter.firstRoute(node) }
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
