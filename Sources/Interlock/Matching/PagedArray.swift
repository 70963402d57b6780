// Arrays that compiled tables of successive generations share page by page: a change to a few
// entries copies the list of pages and the pages it touches, not the whole array. A dispatch
// node's literal buckets and the all-literal table's buckets and filter are such arrays, so that a
// change to one route of a table of 100,000 costs about what it costs in one of 1,000.

/// Entries a page: enough that the list of pages stays short (a few hundred for a table of
/// 100,000 routes), few enough that copying one page costs little.
enum Paging {
    @inline(__always) static var bits: Int { 7 }
    @inline(__always) static var size: Int { 1 << bits }
}

/// `Paging.size` entries (fewer in the last page) and the objects that keep them valid.
final class ArrayPage<Entry, Owner>: @unchecked Sendable {
    let entries: UnsafeMutablePointer<Entry>
    let count: Int
    /// One per entry, or none when entries own nothing.
    let owners: [Owner]

    init(_ entries: UnsafeMutablePointer<Entry>, count: Int, owners: [Owner]) {
        self.entries = entries
        self.count = count
        self.owners = owners
    }

    deinit {
        entries.deinitialize(count: count)
        entries.deallocate()
    }
}

/// An immutable array of entries, each with an optional owner object, in pages shared between
/// versions (see `replacing`). The lookup path reads it through `reader`, with no reference counting.
struct PagedArray<Entry, Owner>: @unchecked Sendable {
    typealias Page = ArrayPage<Entry, Owner>
    @inline(__always) static var pageBits: Int { Paging.bits }
    @inline(__always) static var pageSize: Int { Paging.size }

    /// The pages' entry pointers in a row, for `reader`.
    final class PageList: @unchecked Sendable {
        let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Entry>>
        let count: Int
        init(_ pages: [Page]) {
            count = pages.count
            pointers = .allocate(capacity: max(pages.count, 1))
            for (i, p) in pages.enumerated() { (pointers + i).initialize(to: p.entries) }
        }
        deinit { pointers.deallocate() }
    }

    let pages: [Page]
    let count: Int
    private let list: PageList

    private init(pages: [Page], count: Int) {
        self.pages = pages
        self.count = count
        list = PageList(pages)
    }

    /// An array of `entries`, with `owners` (one per entry, or empty when entries own nothing).
    init(_ entries: [Entry], owners: [Owner]) {
        var pages: [Page] = []
        var start = 0
        while start < entries.count {
            let end = min(start + Self.pageSize, entries.count)
            pages.append(Self.page(entries[start..<end], owners: owners.isEmpty ? [] : Array(owners[start..<end])))
            start = end
        }
        self.init(pages: pages, count: entries.count)
    }

    private static func page(_ entries: ArraySlice<Entry>, owners: [Owner]) -> Page {
        let p = UnsafeMutablePointer<Entry>.allocate(capacity: max(entries.count, 1))
        _ = UnsafeMutableBufferPointer(start: p, count: entries.count).initialize(from: entries)
        return Page(p, count: entries.count, owners: owners)
    }

    @inline(__always) subscript(_ i: Int) -> Entry { pages[i >> Self.pageBits].entries[i & (Self.pageSize - 1)] }

    /// The owner of entry `i` (the array must have owners).
    func owner(_ i: Int) -> Owner { pages[i >> Self.pageBits].owners[i & (Self.pageSize - 1)] }

    /// Every owner, in order (for tests and full rebuilds: proportional to the array).
    var allOwners: [Owner] { pages.flatMap { $0.owners } }

    /// This array with the entries at the indices of `changes` replaced (each index once), sharing
    /// every page no change falls in: the work is the changed pages' and the list of pages', which
    /// `copied` counts (entries and page pointers copied).
    func replacing(_ changes: [(index: Int, entry: Entry, owner: Owner?)], copied: inout Int) -> PagedArray {
        if changes.isEmpty { return self }
        var pages = self.pages
        copied += 2 * pages.count      // the pages, then their pointers for `reader`
        var byPage: [Int: [(index: Int, entry: Entry, owner: Owner?)]] = [:]
        for c in changes { byPage[c.index >> Self.pageBits, default: []].append(c) }
        for (p, list) in byPage {
            let old = pages[p]
            let entries = UnsafeMutablePointer<Entry>.allocate(capacity: max(old.count, 1))
            entries.initialize(from: old.entries, count: old.count)
            var owners = old.owners
            copied += old.count
            for c in list {
                let j = c.index & (Self.pageSize - 1)
                entries[j] = c.entry
                if let o = c.owner { owners[j] = o }
            }
            pages[p] = Page(entries, count: old.count, owners: owners)
        }
        return PagedArray(pages: pages, count: count)
    }

    /// What the lookup path reads: valid while this array (or a copy) lives.
    var reader: PagedReader<Entry> { PagedReader(pages: list.pointers) }
}

/// A `PagedArray`'s entries as the lookup path reads them: two loads, the page's pointer (a short
/// list, likely cached) and the entry.
struct PagedReader<Entry> {
    let pages: UnsafeMutablePointer<UnsafeMutablePointer<Entry>>

    @inline(__always) subscript(_ i: Int) -> Entry {
        pages[i >> Paging.bits][i & (Paging.size - 1)]
    }
}
