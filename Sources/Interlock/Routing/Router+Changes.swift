// Changing a table that lookups are using: removing and replacing routes, the host's data on a
// route, and compiling ahead of the first lookup. Each change is made under the router's locks
// and takes effect at once for the thread that made it; other threads see the table before or
// after it, never half of it. What a change lets go of (callbacks, data, C userdata) lives until
// no resolve runs it, and is let go of outside the locks (a C free function may call the router).
import Synchronization

extension Router {
    /// Removes route `id`: lookups no longer find it, its name is free again, and what runs around
    /// it (destination, guard, interceptors, data) is let go of once no resolve runs it. Its slot
    /// is free for a later route, under another id: `id` names no route from now on (until the
    /// slot's generations go round, see ``RouteID``). Only the part of the table the route lived
    /// in is compiled again.
    ///
    /// - Parameter id: The route's id.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/unknownRoute`` if no route has `id` (or
    ///   it was removed already).
    public func removeRoute(_ id: RouteID) throws(InterlockError) {
        // Returned and dropped: released after both locks.
        _ = try treeLock.withLock { (_: inout Void) throws(InterlockError) -> (RouteParts, [PipelineRun]) in
            try state.withLock { (s: inout State) throws(InterlockError) -> (RouteParts, [PipelineRun]) in
                let (route, slot) = try s.checkRoute(id)
                s.tree.remove(route, variants: try variants(of: route))
                s.slots.remove(slot)
                if let name = route.name { s.routesByName[name] = nil }
                let parts = s.pipeline.routes[slot]
                s.pipeline.routes[slot] = .removed
                WrittenGeneration.note(generation.add(1, ordering: .releasing).newValue)
                return (parts, s.takeRuns())
            }
        }
    }

    /// Replaces the pattern of route `id`, keeping its id, name, callbacks and data: lookups find
    /// it by the new pattern, never by both or neither.
    ///
    /// - Parameters:
    ///   - id: The route's id.
    ///   - pattern: The new pattern, as for ``addRoute(_:name:)``.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/unknownRoute`` if no route has `id`,
    ///   ``ErrorCode/pattern`` for a malformed pattern (its `offset` says where),
    ///   ``ErrorCode/conflict`` if another route has the same method, scheme, host and path shape,
    ///   or ``ErrorCode/limit`` as ``addRoute(_:name:)``. The route is then unchanged.
    public func replaceRoute(_ id: RouteID, with pattern: String) throws(InterlockError) {
        let parsed = try PatternParser.parse(pattern, strictSlash: options.contains(.strictSlash))
        // Returned and dropped: released after both locks.
        _ = try treeLock.withLock { (_: inout Void) throws(InterlockError) -> (RouteParts, [PipelineRun]) in
            try state.withLock { (s: inout State) throws(InterlockError) -> (RouteParts, [PipelineRun]) in
                let (old, slot) = try s.checkRoute(id)
                let route = s.route(id, order: old.order, parsed, name: old.name, revision: s.revisions + 1)
                try s.checkConflict(route, parsed, replacing: id)
                s.revisions += 1
                s.tree.remove(old, variants: try variants(of: old))
                s.tree.insert(route, variants: parsed.variants)
                s.slots.replace(slot, with: route)
                if let name = old.name { s.routesByName[name] = route }
                // The callbacks and data stay; they now go with the new revision.
                let parts = s.pipeline.routes[slot]
                s.pipeline.routes[slot] = parts.with(revision: route.revision)
                WrittenGeneration.note(generation.add(1, ordering: .releasing).newValue)
                return (parts, s.takeRuns())
            }
        }
    }

    /// Sets (or with nil clears) the host's value for route `id`: a match carries it
    /// (``RouteMatch/data``), and so does the request of a resolve (``Request/routeData``). The
    /// value replaced is let go of at once, or, by a resolve that has it, when that resolve ends.
    ///
    /// - Parameters:
    ///   - data: Any value, or nil for none.
    ///   - id: The route's id.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/unknownRoute`` if no route has `id`.
    public func setData(_ data: HostValue?, for id: RouteID) throws(InterlockError) {
        let boxed = data.map(RouteData.init)
        try changeParts(of: id) { $0.with(data: boxed) }
    }

    /// The host's value for route `id`, as ``setData(_:for:)`` set it.
    ///
    /// - Parameter id: The route's id.
    /// - Returns: The value, or nil if none was set or no route has `id`.
    public func data(for id: RouteID) -> HostValue? { parts(of: id).data?.value }

    /// The value of `key` in route `id`'s data, when it is a route file's (a `[String: String]`),
    /// as a C string valid until the data is set again or the route removed (for the C door).
    package func dataCString(_ key: String, for id: RouteID) -> UnsafeMutablePointer<CChar>? {
        parts(of: id).data?.cString(key)
    }

    /// Compiles what changed since the last lookup now, so that the next lookup does not: a
    /// server calls it after loading its table, before its first request. Waits for a compile
    /// another thread is making.
    ///
    /// - Throws: ``InterlockError`` with code ``ErrorCode/limit`` if a part of the table is too
    ///   large for PCRE2 to compile, or ``ErrorCode/noMemory``.
    public func compile() throws(InterlockError) {
        _ = try treeLock.withLock { (_: inout Void) throws(InterlockError) in try compileTable() }
    }

    /// The error for an id no route has: it says whether the route was removed (for the C door).
    package func unknownRoute(_ id: RouteID) -> InterlockError {
        state.withLock { s in
            do throws(InterlockError) { _ = try s.checkRoute(id) } catch { return error }
            return InterlockError(.unknownRoute, "no route has id \(id)")
        }
    }

    /// The variants `route` was inserted with (a route keeps its pattern's text, not its parsed
    /// variants: parsing it again gives them).
    private func variants(of route: Route) throws(InterlockError) -> [[PatternSegment]] {
        try PatternParser.acceptedVariants(route.pattern.source, strictSlash: options.contains(.strictSlash))
    }
}

extension Router.State {
    /// A route just added: where it went, for `undoAdding`.
    struct Added {
        let route: Route
        let pattern: RoutePattern
        let slot: Int
        let fresh: Bool
    }

    /// Adds a route for `parsed`, with its data, destination and guard (the caller publishes the
    /// change: it bumps the generation).
    /// - Throws: `.conflict` for a name already used or a route of the same shape, `.limit` when
    ///   the router holds ``maximumRoutes`` routes.
    mutating func add(_ parsed: RoutePattern, name: String?, data: RouteData? = nil,
                      destination: Destination? = nil, routeGuard: Guard? = nil) throws(InterlockError) -> Added {
        if let name, let other = routesByName[name] {
            throw InterlockError(.conflict, "route name '\(name)' is already used by '\(other.pattern.source)' (route \(other.id))")
        }
        guard let (slot, id, fresh) = slots.next() else {
            throw InterlockError(.limit, "router has no free route slot: its \(maximumRoutes) slots are taken or among the \(slots.reserve) kept free so that a removed route's id does not come back soon")
        }
        // A reused slot's route gets a revision no route of that slot had, so that a resolve
        // whose table still has the slot's earlier route never runs it with this one's parts.
        let revision = fresh ? 0 : revisions + 1
        // The route keeps its pattern without the parsed variants: the tree holds the segments.
        let route = route(id, order: added, parsed, name: name, revision: revision)
        try checkConflict(route, parsed)
        if !fresh { revisions += 1 }
        added += 1
        tree.insert(route, variants: parsed.variants)
        slots.take(route, fresh: fresh)
        let parts = fresh && data == nil && destination == nil && routeGuard == nil
            ? RouteParts.empty : RouteParts(destination: destination, routeGuard: routeGuard, data: data, revision: revision)
        if fresh { pipeline.routes.append(parts) } else { pipeline.routes[slot] = parts }
        if let name { routesByName[name] = route }
        return Added(route: route, pattern: parsed, slot: slot, fresh: fresh)
    }

    /// Takes back the routes `add` just added, newest first, before anyone saw them (the
    /// generation was not bumped): their ids will be given again.
    mutating func undoAdding(_ added: [Added]) {
        for a in added.reversed() {
            tree.remove(a.route, variants: a.pattern.variants)
            slots.untake(a.slot, fresh: a.fresh)
            if a.fresh { pipeline.routes.removeLast() } else { pipeline.routes[a.slot] = .removed }
            self.added -= 1
            if let name = a.route.name { routesByName[name] = nil }
        }
    }

    /// A route object for `parsed`, with the router's one copy of its names and method.
    mutating func route(_ id: RouteID, order: UInt64, _ parsed: RoutePattern, name: String?, revision: UInt64) -> Route {
        let slim = parsed.slimmed(parameterNames: tree.shared(parsed.parameterNames))
        let methodText = parsed.method.map { m in methodTexts[m] ?? { let t = CText(m); methodTexts[m] = t; return t }() }
        return Route(id: id, order: order, pattern: slim, name: name, methodText: methodText, revision: revision)
    }

    /// Throws `.conflict` if a route other than `replacing` has the same method, scheme, host and
    /// path shape as one of `parsed`'s variants.
    func checkConflict(_ route: Route, _ parsed: RoutePattern, replacing: RouteID? = nil) throws(InterlockError) {
        if let other = tree.conflict(for: route, variants: parsed.variants, ignoring: replacing) {
            throw InterlockError(.conflict, "'\(parsed.source)' conflicts with '\(other.pattern.source)' (route \(other.id)): "
                                 + "same method, scheme, host and path shape")
        }
    }
}
