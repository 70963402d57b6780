// Regex units: running them, the constraints their callouts run, and PCRE2's callout.

import CPCRE2

extension Matcher {
    /// Runs a regex at `p`; true if it matched.
    @inline(__always) private func run(_ code: PCRE2Code, at p: Int, _ lookup: inout Lookup) throws(InterlockError) -> Bool {
        try run(raw: code.code, jitted: code.jitted, at: p, &lookup)
    }

    /// Runs a regex at `p`; true if it matched. A regex that fails may have failed on the method
    /// alone: noted in `lookup` (`pathFitted`).
    @inline(__always) private func run(raw: OpaquePointer, jitted: Bool, at p: Int, _ lookup: inout Lookup) throws(InterlockError) -> Bool {
        let rc = jitted
            ? pcre2_jit_match_8(raw, subject, subjectLength, p, 0, matchData, matchContext)
            : pcre2_match_8(raw, subject, subjectLength, p, 0, matchData, matchContext)
        if rc >= 0 { return true }
        if rc == PCRE2_ERROR_NOMATCH { lookup.pathFitted = true; return false }
        throw stopped(rc)
    }

    /// The error for a regex that stopped with `rc`: the constraint that ran out, if one did.
    @inline(never) func stopped(_ rc: Int32) -> InterlockError {
        defer { stoppedConstraint = nil }
        guard let (c, code) = stoppedConstraint else {
            return InterlockError(.limit, "matching stopped: " + PCRE2Code.message(rc))
        }
        let constraint = c.takeUnretainedValue()
        let limit = code == PCRE2_ERROR_MATCHLIMIT ? " (limit \(appliedMatchLimit) steps)" : ""
        return InterlockError(.limit, "matching stopped in a constraint of route '\(constraint.route)': "
                                      + PCRE2Code.message(code) + limit)
    }

    /// Runs a constraint on the segment from `start` to `end` alone: PCRE2's code (a match, no
    /// match, or the error that stopped it, noted in `stoppedConstraint` for `stopped`).
    @inline(__always) func constraintCode(_ c: ConstraintRef, from start: Int, to end: Int) -> Int32 {
        #if DEBUG
        constraintRuns += 1
        #endif
        let rc = c.jitted
            ? pcre2_jit_match_8(c.raw, subject + start, end - start, 0, 0, constraintData, constraintContext)
            : pcre2_match_8(c.raw, subject + start, end - start, 0, 0, constraintData, constraintContext)
        if rc < 0 && rc != PCRE2_ERROR_NOMATCH { stoppedConstraint = (c.constraint, rc) }
        return rc
    }

    /// Whether the segment from `start` to `end` matches constraint `c` (a dispatch node's entry).
    func holds(_ c: ConstraintRef, from start: Int, to end: Int) throws(InterlockError) -> Bool {
        let rc = constraintCode(c, from: start, to: end)
        if rc >= 0 { return true }
        if rc == PCRE2_ERROR_NOMATCH { return false }
        throw stopped(rc)
    }

    /// A unit's callout for its constraint `index` on the bytes from `start` to `end` (the
    /// segment from its first byte, or a mixed segment's parameter): 0 (go on) if they match it,
    /// 1 (backtrack) if not, and PCRE2's error, which ends the unit's match with it, if the
    /// constraint stopped.
    fileprivate func constraintCallout(_ index: Int, from start: Int, to end: Int) -> Int32 {
        guard let table = regexRun.constraints else { return 1 }
        let rc = constraintCode(table[index], from: start, to: end)
        if rc >= 0 { return 0 }
        return rc == PCRE2_ERROR_NOMATCH ? 1 : rc
    }

    /// Runs regex unit `u` at `p`: records the leaf its mark names, or in an enumeration runs its
    /// enumerating variant, whose callouts note every leaf reached (`calloutHit`).
    func run(_ u: UnitRef, at p: Int, _ lookup: inout Lookup) throws(InterlockError) -> Bool {
        regexRun.constraints = u.constraints
        regexRun.mixed = u.mixed
        if lookup.enumerating {
            let unit = u.unit.takeUnretainedValue()
            regexRun.enumerated = unit
            regexRun.listing = lookup.mode == .listing
            return try run(unit.enumerationCode(), at: p, &lookup)
        }
        guard try run(raw: u.raw, jitted: u.jitted, at: p, &lookup) else { return false }
        guard let mark = pcre2_get_mark_8(matchData) else { return false }
        let i = Matcher.markIndex(mark)
        record(u.records + i, groups: u.groups + 1 + i * Int(u.groups[0]), mixed: u.mixed)
        return true
    }

    @inline(__always) static func markIndex(_ mark: UnsafePointer<UInt8>) -> Int {
        var i = 0, v = 0
        while mark[i] != 0 { v = v &* 10 &+ Int(mark[i] &- 0x30); i += 1 }
        return v
    }
}

/// What the callouts of the regex run in progress need. PCRE2 calls them with the matcher (the
/// match context's callout data), not with the lookup, so the lookup's walk notes it here, on the
/// matcher, before each run (`run(_:at:_:)`); the driver clears it after an enumeration, which
/// holds its unit.
struct RegexRun {
    /// The constraints of the unit being run.
    var constraints: UnsafeMutablePointer<ConstraintRef>? = nil
    /// The mixed segments of the unit being run.
    var mixed: UnsafeMutablePointer<MixedRef>? = nil
    /// In an enumeration, the unit whose leaves the callouts note (nil otherwise: a lookup for
    /// the answer calls no leaf's callout).
    var enumerated: Unit? = nil
    /// Whether that enumeration lists leaves (`fittingLeaves`) rather than noting their methods.
    var listing = false
}

/// Every callout of the matcher's regexes: a constraint's (a string, its index), or the
/// method-not-allowed pass's after each mark (numbered).
let matcherCallout: @convention(c) (UnsafeMutablePointer<pcre2_callout_block_8>?, UnsafeMutableRawPointer?) -> Int32 = { block, data in
    guard let block, let data else { return 1 }
    let matcher = Unmanaged<Matcher>.fromUnretained(data).takeUnretainedValue()
    if let text = block.pointee.callout_string {
        if text[0] == 0x6D {    // "m": a mixed segment, from here
            let at = Int(block.pointee.current_position)
            return matcher.mixedCallout(RegexEmitter.constraintIndex(text + 1, Int(block.pointee.callout_string_length) - 1).0, at: at)
        }
        let (index, group) = RegexEmitter.constraintIndex(text, Int(block.pointee.callout_string_length))
        let at = Int(block.pointee.current_position)
        guard let group else { return matcher.constraintCallout(index, from: at, to: matcher.segmentEnd(after: at - 1)) }
        // A mixed segment's parameter, just captured: it ends here.
        return matcher.constraintCallout(index, from: Int(block.pointee.offset_vector[2 * group]), to: at)
    }
    matcher.calloutHit(block.pointee.mark)
    return 1  // fail here, so the match backtracks into the next leaf
}

private extension Unmanaged {
    static func fromUnretained(_ p: UnsafeMutableRawPointer) -> Unmanaged { fromOpaque(p) }
}
