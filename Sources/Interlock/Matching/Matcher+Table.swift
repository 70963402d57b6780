// The compiled table a matcher holds: whether it is the router's current one, and taking the
// new one when not.

import CPCRE2
import Synchronization

/// Serial numbers tell routers apart even when one is freed and another takes its address.
private let routerSerials = Atomic<UInt64>(0)
extension Router {
    static func nextSerial() -> UInt64 { routerSerials.add(1, ordering: .relaxed).newValue }
}

extension Matcher {
    func refresh(_ router: Router) throws(InterlockError) {
        let table = try router.compiledTable()
        if table.captures + 1 > ovectorPairs {
            pcre2_match_data_free_8(matchData)
            ovectorPairs = table.captures + 1
            matchData = pcre2_match_data_create_8(UInt32(ovectorPairs), nil)
        }
        tableRoot = table.root
        switch table.root {
        case .unit(let u): rootUnit = UnitRef(u); rootDispatch = nil; rootWalk = nil
        case .walk(let u): rootWalk = u.table; rootUnit = nil; rootDispatch = nil
        case .dispatch(let d): rootDispatch = .passUnretained(d); rootUnit = nil; rootWalk = nil
        }
        staticPaths = table.staticPaths
        staticProbe = staticPaths.probe
        probed = nil                    // it pointed into the table let go of
        probesStatic = table.probesStatic
        tableGeneration = table.generation
        tableSerial = router.serial
        strictSlash = router.options.contains(.strictSlash)
        let limit = router.matchLimit.load(ordering: .relaxed)
        if limit != appliedMatchLimit {
            pcre2_set_match_limit_8(matchContext, limit)
            pcre2_set_match_limit_8(constraintContext, limit)
            appliedMatchLimit = limit
        }
    }

    /// Whether the compiled table this matcher holds is `router`'s current one.
    @inline(__always) func isCurrent(_ router: Router) -> Bool {
        router.serial == tableSerial && router.generation.load(ordering: .acquiring) == tableGeneration && tableRoot != nil
    }
}

/// How many steps each regex of a lookup may take (PCRE2's match limit), unless the router says.
public let defaultMatchLimit: UInt32 = 10_000
