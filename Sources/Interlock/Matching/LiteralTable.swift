// Hash tables from a segment's bytes to a compiled child, read straight from the subject buffer:
// no String, no allocation per lookup.
//
// A dispatch node's literal children are spread over buckets, each a small immutable table, so
// that adding a route under a node with 10,000 literal children rebuilds one bucket of about a
// dozen entries instead of the whole table.

/// A hash of the bytes (ASCII-lower-cased for a case-insensitive router), eight at a time: one
/// multiply a word rather than one a byte, which on a table with thousands of literal children
/// was a chain of dependent multiplies per lookup; never 0.
@inline(__always) func segmentHash(_ p: UnsafePointer<UInt8>, _ n: Int, lower: Bool) -> UInt64 {
    @inline(__always) func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
        let m = (h ^ (lower ? asciiLowered(w) : w)) &* 0xC2B2_AE3D_27D4_EB4F
        return m ^ (m >> 29)
    }
    var h = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
    var i = 0
    while i + 8 <= n {
        h = mix(h, UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
        i += 8
    }
    if i < n {
        // The last partial word, read whole and masked: `p` must have 8 readable bytes past `n`.
        let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
        h = mix(h, w & ((1 << UInt64(8 * (n - i))) &- 1))
    }
    return HashSlots.finish(h)
}

/// `w` with its ASCII upper-case letters lower-cased, eight bytes at once (other bytes, non-ASCII
/// ones included, unchanged): "A"-"Z" are the bytes at least 0x41 and below 0x5B.
@inline(__always) func asciiLowered(_ w: UInt64) -> UInt64 {
    let low7 = w & 0x7F7F_7F7F_7F7F_7F7F
    let atLeastA = low7 &+ 0x3F3F_3F3F_3F3F_3F3F
    let pastZ = low7 &+ 0x2525_2525_2525_2525
    let upper = atLeastA & ~pastZ & ~w & 0x8080_8080_8080_8080
    return w | (upper >> 2)
}

/// `segmentHash` of a key held in an array (copied with room for the last word's read).
func segmentHash(_ key: [UInt8]) -> UInt64 {
    (key + [UInt8](repeating: 0, count: 8)).withUnsafeBufferPointer { segmentHash($0.baseAddress!, key.count, lower: false) }
}

/// One bucket: open addressing over (hash, key, child), laid out flat so that a probe reads one
/// slot (one cache line) and the key's bytes, and takes no reference.
final class LiteralTable: @unchecked Sendable {
    struct Slot {
        var hash: UInt64 = 0          // 0: empty
        var keyStart: Int32 = 0
        var keyLength: Int32 = 0
        /// The key's first eight bytes, zero-padded, and its next eight: keys of up to sixteen
        /// bytes (most) are compared here, without reading `keyBytes` (a cache miss on a large
        /// table).
        var head: UInt64 = 0
        var head2: UInt64 = 0
        var ref: NodeRef? = nil

        /// The first eight bytes of the `n` at `p`, zero-padded as a slot's `head` is (the
        /// subject buffer has room past any segment for the whole word's read).
        @inline(__always) static func head(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
            let word = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            return n >= 8 ? word : word & ((1 << UInt64(8 * n)) &- 1)
        }

        /// Whether this slot's key (in `keys`) is the `n` bytes at `p`, whose `head` is given:
        /// length and first eight bytes at once, then the rest, if longer.
        @inline(__always) func holds(_ p: UnsafePointer<UInt8>, _ n: Int, head: UInt64, keys: UnsafePointer<UInt8>) -> Bool {
            guard Int(keyLength) == n && self.head == head else { return false }
            if n <= 8 { return true }
            if n <= 16 { return head2 == Slot.head(p + 8, n - 8) }
            return sameBytes(keys + Int(keyStart) + 8, p + 8, n - 8)
        }
    }
    private let mask: Int
    private let slots: UnsafeMutablePointer<Slot>
    private let keyBytes: UnsafeMutablePointer<UInt8>
    /// The entries (they own the children), for rebuilding the bucket with one of them changed.
    let entries: [(key: [UInt8], value: CompiledNode)]
    /// The filled slots in a row, for a bucket of at most `LiteralProbe.fewLimit` entries: they
    /// are compared in turn, with no hash of the segment (see `LiteralProbe`).
    let few: UnsafeMutablePointer<Slot>?
    /// The most capture groups of any child.
    let maxCaptures: Int

    init(_ entries: [(key: [UInt8], value: CompiledNode)]) {
        let capacity = HashSlots.capacity(for: entries.count, minimum: 4)
        // Line-aligned: a probe that finds its key at once reads one line of slots.
        slots = UnsafeMutableRawPointer.allocate(byteCount: capacity * MemoryLayout<Slot>.stride, alignment: 64)
            .bindMemory(to: Slot.self, capacity: capacity)
        slots.initialize(repeating: Slot(), count: capacity)
        keyBytes = .allocate(capacity: max(1, entries.reduce(0) { $0 + $1.key.count }))
        var most = 0, o = 0
        let hashes = entries.map { segmentHash($0.key) }
        let places = HashSlots.place(hashes.map { Int(truncatingIfNeeded: $0 >> 1) }, capacity: capacity)  // bit 0 is always set
        for ((k, v), (h, i)) in zip(entries, zip(hashes, places)) {
            var head: UInt64 = 0, head2: UInt64 = 0
            for (j, b) in k.prefix(8).enumerated() { head |= UInt64(b) << UInt64(8 * j) }
            for (j, b) in k.dropFirst(8).prefix(8).enumerated() { head2 |= UInt64(b) << UInt64(8 * j) }
            slots[i] = Slot(hash: h, keyStart: Int32(o), keyLength: Int32(k.count), head: head, head2: head2, ref: v.ref)
            (keyBytes + o).initialize(from: k, count: k.count)
            o += k.count
            most = max(most, v.maxCaptures)
        }
        self.mask = capacity - 1
        self.entries = entries
        self.maxCaptures = most
        if entries.count <= LiteralProbe.fewLimit {
            let few = UnsafeMutablePointer<Slot>.allocate(capacity: max(entries.count, 1))
            var j = 0
            for i in 0..<capacity where slots[i].hash != 0 { (few + j).initialize(to: slots[i]); j += 1 }
            self.few = few
        } else {
            few = nil
        }
    }

    deinit {
        slots.deallocate()
        keyBytes.deallocate()
        if let few { few.deinitialize(count: entries.count); few.deallocate() }
    }

    /// What the lookup path reads of this bucket, held by value where the bucket is chosen.
    var view: LiteralBucketView { LiteralBucketView(slots: slots, keyBytes: keyBytes, mask: mask) }
}

/// A bucket's slots and keys as the lookup path reads them: its slot arrays found from the
/// dispatch node's array of views, not through the bucket object (one cache line fewer).
struct LiteralBucketView {
    let slots: UnsafeMutablePointer<LiteralTable.Slot>
    let keyBytes: UnsafeMutablePointer<UInt8>
    let mask: Int

    @inline(__always) func lookup(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64, lower: Bool) -> NodeRef? {
        var i = Int(truncatingIfNeeded: h >> 1) & mask
        while true {
            let slot = slots + i
            if slot.pointee.hash == 0 { return nil }
            if slot.pointee.hash == h {
                if lower {
                    if Int(slot.pointee.keyLength) == n && sameBytesFolded(keyBytes + Int(slot.pointee.keyStart), p, n) {
                        return slot.pointee.ref
                    }
                } else if slot.pointee.holds(p, n, head: LiteralTable.Slot.head(p, n), keys: keyBytes) {
                    return slot.pointee.ref
                }
            }
            i = HashSlots.next(i, mask: mask)
        }
    }
}

/// All literal children of a dispatch node: their buckets in a `PagedArray`, so that a change
/// rebuilds its buckets and copies their page and the list of pages, not every bucket.
struct LiteralBuckets: @unchecked Sendable {
    let table: PagedArray<LiteralBucketView, LiteralTable>
    let caseInsensitive: Bool
    /// The most capture groups of any child: exact after a full build, an upper bound after
    /// updates (a removal does not lower it), which is all the matcher needs (room enough).
    let maxCaptures: Int

    init(buckets: [LiteralTable], caseInsensitive: Bool) {
        table = PagedArray(buckets.map { $0.view }, owners: buckets)
        self.caseInsensitive = caseInsensitive
        maxCaptures = buckets.reduce(0) { max($0, $1.maxCaptures) }
    }

    private init(table: PagedArray<LiteralBucketView, LiteralTable>, caseInsensitive: Bool, maxCaptures: Int) {
        self.table = table
        self.caseInsensitive = caseInsensitive
        self.maxCaptures = maxCaptures
    }

    /// These buckets with those at the given indices replaced (the pages they fall in are copied).
    func replacing(_ changed: [(index: Int, bucket: LiteralTable)], copied: inout Int) -> LiteralBuckets {
        let most = changed.reduce(maxCaptures) { max($0, $1.bucket.maxCaptures) }
        return LiteralBuckets(table: table.replacing(changed.map { ($0.index, $0.bucket.view, $0.bucket) }, copied: &copied),
                              caseInsensitive: caseInsensitive, maxCaptures: most)
    }

    var count: Int { table.count }
    func bucket(at i: Int) -> LiteralTable { table.owner(i) }
    /// Every bucket, in order (tests; proportional to the node's children).
    var buckets: [LiteralTable] { table.allOwners }

    /// Bucket count for `children` entries: about eight entries a bucket, a power of two.
    static func bucketCount(for children: Int) -> Int {
        var n = 1
        while n * 8 < children { n <<= 1 }
        return n
    }

    /// The bucket count after a change, from the last one (`previous`): kept while it is within
    /// a factor of `bucketCount`'s (a bucket of up to sixteen entries still finds a key in about
    /// one probe), so that changes around a power of two do not rebuild every bucket each time.
    static func bucketCount(for children: Int, previous: Int) -> Int {
        let ideal = bucketCount(for: children)
        return previous > 0 && ideal <= 2 * previous && 4 * ideal >= previous ? previous : ideal
    }

    @inline(__always) static func bucket(_ hash: UInt64, count: Int) -> Int {
        Int(truncatingIfNeeded: hash >> 40) & (count - 1)
    }

    /// What the lookup path reads: valid while the dispatch node holding these buckets lives.
    var probe: LiteralProbe {
        // A node with few literal children (one bucket) and exact case compares them in turn.
        if count == 1, !caseInsensitive, let few = bucket(at: 0).few {
            let only = bucket(at: 0)
            return LiteralProbe(views: table.reader, count: 1, lower: false, few: few,
                                fewCount: only.entries.count, fewKeys: only.view.keyBytes)
        }
        return LiteralProbe(views: table.reader, count: count, lower: caseInsensitive, few: nil, fewCount: 0, fewKeys: nil)
    }
}

/// A dispatch node's literal children as the lookup path reads them (see `StaticProbe`).
///
/// A node with at most `fewLimit` of them (such as the "api" and "v1" of "/api/v1/..." over a
/// large table, each a dispatch node of its own) has them in a row, `few`: the segment is
/// compared with each by length and first eight bytes, which costs less than hashing it
/// (callgrind, rest-10k table: two such levels a lookup).
struct LiteralProbe {
    static let fewLimit = 4
    let views: PagedReader<LiteralBucketView>
    let count: Int
    let lower: Bool
    let few: UnsafeMutablePointer<LiteralTable.Slot>?
    let fewCount: Int
    let fewKeys: UnsafeMutablePointer<UInt8>?

    @inline(__always) func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> NodeRef? {
        if let few, let fewKeys {
            let head = LiteralTable.Slot.head(p, n)
            for i in 0..<fewCount where few[i].holds(p, n, head: head, keys: fewKeys) {
                return few[i].ref
            }
            return nil
        }
        let h = segmentHash(p, n, lower: lower)
        return views[LiteralBuckets.bucket(h, count: count)].lookup(p, n, hash: h, lower: lower)
    }
}
