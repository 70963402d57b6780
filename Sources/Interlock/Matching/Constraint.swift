import CPCRE2

// A parameter's constraint, as a lookup runs it: its own regex, on its segment alone.
//
// A unit's regex reaches a constrained segment through a callout, `(?C"i")` for the unit's
// constraint `i`, and the matcher runs the constraint on the bytes from there to the segment's
// end: what the constraint can read, and so the work one step of it can do, ends with the
// segment. (Written inline, as a lookahead over the rest of the subject, a constraint such as
// `(.*a){12}b` scanned the whole rest of the path at every step of its backtracking.)

/// A constraint compiled for lookups, shared read-only by threads.
final class Constraint: @unchecked Sendable {
    let code: PCRE2Code
    /// A route that has this constraint, as written, for the error that names it.
    let route: String

    /// Compiles `regex` (already checked by `ConstraintCheck`) to match a whole segment.
    /// - Parameters:
    ///   - regex: the constraint as written in the pattern.
    ///   - route: the pattern of a route it belongs to.
    ///   - cache: the router's compiled constraints, to share the code with every other use of
    ///     the same source (nil: compiled for this use alone).
    convenience init(_ regex: String, route: String, cache: ConstraintCache? = nil) throws(InterlockError) {
        let code: PCRE2Code
        if let cache { code = try cache.code(regex) } else { code = try PCRE2Code(Array(regex.utf8), options: ConstraintCheck.options) }
        self.init(code: code, route: route)
    }

    // What throws is done above, before the object is allocated (see `Unit`).
    private init(code: PCRE2Code, route: String) {
        self.code = code
        self.route = route
    }

    /// What the lookup path reads.
    var ref: ConstraintRef { ConstraintRef(raw: code.code, jitted: code.jitted, constraint: .passUnretained(self)) }
}

/// A constraint as the lookup path holds it, unmanaged (see `UnitRef`).
struct ConstraintRef {
    let raw: OpaquePointer
    let jitted: Bool
    let constraint: Unmanaged<Constraint>
}

/// A unit's constraints, in callout order, for the lookup path: the unit owns the objects.
struct ConstraintTable {
    let refs: UnsafeMutablePointer<ConstraintRef>?
    let constraints: [Constraint]

    init(_ constraints: [Constraint]) {
        self.constraints = constraints
        if constraints.isEmpty {
            refs = nil
        } else {
            let refs = UnsafeMutablePointer<ConstraintRef>.allocate(capacity: constraints.count)
            for (i, c) in constraints.enumerated() { (refs + i).initialize(to: c.ref) }
            self.refs = refs
        }
    }

    func deallocate() { refs?.deallocate() }
}

extension RegexEmitter {
    /// The callout that stands for constraint `index` of the unit: on the segment from where it
    /// stands, or, with `group`, on what that capture group (just closed) holds.
    static func constraintCallout(_ index: Int, group: Int? = nil) -> String {
        "(?C\"\(index)\(group.map { ":\($0)" } ?? "")\")"
    }

    /// The constraint index and capture group (nil: the segment) a constraint callout names (the
    /// text between its quotes).
    @inline(__always) static func constraintIndex(_ text: UnsafePointer<UInt8>, _ length: Int) -> (Int, Int?) {
        var v = 0, i = 0
        while i < length, text[i] != 0x3A { v = v &* 10 &+ Int(text[i] &- 0x30); i += 1 }
        guard i < length else { return (v, nil) }
        var g = 0
        i += 1
        while i < length { g = g &* 10 &+ Int(text[i] &- 0x30); i += 1 }
        return (v, g)
    }

    /// The pattern of the first route under `node`, for naming a constraint.
    static func firstRoute(_ node: TreeNode) -> String {
        if let leaf = node.leaves.first { return leaf.route.pattern.source }
        for child in node.childrenInOrder {
            let found = firstRoute(child)
            if !found.isEmpty { return found }
        }
        return ""
    }
}
