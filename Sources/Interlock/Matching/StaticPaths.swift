// Routes whose path is literals only, found by a hash of the whole normalized path before any
// regex runs. This changes no answer: at its first difference from any other candidate an
// all-literal route has the literal, so when one accepts the request's method, scheme and host it
// is the most specific candidate; ties among them keep the tie rule (the node's leaf order). When
// none accepts, the regexes run as usual and find the less specific routes.

/// A hash of a whole path: its length, its first and last eight bytes, and every eight bytes
/// between. Every byte counts: tables of numbered pages (`/docs/p00017/index`) differ only in the
/// middle, and a hash of the ends alone gave thousands of their paths one hash, each lookup
/// comparing its path with all of them. With `fold`, bytes are OR-ed with 0x20 (a superset of
/// ASCII case folding: fine for a hash, and the comparison that follows is exact).
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
    var tail: UInt64 = 0
    if n > 8 {
        tail = load(n - 8, 8)
        // The middle, a word at a time (the last may overlap the tail's bytes).
        var at = 8
        while at < n - 8 {
            tail = (tail ^ load(at, 8)) &* 0xFF51_AFD7_ED55_8CCD
            at += 8
        }
    }
    return HashSlots.finish((head &* 0x9E37_79B9_7F4A_7C15) ^ (tail &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: n))
}

func pathHash(_ key: [UInt8], fold: Bool) -> UInt64 {
    key.withUnsafeBufferPointer { pathHash($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count, fold: fold) }
}

/// The paths of one bucket and the routes ending at each, in tie order, in one block so that a
/// lookup touches a slot and its entry and nothing else (separate arrays and objects per entry
/// cost about seven first-level misses a lookup on a 200-path table). The lookup path reads the
/// block through raw pointers, with no reference counting on this shared object (it would make
/// threads contend on its count).
///
///     block:  mask (Int) | slots: (hash UInt64, entry Int32, key length Int32) * (mask + 1) | entries
///     entry:  route count Int32, records offset Int32 | key | fields | text | records
///
/// A field gives the start (in the entry's text) and length of a route's scheme and host (its
/// method is in its record, as a word);
/// length -1 for any. Entries are 8-byte aligned; records are `LeafRecord`s.
final class StaticBucket: @unchecked Sendable {
    /// What the bucket was built from: each path and its routes' leaves (which own what the
    /// records point to).
    let items: [(key: [UInt8], leaves: [Leaf])]
    let block: UnsafeMutableRawPointer

    static let slotsOffset = 16
    static let slotStride = 16
    static let entryHeader = 8
    /// A route's fields: (start, length) for its scheme and host, as Int32.
    static let fieldStride = 16

    init(_ items: [(key: [UInt8], leaves: [Leaf])], fold: Bool) {
        self.items = items
        let capacity = HashSlots.capacity(for: items.count, minimum: 2)
        func aligned(_ n: Int) -> Int { (n + 7) & ~7 }
        // Each entry's size and its parts' offsets, then the block.
        var layouts: [(at: Int, fields: Int, text: Int, records: Int, bytes: [UInt8], fieldValues: [Int32])] = []
        var at = StaticBucket.slotsOffset + capacity * StaticBucket.slotStride
        for item in items {
            var bytes: [UInt8] = []
            var fieldValues: [Int32] = []
            for leaf in item.leaves {
                let p = leaf.route.pattern
                for value in [p.scheme, p.host] {
                    fieldValues.append(Int32(bytes.count))
                    fieldValues.append(value.map { Int32($0.utf8.count) } ?? -1)
                    if let value { bytes += value.utf8 }
                }
            }
            let fields = StaticBucket.entryHeader + aligned(item.key.count)
            let text = fields + StaticBucket.fieldStride * item.leaves.count
            let records = aligned(text + bytes.count)
            layouts.append((at, fields, text, records, bytes, fieldValues))
            at += records + MemoryLayout<LeafRecord>.stride * item.leaves.count
        }
        block = UnsafeMutableRawPointer.allocate(byteCount: at, alignment: 16)
        block.storeBytes(of: capacity - 1, as: Int.self)
        let slots = block + StaticBucket.slotsOffset
        for j in 0..<capacity { (slots + j * StaticBucket.slotStride).storeBytes(of: 0, as: UInt64.self) }
        let hashes = items.map { pathHash($0.key, fold: fold) }
        let places = HashSlots.place(hashes.map { Int(truncatingIfNeeded: $0 >> 1) }, capacity: capacity)  // bit 0 is always set
        for ((item, layout), (h, j)) in zip(zip(items, layouts), zip(hashes, places)) {
            let slot = slots + j * StaticBucket.slotStride
            slot.storeBytes(of: h, as: UInt64.self)
            slot.storeBytes(of: Int32(layout.at), toByteOffset: 8, as: Int32.self)
            slot.storeBytes(of: Int32(item.key.count), toByteOffset: 12, as: Int32.self)
            let entry = block + layout.at
            entry.storeBytes(of: Int32(item.leaves.count), as: Int32.self)
            entry.storeBytes(of: Int32(layout.records), toByteOffset: 4, as: Int32.self)
            item.key.withUnsafeBytes { (entry + StaticBucket.entryHeader).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            layout.fieldValues.withUnsafeBytes { (entry + layout.fields).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            layout.bytes.withUnsafeBytes { if let b = $0.baseAddress { (entry + layout.text).copyMemory(from: b, byteCount: $0.count) } }
            let records = (entry + layout.records).bindMemory(to: LeafRecord.self, capacity: item.leaves.count)
            LeafRecord.initialize(records, item.leaves)
        }
    }

    deinit { block.deallocate() }
}

/// One path's routes in a bucket's block (see `StaticBucket`), as `matchStatic` reads them.
struct StaticEntry {
    let base: UnsafeRawPointer
    let keyLength: Int

    var count: Int { Int(base.load(as: Int32.self)) }
    /// Route `i`'s scheme (`f` 0) or host (1): its bytes and length, -1 for any.
    @inline(__always) func field(_ i: Int, _ f: Int) -> (UnsafePointer<UInt8>, Int) {
        let fields = base + StaticBucket.entryHeader + ((keyLength + 7) & ~7)
        let at = StaticBucket.fieldStride * i + 8 * f
        let start = Int(fields.load(fromByteOffset: at, as: Int32.self))
        let length = Int(fields.load(fromByteOffset: at + 4, as: Int32.self))
        let text = fields + StaticBucket.fieldStride * count
        return ((text + start).assumingMemoryBound(to: UInt8.self), length)
    }
    var records: UnsafePointer<LeafRecord> {
        (base + Int(base.load(fromByteOffset: 4, as: Int32.self))).assumingMemoryBound(to: LeafRecord.self)
    }
}

/// A bit per hash of every all-literal path (about sixteen bits a path), read before the table: a
/// lookup whose bit is clear, as are most lookups of paths with parameters, skips the table and
/// the cache misses it costs on a large router. Immutable once built: a compilation that adds
/// paths makes a new one, sharing the pages of words it does not change. A removed path's bit
/// stays (it only lets a lookup through to the table), until the filter is built again: when its
/// size is too far from the paths' count, or bits set since it was built outnumber the paths.
struct StaticFilter: @unchecked Sendable {
    let mask: Int
    let words: PagedArray<UInt64, AnyObject>
    /// Paths whose bits were set since the filter was built whole.
    let bitsSet: Int

    /// The mask of a filter for `paths` paths.
    static func mask(for paths: Int) -> Int {
        var bits = 512
        while bits < 16 * paths { bits <<= 1 }
        return bits - 1
    }

    /// A filter of `mask` with the bits of `hashes`.
    init(mask: Int, hashes: [UInt64]) {
        var words = [UInt64](repeating: 0, count: (mask + 1) / 64)
        for h in hashes {
            let bit = StaticFilter.bit(h, mask)
            words[bit >> 6] |= 1 << UInt64(bit & 63)
        }
        self.init(mask: mask, words: PagedArray(words, owners: []), bitsSet: hashes.count)
    }

    private init(mask: Int, words: PagedArray<UInt64, AnyObject>, bitsSet: Int) {
        self.mask = mask
        self.words = words
        self.bitsSet = bitsSet
    }

    /// The filter for `tree`'s paths after those in `changed` changed: the pages of words they
    /// fall in are copied, unless the filter is built again (see the type's comment).
    static func updated(_ previous: StaticFilter, tree: RouteTree, changed: Set<[UInt8]>, copied: inout Int) -> StaticFilter {
        let fold = tree.caseInsensitive
        let paths = tree.staticNodes.count
        let ideal = StaticFilter.mask(for: paths)
        let keep = ideal <= 2 * previous.mask + 1 && 4 * (ideal + 1) >= previous.mask + 1
        if keep && previous.bitsSet + changed.count <= 2 * paths + 64 {
            if changed.isEmpty { return previous }
            var set: [Int: UInt64] = [:]
            for key in changed {
                let bit = StaticFilter.bit(pathHash(key, fold: fold), previous.mask)
                set[bit >> 6, default: previous.words[bit >> 6]] |= 1 << UInt64(bit & 63)
            }
            return StaticFilter(mask: previous.mask, words: previous.words.replacing(set.map { ($0.key, $0.value, nil) }, copied: &copied),
                                bitsSet: previous.bitsSet + changed.count)
        }
        copied += (ideal + 1) / 64
        return StaticFilter(mask: ideal, hashes: tree.staticNodes.keys.map { pathHash($0, fold: fold) })
    }

    /// Whether the bit of hash `h` is set.
    func has(_ h: UInt64) -> Bool {
        let bit = StaticFilter.bit(h, mask)
        return words[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    /// The bit of a hash: bits the bucket and slot choices do not use.
    @inline(__always) static func bit(_ h: UInt64, _ mask: Int) -> Int { Int(truncatingIfNeeded: h >> 20) & mask }
}

/// When lookups try the all-literal table before the tree. On a table of mostly all-literal
/// routes it saves most lookups the walk; on others most lookups pay for a probe that finds
/// nothing, in memory apart from the tree (with callgrind, the GitHub table's lookups are longer
/// and miss the cache more with it, the static table's shorter). The tree holds the all-literal
/// routes too, so the answers are the same either way.
enum StaticProbeUse: Sendable {
    case whenMostlyStatic, always, never

    func applies(staticPaths: Int, routes: Int) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .whenMostlyStatic: staticPaths > 0 && 2 * staticPaths >= routes
        }
    }
}

/// The all-literal paths of a compiled table: their buckets in a `PagedArray`, so that a change
/// rebuilds the buckets of the paths it changed and copies their page and the list of pages.
struct StaticPaths: @unchecked Sendable {
    /// Each bucket's block, owned by the bucket.
    let blocks: PagedArray<UnsafeRawPointer, StaticBucket>
    let filter: StaticFilter
    let caseInsensitive: Bool
    /// Every bucket, in order (tests; proportional to the table).
    var buckets: [StaticBucket] { blocks.allOwners }

    init(buckets: [StaticBucket], filter: StaticFilter, caseInsensitive: Bool) {
        blocks = PagedArray(buckets.map { UnsafeRawPointer($0.block) }, owners: buckets)
        self.filter = filter
        self.caseInsensitive = caseInsensitive
    }

    private init(blocks: PagedArray<UnsafeRawPointer, StaticBucket>, filter: StaticFilter, caseInsensitive: Bool) {
        self.blocks = blocks
        self.filter = filter
        self.caseInsensitive = caseInsensitive
    }

    static let empty = StaticPaths(buckets: [], filter: StaticFilter(mask: StaticFilter.mask(for: 0), hashes: []),
                                   caseInsensitive: false)

    /// What a matcher keeps to look paths up with no reference counting; valid while it holds
    /// this table.
    var probe: StaticProbe {
        StaticProbe(blocks: blocks.count > 0 ? blocks.reader : nil, count: blocks.count, fold: caseInsensitive,
                    filter: filter.words.reader, filterMask: filter.mask)
    }

    /// Whether the table holds a path's node: it has routes, and none with a wildcard host or a
    /// port (the tree answers for such a path: the table compares hosts byte for byte).
    static func holds(_ node: TreeNode) -> Bool {
        !node.leaves.isEmpty && node.leaves.allSatisfy({ $0.route.plainOrigin })
    }

    /// The table after the paths in `changed` changed (buckets not touched are shared, and pages
    /// of buckets no change falls in). `written` counts the paths whose buckets were built, and
    /// the entries (bucket pointers, filter words) built or copied.
    static func update(_ previous: StaticPaths, tree: RouteTree, changed: Set<[UInt8]>, written: inout Int) -> StaticPaths {
        let ideal = max(1, LiteralBuckets.bucketCount(for: tree.staticNodes.count) / 2)
        let old = previous.blocks.count
        let count = old > 0 && ideal <= 2 * old && 4 * ideal >= old ? old : ideal
        let fold = tree.caseInsensitive
        if old == count {
            if changed.isEmpty { return previous }   // a change elsewhere in the tree
            var touched: [Int: [[UInt8]]] = [:]
            for key in changed { touched[LiteralBuckets.bucket(pathHash(key, fold: fold), count: count), default: []].append(key) }
            var replaced: [(index: Int, entry: UnsafeRawPointer, owner: StaticBucket?)] = []
            for (b, keys) in touched {
                var items = previous.blocks.owner(b).items.filter { !keys.contains($0.key) }
                for key in keys {
                    if let node = tree.staticNodes[key], StaticPaths.holds(node) { items.append((key, node.leaves)) }
                }
                let bucket = StaticBucket(items, fold: fold)
                written += items.count
                replaced.append((b, UnsafeRawPointer(bucket.block), bucket))
            }
            return StaticPaths(blocks: previous.blocks.replacing(replaced, copied: &written),
                               filter: .updated(previous.filter, tree: tree, changed: changed, copied: &written),
                               caseInsensitive: tree.caseInsensitive)
        }
        var grouped = [[(key: [UInt8], leaves: [Leaf])]](repeating: [], count: count)
        for (key, node) in tree.staticNodes where StaticPaths.holds(node) {
            grouped[LiteralBuckets.bucket(pathHash(key, fold: fold), count: count)].append((key, node.leaves))
        }
        written += tree.staticNodes.count + count
        return StaticPaths(buckets: grouped.map { StaticBucket($0, fold: fold) },
                           filter: .updated(previous.filter, tree: tree, changed: changed, copied: &written), caseInsensitive: fold)
    }
}

/// A static table as the lookup path reads it: raw pointers into a `StaticPaths` someone holds.
struct StaticProbe: @unchecked Sendable {
    let blocks: PagedReader<UnsafeRawPointer>?
    let count: Int
    let fold: Bool
    let filter: PagedReader<UInt64>?
    let filterMask: Int

    static let none = StaticProbe(blocks: nil, count: 0, fold: false, filter: nil, filterMask: 0)

    /// The entry for the path `p[0..<n]`, if it is all-literal and has routes.
    @inline(__always) func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> StaticEntry? {
        guard let blocks, count > 0, let filter else { return nil }
        let h = pathHash(p, n, fold: fold)
        let bit = StaticFilter.bit(h, filterMask)
        if filter[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return nil }
        let block = blocks[LiteralBuckets.bucket(h, count: count)]
        let mask = block.load(as: Int.self)
        let slots = block + StaticBucket.slotsOffset
        var j = Int(truncatingIfNeeded: h >> 1) & mask
        while true {
            let slot = slots + j * StaticBucket.slotStride
            let sh = slot.load(as: UInt64.self)
            if sh == 0 { return nil }
            if sh == h, Int(slot.load(fromByteOffset: 12, as: Int32.self)) == n {
                let entry = block + Int(slot.load(fromByteOffset: 8, as: Int32.self))
                let k = (entry + StaticBucket.entryHeader).assumingMemoryBound(to: UInt8.self)
                if fold ? sameBytesFolded(k, p, n) : sameBytes(k, p, n) { return StaticEntry(base: entry, keyLength: n) }
            }
            j = HashSlots.next(j, mask: mask)
        }
    }
}
