// A subtree matched without a regex: the tree itself, walked in Swift. The walk follows the
// precedence rule exactly as the regex does: at each node the leaves first (the path ends here),
// then the literal child, then the other children in the tree's order, backtracking to the next
// choice when a deeper one fails. It needs no JIT code, which is most of a compiled unit's memory.
//
// A subtree of literals and plain parameters whose routes name no scheme or host (the GitHub
// API) is walked by the plain walk (`Matcher.walk`), which reads nodes, edges and records only.
// Any other subtree is walked with its branches (`Matcher.walkBranches`): per node, its mixed,
// constrained, plain-parameter and catch-all children in precedence order, and per leaf the
// scheme, host and port it takes (see WalkBranches.swift).

import CPCRE2

/// A compiled subtree: flat arrays, read through raw pointers on the lookup path.
final class WalkUnit: @unchecked Sendable {
    struct Node {
        /// Literal children: `edgeCount` edges from `firstEdge`, found through `slotMask + 1` hash
        /// slots from `firstSlot` (each an edge index + 1, 0 for empty).
        var firstEdge: Int32
        var edgeCount: Int32
        var firstSlot: Int32
        var slotMask: Int32
        /// The plain-parameter child, or -1 (always -1 in a walk with branches: there the
        /// parameter child is one of the node's branches).
        var parameter: Int32
        /// The node's leaves in tie order: `leafCount` from `firstLeaf`.
        var firstLeaf: Int32
        var leafCount: Int32
    }
    struct Edge {
        var keyStart: Int32
        var keyLength: Int32
        var target: Int32
    }

    /// Where each array lies in the block, at its start: a lookup reaches everything from the block
    /// alone (see `WalkTable`), never touching this object.
    struct Header {
        var nodes: Int32, slots: Int32, edges: Int32, keys: Int32, records: Int32
        var size: Int32
        var caseInsensitive: Bool
        /// The arrays of a walk with branches (empty in a plain walk's block).
        var nodeBranches: Int32, branches: Int32, origins: Int32, classes: Int32, constraints: Int32, mixed: Int32
    }

    /// The one allocation the header and arrays live in (plain values: nothing to deinitialize).
    private let block: UnsafeMutableRawPointer
    /// How many records the block holds: each keeps its route and parameter names retained (one
    /// array a unit fewer than holding the leaves), released when the unit goes.
    private let leafCount: Int
    /// Own what the block's constraint and mixed-segment references point to.
    let constraints: [Constraint]
    let mixed: [MixedSegment]
    /// Whether the subtree is walked with its branches (`Matcher.walkBranches`), not plainly.
    let branching: Bool

    /// What the lookup path reads (valid while this unit lives).
    var table: WalkTable { WalkTable(base: UnsafeRawPointer(block)) }

    /// Whether `node`'s subtree is walked by the plain walk (`Matcher.walk`): literal and
    /// plain-parameter segments only, and no route naming a scheme or host. Any other subtree is
    /// walked with its branches (`Matcher.walkBranches`).
    static func isPlain(_ node: TreeNode) -> Bool {
        switch node.entry {
        case .root, .literal, .parameter: break
        case .constrained, .catchAll, .mixed: return false
        }
        guard node.constrainedChildren.isEmpty, node.catchAllChild == nil, node.mixedChildren.isEmpty, node.prefixedCatchAlls.isEmpty,
              !node.leaves.contains(where: { $0.route.hasSchemeOrHost }) else { return false }
        return node.literalOrder.allSatisfy(isPlain) && (node.parameterChild.map(isPlain) ?? true)
    }

    /// Compiles `root`'s subtree; `cache` shares its constraints' code with the router's other
    /// units. The walk starts at node 0, the subtree's root. A root entered by a literal segment
    /// (below a dispatch node, whose literal probe has matched that segment) is walked from just
    /// after it. A root entered by any other segment has a node 0 above it whose only child is
    /// the root, so that the segment is taken (and its values pushed) like any other.
    static func make(_ root: TreeNode, caseInsensitive: Bool, cache: ConstraintCache?) throws(InterlockError) -> WalkUnit {
        WalkUnit(try WalkLayout(root, caseInsensitive: caseInsensitive, cache: cache))
    }

    // What throws (constraints, mixed segments) is done above, in the layout, before the object
    // is allocated (see `Unit`).
    private init(_ layout: WalkLayout) {
        leafCount = layout.leaves.count
        constraints = layout.constraints
        mixed = layout.mixed
        branching = layout.branching
        let nodeList = layout.nodes, slotList = layout.slots, edgeList = layout.edges, keys = layout.keys
        let leafList = layout.leaves
        // Everything in one block, in the order a lookup reads it, so that it touches few cache
        // lines; each record within one line (a record is 32 bytes: the records start 32-aligned).
        // A plain walk's block ends with its records; the branches' arrays follow them.
        let constraintRefs = layout.constraints.map { $0.ref }
        let mixedRefs = layout.mixed.map { Unmanaged.passUnretained($0) }
        let counts = [1, nodeList.count, slotList.count, edgeList.count, keys.count, leafList.count,
                      layout.nodeBranches.count, layout.branches.count, layout.origins.count, layout.classes.count,
                      constraintRefs.count, mixedRefs.count]
        let strides = [MemoryLayout<Header>.stride, MemoryLayout<Node>.stride, MemoryLayout<Int32>.stride,
                       MemoryLayout<Edge>.stride, 1, MemoryLayout<LeafRecord>.stride,
                       MemoryLayout<BranchRange>.stride, MemoryLayout<Branch>.stride, MemoryLayout<Origin>.stride,
                       MemoryLayout<ByteClass>.stride, MemoryLayout<ConstraintRef>.stride, MemoryLayout<Unmanaged<MixedSegment>>.stride]
        var starts: [Int] = []
        var total = 0
        for i in 0..<counts.count {
            let alignment = i == 5 ? 32 : 8
            total = (total + alignment - 1) & ~(alignment - 1)
            starts.append(total)
            total += strides[i] * counts[i]
        }
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(total, 1), alignment: 64)
        block = base
        let offsets = starts.map { Int32($0) }
        func next<T>(_: T.Type, _ i: Int) -> UnsafeMutablePointer<T> {
            (base + starts[i]).bindMemory(to: T.self, capacity: counts[i])
        }
        let header = next(Header.self, 0)
        next(Node.self, 1).initialize(from: nodeList, count: nodeList.count)
        next(Int32.self, 2).initialize(from: slotList, count: slotList.count)
        next(Edge.self, 3).initialize(from: edgeList, count: edgeList.count)
        next(UInt8.self, 4).initialize(from: keys, count: keys.count)
        LeafRecord.initialize(next(LeafRecord.self, 5), leafList)
        for leaf in leafList {
            _ = Unmanaged.passRetained(leaf.route)
            _ = Unmanaged.passRetained(leaf.names)
        }
        next(BranchRange.self, 6).initialize(from: layout.nodeBranches, count: layout.nodeBranches.count)
        next(Branch.self, 7).initialize(from: layout.branches, count: layout.branches.count)
        next(Origin.self, 8).initialize(from: layout.origins, count: layout.origins.count)
        next(ByteClass.self, 9).initialize(from: layout.classes, count: layout.classes.count)
        next(ConstraintRef.self, 10).initialize(from: constraintRefs, count: constraintRefs.count)
        next(Unmanaged<MixedSegment>.self, 11).initialize(from: mixedRefs, count: mixedRefs.count)
        header.initialize(to: Header(nodes: offsets[1], slots: offsets[2], edges: offsets[3], keys: offsets[4],
                                     records: offsets[5], size: Int32(clamping: total), caseInsensitive: layout.caseInsensitive,
                                     nodeBranches: offsets[6], branches: offsets[7], origins: offsets[8], classes: offsets[9],
                                     constraints: offsets[10], mixed: offsets[11]))
    }

    /// A literal's slot: from its length and its first and last bytes, with the 0x20 bit set (so
    /// that on a case-insensitive router, whose keys are stored lower-cased, a segment in any case
    /// finds the same slot; a case-sensitive router's keys that differ only there share a chain).
    @inline(__always) static func slot(_ p: UnsafePointer<UInt8>, _ length: Int) -> Int {
        let first = length > 0 ? Int(p[0] | 0x20) : 0, last = length > 0 ? Int(p[length - 1] | 0x20) : 0
        return (length &* 0x9E37 ^ first &* 0x3B ^ last &* 0x1F1) & 0x7FFF_FFFF
    }

    deinit {
        let records = table.records
        for i in 0..<leafCount {
            records[i].route.release()
            records[i].names.release()
        }
        block.deallocate()
    }
}

/// A walk unit as the lookup path reads it: its block, whose header says where each array lies.
struct WalkTable {
    let base: UnsafeRawPointer

    private var header: WalkUnit.Header { base.load(as: WalkUnit.Header.self) }
    private func array<T>(_ offset: Int32, _: T.Type) -> UnsafePointer<T> {
        (base + Int(offset)).assumingMemoryBound(to: T.self)
    }
    var nodes: UnsafePointer<WalkUnit.Node> { array(header.nodes, WalkUnit.Node.self) }
    var slots: UnsafePointer<Int32> { array(header.slots, Int32.self) }
    var edges: UnsafePointer<WalkUnit.Edge> { array(header.edges, WalkUnit.Edge.self) }
    var keyBytes: UnsafePointer<UInt8> { array(header.keys, UInt8.self) }
    var records: UnsafePointer<LeafRecord> { array(header.records, LeafRecord.self) }
    var caseInsensitive: Bool { header.caseInsensitive }
    var nodeBranches: UnsafePointer<BranchRange> { array(header.nodeBranches, BranchRange.self) }
    var branches: UnsafePointer<Branch> { array(header.branches, Branch.self) }
    var origins: UnsafePointer<Origin> { array(header.origins, Origin.self) }
    var classes: UnsafePointer<ByteClass> { array(header.classes, ByteClass.self) }
    var constraints: UnsafePointer<ConstraintRef> { array(header.constraints, ConstraintRef.self) }
    var mixed: UnsafePointer<Unmanaged<MixedSegment>> { array(header.mixed, Unmanaged<MixedSegment>.self) }

    /// Asks for the first lines of a block before its header is read: a walk with branches
    /// entered from a dispatch node's hash slot finds its block cold, and its header's miss then
    /// overlaps those of the lines after it (a prefetch past the block's end is harmless).
    @inline(__always) func prefetchAhead() {
        interlock_prefetch(base + 64)
        interlock_prefetch(base + 128)
        interlock_prefetch(base + 192)
        interlock_prefetch(base + 256)
        prefetch()
    }

    /// Asks for every cache line of a small block at once. A walk entered from a dispatch node's
    /// hash slot (a table too large for one unit) finds its block cold, and would otherwise wait
    /// for its lines one after another (header, node, edge, key, node, ..., record), each a miss
    /// that the address of the next depends on. (A large block, a whole table's, is left alone.)
    @inline(__always) func prefetch() {
        let size = Int(header.size)
        guard size <= 2048 else { return }
        var offset = 64
        while offset < size {
            interlock_prefetch(base + offset)
            offset += 64
        }
    }
}
