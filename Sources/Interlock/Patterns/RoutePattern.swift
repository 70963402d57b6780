// A route pattern, parsed: which requests it accepts (method, scheme, host) and the shapes of path
// it matches. Optional parts are expanded into variants, one path shape each, so that the matcher
// only ever sees plain sequences of segments.

/// One segment of a route's path.
public enum PatternSegment: Hashable, Sendable {
    /// A literal segment, as normalized path bytes (escapes of unreserved characters decoded, other
    /// escapes in upper-case hex). An empty literal is the trailing slash of a strict router.
    case literal([UInt8])
    /// `:name` (constraint nil) or `:name(REGEX)`: one whole segment.
    case parameter(name: String, constraint: String?)
    /// `*name` or `*`: the rest of the path, zero or more segments.
    case catchAll(name: String)
    /// Literal text and parameters in one segment (`:name.json`, `user_:id`,
    /// `v:major(\d+).:minor(\d+)`), or a catch-all after literal text (`v*path`, last only): at
    /// least two pieces, two parameters never side by side.
    case mixed([SegmentPiece])

    /// The parameter names this segment binds, in order.
    public var parameterNames: [String] {
        switch self {
        case .literal: return []
        case .parameter(let name, _), .catchAll(let name): return [name]
        case .mixed(let pieces): return pieces.compactMap({ $0.parameterName })
        }
    }
}

/// One piece of a segment that mixes literal text and parameters.
public enum SegmentPiece: Hashable, Sendable {
    /// Literal text, as normalized path bytes (as ``PatternSegment/literal(_:)``).
    case text([UInt8])
    /// `:name` or `:name(REGEX)`: at least one byte, ending at the first occurrence of the text
    /// after it (the segment's last text ends the segment); the constraint judges that split.
    case parameter(name: String, constraint: String?)
    /// `*name` or `*`: the rest of the path, after the text before it.
    case catchAll(name: String)

    /// The parameter name this piece binds, if any.
    public var parameterName: String? {
        switch self {
        case .text: return nil
        case .parameter(let name, _), .catchAll(let name): return name
        }
    }
}

/// A parsed route pattern such as `GET /repos/:owner/:repo` or `myapp://user/:id(\d+)`.
public struct RoutePattern: Sendable, Equatable {
    /// The pattern as written.
    public let source: String
    /// The method the route accepts, or nil for any method.
    public let method: String?
    /// The scheme the route accepts (lower case), or nil for any scheme.
    public let scheme: String?
    /// The host the route accepts (lower case), or nil for any host; `*.` first for a wildcard of
    /// one or more whole labels (`*.example.com` accepts `api.example.com`, not `example.com`).
    public let host: String?
    /// The port the route accepts (the URI's, or its scheme's default when it gives none), or nil
    /// for any port.
    public let port: Int?
    /// Every parameter name, in the order written.
    public let parameterNames: [String]
    /// The path shapes, when kept; a registered route keeps none (the route tree holds its
    /// segments) and parses its source again when asked, which saves hundreds of bytes a route.
    private let storedVariants: [[PatternSegment]]?
    private let strictSlash: Bool
    /// Whether optional parts give it more than one path shape (kept when the variants are not).
    let hasOptionalParts: Bool

    init(source: String, method: String?, scheme: String?, host: String?, port: Int?, variants: [[PatternSegment]],
         parameterNames: [String], strictSlash: Bool) {
        self.source = source; self.method = method; self.scheme = scheme; self.host = host; self.port = port
        self.storedVariants = variants; self.parameterNames = parameterNames; self.strictSlash = strictSlash
        hasOptionalParts = variants.count > 1
    }

    private init(slimming p: RoutePattern, parameterNames: [String]) {
        source = p.source; method = p.method; scheme = p.scheme; host = p.host; port = p.port
        self.parameterNames = parameterNames; storedVariants = nil; strictSlash = p.strictSlash
        hasOptionalParts = p.hasOptionalParts
    }

    /// Every path shape the pattern matches: one per combination of its optional parts.
    public var variants: [[PatternSegment]] {
        if let storedVariants { return storedVariants }
        // The source parsed when the route was added, so it parses again (an empty list otherwise).
        return (try? PatternParser.acceptedVariants(source, strictSlash: strictSlash)) ?? []
    }

    /// The same pattern without its variants kept, and with `parameterNames` (an equal, shared array).
    func slimmed(parameterNames: [String]) -> RoutePattern { RoutePattern(slimming: self, parameterNames: parameterNames) }

    /// Whether the host is a wildcard (`*.example.com`).
    public var hostIsWildcard: Bool { host?.hasPrefix("*.") == true }

    /// Whether two patterns are the same: same source, method, scheme, host, port, parameter names and
    /// path shapes (whether or not either keeps its variants).
    ///
    /// - Parameters:
    ///   - a: A pattern.
    ///   - b: Another pattern.
    /// - Returns: true if they are equal.
    public static func == (a: RoutePattern, b: RoutePattern) -> Bool {
        a.source == b.source && a.method == b.method && a.scheme == b.scheme && a.host == b.host && a.port == b.port
            && a.parameterNames == b.parameterNames && a.variants == b.variants
    }
}
