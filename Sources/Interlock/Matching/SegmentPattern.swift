import CPCRE2

// A segment mixing text and parameters (`:name.json`, `v:major(\\d+).:minor(\\d+)`) as a dispatch
// node reads it: when the subtree below such a segment is too large for one regex, the node is
// entered by running the segment's own regex on the segment alone, which captures its parameters.
// It is the fragment a unit's regex has for that segment (see `RegexEmitter.emitMixed`), so both
// read a segment alike: each parameter at least one byte, as few as let the rest of the segment
// match, a constrained one checked on what it captured through the same callout.

/// A mixed segment's regex, shared read-only by threads.
final class SegmentPattern: @unchecked Sendable {
    let code: PCRE2Code
    /// The constraints its callouts run.
    let constraints: ConstraintTable
    /// Its parameters: capture groups 1 to `parameterCount`.
    let parameterCount: Int

    /// Compiles `pieces` for a router that folds case or not; `route` names a route through the
    /// segment, for the error of a constraint that stops.
    convenience init(_ pieces: [TreeNode.MixedPiece], caseInsensitive: Bool, route: String) throws(InterlockError) {
        var emitter = RegexEmitter(caseInsensitive: caseInsensitive)
        emitter.naming(route)
        let parameterCount = Int(try emitter.emitMixed(pieces, group: 1)) - 1
        let code = try PCRE2Code(emitter.out, options: routingCompileOptions | UInt32(PCRE2_ENDANCHORED))
        self.init(code: code, constraints: ConstraintTable(emitter.constraints), parameterCount: parameterCount)
    }

    // What throws is done above, before the object is allocated (see `Unit`).
    private init(code: PCRE2Code, constraints: ConstraintTable, parameterCount: Int) {
        self.code = code
        self.constraints = constraints
        self.parameterCount = parameterCount
    }

    deinit { constraints.deallocate() }

    /// What the lookup path reads.
    var ref: SegmentPatternRef {
        SegmentPatternRef(raw: code.code, jitted: code.jitted, constraints: constraints.refs, parameterCount: parameterCount)
    }
}

/// A mixed segment's regex as the lookup path holds it, unmanaged (see `UnitRef`).
struct SegmentPatternRef {
    let raw: OpaquePointer
    let jitted: Bool
    let constraints: UnsafeMutablePointer<ConstraintRef>?
    let parameterCount: Int
}
