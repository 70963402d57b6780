/// What a lookup needs of a leaf, in 32 bytes (half a cache line), stored flat in its unit (or
/// static entry): the leaf's method check and the winning leaf's answer are read with no pointer
/// chase and no reference count. The owner keeps the leaf (its route and names) alive; the record
/// only points at them. Small because on a large table a lookup's cost is its cache misses, and
/// the records are most of a walk unit's bytes. A regex unit's capture groups are kept beside
/// its records (see `Unit`), not in them: walk units and static entries have none.
struct LeafRecord {
    let routeID: RouteID
    let parameterCount: UInt16
    /// How many of the leaf's parameters the unit's regex captured (the rest, before them, were
    /// captured by dispatch nodes above).
    let groupCount: UInt16
    /// The route's method as a `MethodWord` (0 for any method).
    let method: UInt64
    let route: Unmanaged<Route>
    let names: Unmanaged<ParameterNames>

    init(_ leaf: Leaf, groupCount: Int) {
        routeID = leaf.route.id
        parameterCount = UInt16(leaf.names.count)   // at most `maximumPatternSegments`
        self.groupCount = UInt16(groupCount)
        method = leaf.route.pattern.method.map { MethodWord.of($0.utf8) } ?? MethodWord.any
        route = .passUnretained(leaf.route)
        names = .passUnretained(leaf.names)
    }

    /// Whether the leaf accepts the request's method, `word` (`MethodWord.of` the bytes at
    /// `bytes`, `length` long; `MethodWord.any` when the request gave none).
    @inline(__always) func accepts(method word: UInt64, _ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        if method == MethodWord.any || word == MethodWord.any { return true }
        if method != word { return false }
        return word != MethodWord.long || sameLongMethod(bytes, length)
    }

    /// Both methods are longer than a word: compared byte for byte with the route's (rare).
    @inline(never) private func sameLongMethod(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        route._withUnsafeGuaranteedRef { r in
            r.pattern.method.map { $0.utf8.elementsEqual(UnsafeBufferPointer(start: bytes, count: length)) } ?? true
        }
    }

    /// Records for `leaves` in `records`; leaf `i` had `groupCounts[i]` parameters captured by the
    /// unit's regex (none when `groupCounts` is shorter).
    static func initialize(_ records: UnsafeMutablePointer<LeafRecord>, _ leaves: [Leaf], groupCounts: [Int] = []) {
        for (i, leaf) in leaves.enumerated() {
            (records + i).initialize(to: LeafRecord(leaf, groupCount: i < groupCounts.count ? groupCounts[i] : 0))
        }
    }
}
