import Synchronization
import Testing
@testable import Interlock

#if canImport(Glibc)
import Glibc
#endif

/// A compile holds only the tree's lock: while one thread compiles what changed, lookups on other
/// threads answer from the previous table (before the change, never half of it), and answer from
/// the new one once it is published.
@Suite("Compiling outside the lock")
struct CompileOutsideLockTests {
    @Test func lookupsAnswerFromThePreviousTableWhileACompileRuns() throws {
        let router = Router()
        try router.addRoute("/a")
        #expect(try router.match("/a").routeMatch != nil)       // the first table
        try router.addRoute("/b")

        let entered = Atomic<Bool>(false), release = Atomic<Bool>(false)
        router.compileHook = {
            entered.store(true, ordering: .releasing)
            // Held open until the other thread has looked up (bounded, so a regression that
            // makes lookups wait fails instead of hanging).
            var waited = 0
            while !release.load(ordering: .acquiring), waited < 10_000 { usleep(1_000); waited += 1 }
        }
        let during = Mutex<(MatchResult?, MatchResult?, Bool)>((nil, nil, false))
        onThreads([
            { _ = try? router.match("/b") },             // compiles, held open by the hook
            {
                while !entered.load(ordering: .acquiring) { usleep(100) }
                // The compile is under way on the other thread: these lookups do not wait for it.
                let a = try? router.match("/a"), b = try? router.match("/b")
                during.withLock { $0 = (a, b, !release.load(ordering: .acquiring)) }
                release.store(true, ordering: .releasing)
            },
        ])
        router.compileHook = nil
        let (duringA, duringB, lookedUpBeforeRelease) = during.withLock { $0 }

        #expect(lookedUpBeforeRelease)
        #expect(duringA?.routeMatch?.pattern == "/a")
        #expect(duringB == .notFound)                         // the previous table
        #expect(try router.match("/b").routeMatch?.pattern == "/b")
    }
}
