// URL generation: a named route and parameter values give back a URI that resolves to that route
// with those values (unless a more specific route claims it). Values are escaped the way the
// normalizer leaves paths, so the constraint sees what a lookup would see.

extension Router {
    /// Builds the URI of the route named `name`. Optional parts are filled when all their
    /// parameters are given and dropped otherwise; parameters the route does not use are ignored.
    /// Throws `.unknownRoute` for an unknown name and `.invalidArgument` naming a missing, empty or
    /// invalid parameter (one its constraint refuses).
    public func url(for name: String, parameters: [String: String] = [:]) throws(InterlockError) -> String {
        guard let route = route(named: name) else {
            throw InterlockError(.unknownRoute, "no route is named '\(name)'")
        }
        return try URLBuilder.build(route, parameters)
    }
}

enum URLBuilder {
    static func build(_ route: Route, _ parameters: [String: String]) throws(InterlockError) -> String {
        let label = route.name ?? route.pattern.source
        // The fullest variant whose parameters are all given.
        var chosen: [PatternSegment]? = nil
        for variant in route.pattern.variants
        where variant.allSatisfy({ $0.parameterName.map { parameters[$0] != nil } ?? true }) {
            if chosen == nil || variant.count > chosen!.count { chosen = variant }
        }
        guard let variant = chosen else {
            let missing = route.pattern.variants[0].compactMap(\.parameterName).first { parameters[$0] == nil } ?? "?"
            throw InterlockError(.invalidArgument, "missing parameter '\(missing)' for route '\(label)'")
        }
        var path: [UInt8] = []
        for segment in variant {
            switch segment {
            case .literal(let bytes):
                path.append(slash)
                path += bytes
            case .parameter(let name, let constraint):
                let value = parameters[name]!
                let encoded = try encodeSegment(value, name: name, label: label)
                if let constraint, !ConstraintCheck.matches(constraint, encoded) {
                    throw InterlockError(.invalidArgument, "parameter '\(name)' = '\(value)' does not match its constraint (\(constraint)) in route '\(label)'")
                }
                path.append(slash)
                path += encoded
            case .catchAll(let name):
                let value = parameters[name]!
                if value.isEmpty { continue }
                for piece in value.split(separator: "/", omittingEmptySubsequences: false) {
                    path.append(slash)
                    path += try encodeSegment(String(piece), name: name, label: label)
                }
            }
        }
        let p = route.pattern
        let text = path.string
        switch (p.scheme, p.host) {
        case (let scheme?, let host?): return "\(scheme)://\(host)\(text.isEmpty ? "/" : text)"
        case (let scheme?, nil): return "\(scheme)://\(text.isEmpty ? "" : String(text.dropFirst()))"
        default: return text.isEmpty ? "/" : text
        }
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
