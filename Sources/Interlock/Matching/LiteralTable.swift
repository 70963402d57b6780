// Hash tables from a segment's bytes to a compiled child, read straight from the subject buffer:
// no String, no allocation per lookup.
//
// A dispatch node's literal children are spread over buckets, each a small immutable table, so
// that adding a route under a node with 10,000 literal children rebuilds one bucket of about a
// dozen entries instead of the whole table.

/// FNV-1a over the bytes (ASCII-lower-cased for a case-insensitive router); never 0.
@inline(__always) func segmentHash(_ p: UnsafePointer<UInt8>, _ n: Int, lower: Bool) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for i in 0..<n {
        h = (h ^ UInt64(lower ? lowercased(p[i]) : p[i])) &* 0x100_0000_01b3
    }
    return h | 1
}

func segmentHash(_ key: [UInt8]) -> UInt64 {
    key.withUnsafeBufferPointer { segmentHash($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count, lower: false) }
}

/// One bucket: open addressing over (hash, key, child).
final class LiteralTable: @unchecked Sendable {
    private let mask: Int
    private let hashes: [UInt64]
    private let keys: [[UInt8]]
    private let values: [CompiledNode?]
    /// The entries, for rebuilding the bucket with one of them changed.
    let entries: [(key: [UInt8], value: CompiledNode)]
    /// The most capture groups of any child.
    let maxCaptures: Int

    init(_ entries: [(key: [UInt8], value: CompiledNode)]) {
        var capacity = 4
        while capacity < entries.count * 2 { capacity <<= 1 }
        var hashes = [UInt64](repeating: 0, count: capacity)
        var keys = [[UInt8]](repeating: [], count: capacity)
        var values = [CompiledNode?](repeating: nil, count: capacity)
        var most = 0
        for (k, v) in entries {
            let h = segmentHash(k)
            var i = Int(truncatingIfNeeded: h) & (capacity - 1)
            while hashes[i] != 0 { i = (i + 1) & (capacity - 1) }
            hashes[i] = h; keys[i] = k; values[i] = v
            most = max(most, v.maxCaptures)
        }
        self.mask = capacity - 1
        self.hashes = hashes
        self.keys = keys
        self.values = values
        self.entries = entries
        self.maxCaptures = most
    }

    @inline(__always) func lookup(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64, lower: Bool) -> CompiledNode? {
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let slot = hashes[i]
            if slot == 0 { return nil }
            if slot == h && LiteralTable.equal(keys[i], p, n, lower: lower) { return values[i] }
            i = (i + 1) & mask
        }
    }

    @inline(__always) private static func equal(_ key: [UInt8], _ p: UnsafePointer<UInt8>, _ n: Int, lower: Bool) -> Bool {
        guard key.count == n else { return false }
        return key.withUnsafeBufferPointer { k in
            for i in 0..<n where k[i] != (lower ? lowercased(p[i]) : p[i]) { return false }
            return true
        }
    }
}

/// All literal children of a dispatch node.
struct LiteralBuckets: @unchecked Sendable {
    let buckets: [LiteralTable]
    let caseInsensitive: Bool

    /// Bucket count for `children` entries: about eight entries a bucket, a power of two.
    static func bucketCount(for children: Int) -> Int {
        var n = 1
        while n * 8 < children { n <<= 1 }
        return n
    }

    @inline(__always) static func bucket(_ hash: UInt64, count: Int) -> Int {
        Int(truncatingIfNeeded: hash >> 40) & (count - 1)
    }

    @inline(__always) func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> CompiledNode? {
        let h = segmentHash(p, n, lower: caseInsensitive)
        return buckets[LiteralBuckets.bucket(h, count: buckets.count)].lookup(p, n, hash: h, lower: caseInsensitive)
    }

    var maxCaptures: Int { buckets.reduce(0) { max($0, $1.maxCaptures) } }
}
