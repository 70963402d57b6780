// The compiled table a matcher holds: one generation of a router's table, handed to the matcher
// by whoever owns the table (the router), which asks `holds` whether it must hand a newer one.
// The matcher itself knows nothing of routers.

import CPCRE2

/// One generation of a compiled table, with what a lookup needs of the table's owner.
struct CompiledTable: @unchecked Sendable {
    /// Tells the owner apart from every other (a router's serial number), so that a matcher moved
    /// to another router takes that one's table.
    let source: UInt64
    let generation: UInt64
    let root: CompiledNode
    let captures: Int
    let staticPaths: StaticPaths
    /// Whether lookups try `staticPaths` first (see `StaticProbeUse`).
    let probesStatic: Bool
    /// Whether `staticPaths` holds the all-literal paths (those lookups try, or kept up to date
    /// since they did), so that the next table updates it.
    let keepsStatic: Bool
    /// Whether a trailing slash is significant (the owner's option).
    let strictSlash: Bool
    /// How many steps each regex of a lookup may take (see `defaultMatchLimit`).
    let matchLimit: UInt32
}

extension Matcher {
    /// Takes `table` for the lookups that follow (their answers point into it).
    func take(_ table: CompiledTable) {
        if table.captures + 1 > ovectorPairs {
            pcre2_match_data_free_8(matchData)
            ovectorPairs = table.captures + 1
            matchData = pcre2_match_data_create_8(UInt32(ovectorPairs), nil)
        }
        tableRoot = table.root
        rootUnit = nil; rootWalk = nil; rootDispatch = nil; rootWalkBranches = nil
        switch table.root {
        case .unit(let u): rootUnit = UnitRef(u); rootObject = u
        case .walk(let u):
            if u.branching { rootWalkBranches = u.table } else { rootWalk = u.table }
            rootObject = u
        case .dispatch(let d): rootDispatch = .passUnretained(d); rootObject = d
        }
        staticPaths = table.staticPaths
        staticProbe = staticPaths.probe
        probesStatic = table.probesStatic
        tableGeneration = table.generation
        tableSerial = table.source
        strictSlash = table.strictSlash
        if table.matchLimit != appliedMatchLimit {
            pcre2_set_match_limit_8(matchContext, table.matchLimit)
            pcre2_set_match_limit_8(constraintContext, table.matchLimit)
            appliedMatchLimit = table.matchLimit
        }
    }

    /// Whether this matcher holds generation `generation` of the table of `source`.
    @inline(__always) func holds(source: UInt64, generation: UInt64) -> Bool {
        source == tableSerial && generation == tableGeneration && tableRoot != nil
    }
}

/// How many steps each regex of a lookup may take (PCRE2's match limit), unless the router says.
public let defaultMatchLimit: UInt32 = 10_000
