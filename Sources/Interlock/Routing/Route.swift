import Synchronization

/// A route's identity within one router. A router keeps its routes in slots, reused after a
/// removal (so that a router that changes forever keeps working in bounded memory): an id is a
/// slot and a generation, the id less one holding the slot in its low 22 bits and the generation
/// in the high 10. A router that never removes a route gives 1, 2, 3, ... in the order added.
/// A removal bumps its slot's generation, so the removed route's id names no route; the router
/// reuses a slot only while more than 4,096 are free, the one freed longest ago first, so an id
/// is given again only after at least 4,194,304 other additions (its slot's 1,024 generations
/// gone round). 0 is never an id.
public typealias RouteID = UInt32

/// A registered route: its pattern and what the matcher needs to report it. Immutable (but for
/// its pattern's C string, made once on first use, atomically), so compiled tables and matchers
/// on other threads may hold it.
public final class Route: @unchecked Sendable {
    /// The id given when the route was added.
    public let id: RouteID
    /// Where the route comes in the order added (the tie rule's "registered first"); a replaced
    /// pattern keeps it.
    let order: UInt64
    /// The parsed pattern.
    public let pattern: RoutePattern
    /// The route's name, if it has one.
    public let name: String?
    /// The pattern text, NUL-terminated, for borrowers that want a C string: made on first use
    /// (most routes are never asked), then kept as long as the route.
    package var patternCString: UnsafeMutablePointer<CChar> {
        if let made = patternText.load(ordering: .acquiring) { return made }
        let made = CText.copy(pattern.source)
        let (won, held) = patternText.compareExchange(expected: nil, desired: made, ordering: .acquiringAndReleasing)
        if won { return made }
        guard let held else { return made }     // not reached: a failed exchange found a pointer
        made.deallocate()                       // another thread made it first
        return held
    }
    /// An atomic pointer rather than a lock: a lock is two allocations a route, and most routes
    /// are never asked.
    private let patternText = Atomic<UnsafeMutablePointer<CChar>?>(nil)
    /// The name, NUL-terminated, or nil.
    package let nameCString: UnsafeMutablePointer<CChar>?
    /// The method, NUL-terminated, or nil for any method: one copy per method per router.
    var methodCString: UnsafeMutablePointer<CChar>? { methodText?.pointer }
    private let methodText: CText?
    private let nameText: CText?
    /// Which of its slot's routes, and which of their patterns (`Router.replaceRoute(_:with:)`),
    /// this is: 0 for the first route of a fresh slot, and unique in the router for the others. A
    /// lookup that found this object found that revision; a route's parts carry the revision
    /// they belong to.
    let revision: UInt64

    init(id: RouteID, order: UInt64, pattern: RoutePattern, name: String?, methodText: CText?, revision: UInt64 = 0) {
        self.id = id
        self.order = order
        self.pattern = pattern
        self.name = name
        self.revision = revision
        self.methodText = methodText
        nameText = name.map(CText.init)
        nameCString = nameText?.pointer
    }

    deinit { patternText.load(ordering: .acquiring)?.deallocate() }

    /// Whether the route names a scheme or host (it wins a full tie against one that does not).
    var hasSchemeOrHost: Bool { pattern.scheme != nil || pattern.host != nil }

    /// How specific the route's origin is, for the tie rule (greater first): an exact host, then a
    /// wildcard host (longer suffix first), then a scheme alone, then none; then a port.
    var originRank: Int {
        let port = pattern.port == nil ? 0 : 1
        guard let host = pattern.host else { return (pattern.scheme == nil ? 0 : 2) + port }
        return pattern.hostIsWildcard ? 4 + 2 * host.utf8.count + port : 4 + 2 * (maximumOriginLength + 1) + port
    }

    /// Whether the all-literal table can hold the route: its host is exact and it names no port
    /// (those the tree's regexes check).
    var plainOrigin: Bool { !pattern.hostIsWildcard && pattern.port == nil }
}

/// A NUL-terminated copy of a string, freed with the object (shared where many routes need the same).
package final class CText: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<CChar>

    init(_ s: String) { pointer = CText.copy(s) }

    /// A NUL-terminated copy of `s`, for the caller to deallocate.
    ///
    /// - Parameter s: The text.
    /// - Returns: Its UTF-8 bytes and a NUL, in memory the caller owns.
    package static func copy(_ s: String) -> UnsafeMutablePointer<CChar> {
        var s = s
        return s.withUTF8 { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            if let b = bytes.baseAddress { UnsafeMutableRawPointer(pointer).copyMemory(from: b, byteCount: bytes.count) }
            pointer[bytes.count] = 0
            return pointer
        }
    }

    deinit { pointer.deallocate() }
}

/// Parameter names of one variant, laid out once as C strings so a match can lend them out.
/// Eight zero bytes follow the last, so that any name may be read eight bytes at a time.
final class ParameterNames: @unchecked Sendable {
    let names: [String]
    let storage: UnsafeMutablePointer<CChar>
    /// Offset and length of each name in `storage`, flat.
    let offsets: UnsafeMutablePointer<Int>
    let lengths: UnsafeMutablePointer<Int>
    /// The names' bytes with a NUL after each.
    let totalBytes: Int

    init(_ names: [String]) {
        self.names = names
        let total = names.reduce(0) { $0 + $1.utf8.count + 1 }
        totalBytes = total
        storage = .allocate(capacity: total + 8)
        storage.initialize(repeating: 0, count: total + 8)
        offsets = .allocate(capacity: max(names.count, 1))
        lengths = .allocate(capacity: max(names.count, 1))
        var o = 0
        for (i, name) in names.enumerated() {
            offsets[i] = o
            lengths[i] = name.utf8.count
            for b in name.utf8 { storage[o] = CChar(bitPattern: b); o += 1 }
            storage[o] = 0; o += 1
        }
    }

    deinit {
        storage.deallocate()
        offsets.deallocate()
        lengths.deallocate()
    }

    var count: Int { names.count }
    func pointer(_ i: Int) -> UnsafePointer<CChar> { UnsafePointer(storage + offsets[i]) }
}
