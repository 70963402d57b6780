// Changing a table that lookups are using: removing and replacing routes, the host's data on a
// route, and compiling ahead of the first lookup. Each change is made under the router's locks
// and takes effect at once for the thread that made it; other threads see the table before or
// after it, never half of it. What a change lets go of (callbacks, data, C userdata) lives until
// no resolve runs it, and is let go of outside the locks (a C free function may call the router).

extension Router {
    /// Removes route `id`: lookups no longer find it, its name is free again, and what runs around
    /// it (destination, guard, interceptors, data) is let go of once no resolve runs it. Its id is
    /// never given to another route. Only the part of the table the route lived in is compiled
    /// again.
    ///
    /// - Parameter id: The route's id.
    /// - Throws: ``InterlockError`` with code ``ErrorCode/unknownRoute`` if no route has `id` (or
    ///   it was removed already).
    public func removeRoute(_ id: RouteID) throws(InterlockError) {
        // Returned and dropped: released after both locks.
        _ = try treeLock.withLock { (_: inout Void) throws(InterlockError) -> (RouteParts, [PipelineRun]) in
            try state.withLock { (s: inout State) throws(InterlockError) -> (RouteParts, [PipelineRun]) in
                let route = try s.checkRoute(id)
                s.tree.remove(route, variants: try variants(of: route))
                s.routes[Int(id) - 1] = nil
                s.liveCount -= 1
                if let name = route.name { s.routesByName[name] = nil }
                let parts = s.pipeline.routes[Int(id) - 1]
                s.pipeline.routes[Int(id) - 1] = .removed
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
                let old = try s.checkRoute(id)
                let route = s.route(id, parsed, name: old.name, revision: old.revision &+ 1)
                try s.checkConflict(route, parsed, replacing: id)
                s.tree.remove(old, variants: try variants(of: old))
                s.tree.insert(route, variants: parsed.variants)
                s.routes[Int(id) - 1] = route
                if let name = old.name { s.routesByName[name] = route }
                // The callbacks and data stay; they now go with the new revision.
                let parts = s.pipeline.routes[Int(id) - 1]
                s.pipeline.routes[Int(id) - 1] = parts.with(revision: route.revision)
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
    public func setData(_ data: (any Sendable)?, for id: RouteID) throws(InterlockError) {
        let boxed = data.map(RouteData.init)
        try changeParts(of: id) { $0.with(data: boxed) }
    }

    /// The host's value for route `id`, as ``setData(_:for:)`` set it.
    ///
    /// - Parameter id: The route's id.
    /// - Returns: The value, or nil if none was set or no route has `id`.
    public func data(for id: RouteID) -> (any Sendable)? { parts(of: id).data?.value }

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
            do throws(InterlockError) { try s.checkRoute(id) } catch { return error }
            return InterlockError(.unknownRoute, "no route has id \(id)")
        }
    }

    /// The variants `route` was inserted with (a route keeps its pattern's text, not its parsed
    /// variants: parsing it again gives them).
    private func variants(of route: Route) throws(InterlockError) -> [[PatternSegment]] {
        try PatternParser.parse(route.pattern.source, strictSlash: options.contains(.strictSlash)).variants
    }
}

extension Router.State {
    /// Adds a route for `parsed` (the caller publishes the change: it bumps the generation).
    /// - Throws: `.conflict` for a name already used or a route of the same shape, `.limit` once
    ///   every id was given.
    mutating func add(_ parsed: RoutePattern, name: String?, data: RouteData? = nil) throws(InterlockError) -> Route {
        if let name, let other = routesByName[name] {
            throw InterlockError(.conflict, "route name '\(name)' is already used by '\(other.pattern.source)' (route \(other.id))")
        }
        guard routes.count < maximumRoutes else {
            throw InterlockError(.limit, "router already gave out \(maximumRoutes) route ids")
        }
        // The route keeps its pattern without the parsed variants: the tree holds the segments.
        let route = route(RouteID(routes.count + 1), parsed, name: name)
        try checkConflict(route, parsed)
        tree.insert(route, variants: parsed.variants)
        routes.append(route)
        liveCount += 1
        pipeline.routes.append(data.map { RouteParts(data: $0) } ?? .empty)
        if let name { routesByName[name] = route }
        return route
    }

    /// Takes back the routes `add` just added, newest first, before anyone saw them (the
    /// generation was not bumped): their ids will be given again.
    mutating func undoAdding(_ added: [(Route, RoutePattern)]) {
        for (route, parsed) in added.reversed() {
            tree.remove(route, variants: parsed.variants)
            routes.removeLast()
            pipeline.routes.removeLast()
            liveCount -= 1
            if let name = route.name { routesByName[name] = nil }
        }
    }

    /// A route object for `parsed`, with the router's one copy of its names and method.
    mutating func route(_ id: RouteID, _ parsed: RoutePattern, name: String?, revision: UInt32 = 0) -> Route {
        let slim = parsed.slimmed(parameterNames: tree.shared(parsed.parameterNames))
        let methodText = parsed.method.map { m in methodTexts[m] ?? { let t = CText(m); methodTexts[m] = t; return t }() }
        return Route(id: id, pattern: slim, name: name, methodText: methodText, revision: revision)
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
