// What differs between the two builds of this source: the Swift module (SwiftPM) and the C
// library, compiled with Embedded Swift, which has no existentials of non-class protocols and no
// untyped throws. The rest of the core is written once against these names.

#if hasFeature(Embedded)
/// What a filter, interceptor, guard or destination throws: any error in Swift; the embedded C
/// library's callbacks report an ``InterlockError``.
public typealias CallbackError = InterlockError
/// A value the host attaches to a route (``Router/setData(_:for:)``): any value in Swift; an
/// object in the embedded C library.
public typealias HostValue = AnyObject & Sendable
/// A value in a resolve's ``ResolveState``: any value in Swift; a string in the embedded C library.
public typealias StateValue = String
#else
/// What a filter, interceptor, guard or destination throws: any error.
public typealias CallbackError = any Error
/// A value the host attaches to a route (``Router/setData(_:for:)``): any value.
public typealias HostValue = any Sendable
/// A value in a resolve's ``ResolveState``: any value.
public typealias StateValue = any Sendable
#endif

/// A callback's error in words, for the trace and the resolve's result.
///
/// - Parameter error: The error.
/// - Returns: An ``InterlockError``'s description, or the error as `String(describing:)` gives it.
package func describe(_ error: CallbackError) -> String {
    #if hasFeature(Embedded)
    return error.description
    #else
    if let e = error as? InterlockError { return e.description }
    return String(describing: error)
    #endif
}

/// The name a filter or interceptor made from an object gets when it is given none: the
/// object's type name ("stage" in the embedded C library, which keeps no type names and makes no
/// stage from a Swift object).
///
/// - Parameter object: The filter or interceptor.
/// - Returns: The name.
func typeName<T>(of object: T) -> String {
    #if hasFeature(Embedded)
    return "stage"
    #else
    return String(describing: type(of: object))
    #endif
}

/// A route file's `key=value` pairs as the value ``Router/data(for:)`` gives back: the dictionary
/// itself in Swift, boxed in an object in the embedded C library (whose data are objects).
///
/// - Parameter pairs: The pairs.
/// - Returns: The route's data value.
func hostValue(_ pairs: [String: String]) -> HostValue {
    #if hasFeature(Embedded)
    return StringPairs(pairs)
    #else
    return pairs
    #endif
}

#if hasFeature(Embedded)
/// A route file's pairs as an object, for the embedded C library's route data.
final class StringPairs: Sendable {
    let pairs: [String: String]
    init(_ pairs: [String: String]) { self.pairs = pairs }
}
#endif
