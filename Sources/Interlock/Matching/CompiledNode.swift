// The compiled table: an immutable tree of regex units and dispatch nodes, shared by threads.
//
// A subtree whose regex fits the budget is one unit (one JIT-compiled regex). A larger subtree is a
// dispatch node: Swift picks the literal child by a hash of the next segment, then falls back to the
// constrained, plain and catch-all children in precedence order, exactly as the regex would. This
// keeps every regex under PCRE2's 64 KiB limit and makes a change recompile only its own unit.

/// The most bytes of regex source in one unit.
let unitBudget = 12_000

/// One JIT-compiled regex covering a subtree, with what each of its marks means.
final class Unit: @unchecked Sendable {
    let code: PCRE2Code
    let leaves: [UnitLeaf]

    init(_ emitter: RegexEmitter) throws(InterlockError) {
        code = try PCRE2Code(emitter.out)
        leaves = emitter.leaves
    }
}

/// A node matched in Swift because its subtree is too large for one regex.
final class Dispatch: @unchecked Sendable {
    /// For a parameter or constrained entry: the segment is a parameter value (pushed as a span).
    let capturesEntry: Bool
    /// For a constrained entry: the regex the segment must match, run at the segment's "/".
    let entryGuard: PCRE2Code?
    let literals: LiteralTable
    let constrained: [CompiledNode]
    let parameter: CompiledNode?
    /// The node's own leaves and its catch-all, tried last, in order.
    let terminals: [Unit]

    init(capturesEntry: Bool, entryGuard: PCRE2Code?, literals: LiteralTable,
         constrained: [CompiledNode], parameter: CompiledNode?, terminals: [Unit]) {
        self.capturesEntry = capturesEntry
        self.entryGuard = entryGuard
        self.literals = literals
        self.constrained = constrained
        self.parameter = parameter
        self.terminals = terminals
    }
}

/// A compiled subtree.
enum CompiledNode: @unchecked Sendable {
    case unit(Unit)
    case dispatch(Dispatch)

    /// The largest number of capture groups in any unit below.
    var maxCaptures: Int {
        switch self {
        case .unit(let u): return u.code.captureCount
        case .dispatch(let d):
            var m = d.entryGuard?.captureCount ?? 0
            for t in d.terminals { m = max(m, t.code.captureCount) }
            for c in d.constrained { m = max(m, c.maxCaptures) }
            if let p = d.parameter { m = max(m, p.maxCaptures) }
            for v in d.literals.values { if let v { m = max(m, v.maxCaptures) } }
            return m
        }
    }
}

enum TableCompiler {
    /// Compiles what changed below `node` (unchanged subtrees keep their compiled form).
    static func compile(_ node: TreeNode, caseInsensitive: Bool) throws(InterlockError) -> CompiledNode {
        if let done = node.compiled { return done }
        let result: CompiledNode
        if node.size <= unitBudget {
            var emitter = RegexEmitter(caseInsensitive: caseInsensitive)
            emitter.emitSubtree(node, group: 1, captured: [])
            do {
                result = .unit(try Unit(emitter))
            } catch where error.code == .limit {
                result = .dispatch(try dispatch(node, caseInsensitive: caseInsensitive))
            }
        } else {
            result = .dispatch(try dispatch(node, caseInsensitive: caseInsensitive))
        }
        node.compiled = result
        return result
    }

    private static func dispatch(_ node: TreeNode, caseInsensitive: Bool) throws(InterlockError) -> Dispatch {
        var entryGuard: PCRE2Code? = nil
        if case .constrained = node.entry {
            var emitter = RegexEmitter(caseInsensitive: caseInsensitive)
            _ = emitter.emitEntry(node.entry, group: 1, captured: [])
            entryGuard = try PCRE2Code(emitter.out)
        }
        var keys: [[UInt8]] = []
        var values: [CompiledNode] = []
        for child in node.literalOrder {
            guard case .literal(let b) = child.entry else { continue }
            keys.append(caseInsensitive ? b.map(lowercased) : b)
            values.append(try compile(child, caseInsensitive: caseInsensitive))
        }
        var constrained: [CompiledNode] = []
        for child in node.constrainedChildren { constrained.append(try compile(child, caseInsensitive: caseInsensitive)) }
        let parameter = try node.parameterChild.map { (c) throws(InterlockError) in try compile(c, caseInsensitive: caseInsensitive) }

        // Terminals: the node's leaves, then the catch-all's, in chunks that fit the budget.
        var terminals: [Unit] = []
        func chunks(_ leaves: [Leaf], entry: TreeNode.Entry) throws(InterlockError) {
            var start = 0
            while start < leaves.count {
                var end = start, size = 0
                while end < leaves.count, end == start || size + TreeNode.leafSize(leaves[end].route) <= unitBudget {
                    size += TreeNode.leafSize(leaves[end].route)
                    end += 1
                }
                var emitter = RegexEmitter(caseInsensitive: caseInsensitive)
                let (g, cap) = emitter.emitEntry(entry, group: 1, captured: [])
                emitter.emitAlternatives(leaves: Array(leaves[start..<end]), children: [], group: g, captured: cap)
                terminals.append(try Unit(emitter))
                start = end
            }
        }
        try chunks(node.leaves, entry: .root)
        if let c = node.catchAllChild { try chunks(c.leaves, entry: .catchAll) }
        let capturesEntry: Bool
        switch node.entry {
        case .parameter, .constrained: capturesEntry = true
        default: capturesEntry = false
        }
        return Dispatch(capturesEntry: capturesEntry, entryGuard: entryGuard,
                        literals: LiteralTable(keys: keys, values: values, caseInsensitive: caseInsensitive),
                        constrained: constrained, parameter: parameter, terminals: terminals)
    }
}
