// An open-addressing hash table from a segment's bytes to a compiled child, read straight from the
// subject buffer: no String, no allocation per lookup.

final class LiteralTable: @unchecked Sendable {
    private let mask: Int
    private let hashes: [UInt64]
    private let keys: [[UInt8]]
    let values: [CompiledNode?]
    private let caseInsensitive: Bool

    init(keys input: [[UInt8]], values input2: [CompiledNode], caseInsensitive: Bool) {
        var capacity = 4
        while capacity < input.count * 2 { capacity <<= 1 }
        var hashes = [UInt64](repeating: 0, count: capacity)
        var keys = [[UInt8]](repeating: [], count: capacity)
        var values = [CompiledNode?](repeating: nil, count: capacity)
        for (k, v) in zip(input, input2) {
            let h = k.withUnsafeBufferPointer { LiteralTable.hash($0.baseAddress!, $0.count, lower: false) }
            var i = Int(truncatingIfNeeded: h) & (capacity - 1)
            while hashes[i] != 0 { i = (i + 1) & (capacity - 1) }
            hashes[i] = h; keys[i] = k; values[i] = v
        }
        self.mask = capacity - 1
        self.hashes = hashes
        self.keys = keys
        self.values = values
        self.caseInsensitive = caseInsensitive
    }

    /// FNV-1a; never 0 (0 marks an empty slot).
    @inline(__always) static func hash(_ p: UnsafePointer<UInt8>, _ n: Int, lower: Bool) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for i in 0..<n {
            h = (h ^ UInt64(lower ? lowercased(p[i]) : p[i])) &* 0x100_0000_01b3
        }
        return h | 1
    }

    /// The child for the segment `p[0..<n]`, if there is one.
    @inline(__always) func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> CompiledNode? {
        let h = LiteralTable.hash(p, n, lower: caseInsensitive)
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let slot = hashes[i]
            if slot == 0 { return nil }
            if slot == h && equal(keys[i], p, n) { return values[i] }
            i = (i + 1) & mask
        }
    }

    @inline(__always) private func equal(_ key: [UInt8], _ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        guard key.count == n else { return false }
        return key.withUnsafeBufferPointer { k in
            for i in 0..<n where k[i] != (caseInsensitive ? lowercased(p[i]) : p[i]) { return false }
            return true
        }
    }
}
