/// What one lookup found; the details are on the ``Matcher``.
public enum MatchOutcome: Sendable {
    /// A route matched: read it with ``Matcher/route``, ``Matcher/routeID`` and the matcher's
    /// parameters, or as a value with ``Matcher/routeMatch()``.
    case matched
    /// No route matches the URI under any method.
    case notFound
    /// Routes match the path, but only under other methods: ``Matcher/allowedMethods`` lists them.
    case methodNotAllowed
}
