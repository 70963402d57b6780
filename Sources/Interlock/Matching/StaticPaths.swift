// Routes whose path is literals only, found by a hash of the whole normalized path before any
// regex runs. This changes no answer: at its first difference from any other candidate an
// all-literal route has the literal, so when one accepts the request's method, scheme and host it
// is the most specific candidate; ties among them keep the tie rule (the node's leaf order). When
// none accepts, the regexes run as usual and find the less specific routes.

/// A hash of a whole path from its length and its first and last eight bytes: constant time, so
/// that looking for an all-literal route costs little on lookups that then go to the regexes.
/// With `fold`, bytes are OR-ed with 0x20 (a superset of ASCII case folding: fine for a hash, and
/// the comparison that follows is exact).
@inline(__always) func pathHash(_ p: UnsafePointer<UInt8>, _ n: Int, fold: Bool) -> UInt64 {
    @inline(__always) func load(_ at: Int, _ count: Int) -> UInt64 {
        var v: UInt64 = 0
        if count >= 8 {
            v = UnsafeRawPointer(p + at).loadUnaligned(as: UInt64.self)
        } else {
            for i in 0..<count { v |= UInt64(p[at + i]) << UInt64(8 * i) }
        }
        return fold ? v | 0x2020_2020_2020_2020 : v
    }
    let head = load(0, min(n, 8))
    let tail = n > 8 ? load(n - 8, 8) : 0
    var h = (head &* 0x9E37_79B9_7F4A_7C15) ^ (tail &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: n)
    h ^= h >> 29
    return h | 1
}

func pathHash(_ key: [UInt8], fold: Bool) -> UInt64 {
    key.withUnsafeBufferPointer { pathHash($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count, fold: fold) }
}

/// The routes ending at one all-literal path, in tie order, with what the check needs as bytes.
final class StaticEntry: @unchecked Sendable {
    let leaves: [UnitLeaf]
    let methods: [[UInt8]?]
    let schemes: [[UInt8]?]
    let hosts: [[UInt8]?]

    init(_ node: TreeNode) {
        leaves = node.leaves.map { UnitLeaf(route: $0.route, names: $0.names, groups: []) }
        methods = node.leaves.map { $0.route.pattern.method.map { Array($0.utf8) } }
        schemes = node.leaves.map { $0.route.pattern.scheme.map { Array($0.utf8) } }
        hosts = node.leaves.map { $0.route.pattern.host.map { Array($0.utf8) } }
    }
}

/// key → entry, in buckets so that a change rebuilds one bucket.
final class StaticBucket: @unchecked Sendable {
    let keys: [[UInt8]]
    let hashes: [UInt64]
    let entries: [StaticEntry]

    init(_ items: [(key: [UInt8], entry: StaticEntry)], fold: Bool) {
        keys = items.map(\.key)
        hashes = items.map { pathHash($0.key, fold: fold) }
        entries = items.map(\.entry)
    }

    var items: [(key: [UInt8], entry: StaticEntry)] { Array(zip(keys, entries)) }
}

/// The all-literal paths of a compiled table.
struct StaticPaths: @unchecked Sendable {
    let buckets: [StaticBucket]
    let caseInsensitive: Bool

    static let empty = StaticPaths(buckets: [], caseInsensitive: false)

    /// The entry for the path `p[0..<n]`, if it is all-literal and has routes.
    @inline(__always) func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> StaticEntry? {
        guard !buckets.isEmpty else { return nil }
        let h = pathHash(p, n, fold: caseInsensitive)
        let bucket = buckets[LiteralBuckets.bucket(h, count: buckets.count)]
        for i in 0..<bucket.hashes.count where bucket.hashes[i] == h {
            let key = bucket.keys[i]
            guard key.count == n else { continue }
            var same = true
            key.withUnsafeBufferPointer { k in
                for j in 0..<n where k[j] != (caseInsensitive ? lowercased(p[j]) : p[j]) { same = false; break }
            }
            if same { return bucket.entries[i] }
        }
        return nil
    }

    /// The table after the paths in `changed` changed (buckets not touched are shared).
    static func update(_ previous: StaticPaths, tree: RouteTree, changed: Set<[UInt8]>) -> StaticPaths {
        let count = max(1, LiteralBuckets.bucketCount(for: tree.staticNodes.count) / 2)
        let fold = tree.caseInsensitive
        if previous.buckets.count == count {
            var buckets = previous.buckets
            var touched: [Int: [[UInt8]]] = [:]
            for key in changed { touched[LiteralBuckets.bucket(pathHash(key, fold: fold), count: count), default: []].append(key) }
            for (b, keys) in touched {
                var items = buckets[b].items.filter { !keys.contains($0.key) }
                for key in keys {
                    if let node = tree.staticNodes[key], !node.leaves.isEmpty { items.append((key, StaticEntry(node))) }
                }
                buckets[b] = StaticBucket(items, fold: fold)
            }
            return StaticPaths(buckets: buckets, caseInsensitive: tree.caseInsensitive)
        }
        var grouped = [[(key: [UInt8], entry: StaticEntry)]](repeating: [], count: count)
        for (key, node) in tree.staticNodes where !node.leaves.isEmpty {
            grouped[LiteralBuckets.bucket(pathHash(key, fold: fold), count: count)].append((key, StaticEntry(node)))
        }
        return StaticPaths(buckets: grouped.map { StaticBucket($0, fold: fold) }, caseInsensitive: fold)
    }
}
