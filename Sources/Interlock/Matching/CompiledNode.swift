// The compiled table: an immutable tree of regex units and dispatch nodes, shared by threads.
//
// A subtree whose regex fits the budget is one unit (one JIT-compiled regex). A larger subtree is a
// dispatch node: Swift picks the literal child by a hash of the next segment, then falls back to the
// constrained, plain and catch-all children in precedence order, exactly as the regex would. This
// keeps every regex under PCRE2's 64 KiB limit and makes a change recompile only its own unit.

import Synchronization

/// The most bytes of regex source in one unit.
let unitBudget = 30_000

/// One JIT-compiled regex covering a subtree, with what each of its marks means.
final class Unit: @unchecked Sendable {
    let code: PCRE2Code
    let leaves: [Leaf]
    // The lookup path reads these instead of the objects above: touching an object shared by
    // threads means an atomic reference-count update on a shared cache line, which serializes
    // lookups on different cores.
    let raw: OpaquePointer
    let jitted: Bool
    /// One record per mark (see `LeafRecord`).
    let records: UnsafeMutablePointer<LeafRecord>
    /// Each leaf's capture groups: the stride, then `stride` group numbers per mark.
    let groups: UnsafeMutablePointer<Int32>
    /// The constraints the regex's callouts run.
    let constraints: ConstraintTable
    /// The mixed segments its callouts run.
    let mixed: MixedTable
    /// The regex source, for the enumerating variant.
    private let source: [UInt8]
    /// The same regex with a callout after every mark, compiled on first need: it lists every
    /// route whose path fits, for the method-not-allowed answer. A callout costs the fast path
    /// even when no callout function is set, so the fast regex has none.
    private let enumerating = Mutex<PCRE2Code?>(nil)

    convenience init(_ emitter: RegexEmitter) throws(InterlockError) {
        self.init(emitter, code: try PCRE2Code(emitter.out))
    }

    // The throwing part above, before the object is allocated: Embedded Swift's runtime never
    // frees an object whose initializer throws (the same for the classes below).
    private init(_ emitter: RegexEmitter, code: PCRE2Code) {
        self.code = code
        leaves = emitter.leaves
        source = emitter.out
        raw = code.code
        jitted = code.jitted
        records = .allocate(capacity: max(leaves.count, 1))
        LeafRecord.initialize(records, leaves, groupCounts: emitter.groups.map({ $0.count }))
        let stride = emitter.groups.map({ $0.count }).max() ?? 0
        groups = .allocate(capacity: 1 + leaves.count * stride)
        groups.initialize(repeating: 0, count: 1 + leaves.count * stride)
        groups[0] = Int32(stride)
        for (i, list) in emitter.groups.enumerated() {
            for (j, g) in list.enumerated() { groups[1 + i * stride + j] = g }
        }
        constraints = ConstraintTable(emitter.constraints)
        mixed = MixedTable(emitter.mixed, groups: emitter.mixedGroups)
    }

    deinit {
        records.deallocate()
        groups.deallocate()
        constraints.deallocate()
        mixed.deallocate()
    }

    func enumerationCode() throws(InterlockError) -> PCRE2Code {
        try enumerating.withLock { (slot: inout PCRE2Code?) throws(InterlockError) -> PCRE2Code in
            if let code = slot { return code }
            let code = try PCRE2Code(Unit.withCallouts(source))
            slot = code
            return code
        }
    }

    /// Inserts "(?C1)" after every "(*MARK:n)" (constraints cannot contain "(*", so every one is ours).
    static func withCallouts(_ source: [UInt8]) -> [UInt8] {
        let mark = Array("(*MARK:".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(source.count + source.count / 4)
        var i = 0
        while i < source.count {
            if source[i] == 0x28, i + mark.count <= source.count, source[i..<(i + mark.count)].elementsEqual(mark) {
                var j = i + mark.count
                while j < source.count, source[j] != 0x29 { j += 1 }
                out += source[i...j]
                out += Array("(?C1)".utf8)
                i = j + 1
                continue
            }
            out.append(source[i])
            i += 1
        }
        return out
    }
}

/// A node matched in Swift because its subtree is too large for one regex.
final class Dispatch: @unchecked Sendable {
    /// For a parameter or constrained entry: the segment is a parameter value (pushed as a span).
    let capturesEntry: Bool
    /// For a constrained entry: the constraint the segment must match.
    let entryGuard: Constraint?
    /// For a mixed entry: the segment's rule, which splits it into its parameters.
    let entryMixed: MixedSegment?
    let literals: LiteralBuckets
    /// Mixed-segment children, in precedence order.
    let mixed: [CompiledNode]
    let constrained: [CompiledNode]
    let parameter: CompiledNode?
    /// The node's own leaves and its catch-all, tried last, in order: regex units (a router
    /// without walks), or one walk unit, `terminalWalk`.
    let terminals: [Unit]
    let terminalWalk: WalkUnit?
    /// The most capture groups of any unit below.
    let maxCaptures: Int
    // The same children for the lookup path, unmanaged (see `Unit`): this node owns them above.
    let literalProbe: LiteralProbe
    let mixedRefs: UnsafeMutablePointer<NodeRef>
    let constrainedRefs: UnsafeMutablePointer<NodeRef>
    let parameterRef: NodeRef?
    let terminalRefs: UnsafeMutablePointer<UnitRef>
    let terminalWalkRef: NodeRef?
    let guardRef: ConstraintRef?
    let mixedRef: Unmanaged<MixedSegment>?

    init(capturesEntry: Bool, entryGuard: Constraint?, entryMixed: MixedSegment?, literals: LiteralBuckets,
         mixed: [CompiledNode], constrained: [CompiledNode], parameter: CompiledNode?, terminals: [Unit],
         terminalWalk: WalkUnit? = nil) {
        self.capturesEntry = capturesEntry
        self.entryGuard = entryGuard
        self.entryMixed = entryMixed
        self.literals = literals
        self.mixed = mixed
        self.constrained = constrained
        self.parameter = parameter
        self.terminals = terminals
        self.terminalWalk = terminalWalk
        terminalWalkRef = terminalWalk.map { CompiledNode.walk($0).ref }
        literalProbe = literals.probe
        mixedRefs = .allocate(capacity: max(mixed.count, 1))
        for (i, c) in mixed.enumerated() { (mixedRefs + i).initialize(to: c.ref) }
        constrainedRefs = .allocate(capacity: max(constrained.count, 1))
        for (i, c) in constrained.enumerated() { (constrainedRefs + i).initialize(to: c.ref) }
        parameterRef = parameter?.ref
        terminalRefs = .allocate(capacity: max(terminals.count, 1))
        for (i, t) in terminals.enumerated() { (terminalRefs + i).initialize(to: UnitRef(t)) }
        guardRef = entryGuard?.ref
        mixedRef = entryMixed.map { .passUnretained($0) }
        var m = max(literals.maxCaptures, parameter?.maxCaptures ?? 0)
        for c in mixed { m = max(m, c.maxCaptures) }
        for t in terminals { m = max(m, t.code.captureCount) }
        for c in constrained { m = max(m, c.maxCaptures) }
        maxCaptures = m
    }

    deinit {
        mixedRefs.deallocate()
        constrainedRefs.deallocate()
        terminalRefs.deallocate()
    }
}

/// A compiled subtree.
enum CompiledNode: @unchecked Sendable {
    case unit(Unit)
    case walk(WalkUnit)
    case dispatch(Dispatch)

    /// The largest number of capture groups in any unit below.
    var maxCaptures: Int {
        switch self {
        case .unit(let u): return u.code.captureCount
        case .walk: return 0
        case .dispatch(let d): return d.maxCaptures
        }
    }
}
