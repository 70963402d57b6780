// URL generation: a named route and parameter values give back a URI that resolves to that route
// with those values (unless a more specific route claims it). Values are escaped the way the
// normalizer leaves paths, so the constraint sees what a lookup would see.
import Synchronization

extension Router {
    /// Builds the URI of the route named `name`, from the variant that holds exactly the
    /// parameters given: an optional part is built when it holds a given parameter (itself or in a
    /// part nested in it), and left out otherwise, a part without parameters too (`/p(/reviews)`
    /// builds `/p`; `/p(/reviews(/:page))` builds `/p` without `page`, `/p/reviews/2` with it).
    /// - Parameters:
    ///   - name: the route's name.
    ///   - parameters: a value for each parameter to fill (and `host` for a wildcard host).
    /// - Returns: a URI that this router resolves to the route with these values, or to a more
    ///   specific route that claims it.
    /// - Throws: `.unknownRoute` for an unknown name; `.invalidArgument` naming a missing, empty,
    ///   invalid (one its constraint refuses) or unknown parameter, or one whose optional part
    ///   needs another that is not given, or values that make a URI the route reads otherwise
    ///   (`/o(/:a)(/:b)` given only `a` builds `/o/10`, which it reads as `b`; `/dl/:file.:ext`
    ///   given `file` = `a.b`); `.limit` if checking a value against its constraint, or reading
    ///   the URI back, ran past the router's match limit.
    public func url(for name: String, parameters: [String: String] = [:]) throws(InterlockError) -> String {
        guard let route = route(named: name) else {
            throw InterlockError(.unknownRoute, "no route is named '\(name)'")
        }
        let (uri, filled, ambiguous) = try URLBuilder.build(route, parameters, limit: matchLimit.load(ordering: .relaxed))
        // Optional parts can make one route read a URI built from one variant as another (two
        // variants of one shape, or a value equal to an optional literal), and a segment mixing
        // text and parameters can read values that hold its text otherwise (`/:file.:ext` given
        // file = 'a.b'): the URI is read back to make sure it carries the values to the route
        // (another route may claim it).
        guard ambiguous, !filled.isEmpty, case .matched(let m) = try match(uri, method: route.pattern.method),
              m.routeID == route.id else { return uri }
        let misread = m.parameters.first { parameters[$0.name] != $0.value }
        let read = misread.map { "as \($0.name) = '\($0.value)'" } ?? filled.first { m[$0] == nil }.map { "without \($0)" }
        if let read {
            let label = route.name ?? route.pattern.source
            // The cause: a value holding the text beside it in its segment (the route reads the
            // value's parameter, or a neighbour in that segment, otherwise), or else the optional
            // parts (the URI is another variant's).
            let inSegment = URLBuilder.mixedNames(route, parameters)
            let cause = misread.map { inSegment.contains($0.name) } ?? false
                ? "a value holds text that separates the parameters of its segment"
                : "its optional parts cannot tell these values apart"
            throw InterlockError(.invalidArgument, "route '\(label)' reads '\(uri)', built from \(URLBuilder.describe(parameters, of: route)), "
                                 + "\(read): the values make a URI the route reads differently (\(cause))")
        }
        return uri
    }
}

enum URLBuilder {
    /// The URI of `route` with `parameters`, the names it filled, and whether the route may read
    /// it back with other values (it has several variants, or a segment mixing text and parameters).
    static func build(_ route: Route, _ parameters: [String: String], limit: UInt32) throws(InterlockError) -> (String, [String], Bool) {
        let label = route.name ?? route.pattern.source
        let variant = try variant(of: route, for: parameters, label: label)
        var path: [UInt8] = []
        for segment in variant {
            switch segment {
            case .literal(let bytes):
                path.append(slash)
                path += bytes
            case .parameter(let name, let constraint):
                path.append(slash)
                path += try encodedValue(name, constraint, parameters, label: label, limit: limit)
            case .catchAll(let name):
                let value = parameters[name]!
                if value.isEmpty { continue }
                for piece in value.split(separator: "/", omittingEmptySubsequences: false) {
                    path.append(slash)
                    path += try encodeSegment(String(piece), name: name, label: label)
                }
            case .mixed(let pieces):
                path.append(slash)
                let start = path.count
                for piece in pieces {
                    switch piece {
                    case .text(let bytes): path += bytes
                    case .parameter(let name, let constraint):
                        path += try encodedValue(name, constraint, parameters, label: label, limit: limit)
                    case .catchAll(let name):
                        let encoded = try parameters[name]!.split(separator: "/", omittingEmptySubsequences: false).map { piece throws(InterlockError) in
                            piece.isEmpty ? [] : try encodeSegment(String(piece), name: name, label: label)
                        }
                        path += Array(encoded.joined(separator: [slash]))
                    }
                }
                let segment = path[start...]
                if segment.elementsEqual([0x2E]) || segment.elementsEqual([0x2E, 0x2E]) {
                    throw InterlockError(.invalidArgument, "route '\(label)' would have a '\(segment.count == 1 ? "." : "..")' segment: "
                                         + "URIs are normalized without dot segments")
                }
            }
        }
        let p = route.pattern
        let text = path.string
        let uri: String
        switch (p.scheme, p.host) {
        case (let scheme?, var host?):
            if p.hostIsWildcard { host = try wildcardHost(host, parameters["host"], label: label) }
            uri = "\(scheme)://\(host)\(p.port.map { ":\($0)" } ?? "")\(text.isEmpty ? "/" : text)"
        case (let scheme?, nil): uri = "\(scheme)://\(text.isEmpty ? "" : String(text.dropFirst()))"
        default: uri = text.isEmpty ? "/" : text
        }
        let mixed = variant.contains { if case .mixed = $0 { true } else { false } }
        return (uri, variant.flatMap({ $0.parameterNames }), route.pattern.variants.count > 1 || mixed)
    }

    /// The variant of `route` that holds exactly the parameters given, its optional parts
    /// without parameters left out (the one with fewest segments).
    /// - Throws: `.invalidArgument` naming a parameter the route does not have, a required one
    ///   missing, or one whose optional part needs another that is not given.
    private static func variant(of route: Route, for parameters: [String: String], label: String) throws(InterlockError) -> [PatternSegment] {
        let known = Set(route.pattern.parameterNames)
        let wildcardHost = route.pattern.hostIsWildcard
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) && !(wildcardHost && $0 == "host") }) {
            let names = route.pattern.parameterNames + (wildcardHost ? ["host"] : [])
            throw InterlockError(.invalidArgument, "route '\(label)' has no parameter '\(unknown)'"
                                 + (names.isEmpty ? " (it has none)" : " (it has \(names.map { "'\($0)'" }.joined(separator: ", ")))"))
        }
        let variants = route.pattern.variants
        // The names the path takes (a wildcard host's "host" is the origin's).
        let inPath = parameters.keys.filter(known.contains)
        var chosen: [PatternSegment]? = nil
        var fewestMore: (count: Int, more: [String])? = nil
        for variant in variants {
            let names = variant.flatMap({ $0.parameterNames })
            guard inPath.allSatisfy(names.contains) else { continue }
            let more = names.filter { parameters[$0] == nil }
            if more.isEmpty {
                if chosen.map({ variant.count < $0.count }) ?? true { chosen = variant }
            } else if fewestMore.map({ more.count < $0.count }) ?? true {
                fewestMore = (more.count, more)
            }
        }
        if let chosen { return chosen }
        // The parameters every variant has come first: "missing" then says what the route needs.
        if let missing = variants[0].flatMap({ $0.parameterNames }).first(where: { parameters[$0] == nil }) {
            throw InterlockError(.invalidArgument, "missing parameter '\(missing)' for route '\(label)'")
        }
        let more = (fewestMore?.more ?? []).map { "'\($0)'" }.joined(separator: ", ")
        let required = Set(variants[0].flatMap({ $0.parameterNames }))
        let optional = inPath.sorted().filter { !required.contains($0) }.map { "'\($0)'" }.joined(separator: ", ")
        throw InterlockError(.invalidArgument, "route '\(label)' holds \(optional) only in optional parts that also need \(more): "
                             + "give those too, or leave \(optional) out")
    }

    /// The names of the parameters `parameters` gives that sit in a segment of text and
    /// parameters in `route`.
    static func mixedNames(_ route: Route, _ parameters: [String: String]) -> Set<String> {
        var names: Set<String> = []
        for variant in route.pattern.variants {
            for case .mixed(let pieces) in variant {
                for piece in pieces {
                    switch piece {
                    case .parameter(let name, _), .catchAll(let name): names.insert(name)
                    case .text: break
                    }
                }
            }
        }
        return names
    }

    /// The host a URI of a route with a wildcard host (`*.example.com`) is built with: `given`
    /// (the parameter "host"), which must be one or more labels and the suffix.
    private static func wildcardHost(_ pattern: String, _ given: String?, label: String) throws(InterlockError) -> String {
        let suffix = pattern.dropFirst(1)       // ".example.com"
        guard let given else {
            throw InterlockError(.invalidArgument, "route '\(label)' has the wildcard host '\(pattern)': give the host as the parameter 'host'")
        }
        let host = String(decoding: given.utf8.map(lowercased), as: UTF8.self)
        let labels = host.dropLast(suffix.count)
        guard host.hasSuffix(suffix), !labels.isEmpty, !labels.split(separator: ".", omittingEmptySubsequences: false).contains(where: { $0.isEmpty }),
              host.utf8.allSatisfy({ isUnreserved($0) }) else {
            throw InterlockError(.invalidArgument, "host '\(given)' is not one or more labels and '\(suffix)' (route '\(label)')")
        }
        return host
    }

    /// The value of parameter `name`, encoded, checked against its constraint.
    private static func encodedValue(_ name: String, _ constraint: String?, _ parameters: [String: String],
                                     label: String, limit: UInt32) throws(InterlockError) -> [UInt8] {
        let value = parameters[name]!
        let encoded = try encodeSegment(value, name: name, label: label)
        if let constraint, try !ConstraintCheck.matches(constraint, encoded, limit: limit) {
            throw InterlockError(.invalidArgument, "parameter '\(name)' = '\(value)' does not match its constraint (\(constraint)) in route '\(label)'")
        }
        return encoded
    }

    /// The values given for `route`'s parameters, for a message: `a = '10', b = '2'`.
    static func describe(_ parameters: [String: String], of route: Route) -> String {
        route.pattern.parameterNames.compactMap { name in parameters[name].map { "\(name) = '\($0)'" } }.joined(separator: ", ")
    }

    /// A value as one normalized segment: path characters stay, everything else is escaped.
    private static func encodeSegment(_ value: String, name: String, label: String) throws(InterlockError) -> [UInt8] {
        if value.isEmpty {
            throw InterlockError(.invalidArgument, "parameter '\(name)' is empty in route '\(label)': a segment never is")
        }
        if value == "." || value == ".." {
            throw InterlockError(.invalidArgument, "parameter '\(name)' cannot be '\(value)': URIs are normalized without dot segments")
        }
        var out: [UInt8] = []
        for c in value.utf8 {
            if c == 0 { throw InterlockError(.invalidArgument, "parameter '\(name)' contains NUL") }
            if isPathChar(c) && c != percent {
                out.append(c)
            } else {
                out.append(percent); out.append(upperHex[Int(c >> 4)]); out.append(upperHex[Int(c & 15)])
            }
        }
        return out
    }
}
