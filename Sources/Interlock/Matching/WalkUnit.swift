// A subtree matched without a regex: when every segment below a node is a literal or a plain
// parameter and no route names a scheme or host, the tree itself is walked in Swift. The walk
// follows the precedence rule exactly as the regex does: at each node the leaves first (the path
// ends here), then the literal child, then the parameter child, backtracking to the next choice when
// a deeper one fails. It needs no JIT code, which is most of a compiled unit's memory.

import CPCRE2

/// A compiled simple subtree: flat arrays, read through raw pointers on the lookup path.
final class WalkUnit: @unchecked Sendable {
    struct Node {
        /// Literal children: `edgeCount` edges from `firstEdge`, found through `slotMask + 1` hash
        /// slots from `firstSlot` (each an edge index + 1, 0 for empty).
        var firstEdge: Int32
        var edgeCount: Int32
        var firstSlot: Int32
        var slotMask: Int32
        /// The plain-parameter child, or -1.
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
    }

    /// The one allocation the header and arrays live in (plain values: nothing to deinitialize).
    private let block: UnsafeMutableRawPointer
    /// Owns what the records point to.
    let leaves: [Leaf]

    /// What the lookup path reads (valid while this unit lives).
    var table: WalkTable { WalkTable(base: UnsafeRawPointer(block)) }

    /// Whether `node`'s subtree can be walked: literal and plain-parameter segments only, and no
    /// route naming a scheme or host.
    static func accepts(_ node: TreeNode) -> Bool {
        switch node.entry {
        case .root, .literal, .parameter: break
        case .constrained, .catchAll, .mixed: return false
        }
        guard node.constrainedChildren.isEmpty, node.catchAllChild == nil, node.mixedChildren.isEmpty, node.prefixedCatchAlls.isEmpty,
              !node.leaves.contains(where: { $0.route.hasSchemeOrHost }) else { return false }
        return node.literalOrder.allSatisfy(accepts) && (node.parameterChild.map(accepts) ?? true)
    }

    /// The walk starts at node 0, the subtree's root. A root entered by a literal segment (below a
    /// dispatch node, whose literal probe has matched that segment) is walked from just after it.
    /// A root entered by a parameter has a node 0 above it whose only child is the root, so that
    /// the parameter is taken (and its span pushed) like any other.
    init(_ root: TreeNode, caseInsensitive: Bool) {
        // Breadth-first numbering; each node's literal edges are contiguous.
        var order: [TreeNode] = [root]
        var index = 0
        while index < order.count {
            let n = order[index]
            order += n.literalOrder
            if let p = n.parameterChild { order.append(p) }
            index += 1
        }
        let above: Int32 = root.entry == .parameter ? 1 : 0
        var numberOf: [ObjectIdentifier: Int32] = [:]
        for (i, n) in order.enumerated() { numberOf[ObjectIdentifier(n)] = Int32(i) + above }

        // Each node as its literal children, parameter child and leaves.
        typealias Piece = (literals: [(key: [UInt8], target: Int32)], parameter: Int32, leaves: [Leaf])
        var pieces: [Piece] = []
        if above == 1 { pieces.append(([], 1, [])) }
        for n in order {
            let literals = n.literalOrder.compactMap { child -> (key: [UInt8], target: Int32)? in
                guard case .literal(let b) = child.entry, let target = numberOf[ObjectIdentifier(child)] else { return nil }
                return (b, target)
            }
            pieces.append((literals, n.parameterChild.flatMap { numberOf[ObjectIdentifier($0)] } ?? -1, n.leaves))
        }

        var keys: [UInt8] = []
        var edgeList: [Edge] = []
        var slotList: [Int32] = []
        var nodeList: [Node] = []
        var leafList: [Leaf] = []
        for piece in pieces {
            let first = Int32(edgeList.count)
            for (b, target) in piece.literals {
                edgeList.append(Edge(keyStart: Int32(keys.count), keyLength: Int32(b.count), target: target))
                keys += caseInsensitive ? b.map(lowercased) : b
            }
            let count = piece.literals.count
            // No slots for one child or none: the walk compares a lone edge directly.
            let capacity = count > 1 ? HashSlots.capacity(for: count, minimum: 1) : 0
            let firstSlot = Int32(slotList.count)
            slotList += [Int32](repeating: 0, count: capacity)
            if capacity > 0 {
                let homes = (Int(first)..<edgeList.count).map { e in
                    keys.withUnsafeBufferPointer { k in
                        k.baseAddress.map { WalkUnit.slot($0 + Int(edgeList[e].keyStart), Int(edgeList[e].keyLength)) } ?? 0
                    }
                }
                for (e, slot) in zip(Int(first)..<edgeList.count, HashSlots.place(homes, capacity: capacity)) {
                    slotList[Int(firstSlot) + slot] = Int32(e + 1)
                }
            }
            let firstLeaf = Int32(leafList.count)
            leafList += piece.leaves
            nodeList.append(Node(firstEdge: first, edgeCount: Int32(count), firstSlot: firstSlot, slotMask: Int32(capacity - 1),
                                 parameter: piece.parameter, firstLeaf: firstLeaf, leafCount: Int32(leafList.count) - firstLeaf))
        }
        leaves = leafList
        // Everything in one block, in the order a lookup reads it, so that it touches few cache
        // lines; each record within one line (a record is 32 bytes: the records start 32-aligned).
        let counts = [1, nodeList.count, slotList.count, edgeList.count, keys.count, leafList.count]
        let strides = [MemoryLayout<Header>.stride, MemoryLayout<Node>.stride, MemoryLayout<Int32>.stride,
                       MemoryLayout<Edge>.stride, 1, MemoryLayout<LeafRecord>.stride]
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
        let nodes = next(Node.self, 1)
        nodes.initialize(from: nodeList, count: nodeList.count)
        let slots = next(Int32.self, 2)
        slots.initialize(from: slotList, count: slotList.count)
        let edges = next(Edge.self, 3)
        edges.initialize(from: edgeList, count: edgeList.count)
        let keyBytes = next(UInt8.self, 4)
        keyBytes.initialize(from: keys, count: keys.count)
        let records = next(LeafRecord.self, 5)
        LeafRecord.initialize(records, leafList)
        header.initialize(to: Header(nodes: offsets[1], slots: offsets[2], edges: offsets[3], keys: offsets[4],
                                     records: offsets[5], size: Int32(clamping: total), caseInsensitive: caseInsensitive))
    }

    /// A literal's slot: from its length and its first and last bytes, with the 0x20 bit set (so
    /// that on a case-insensitive router, whose keys are stored lower-cased, a segment in any case
    /// finds the same slot; a case-sensitive router's keys that differ only there share a chain).
    @inline(__always) static func slot(_ p: UnsafePointer<UInt8>, _ length: Int) -> Int {
        let first = length > 0 ? Int(p[0] | 0x20) : 0, last = length > 0 ? Int(p[length - 1] | 0x20) : 0
        return (length &* 0x9E37 ^ first &* 0x3B ^ last &* 0x1F1) & 0x7FFF_FFFF
    }

    deinit { block.deallocate() }
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
