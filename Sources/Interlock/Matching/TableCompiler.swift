/// Compiles the parts of the tree that changed since the last compilation.
struct TableCompiler {
    let caseInsensitive: Bool
    /// Units compiled by this compiler (a measure of the work a change cost).
    private(set) var unitsCompiled = 0
    /// Entries of dispatch nodes' literal buckets built or copied by this compiler, and pages of
    /// them listed (the other measure of a change's work: a change should rebuild the buckets it
    /// touched and copy their pages, not a whole node's buckets).
    private(set) var entriesWritten = 0

    /// Whether to walk simple subtrees (see `WalkUnit`) instead of compiling them.
    let walkUnits: Bool

    /// The most bytes of regex source in one unit (`unitBudget`; tests make it small, to compare
    /// dispatch nodes with the one regex a small table otherwise is).
    let budget: Int

    /// The router's compiled constraints: one code per constraint source, for every unit.
    let cache: ConstraintCache?

    init(caseInsensitive: Bool, walkUnits: Bool = true, budget: Int = unitBudget, cache: ConstraintCache? = nil) {
        self.caseInsensitive = caseInsensitive
        self.cache = cache
        self.walkUnits = walkUnits
        self.budget = budget
    }

    mutating func compile(_ node: TreeNode) throws(InterlockError) -> CompiledNode {
        if let done = node.compiled { return done }
        let result: CompiledNode
        if walkUnits, node.size <= budget {
            unitsCompiled += 1
            result = .walk(try WalkUnit.make(node, caseInsensitive: caseInsensitive, cache: cache))
        } else if node.size <= budget {
            var emitter = RegexEmitter(caseInsensitive: caseInsensitive, cache: cache)
            do {
                try emitter.emitSubtree(node, group: 1, captured: [])
                result = .unit(try unit(emitter))
            } catch where error.code == .limit {
                result = .dispatch(try dispatch(node))
            }
        } else {
            result = .dispatch(try dispatch(node))
        }
        node.compiled = result
        // A dispatch node is updated from the last one only while the node stays one: after a
        // spell as a unit (removals shrank it), the last one lacks what changed meanwhile.
        if case .dispatch = result {} else { node.lastDispatch = nil }
        node.clearChanges()
        return result
    }

    private mutating func unit(_ emitter: RegexEmitter) throws(InterlockError) -> Unit {
        unitsCompiled += 1
        return try Unit(emitter)
    }

    private mutating func dispatch(_ node: TreeNode) throws(InterlockError) -> Dispatch {
        let previous = node.lastDispatch
        var entryGuard = previous?.entryGuard
        if entryGuard == nil, case .constrained(let c) = node.entry {
            entryGuard = try Constraint(c, route: RegexEmitter.firstRoute(node), cache: cache)
        }
        var entryMixed = previous?.entryMixed
        if entryMixed == nil, case .mixed(let pieces) = node.entry {
            entryMixed = try MixedSegment(pieces, caseInsensitive: caseInsensitive, route: RegexEmitter.firstRoute(node), cache: cache)
        }
        let literals = try literalBuckets(node, previous: previous?.literals)
        var mixed: [CompiledNode] = []
        for child in node.mixedChildren { mixed.append(try compile(child)) }
        var constrained: [CompiledNode] = []
        for child in node.constrainedChildren { constrained.append(try compile(child)) }
        var parameter: CompiledNode? = nil
        if let child = node.parameterChild { parameter = try compile(child) }
        var terminals: [Unit] = []
        var terminalWalk: WalkUnit? = nil
        if let previous, !node.terminalsChanged {
            terminals = previous.terminals
            terminalWalk = previous.terminalWalk
        } else if walkUnits {
            // One walk for them all: a node standing for this one with its leaves and catch-alls
            // only, in the same order.
            let ends = TreeNode(.root)
            ends.leaves = node.leaves
            ends.prefixedCatchAlls = node.prefixedCatchAlls
            ends.catchAllChild = node.catchAllChild
            if !ends.isEmpty {
                unitsCompiled += 1
                terminalWalk = try WalkUnit.make(ends, caseInsensitive: caseInsensitive, cache: cache)
            }
        } else {
            var units: [Unit] = []
            try chunks(node.leaves, entry: .root, into: &units)
            for c in node.prefixedCatchAlls { try chunks(c.leaves, entry: c.entry, into: &units) }
            if let c = node.catchAllChild { try chunks(c.leaves, entry: .catchAll, into: &units) }
            terminals = units
        }
        let capturesEntry: Bool
        switch node.entry {
        case .parameter, .constrained, .mixed: capturesEntry = true
        default: capturesEntry = false
        }
        let d = Dispatch(capturesEntry: capturesEntry, entryGuard: entryGuard, entryMixed: entryMixed, literals: literals,
                         mixed: mixed, constrained: constrained, parameter: parameter, terminals: terminals,
                         terminalWalk: terminalWalk)
        node.lastDispatch = d
        return d
    }

    /// The literal children: only the buckets holding a changed child are rebuilt (and the pages
    /// of buckets they fall in copied), unless the number of buckets had to change.
    private mutating func literalBuckets(_ node: TreeNode, previous: LiteralBuckets?) throws(InterlockError) -> LiteralBuckets {
        let count = LiteralBuckets.bucketCount(for: node.literalChildren.count, previous: previous?.count ?? 0)
        if let previous, previous.count == count {
            var touched: [Int: [[UInt8]]] = [:]
            for key in node.changedLiterals {
                touched[LiteralBuckets.bucket(segmentHash(key), count: count), default: []].append(key)
            }
            var rebuilt: [(index: Int, bucket: LiteralTable)] = []
            for (b, keys) in touched {
                var entries = previous.bucket(at: b).entries
                for key in keys {
                    guard let child = node.literalChildren[key] else {     // removed
                        entries.removeAll { $0.key == key }
                        continue
                    }
                    let compiled = try compile(child)
                    if let i = entries.firstIndex(where: { $0.key == key }) {
                        entries[i].value = compiled
                    } else {
                        entries.append((key, compiled))
                    }
                }
                rebuilt.append((b, LiteralTable(entries)))
            }
            entriesWritten += rebuilt.reduce(0) { $0 + $1.bucket.entries.count }
            return previous.replacing(rebuilt, copied: &entriesWritten)
        }
        var grouped = [[(key: [UInt8], value: CompiledNode)]](repeating: [], count: count)
        for (key, child) in node.literalChildren {
            grouped[LiteralBuckets.bucket(segmentHash(key), count: count)].append((key, try compile(child)))
        }
        entriesWritten += node.literalChildren.count + count
        return LiteralBuckets(buckets: grouped.map { LiteralTable($0) }, caseInsensitive: caseInsensitive)
    }

    /// Units for a node's own leaves (or its catch-all's), in chunks that fit the budget.
    private mutating func chunks(_ leaves: [Leaf], entry: TreeNode.Entry, into units: inout [Unit]) throws(InterlockError) {
        var start = 0
        while start < leaves.count {
            var end = start, size = 0
            while end < leaves.count, end == start || size + TreeNode.leafSize(leaves[end].route) <= budget {
                size += TreeNode.leafSize(leaves[end].route)
                end += 1
            }
            var emitter = RegexEmitter(caseInsensitive: caseInsensitive, cache: cache)
            if let first = leaves.first { emitter.naming(first.route.pattern.source) }     // for a constraint's error
            let (g, cap) = try emitter.emitEntry(entry, group: 1, captured: [])
            try emitter.emitAlternatives(leaves: Array(leaves[start..<end]), children: [], group: g, captured: cap)
            units.append(try unit(emitter))
            start = end
        }
    }
}
