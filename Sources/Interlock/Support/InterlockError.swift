/// What kind of problem an ``InterlockError`` reports. The raw values are the C ABI's status codes.
public enum ErrorCode: Int32, Sendable {
    /// An argument is missing or out of its domain.
    case invalidArgument = -1
    /// A route pattern is malformed.
    case pattern = -2
    /// A route conflicts with one registered earlier.
    case conflict = -3
    /// A URI is malformed.
    case uri = -4
    /// Memory could not be had.
    case noMemory = -5
    /// A size or work limit was reached (URI length, route count, PCRE2 match limit).
    case limit = -6
    /// No route has the given name or id.
    case unknownRoute = -7
    /// A callback reported an error.
    case callback = -8
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
