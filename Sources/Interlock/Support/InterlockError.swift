/// What kind of problem an ``InterlockError`` reports (the C interface gives each its `ILK_E*`
/// status code).
public enum ErrorCode: Sendable {
    /// An argument is missing or out of its domain.
    case invalidArgument
    /// A route pattern is malformed.
    case pattern
    /// A route conflicts with one registered earlier.
    case conflict
    /// A URI is malformed.
    case uri
    /// Memory could not be had.
    case noMemory
    /// A size or work limit was reached (URI length, route count, PCRE2 match limit).
    case limit
    /// No route has the given name or id.
    case unknownRoute
    /// A callback reported an error.
    case callback
}

/// An error as a value: what went wrong, in words, and where (a byte offset) when there is a place.
public struct InterlockError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public var code: ErrorCode
    /// A sentence naming the problem, for people.
    public var message: String
    /// The byte offset in the input (pattern or URI) where the problem is, if there is one.
    public var offset: Int?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of problem.
    ///   - message: A sentence naming the problem, for people.
    ///   - offset: The byte offset in the input where the problem is, or nil if it has no place.
    public init(_ code: ErrorCode, _ message: String, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// The message, followed by " (at byte N)" when the error has an offset.
    public var description: String {
        if let offset { return "\(message) (at byte \(offset))" }
        return message
    }
}
