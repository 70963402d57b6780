import CLibc

/// One object per thread, made on first use and released when the thread ends (Swift has no
/// thread-local storage without Foundation; this is a pthread key).
final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    private var key = pthread_key_t()
    private let make: () -> Value

    init(_ make: @escaping () -> Value) {
        self.make = make
        pthread_key_create(&key) { p in
            if let p { Unmanaged<AnyObject>.fromOpaque(p).release() }
        }
    }

    /// Runs `body` with this thread's object, borrowed: the thread's key holds it for as long as
    /// the thread runs, so the call takes no reference of its own (two atomic operations a call).
    func with<R, E: Error>(_ body: (Value) throws(E) -> R) throws(E) -> R {
        let p = pthread_getspecific(key) ?? Unmanaged.passUnretained(value).toOpaque()
        return try Unmanaged<Value>.fromOpaque(p).withGuaranteedRef(body)
    }

    /// This thread's object.
    var value: Value {
        if let p = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(p).takeUnretainedValue()
        }
        let v = make()
        pthread_setspecific(key, Unmanaged.passRetained(v).toOpaque())
        return v
    }
}
