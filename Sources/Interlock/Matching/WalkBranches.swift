// What a walk with branches reads beside the plain walk's nodes, edges and records: each node's
// children other than its literals, in precedence order, and each leaf's scheme, host and port.

/// A node's branches: `count` from `first` in the unit's branch array.
struct BranchRange {
    var first: Int32
    var count: Int32
}

/// A child of a node other than a literal one, as the walk takes it.
struct Branch {
    enum Kind: Int32 {
        /// One whole segment, at least one byte.
        case parameter
        /// One segment that byte class `item` accepts (no PCRE2 call).
        case byteClass
        /// One segment that constraint `item` (a PCRE2 regex) matches.
        case constraint
        /// One segment that mixed segment `item`'s rule splits into its parameters.
        case mixed
        /// A mixed segment `item` ending in a catch-all: from the segment to the end of the path.
        case mixedCatchAll
        /// The rest of the path (nothing when the path ends here).
        case catchAll
    }
    var kind: Kind
    /// The child's node.
    var target: Int32
    /// The byte class, constraint or mixed segment, by its index in the unit's array of them.
    var item: Int32
}

/// The scheme, host and port a leaf takes, as its regex tail checks them (RegexEmitter.emitLeaf):
/// text in the unit's key bytes (offset and length), -1 for none.
struct Origin {
    var scheme: Int32 = -1, schemeLength: Int32 = 0
    var host: Int32 = -1, hostLength: Int32 = 0
    var port: Int32 = -1, portLength: Int32 = 0
    /// Whether the host is a wildcard's suffix (`*.` taken off): one or more whole labels first.
    var wildcard = false
    /// Whether there is anything to check (a route naming a scheme or host).
    var checks = false
}

/// A unit's arrays before they are laid out in its block: the nodes breadth-first, each one's
/// literal edges contiguous, then (for a walk with branches) its other children and its leaves'
/// origins.
struct WalkLayout {
    let caseInsensitive: Bool
    let branching: Bool
    var nodes: [WalkUnit.Node] = []
    var slots: [Int32] = []
    var edges: [WalkUnit.Edge] = []
    var keys: [UInt8] = []
    var leaves: [Leaf] = []
    var nodeBranches: [BranchRange] = []
    var branches: [Branch] = []
    var origins: [Origin] = []
    var classes: [ByteClass] = []
    var constraints: [Constraint] = []
    var mixed: [MixedSegment] = []

    init(_ root: TreeNode, caseInsensitive: Bool, cache: ConstraintCache?) throws(InterlockError) {
        self.caseInsensitive = caseInsensitive
        let branching = !WalkUnit.isPlain(root)
        self.branching = branching
        // Breadth-first numbering, children in precedence order (literals first): node `i`'s
        // children are numbered from `firstChild[i]` on, in the order of `children[i]`.
        var order: [TreeNode] = [root]
        var children: [[TreeNode]] = []
        var firstChild: [Int32] = []
        let above: Int32
        switch root.entry {
        case .root, .literal: above = 0
        default: above = 1
        }
        var index = 0
        while index < order.count {
            let n = order[index]
            var kids = n.literalOrder
            if branching {
                kids += n.mixedChildren
                kids += n.constrainedChildren
                if let p = n.parameterChild { kids.append(p) }
                kids += n.prefixedCatchAlls
                if let c = n.catchAllChild { kids.append(c) }
            } else if let p = n.parameterChild {
                kids.append(p)
            }
            firstChild.append(Int32(order.count) + above)
            order += kids
            children.append(kids)
            index += 1
        }

        if above == 1 {
            // The node above the root: its only child is the root, by the root's own segment.
            if branching {
                nodeBranches.append(BranchRange(first: 0, count: 1))
                branches.append(try branch(root, target: 1, caseInsensitive: caseInsensitive, cache: cache))
            }
            add(literals: [], parameter: branching ? -1 : 1, leaves: [])
        }
        for (i, n) in order.enumerated() {
            var literals: [(key: [UInt8], target: Int32)] = []
            let first = Int32(branches.count)
            var parameter: Int32 = -1
            for (k, child) in children[i].enumerated() {
                let target = firstChild[i] + Int32(k)
                switch child.entry {
                case .literal(let b): literals.append((b, target))
                case .parameter where !branching: parameter = target
                default: branches.append(try branch(child, target: target, caseInsensitive: caseInsensitive, cache: cache))
                }
            }
            if branching {
                nodeBranches.append(BranchRange(first: first, count: Int32(branches.count) - first))
                for leaf in n.leaves { origins.append(origin(leaf.route.pattern)) }
            }
            add(literals: literals, parameter: parameter, leaves: n.leaves)
        }
    }

    /// Adds a node: its literal edges (with hash slots when there are two or more), its plain
    /// parameter child and its leaves.
    private mutating func add(literals: [(key: [UInt8], target: Int32)], parameter: Int32, leaves nodeLeaves: [Leaf]) {
        let first = Int32(edges.count)
        for (b, target) in literals {
            edges.append(WalkUnit.Edge(keyStart: Int32(keys.count), keyLength: Int32(b.count), target: target))
            keys += caseInsensitive ? b.map(lowercased) : b
        }
        let count = literals.count
        // No slots for one child or none: the walk compares a lone edge directly.
        let capacity = count > 1 ? HashSlots.capacity(for: count, minimum: 1) : 0
        let firstSlot = Int32(slots.count)
        slots += [Int32](repeating: 0, count: capacity)
        if capacity > 0 {
            let homes = (Int(first)..<edges.count).map { e in
                keys.withUnsafeBufferPointer { k in
                    k.baseAddress.map { WalkUnit.slot($0 + Int(edges[e].keyStart), Int(edges[e].keyLength)) } ?? 0
                }
            }
            for (e, slot) in zip(Int(first)..<edges.count, HashSlots.place(homes, capacity: capacity)) {
                slots[Int(firstSlot) + slot] = Int32(e + 1)
            }
        }
        let firstLeaf = Int32(leaves.count)
        leaves += nodeLeaves
        nodes.append(WalkUnit.Node(firstEdge: first, edgeCount: Int32(count), firstSlot: firstSlot, slotMask: Int32(capacity - 1),
                                   parameter: parameter, firstLeaf: firstLeaf, leafCount: Int32(leaves.count) - firstLeaf))
    }

    /// The branch by which the walk enters `child` (not a literal).
    private mutating func branch(_ child: TreeNode, target: Int32, caseInsensitive: Bool,
                                 cache: ConstraintCache?) throws(InterlockError) -> Branch {
        switch child.entry {
        case .constrained(let c):
            if let byteClass = ByteClass.parse(c) {
                let at = classes.firstIndex(of: byteClass) ?? classes.count
                if at == classes.count { classes.append(byteClass) }
                return Branch(kind: .byteClass, target: target, item: Int32(at))
            }
            constraints.append(try Constraint(c, route: RegexEmitter.firstRoute(child), cache: cache))
            return Branch(kind: .constraint, target: target, item: Int32(constraints.count - 1))
        case .mixed(let pieces):
            let m = try MixedSegment(pieces, caseInsensitive: caseInsensitive, route: RegexEmitter.firstRoute(child), cache: cache)
            mixed.append(m)
            return Branch(kind: m.endsWithCatchAll ? .mixedCatchAll : .mixed, target: target, item: Int32(mixed.count - 1))
        case .catchAll:
            return Branch(kind: .catchAll, target: target, item: 0)
        case .parameter, .literal, .root:
            return Branch(kind: .parameter, target: target, item: 0)
        }
    }

    /// A leaf's origin, its texts appended to the key bytes.
    private mutating func origin(_ p: RoutePattern) -> Origin {
        var o = Origin()
        guard p.scheme != nil || p.host != nil else { return o }
        o.checks = true
        func text(_ s: String) -> (Int32, Int32) {
            let start = Int32(keys.count)
            keys += Array(s.utf8)
            return (start, Int32(keys.count) - start)
        }
        if let s = p.scheme { (o.scheme, o.schemeLength) = text(s) }
        if let h = p.host {
            o.wildcard = p.hostIsWildcard
            (o.host, o.hostLength) = text(o.wildcard ? String(h.dropFirst(2)) : h)
            if let port = p.port { (o.port, o.portLength) = text("\(port)") }
        }
        return o
    }
}
