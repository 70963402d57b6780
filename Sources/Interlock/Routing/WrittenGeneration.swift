import CLibc

// Read-your-writes for a table compiled outside the lock. While one thread compiles, lookups on
// others answer from the previous table; but a thread that has just changed a router must see its
// change. Each thread notes the newest generation it made, on any router: the previous table may
// answer a lookup only if it is at least that new. (Generations of different routers are
// compared too, which can only make a thread wait when it need not, never answer from a table
// older than its own change.)

/// The newest generation the current thread made on any router.
enum WrittenGeneration {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The newest generation this thread made (0 if none).
    static var current: UInt64 {
        UInt64(UInt(bitPattern: pthread_getspecific(key)))
    }

    /// Notes that this thread made generation `g`.
    /// - Parameter g: the generation its change produced.
    static func note(_ g: UInt64) {
        if g > current { pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(g))) }
    }
}
