// The one open-addressing scheme of the matcher's lookup tables: the all-literal table's buckets
// (`StaticBucket`), a dispatch node's literal buckets (`LiteralTable`) and a walk unit's nodes
// (`WalkUnit`). Each lays its slots out for what its lookup reads (a slot with the key's hash and
// head inline, one with an entry's offset, or a bare edge number), and each hashes what it is
// given (a whole path, a word at a time, a segment's every byte, or a segment's length and ends
// for a node's few children); all three place and probe slots by this rule.

/// Slots in a power-of-two array at most half full; a key starts at its home slot and takes the
/// next free one after it (linear probing, wrapping), so a probe stops at the first empty slot.
enum HashSlots {
    /// The slot count for `keys` keys: a power of two, at least `minimum` and twice the keys.
    static func capacity(for keys: Int, minimum: Int) -> Int {
        var capacity = minimum
        while capacity < 2 * keys { capacity <<= 1 }
        return capacity
    }

    /// The slot after `i`, in a table of `mask + 1` slots.
    @inline(__always) static func next(_ i: Int, mask: Int) -> Int { (i + 1) & mask }

    /// Where each key goes, in order, in a table of `capacity` slots: `homes[k]` is key k's home
    /// (any integer: it is masked); a key whose home is taken goes to the next free slot.
    static func place(_ homes: [Int], capacity: Int) -> [Int] {
        let mask = capacity - 1
        var taken = [Bool](repeating: false, count: capacity)
        return homes.map { home in
            var i = home & mask
            while taken[i] { i = next(i, mask: mask) }
            taken[i] = true
            return i
        }
    }

    /// The last steps of the segment and path hashes: a byte near a word's end moves only a
    /// product's top bits, so they are folded down and multiplied again, so that slot, bucket and
    /// filter bits all depend on every byte read ("item001" and "item002", "/page1" and "/page2"
    /// otherwise shared a slot). Never 0, which marks an empty slot.
    @inline(__always) static func finish(_ h: UInt64) -> UInt64 {
        var h = h ^ (h >> 32)
        h = h &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return h | 1
    }
}
