/// The state of one resolve: a map from string keys to values, shared by every interceptor,
/// filter, guard and destination of that resolve, across its redirects and retries, and never by
/// two resolves. Prefix keys with a reverse-DNS owner name (`com.example.retry-count`) so that
/// independent components do not collide.
public final class ResolveState: @unchecked Sendable {
    /// The values by key.
    public var values: [String: StateValue] = [:]

    /// An empty state.
    public init() {}

    /// The value for `key`, if any; setting nil removes it.
    ///
    /// - Parameter key: The key, prefixed with its owner's reverse-DNS name.
    /// - Returns: The value, or nil if the key has none.
    public subscript(_ key: String) -> StateValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The value for `key` if it is a string.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value, or nil if the key has none or its value is not a `String`.
    public func string(_ key: String) -> String? { values[key] as? String }
}
