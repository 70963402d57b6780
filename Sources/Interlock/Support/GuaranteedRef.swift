extension Unmanaged {
    /// `_withUnsafeGuaranteedRef` for a body with typed throws: the standard library's rethrows
    /// any error, which Embedded Swift cannot carry (the C library's build).
    ///
    /// - Parameter body: What to do with the object, borrowed (no reference counted on it).
    /// - Returns: What `body` returns.
    @inlinable @inline(__always)
    package func withGuaranteedRef<R, E: Error>(_ body: (Instance) throws(E) -> R) throws(E) -> R {
        try _withUnsafeGuaranteedRef { object -> Result<R, E> in
            do throws(E) { return .success(try body(object)) } catch { return .failure(error) }
        }.get()
    }
}
