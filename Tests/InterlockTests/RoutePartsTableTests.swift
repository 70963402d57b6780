import Testing
@testable import Interlock

/// The table of what runs around each route, in pages in directories of pages: every slot
/// answers after appends, removals and writes across page and directory boundaries, and a copy
/// taken before a change (as a resolve's global pipeline holds one) keeps what it saw.
@Suite("Route parts table")
struct RoutePartsTableTests {
    /// Slots a directory covers.
    static let directorySlots = 1 << (2 * Paging.bits)

    /// Whether `table` holds `expected`, slot by slot, through both ways of reading it.
    static func holds(_ table: RoutePartsTable, _ expected: [RouteParts]) -> Bool {
        guard table.count == expected.count, table.borrowed(expected.count) == nil else { return false }
        for k in 0..<expected.count where table[k] !== expected[k] || table.borrowed(k)?.takeUnretainedValue() !== expected[k] {
            return false
        }
        return true
    }

    @Test func slotsAcrossDirectoryBoundaries() {
        var table = RoutePartsTable()
        var expected: [RouteParts] = []
        var copies: [(RoutePartsTable, [RouteParts])] = []
        let boundary = Self.directorySlots
        for k in 0..<(boundary - 3) {
            let p = RouteParts(revision: UInt64(k))
            table.append(p)
            expected.append(p)
        }
        #expect(Self.holds(table, expected))
        // Back and forth across the boundary, a copy kept before each step, and writes to the
        // first slot, the last and one in the last page's middle.
        for (step, grow) in [1, 1, 1, 1, 1, -1, -1, -1, 1, 1, -1, -1, -1, -1, -1, 1, 1, 1, 1, 1, 1, 1, -1, -1].enumerated() {
            copies.append((table, expected))
            if grow > 0 {
                let p = RouteParts(revision: UInt64(1_000_000 + step))
                table.append(p)
                expected.append(p)
            } else {
                table.removeLast()
                expected.removeLast()
            }
            for slot in [0, expected.count - 1, max(0, expected.count - 64)] {
                let p = RouteParts(revision: UInt64(2_000_000 + step))
                table[slot] = p
                expected[slot] = p
            }
            #expect(Self.holds(table, expected), "step \(step), \(expected.count) slots")
        }
        // Down to nothing, then up past two boundaries.
        while table.count > 0 {
            table.removeLast()
            expected.removeLast()
        }
        #expect(Self.holds(table, expected))
        for k in 0..<(2 * boundary + 5) {
            let p = RouteParts(revision: UInt64(k))
            table.append(p)
            expected.append(p)
        }
        #expect(Self.holds(table, expected))
        for (i, (copy, saw)) in copies.enumerated() {
            #expect(Self.holds(copy, saw), "copy \(i) changed")
        }
    }
}
