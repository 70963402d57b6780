// What runs around each route, by slot, in pages that successive global pipelines share: a
// resolve holds the global pipeline it started with, so a change made after it must not write
// to what that pipeline reads. An array would be copied whole at the first change after each
// resolve (every route's parts retained again); pages copy only the list of pages and the one
// page the change falls in.

/// The parts of every route slot (see `RouteSlots`), `RouteParts.removed` for a free slot.
struct RoutePartsTable {
    /// `Paging.size` slots' parts (fewer in the last page).
    final class Page: @unchecked Sendable {
        var parts: ContiguousArray<RouteParts>
        init(_ parts: ContiguousArray<RouteParts>) { self.parts = parts }
    }

    private(set) var pages: ContiguousArray<Page> = []
    private(set) var count = 0
    /// Parts copied because a global pipeline still shared their page (for the change-cost
    /// tests; the list of pages, a pointer a page, is copied then too).
    private(set) var copied = 0

    /// The parts in `slot` (`0 ..< count`).
    subscript(_ slot: Int) -> RouteParts {
        get { pages[slot >> Paging.bits].parts[slot & (Paging.size - 1)] }
        set {
            let p = slot >> Paging.bits
            ownPage(p)
            pages[p].parts[slot & (Paging.size - 1)] = newValue
        }
    }

    /// Adds a slot at the end.
    mutating func append(_ parts: RouteParts) {
        if count & (Paging.size - 1) == 0 {
            pages.append(Page([parts]))
        } else {
            ownPage(pages.count - 1)
            pages[pages.count - 1].parts.append(parts)
        }
        count += 1
    }

    /// Takes back the last slot.
    mutating func removeLast() {
        let p = pages.count - 1
        ownPage(p)
        pages[p].parts.removeLast()
        if pages[p].parts.isEmpty { pages.removeLast() }
        count -= 1
    }

    /// Makes page `p` this table's own, copying it (and the list of pages) if a global pipeline
    /// shares it.
    private mutating func ownPage(_ p: Int) {
        if !isKnownUniquelyReferenced(&pages[p]) {
            copied += pages[p].parts.count
            pages[p] = Page(ContiguousArray(pages[p].parts))
        }
    }

    /// The parts in `slot`, borrowed from this table (which the caller keeps alive); nil past
    /// the end.
    @inline(__always)
    func borrowed(_ slot: Int) -> Unmanaged<RouteParts>? {
        guard slot < count else { return nil }
        return pages.withUnsafeBufferPointer { pages in
            Unmanaged.passUnretained(pages[slot >> Paging.bits]).withGuaranteedRef { page in
                page.parts.withUnsafeBufferPointer { .passUnretained($0[slot & (Paging.size - 1)]) }
            }
        }
    }
}
