// One resolve, stage by stage:
//   1. creation: parse, normalize, match, build the request
//   2. request interceptors: the route's scope, then the global ones (abort ends the resolve)
//   3. filters, in order: continue (next, once), stop, or redirect (back to 1, same state)
//   4. the route's guard: refused ends as guarded and keeps the link pending
//   5. the destination (the route's, or the default one when nothing matched)
//   6. response interceptors: the global ones, then the route's (abort, or retry from 2)
// Callbacks run outside the router's lock, so they may resolve other URIs or add routes.

/// The state of one resolve while it runs. Everything it needs from the router is taken once, at
/// the start: the global pipeline (which lists what runs around each route) and a matcher. So no
/// lock is held while callbacks run, and a callback may resolve, add routes or change them; only
/// a route added after the run began is looked up under the lock when matched.
///
/// A run is used again by later resolves of its router while the global pipeline stays the same
/// (see `Router.beginResolve`): it ends each resolve as it began (an empty trace and no
/// redirects), and one that something still holds (a chain kept by a filter) is not reused.
/// What one pass, and one attempt of it, works on is a value its stages pass down (`Created`,
/// `Attempt`), never a field of the run.
final class PipelineRun: @unchecked Sendable {
    /// Unowned: a run waits in its router's pool, and a run kept past its resolve by a filter's
    /// chain reads nothing from the router once the resolve ended.
    unowned(unsafe) let router: Router
    private(set) var method: String?
    /// The method's bytes, copied there once a resolve so that each pass's lookup reads them
    /// without a closure (a closure over the matcher and router counted a reference to each);
    /// -1 for no method, or one longer than any method may be.
    private let methodBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: maximumMethodLength)
    private var methodLength = -1
    let global: GlobalPipeline
    /// `global`'s identity, compared without counting a reference (see `Router.beginResolve`).
    let globalID: ObjectIdentifier
    /// `global`, which the stages that call out borrow without counting a reference (reading
    /// the field around a call counts one: the compiler cannot tell the callback leaves it).
    private let globalRef: Unmanaged<GlobalPipeline>
    let pooled: PooledMatcher
    /// The trace, written in place and moved into the resolution at the end: a value, not a box,
    /// so that the resolution keeps the records without keeping the run (and, through it, the
    /// router's callbacks and the userdata they free).
    private(set) var log = TraceLog()
    var redirects: [String] = []
    /// The serial number of the attempt running (0: none runs), and of the last one begun: a
    /// filter's chain names its attempt by both a pointer and this number, and `next` reads the
    /// attempt through the pointer only while the number says it runs. So a chain kept past its
    /// attempt is an error, not a read of a frame that ended.
    private var openAttempt = 0
    private var lastAttempt = 0
    /// `RouteParts.empty` (which lives as long as the program), read once: reading the static
    /// each resolve cost a `swift_once` call.
    private let noParts: Unmanaged<RouteParts>
    /// `RouteParts.removed`, read once (a static is a lazily made global, checked at each read).
    private let removedParts: Unmanaged<RouteParts>
    /// The parts of routes added after `global` was built that this resolve matched.
    private var laterParts: [RouteParts] = []

    init(router: Router, global: GlobalPipeline, pooled: PooledMatcher) {
        self.router = router
        self.global = global
        globalID = ObjectIdentifier(global)
        globalRef = .passUnretained(global)
        self.pooled = pooled
        noParts = .passUnretained(.empty)
        removedParts = .passUnretained(.removed)
    }

    deinit { methodBytes.deallocate() }

    /// Starts a resolve with `method` ("" is any method, as nil: the request says nil).
    func begin(method: String?) {
        let method = method?.isEmpty == true ? nil : method
        self.method = method
        methodLength = -1
        if var method {
            method.withUTF8 { u in
                guard u.count <= maximumMethodLength else { return }
                if let b = u.baseAddress { methodBytes.update(from: b, count: u.count) }
                methodLength = u.count
            }
        }
        // Borrowed: read through the field, the names were retained twice.
        globalRef._withUnsafeGuaranteedRef { log.use(global: $0.names) }
    }

    /// Stage 1: the request for `bytes`, and whether a route matched. `router` is this run's,
    /// passed in by the resolve (reading the unowned field would count a reference each pass).
    func create(_ bytes: UnsafeRawBufferPointer, on router: Router) throws(InterlockError) -> Created {
        let matcher = pooled.matcher
        var outcome = try match(bytes, on: router)
        var routeID = outcome == .matched ? matcher.routeID : 0
        var found = routeID == 0 ? noParts : parts(of: routeID, on: router)
        var tries = 0
        while routeID != 0 && !fits(found, matcher) && tries < 8 {
            // The table and the pipeline are from different moments (another thread compiling
            // the table after the route was removed or given a new pattern, or this run's
            // pipeline from before the new pattern): match again on the current table, with the
            // route's parts as they stand. Bounded: each try needs another change to the route
            // meanwhile, and a resolve must end whatever the other threads do.
            tries += 1
            try router.compile()
            outcome = try match(bytes, on: router)
            routeID = outcome == .matched ? matcher.routeID : 0
            found = routeID == 0 ? noParts : currentParts(of: routeID, on: router)
        }
        let request = matcher.request(method: method, bytes: bytes, matched: outcome == .matched,
                                      data: found._withUnsafeGuaranteedRef { $0.data }, sharingStateWith: log.firstMatch)
        log.matched(request, outcome)
        return Created(request: request, routeID: routeID, parts: found,
                       allowed: outcome == .methodNotAllowed ? matcher.allowedMethods : nil)
    }

    /// The lookup of `bytes` under the resolve's method.
    private func match(_ bytes: UnsafeRawBufferPointer, on router: Router) throws(InterlockError) -> MatchOutcome {
        let matcher = pooled.matcher
        if methodLength >= 0 {
            return try matcher.match(router, method: UnsafeRawBufferPointer(start: methodBytes, count: methodLength), uri: bytes)
        } else if let method {      // longer than any method: the matcher refuses it
            return try withBytes(method) { (m) throws(InterlockError) in try matcher.match(router, method: m, uri: bytes) }
        }
        return try matcher.match(router, method: nil, uri: bytes)
    }

    /// Whether `parts` go with the route `matcher` found: not a removed route's, and of the
    /// pattern revision it found.
    private func fits(_ parts: Unmanaged<RouteParts>, _ matcher: Matcher) -> Bool {
        guard parts.toOpaque() != removedParts.toOpaque(), let found = matcher.winner?.pointee.route else { return false }
        return found._withUnsafeGuaranteedRef { sameRevision(parts, $0) }
    }

    /// Whether `parts` belong to `route`'s revision of its pattern.
    private func sameRevision(_ parts: Unmanaged<RouteParts>, _ route: Route) -> Bool {
        parts._withUnsafeGuaranteedRef { $0.revision } == route.revision
    }

    /// What runs around route `id` as it stands, taken under the router's lock and held by the
    /// run until `finish`.
    private func currentParts(of id: RouteID, on router: Router) -> Unmanaged<RouteParts> {
        let parts = router.parts(of: id)
        laterParts.append(parts)
        return .passUnretained(parts)
    }

    /// What runs around route `id`, borrowed: from the global pipeline the run holds, or, for a
    /// route added since, taken under the router's lock and held by the run until `finish`.
    private func parts(of id: RouteID, on router: Router) -> Unmanaged<RouteParts> {
        if let parts = globalRef._withUnsafeGuaranteedRef({ $0.parts(of: id) }) { return parts }
        return currentParts(of: id, on: router)
    }

    struct Created {
        let request: Request
        /// The matched route's id (0: none matched).
        let routeID: RouteID
        /// What runs around the matched route (empty when none matched): borrowed from the run's
        /// global pipeline, or held by the run (`laterParts`).
        let parts: Unmanaged<RouteParts>
        /// Set when the path matched only under other methods.
        let allowed: [String]?
    }

    /// Stages 2 to 6, with redirects and retries (`router` as for `create`).
    func run(from first: consuming Created, on router: Router) -> Resolution {
        var (status, request, response) = attempts(consume first)
        while case .redirect(let uri) = status {
            if redirects.count >= global.redirectLimit {
                log.ran(.redirect, uri: uri, "refused: more than \(global.redirectLimit) redirects")
                return finish(.redirectLoop, request, Response())
            }
            redirects.append(uri)
            let created: Created
            do {
                created = try withBytes(uri) { (u) throws(InterlockError) in try create(u, on: router) }
            } catch {
                let why = "redirect to '\(uri)': \(error)"
                log.ran(.redirect, uri: uri, "error: \(why)")
                return finish(.error(why), request, Response())
            }
            (status, request, response) = attempts(consume created)
        }
        return finish(status.final, request, response)
    }

    /// The resolution, taking the trace and redirects (the run ends here): moved, not copied.
    private func finish(_ status: consuming ResolveStatus, _ request: consuming Request, _ response: consuming Response) -> Resolution {
        var redirects: [String] = []
        swap(&redirects, &self.redirects)
        if !laterParts.isEmpty { laterParts = [] }
        var trace = TraceLog()
        swap(&trace, &log)              // moved out, not copied
        return Resolution(status: status, request: request, response: response, redirects: redirects, recorded: trace)
    }

    /// What one pass ended with, before redirects are followed.
    enum PassStatus {
        case done(ResolveStatus)
        case redirect(String)

        var final: ResolveStatus {
            if case .done(let s) = self { return s }
            return .error("unfollowed redirect")
        }
    }

    /// What one attempt of a pass works on: the pass's route, what runs around it and the
    /// methods a 405 lists (read by the terminal stages), and which filters called `next`. It
    /// lives on the stack of `attempts` for the attempt, and the filters' chains point at it.
    struct Attempt {
        let routeID: RouteID
        let parts: Unmanaged<RouteParts>
        let allowed: [String]?
        var calledNext: UInt64 = 0
        var calledNextBeyond64: Set<Int>? = nil

        /// Whether filter `index` called `next` in this attempt.
        func hasCalledNext(_ index: Int) -> Bool {
            index < 64 ? calledNext & (1 << UInt64(index)) != 0 : calledNextBeyond64?.contains(index) == true
        }

        /// Marks filter `index` as having called `next`.
        mutating func markCalledNext(_ index: Int) {
            if index < 64 {
                calledNext |= 1 << UInt64(index)
            } else {
                calledNextBeyond64 = (calledNextBeyond64 ?? []).union([index])
            }
        }
    }

    private func attempts(_ pass: consuming Created) -> (PassStatus, Request, Response) {
        var retries = 0
        let parts = pass.parts
        while true {
            var request = pass.request      // every attempt starts from the original request
            // The route's scope first, then the global interceptors.
            if let ended = parts._withUnsafeGuaranteedRef({ intercept(&request, $0.requestLeaves, named: $0.names) })
                ?? globalRef._withUnsafeGuaranteedRef({ intercept(&request, $0.requestLeaves, named: nil) }) {
                return (.done(ended), request, Response())
            }
            let downstream: Downstream
            do {
                var attempt = Attempt(routeID: pass.routeID, parts: parts, allowed: pass.allowed)
                downstream = try run(&attempt, request)
            } catch {
                return (.done(.error(message(error))), request, Response())
            }
            switch downstream.outcome {
            case .completed: return (.done(.ok), request, downstream.response)
            case .notFound: return (.done(.notFound), request, downstream.response)
            case .methodNotAllowed(let allowed): return (.done(.methodNotAllowed(allowed: allowed)), request, downstream.response)
            case .stopped: return (.done(.stopped), request, downstream.response)
            case .guarded: return (.done(.guarded), request, Response())
            case .aborted(let reason): return (.done(.aborted(reason)), request, Response())
            case .redirect(let uri): return (.redirect(uri), request, Response())
            case .retry:
                retries += 1
                if retries > global.retryLimit {
                    log.ran(.retry, uri: request.uri, "refused: more than \(global.retryLimit) retries")
                    return (.done(.retryLimit), request, downstream.response)
                }
                log.ran(.retry, uri: request.uri, "attempt \(retries + 1)")
            }
        }
    }

    /// Stage 2: runs `leaves` on `request`; returns how the resolve ends if one aborts or fails.
    /// `names` are the route's stage names for a route's leaves, nil for the global ones.
    private func intercept(_ request: inout Request, _ leaves: [RequestInterceptor.Leaf], named names: StageNames?) -> ResolveStatus? {
        if leaves.isEmpty { return nil }
        let scope = names.map { log.scope(of: $0) } ?? -1
        for i in leaves.indices {   // by index: `enumerated()` counted a reference to each leaf
            let subject = TraceLog.Subject.requestLeaf(scope: Int32(scope), Int32(i))
            do {
                // Borrowed: read plainly, the leaf would be retained around the call. (Through a
                // generic helper taking it as an argument, too.)
                switch try Unmanaged.passUnretained(leaves[i]).withGuaranteedRef({ (leaf) throws(CallbackError) in try leaf.run(&request) }) {
                case .proceed:
                    log.ran(.requestInterceptor, subject, .proceed)
                case .abort(let reason):
                    log.ran(.requestInterceptor, subject, "abort: \(reason)")
                    return .aborted(reason)
                }
            } catch {
                log.ran(.requestInterceptor, subject, "error: \(message(error))")
                return .error(message(error))
            }
        }
        return nil
    }

    /// Stages 3 to 6 of `attempt`, open (its chains may call `next`) while they run.
    private func run(_ attempt: inout Attempt, _ request: Request) throws(CallbackError) -> Downstream {
        lastAttempt &+= 1
        let serial = lastAttempt
        openAttempt = serial
        defer { openAttempt = 0 }
        return try withUnsafeMutablePointer(to: &attempt) { (p) throws(CallbackError) in try filter(0, request, p, serial) }
    }

    /// Stage 3: filter `index` of the attempt at `attempt` (whose serial number is `serial`) and,
    /// through its chain, the rest.
    private func filter(_ index: Int, _ request: Request, _ attempt: UnsafeMutablePointer<Attempt>, _ serial: Int) throws(CallbackError) -> Downstream {
        guard index < global.filters.count else { return try terminal(request, attempt.pointee) }
        let result: FilterResult
        do {
            let chain = FilterChain(run: self, index: index, attempt: attempt, serial: serial)
            result = try globalRef.withGuaranteedRef { global throws(CallbackError) in
                try Unmanaged.passUnretained(global.filters[index].leaf).withGuaranteedRef { (leaf) throws(CallbackError) in try run(leaf.run, chain, request) }
            }
        } catch {
            log.ran(.filter, .filter(index), "error: \(message(error))")
            throw error
        }
        if case .proceed(let downstream) = result { return downstream }
        // Stopping or redirecting after `next` would end a request whose destination already ran.
        if attempt.pointee.hasCalledNext(index) {
            let decision = switch result { case .stop, .respond: "stop"; default: "redirect" }
            log.ran(.filter, .filter(index), "error: \(decision) after next")
            throw InterlockError(.callback, "filter '\(global.filters[index].name)' called next and then returned \(decision); "
                                 + "a filter that calls next passes on what it gave (the destination already ran)")
        }
        switch result {
        case .proceed(let downstream):
            return downstream
        case .stop:
            log.ran(.filter, .filter(index), .stop)
            return Downstream(outcome: .stopped, response: Response())
        case .respond(let response):
            log.ran(.filter, .filter(index), .stop)
            return Downstream(outcome: .stopped, response: response)
        case .redirect(let uri):
            log.ran(.filter, .filter(index), "redirect \(uri)")
            return Downstream(outcome: .redirect(uri), response: Response())
        case .redirectToRoute(let name, let parameters):
            let uri: String
            do { uri = try router.url(for: name, parameters: parameters) } catch {
                log.ran(.filter, .filter(index), "error: \(message(error))")     // it ran: the trace says so
                throw error
            }
            log.ran(.filter, .filter(index), "redirect \(uri)")
            return Downstream(outcome: .redirect(uri), response: Response())
        }
    }

    /// Runs a filter (passed as an argument, the closure is borrowed, not copied).
    private func run(_ filter: (Request, FilterChain) throws(CallbackError) -> FilterResult, _ chain: FilterChain, _ request: Request) throws(CallbackError) -> FilterResult {
        try filter(request, chain)
    }

    /// Filter `index` of the attempt at `attempt`, whose serial number is `serial`, called
    /// `next`: the filters after it, or the terminal stages. Once per filter per attempt, and
    /// only while the attempt runs (`attempt` is read only then).
    func next(after index: Int, attempt: UnsafeMutablePointer<Attempt>, serial: Int, _ request: Request) throws(CallbackError) -> Downstream {
        guard serial == openAttempt else {
            throw InterlockError(.callback, "filter '\(global.filters[index].name)' called next after its request was resolved; nothing ran")
        }
        if attempt.pointee.hasCalledNext(index) {
            throw InterlockError(.callback, "filter '\(global.filters[index].name)' called next twice; the rest of the chain ran once")
        }
        attempt.pointee.markCalledNext(index)
        log.ran(.filter, .filter(index), .proceed)
        return try filter(index + 1, request, attempt, serial)
    }

    /// Stages 4 to 6 of `attempt`: guard, destination, response interceptors.
    private func terminal(_ request: Request, _ attempt: borrowing Attempt) throws(CallbackError) -> Downstream {
        // The route and the pass's parts are borrowed, not copied: the request holds the one and
        // the pass the other until the stages end. A filter may have changed the request's
        // route: then what runs around it is looked up again.
        try request.withRoute { route throws(CallbackError) in
            let id = route?.id ?? 0
            if id == attempt.routeID {
                return try attempt.parts.withGuaranteedRef { parts throws(CallbackError) in try terminal(request, route, parts, allowed: attempt.allowed) }
            }
            var parts = id == 0 ? noParts : parts(of: id, on: router)
            if let route, !sameRevision(parts, route) {
                parts = currentParts(of: id, on: router)    // this run's pipeline predates the route's pattern
            }
            return try parts.withGuaranteedRef { parts throws(CallbackError) in try terminal(request, route, parts, allowed: attempt.allowed) }
        }
    }

    /// Stages 4 to 6 with `parts` around `route`; `allowed` lists the methods a 405 names.
    private func terminal(_ request: Request, _ route: Route?, _ parts: RouteParts, allowed: [String]?) throws(CallbackError) -> Downstream {
        let named = log.subject(route: route)   // the guard's and destination's entries
        var response = Response()
        if route != nil {
            if let routeGuard = parts.routeGuard {
                let ok: Bool
                do { ok = try routeGuard(request) } catch {
                    log.ran(.guard, named, "error: \(message(error))")
                    throw error
                }
                log.ran(.guard, named, ok ? .allow : .refuse)
                if !ok {
                    router.setPendingLink(PendingLink(uri: request.uri, method: method))
                    return Downstream(outcome: .guarded, response: Response())
                }
            }
            try run(parts.destination, request, &response, named)
        } else if let allowed {
            return Downstream(outcome: .methodNotAllowed(allowed: allowed), response: .methodNotAllowed(allowed))
        } else if global.defaultDestination != nil {
            try run(global.defaultDestination, request, &response, named)
        } else {
            return Downstream(outcome: .notFound, response: .notFound)
        }
        // The global response interceptors first, then the route's scope.
        var retry = false
        var aborted = try globalRef.withGuaranteedRef({ (global) throws(CallbackError) in try intercept(&response, request, global.responseLeaves, named: nil, retry: &retry) })
        if aborted == nil { aborted = try intercept(&response, request, parts.responseLeaves, named: parts.names, retry: &retry) }
        if let aborted {
            return Downstream(outcome: .aborted(aborted), response: Response())
        }
        // The C and Python doors refuse such a status when it is set; a Swift callback's is caught here.
        guard Response.validStatuses.contains(response.status) else {
            throw InterlockError(.callback, "response status \(response.status) is outside "
                                 + "\(Response.validStatuses.lowerBound)...\(Response.validStatuses.upperBound)")
        }
        return Downstream(outcome: retry ? .retry : .completed, response: response)
    }

    /// Stage 5: runs `destination`, if there is one, on `response`. (Passed as an argument, the
    /// closure is borrowed from what holds it rather than copied; so it is called through the
    /// optional, since binding it to a name would copy it.)
    private func run(_ destination: Destination?, _ request: Request, _ response: inout Response, _ named: TraceLog.Subject) throws(CallbackError) {
        if destination == nil { return }
        do { try destination?(request, &response) } catch {
            log.ran(.destination, named, "error: \(message(error))")
            throw error
        }
        log.ran(.destination, named, .ran)
    }

    /// Stage 6: runs `leaves` on `response`; returns the reason if one aborts.
    private func intercept(_ response: inout Response, _ request: Request, _ leaves: [ResponseInterceptor.Leaf],
                           named names: StageNames?, retry: inout Bool) throws(CallbackError) -> String? {
        if leaves.isEmpty { return nil }
        let scope = names.map { log.scope(of: $0) } ?? -1
        for i in leaves.indices {   // by index: `enumerated()` counted a reference to each leaf
            let subject = TraceLog.Subject.responseLeaf(scope: Int32(scope), Int32(i))
            let decision: ResponseDecision
            do { decision = try Unmanaged.passUnretained(leaves[i]).withGuaranteedRef { (leaf) throws(CallbackError) in try leaf.run(&response, request) } } catch {
                log.ran(.responseInterceptor, subject, "error: \(message(error))")
                throw error
            }
            switch decision {
            case .proceed:
                log.ran(.responseInterceptor, subject, .proceed)
            case .retry:
                log.ran(.responseInterceptor, subject, .retry)
                retry = true
            case .abort(let reason):
                log.ran(.responseInterceptor, subject, "abort: \(reason)")
                return reason
            }
        }
        return nil
    }

    private func message(_ error: CallbackError) -> String { describe(error) }
}
