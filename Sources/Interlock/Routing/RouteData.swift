import Synchronization

// The host's data on a route (`Router.setData(_:for:)`, a route file's `key=value` pairs).

/// The host's value for a route, boxed: a request and a route's parts hold it by one reference
/// (held as an existential, it made every request's copy and release go through generic code).
final class RouteData: Sendable {
    let value: any Sendable
    /// C copies of a string map's values (a route file's data), made when first asked for.
    private let texts = Mutex<[String: CText]>([:])
    init(_ value: any Sendable) { self.value = value }

    /// The value of `key` as a C string, when the data is a `[String: String]` (a route file's):
    /// valid while this data lives.
    func cString(_ key: String) -> UnsafeMutablePointer<CChar>? {
        guard let values = value as? [String: String], let v = values[key] else { return nil }
        return texts.withLock { t in
            if let made = t[key] { return made.pointer }
            let made = CText(v)
            t[key] = made
            return made.pointer
        }
    }
}
