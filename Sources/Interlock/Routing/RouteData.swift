import Synchronization

// The host's data on a route (`Router.setData(_:for:)`, a route file's `key=value` pairs).

/// The host's value for a route, boxed: a request and a route's parts hold it by one reference
/// (held as an existential, it made every request's copy and release go through generic code).
final class RouteData: Sendable {
    let value: HostValue
    /// A route file's `key=value` pairs, which `value` holds too; nil for other data.
    private let pairs: [String: String]?
    /// C copies of a string map's values (a route file's data), made when first asked for.
    private let texts = Mutex<[String: CText]>([:])
    init(_ value: HostValue) { self.value = value; pairs = nil }
    init(pairs: [String: String]) { value = hostValue(pairs); self.pairs = pairs }

    /// The value of `key` as a C string, when the data is a route file's `key=value` pairs:
    /// valid while this data lives.
    func cString(_ key: String) -> UnsafeMutablePointer<CChar>? {
        guard let v = pairs?[key] else { return nil }
        return texts.withLock { t in
            if let made = t[key] { return made.pointer }
            let made = CText(v)
            t[key] = made
            return made.pointer
        }
    }
}
