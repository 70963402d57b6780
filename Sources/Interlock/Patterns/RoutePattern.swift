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

    /// The parameter name this segment binds, if any.
    public var parameterName: String? {
        switch self {
        case .literal: return nil
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
    /// The host the route accepts (lower case), or nil for any host.
    public let host: String?
    /// Every path shape the pattern matches: one per combination of its optional parts.
    public let variants: [[PatternSegment]]
    /// Every parameter name, in the order written.
    public let parameterNames: [String]
}
