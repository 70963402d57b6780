// Mixed segments in a lookup: the rule of MixedSegment.swift, run from a unit's callout, from a
// dispatch node entered by such a segment, and on the winner's values.

import CPCRE2

extension Matcher {
    /// Runs mixed segment `m` on the segment from `start` to `segmentEnd` (a catch-all after text
    /// taking the path up to `pathEnd`), writing its parameters' bytes at `starts` and `ends`,
    /// then each constraint once on what its parameter took: 0 if the segment fits, 1 if not, or
    /// the error of a constraint that stopped (noted for `stopped`).
    func mixedCode(_ m: MixedSegment, from start: Int, segmentEnd: Int, pathEnd: Int,
                   starts: UnsafeMutablePointer<Int>, ends: UnsafeMutablePointer<Int>) -> Int32 {
        guard m.split(subject, from: start, segmentEnd: segmentEnd, pathEnd: pathEnd, starts: starts, ends: ends) else { return 1 }
        guard let refs = m.constraints.refs else { return 0 }
        for (k, c) in m.parameterConstraints.enumerated() where c >= 0 {
            let rc = constraintCode(refs[c], from: starts[k], to: ends[k])
            if rc == PCRE2_ERROR_NOMATCH { return 1 }
            if rc < 0 { return rc }
        }
        return 0
    }

    /// A unit's callout for its mixed segment `index`, whose segment begins at `at`: 0 (go on)
    /// if the segment fits, 1 (backtrack) if not, PCRE2's error if a constraint stopped. The
    /// split is written where the values go: nothing reads them until the unit has matched.
    func mixedCallout(_ index: Int, at: Int) -> Int32 {
        guard let table = regexRun.mixed else { return 1 }
        return table[index].segment._withUnsafeGuaranteedRef { m in
            mixedCode(m, from: at, segmentEnd: segmentEnd(after: at - 1), pathEnd: spans.pathLength,
                      starts: valueStart, ends: valueLength)
        }
    }

    /// A dispatch node's mixed entry on the segment from `start` to `end`: if it fits, pushes its
    /// parameters' spans.
    func captures(_ mixed: Unmanaged<MixedSegment>, from start: Int, to end: Int) throws(InterlockError) -> Bool {
        let rc = mixed._withUnsafeGuaranteedRef { m in
            mixedCode(m, from: start, segmentEnd: end, pathEnd: end, starts: spanStart + spanCount, ends: spanEnd + spanCount)
        }
        if rc == 1 { return false }
        if rc < 0 { throw stopped(rc) }
        spanCount += mixed._withUnsafeGuaranteedRef { $0.parameterCount }
        return true
    }

    /// The winner's values from a mixed segment the unit's group `group` took whole: its
    /// parameters' (start, length) at `valueStart + i` and `valueLength + i`.
    func mixedValues(_ ref: MixedRef, ovector: UnsafeMutablePointer<Int>, at i: Int) {
        let s = ovector[2 * ref.group], e = ovector[2 * ref.group + 1]
        ref.segment._withUnsafeGuaranteedRef { m in
            // It fitted in the callout, on the same bytes: it fits again, the same way.
            _ = m.split(subject, from: s, segmentEnd: segmentEnd(after: s - 1), pathEnd: e,
                        starts: valueStart + i, ends: valueLength + i)
            for k in i..<(i + m.parameterCount) { valueLength[k] -= valueStart[k] }
        }
    }
}
