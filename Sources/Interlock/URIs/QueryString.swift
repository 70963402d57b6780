/// A query string split into key-value pairs: split on "&", "+" is a space, keys and values
/// percent-decoded, every value of a repeated key kept in order, a key without "=" has "".
public struct QueryItems: Sendable, Equatable, Sequence {
    /// The pairs in the order they came.
    public private(set) var items: [(key: String, value: String)]

    /// Parses a raw (still encoded) query string.
    ///
    /// - Parameter raw: The query's bytes, after the `?` and before any `#`.
    public init(parsing raw: UnsafeBufferPointer<UInt8>) {
        items = []
        var start = 0
        while start <= raw.count {
            var end = start
            while end < raw.count, raw[end] != 0x26 { end += 1 }
            if end > start {
                var eq = start
                while eq < end, raw[eq] != 0x3D { eq += 1 }
                let key = percentDecoded(UnsafeBufferPointer(rebasing: raw[start..<eq]), plusIsSpace: true)
                let value = eq < end ? percentDecoded(UnsafeBufferPointer(rebasing: raw[(eq + 1)..<end]), plusIsSpace: true) : ""
                items.append((key, value))
            }
            start = end + 1
        }
    }

    /// An empty query.
    public init() { items = [] }

    /// The first value of `key`, if present.
    ///
    /// - Parameter key: The decoded key.
    /// - Returns: The first value of that key, or nil if the query has none.
    public subscript(_ key: String) -> String? { items.first { $0.key == key }?.value }

    /// Every value of `key`, in order.
    ///
    /// - Parameter key: The decoded key.
    /// - Returns: Every value of that key, in the order they came; empty if it has none.
    public func all(_ key: String) -> [String] { items.filter { $0.key == key }.map({ $0.value }) }

    /// The number of pairs (`a=1&a=2&b` has three).
    public var count: Int { items.count }

    /// An iterator over the pairs, in the order they came.
    ///
    /// - Returns: The iterator.
    public func makeIterator() -> IndexingIterator<[(key: String, value: String)]> { items.makeIterator() }

    /// Whether two queries have the same pairs in the same order.
    ///
    /// - Parameters:
    ///   - a: A query.
    ///   - b: Another query.
    /// - Returns: true if they are equal.
    public static func == (a: QueryItems, b: QueryItems) -> Bool {
        a.items.map({ $0.key }) == b.items.map({ $0.key }) && a.items.map({ $0.value }) == b.items.map({ $0.value })
    }
}
