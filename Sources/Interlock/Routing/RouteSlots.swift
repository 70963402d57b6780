/// Where a router keeps its routes, and the ids it gives them: a table of slots, reused after a
/// removal, so that a router that changes forever holds as many slots as it ever held routes at
/// once (and a reserve), not one per route it ever added.
///
/// An id is a slot and a generation: the id less one holds the slot in its low 22 bits and the
/// generation in the high 10. A fresh slot's first id is the slot plus one (so a router that never
/// removes gives 1, 2, 3, ...); each removal bumps the slot's generation, so the removed route's id
/// no longer names the slot. A freed slot is reused only while more than `reserve` slots are free,
/// and the one freed longest ago first: so between two givings of a slot at least `reserve`
/// other routes are added, and a slot gives an id again only after its generations went round,
/// at least `reserve` × 1,024 additions later.
struct RouteSlots {
    /// Bits of an id (less one) that hold the slot.
    static let slotBits = 22
    static let slotMask: UInt32 = (1 << slotBits) - 1
    /// How many free slots a router keeps before it reuses one.
    static let defaultReserve = 4096

    /// The route in each slot; nil for a free slot.
    private(set) var routes: [Route?] = []
    /// The id of each slot's route or, for a free slot, the id its next route will have.
    private var ids: [RouteID] = []
    /// The free slots, the one freed longest ago at `freeHead`.
    private var free: [Int32] = []
    private var freeHead = 0
    /// The slots whose generations went round: every generation of theirs was given once.
    private var wrapped: Set<Int32> = []
    /// Free slots kept before one is reused.
    let reserve: Int
    /// How many slots hold a route.
    private(set) var count = 0

    init(reserve: Int = RouteSlots.defaultReserve) { self.reserve = max(reserve, 0) }

    /// How many slots the table has, free or not.
    var capacity: Int { routes.count }
    private var freeCount: Int { free.count - freeHead }

    /// The slot an id names, whatever its generation (nil for an id that names none).
    static func slot(_ id: RouteID) -> Int { Int((id &- 1) & slotMask) }

    /// The slot of the route with this id, if one has it now.
    func slot(of id: RouteID) -> Int? {
        let s = Self.slot(id)
        return id != 0 && s < routes.count && ids[s] == id && routes[s] != nil ? s : nil
    }

    /// The route with this id, if any.
    func route(_ id: RouteID) -> Route? { slot(of: id).flatMap { routes[$0] } }

    /// Whether `id` named a slot's earlier route (it was removed), rather than no route at all.
    func wasGiven(_ id: RouteID) -> Bool {
        let s = Self.slot(id)
        guard id != 0, s < routes.count else { return false }
        // Generations below the slot's current one were given; once they went round, all were.
        if wrapped.contains(Int32(s)) { return id != ids[s] }
        return Self.generation(id) < Self.generation(ids[s])
    }

    private static func generation(_ id: RouteID) -> UInt32 { (id &- 1) >> slotBits }

    /// The slot and id the next route will get, without taking them; nil when every slot holds a
    /// route.
    func next() -> (slot: Int, id: RouteID, fresh: Bool)? {
        // A slot is reused only while more than `reserve` are free, however full the table: a
        // full table reusing its one free slot at once would bring a removed route's id back
        // within a few generations.
        if freeCount > reserve {
            let s = Int(free[freeHead])
            return (s, ids[s], false)
        }
        guard routes.count <= Int(Self.slotMask) else { return nil }
        return (routes.count, RouteID(routes.count + 1), true)
    }

    /// Puts `route` in the slot `next()` gave (its id is that slot's).
    mutating func take(_ route: Route, fresh: Bool) {
        if fresh {
            routes.append(route)
            ids.append(route.id)
        } else {
            routes[Int(free[freeHead])] = route
            freeHead += 1
            if freeHead == free.count {
                free.removeAll(keepingCapacity: true)
                freeHead = 0
            } else if freeHead >= 1024 && freeHead * 2 >= free.count {
                free.removeFirst(freeHead)
                freeHead = 0
            }
        }
        count += 1
    }

    /// Takes back the route `take` just put in `slot`, before anyone saw it: its id will be given
    /// again. Routes are taken back newest first.
    mutating func untake(_ slot: Int, fresh: Bool) {
        if fresh {
            routes.removeLast()
            ids.removeLast()
        } else {
            routes[slot] = nil
            if freeHead > 0 {
                freeHead -= 1
                free[freeHead] = Int32(slot)
            } else {
                free.insert(Int32(slot), at: 0)
            }
        }
        count -= 1
    }

    /// Puts the route of `slot` there again (a replaced pattern keeps its slot and id).
    mutating func replace(_ slot: Int, with route: Route) { routes[slot] = route }

    /// Frees `slot`: its route's id names no route from now on.
    mutating func remove(_ slot: Int) {
        routes[slot] = nil
        ids[slot] = Self.bumped(ids[slot])
        if Self.generation(ids[slot]) == 0 { wrapped.insert(Int32(slot)) }
        free.append(Int32(slot))
        count -= 1
    }

    /// The slot's next id: the generation bumped, going round to 0 after 1,023 (the last
    /// slot skips the generation whose id would be 2^32, that is 0).
    private static func bumped(_ id: RouteID) -> RouteID {
        let v = id &- 1
        let next = ((v >> slotBits) &+ 1) << slotBits | (v & slotMask)
        return next &+ 1 == 0 ? (v & slotMask) + 1 : next &+ 1
    }

    /// The route in the first slot after the one `id` names (from the first slot for id 0).
    func route(after id: RouteID) -> Route? {
        var i = id == 0 ? 0 : Self.slot(id) + 1
        while i < routes.count {
            if let r = routes[i] { return r }
            i += 1
        }
        return nil
    }
}
