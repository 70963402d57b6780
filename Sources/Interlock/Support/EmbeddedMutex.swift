#if hasFeature(Embedded)
import CLibc

/// Synchronization's `Mutex`, for the embedded build of the C library: Embedded Swift's
/// Synchronization module has the atomics only (no `Mutex` on any target), so this stands in for
/// it with the same name and the calls the core makes, over a `pthread_mutex_t`. The SwiftPM
/// build uses Synchronization's own.
package struct Mutex<Value: ~Copyable>: ~Copyable {
    // Both on the heap: a pthread mutex must not move, and the struct may.
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// A lock guarding `initialValue`.
    ///
    /// - Parameter initialValue: The value the lock guards.
    package init(_ initialValue: consuming sending Value) {
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    ///
    /// - Parameter body: What to do with the value, which it may change.
    /// - Returns: What `body` returns.
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value.pointee)
    }

    /// Runs `body` with the value if the lock is free, without waiting for it.
    ///
    /// - Parameter body: What to do with the value, which it may change.
    /// - Returns: What `body` returns, or nil if another thread holds the lock.
    package borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(lock) == 0 else { return nil }
        defer { pthread_mutex_unlock(lock) }
        return try body(&value.pointee)
    }
}

extension Mutex: @unchecked Sendable where Value: ~Copyable {}
#endif
