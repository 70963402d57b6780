// What runs around each route, by slot, in pages that successive global pipelines share: a
// resolve holds the global pipeline it started with, so a change made after it must not write
// to what that pipeline reads. An array would be copied whole at the first change after each
// resolve (every route's parts retained again). Pages alone still copied the list of pages, one
// pointer per 128 routes, and the pipeline the change replaced released them all when it went:
// at 100,000 routes, some 1,600 reference counts on as many cache lines at every change. So the
// pages are in directories of pages: a change copies the page it writes, that page's directory
// and the short list of directories, whatever the table's size.

/// The parts of every route slot (see `RouteSlots`), `RouteParts.removed` for a free slot.
struct RoutePartsTable {
    /// `Paging.size` slots' parts (fewer in the last page).
    final class Page: @unchecked Sendable {
        var parts: ContiguousArray<RouteParts>
        init(_ parts: ContiguousArray<RouteParts>) { self.parts = parts }
    }

    /// `Paging.size` pages (fewer in the last directory).
    final class Directory: @unchecked Sendable {
        var pages: ContiguousArray<Page>
        init(_ pages: ContiguousArray<Page>) { self.pages = pages }
    }

    private var directories: ContiguousArray<Directory> = []
    private(set) var count = 0
    /// Parts and page pointers copied because a global pipeline still shared their page or
    /// directory (for the change-cost tests; the list of directories is copied then too).
    private(set) var copied = 0

    /// Slots a directory covers, as a shift.
    @inline(__always) private static var directoryBits: Int { 2 * Paging.bits }
    @inline(__always) private static var mask: Int { Paging.size - 1 }

    /// Where `slot` is: its directory, its page in the directory, its place in the page.
    @inline(__always) private static func place(_ slot: Int) -> (directory: Int, page: Int, index: Int) {
        (slot >> directoryBits, (slot >> Paging.bits) & mask, slot & mask)
    }

    /// The parts in `slot` (`0 ..< count`).
    subscript(_ slot: Int) -> RouteParts {
        get {
            let (d, p, i) = Self.place(slot)
            return directories[d].pages[p].parts[i]
        }
        set {
            let (d, p, i) = Self.place(slot)
            own(d, page: p)
            directories[d].pages[p].parts[i] = newValue
        }
    }

    /// Adds a slot at the end.
    mutating func append(_ parts: RouteParts) {
        let (d, p, i) = Self.place(count)
        if p == 0 && i == 0 {
            directories.append(Directory([Page([parts])]))
        } else if i == 0 {
            ownDirectory(d)
            directories[d].pages.append(Page([parts]))
        } else {
            own(d, page: p)
            directories[d].pages[p].parts.append(parts)
        }
        count += 1
    }

    /// Takes back the last slot.
    mutating func removeLast() {
        let (d, p, i) = Self.place(count - 1)
        if i == 0 {
            // The page holds this slot only: it goes, uncopied.
            ownDirectory(d)
            directories[d].pages.removeLast()
            if directories[d].pages.isEmpty { directories.removeLast() }
        } else {
            own(d, page: p)
            directories[d].pages[p].parts.removeLast()
        }
        count -= 1
    }

    /// Makes directory `d` this table's own, copying it (its page pointers) if a global
    /// pipeline shares it.
    private mutating func ownDirectory(_ d: Int) {
        if !isKnownUniquelyReferenced(&directories[d]) {
            copied += directories[d].pages.count
            directories[d] = Directory(directories[d].pages)
        }
    }

    /// Makes page `p` of directory `d`, and the directory, this table's own, copying what a
    /// global pipeline shares.
    private mutating func own(_ d: Int, page p: Int) {
        ownDirectory(d)
        if !isKnownUniquelyReferenced(&directories[d].pages[p]) {
            copied += directories[d].pages[p].parts.count
            directories[d].pages[p] = Page(ContiguousArray(directories[d].pages[p].parts))
        }
    }

    /// The parts in `slot`, borrowed from this table (which the caller keeps alive); nil past
    /// the end.
    @inline(__always)
    func borrowed(_ slot: Int) -> Unmanaged<RouteParts>? {
        guard slot < count else { return nil }
        let (d, p, i) = Self.place(slot)
        return directories.withUnsafeBufferPointer { directories in
            Unmanaged.passUnretained(directories[d]).withGuaranteedRef { directory in
                directory.pages.withUnsafeBufferPointer { pages in
                    Unmanaged.passUnretained(pages[p]).withGuaranteedRef { page in
                        page.parts.withUnsafeBufferPointer { .passUnretained($0[i]) }
                    }
                }
            }
        }
    }
}
