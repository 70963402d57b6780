#if hasFeature(Embedded)
import CLibc

/// The random bytes Embedded Swift's standard library asks for, from `getrandom` (glibc 2.25).
/// The standard library calls `arc4random_buf`, which glibc has only from 2.36; defined here (and
/// not exported: see interlock.map), the library asks for no newer glibc than the SwiftPM build
/// did (2.34, the wheel's manylinux tag). Its one caller in the library is the hash seed, which
/// the Swift runtime makes 0 under `SWIFT_DETERMINISTIC_HASHING=1` and Embedded Swift's does
/// not: zeros here then, so that instruction counts (benchmarks/instructions.py) repeat exactly.
///
/// - Parameters:
///   - buffer: Where to write the bytes.
///   - count: How many bytes to write.
@_cdecl("arc4random_buf")
func arc4random_buf(_ buffer: UnsafeMutableRawPointer, _ count: Int) {
    if let flag = getenv("SWIFT_DETERMINISTIC_HASHING"), strcmp(flag, "1") == 0 {
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        return
    }
    var filled = 0
    while filled < count {
        let n = getrandom(buffer + filled, count - filled, 0)
        if n > 0 {
            filled += n
        } else if n < 0 && interlock_errno() == EINTR {
            continue
        } else {
            break
        }
    }
    // No getrandom (a kernel older than 3.17): the clock and the address, mixed (splitmix64).
    // Enough for seeding hash tables, which is all the library asks of it.
    guard filled < count else { return }
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    var state = UInt64(truncatingIfNeeded: now.tv_nsec) ^ UInt64(truncatingIfNeeded: now.tv_sec) << 32
        ^ UInt64(UInt(bitPattern: buffer))
    while filled < count {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        for i in 0..<8 where filled < count {
            buffer.storeBytes(of: UInt8(truncatingIfNeeded: z >> (8 * UInt64(i))), toByteOffset: filled, as: UInt8.self)
            filled += 1
        }
    }
}
#endif
