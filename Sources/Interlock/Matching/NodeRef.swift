/// A compiled node as the lookup path holds it: no reference counting (the table the matcher
/// holds keeps the objects alive). One word and a tag, so that a dispatch node's hash slot holding
/// one stays small (on a large table a lookup's cost is its cache misses): a regex unit by its
/// object, whose `UnitRef` is read where it is entered (walks answer most subtrees).
enum NodeRef {
    case unit(Unmanaged<Unit>)
    case walk(WalkTable)
    /// A walk unit with branches (`Matcher.walkBranches`).
    case walkBranches(WalkTable)
    case dispatch(Unmanaged<Dispatch>)
}

/// A unit as the lookup path holds it: what running it needs, copied out of the object so that a
/// lookup reaching it from a hash slot reads the slot and not the object too.
struct UnitRef {
    let raw: OpaquePointer
    let jitted: Bool
    let records: UnsafeMutablePointer<LeafRecord>
    let groups: UnsafePointer<Int32>
    /// The constraints its callouts run (nil when it has none).
    let constraints: UnsafeMutablePointer<ConstraintRef>?
    /// The mixed segments its callouts run (nil when it has none).
    let mixed: UnsafeMutablePointer<MixedRef>?
    let unit: Unmanaged<Unit>

    init(_ u: Unit) {
        raw = u.raw; jitted = u.jitted; records = u.records; groups = UnsafePointer(u.groups)
        constraints = u.constraints.refs; mixed = u.mixed.refs; unit = .passUnretained(u)
    }
}

extension CompiledNode {
    var ref: NodeRef {
        switch self {
        case .unit(let u): return .unit(.passUnretained(u))
        case .walk(let u): return u.branching ? .walkBranches(u.table) : .walk(u.table)
        case .dispatch(let d): return .dispatch(.passUnretained(d))
        }
    }
}
