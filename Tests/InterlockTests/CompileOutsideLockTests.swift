import Synchronization
import Testing
@testable import Interlock

#if canImport(Glibc)
import Glibc
#endif

/// A compile holds only the tree's lock: while one thread compiles what changed, lookups on other
/// threads answer from the previous table (before the change, never half of it), and answer from
/// the new one once it is published. A thread that made a change waits for the table that has it.
@Suite("Compiling outside the lock")
struct CompileOutsideLockTests {
    /// Spins until `flag` is set, for at most ten seconds (so that a regression fails the test
    /// rather than hanging it); returns whether it was set.
    @discardableResult
    static func wait(for flag: borrowing Atomic<Bool>) -> Bool {
        for _ in 0..<10_000 {
            if flag.load(ordering: .acquiring) { return true }
            usleep(1_000)
        }
        return false
    }

    @Test func lookupsAnswerFromThePreviousTableWhileACompileRuns() throws {
        let router = Router()
        try router.addRoute("/a")
        #expect(try router.match("/a").routeMatch != nil)       // the first table
        try router.addRoute("/b")

        let added = Atomic<Bool>(false), entered = Atomic<Bool>(false)
        let release = Atomic<Bool>(false), exited = Atomic<Bool>(false)
        router.compileHook = {
            entered.store(true, ordering: .releasing)
            Self.wait(for: release)     // held open until the reader has looked up
            exited.store(true, ordering: .releasing)
        }
        let seen = Mutex<(a: MatchResult?, b: MatchResult?, whileCompiling: Bool, writer: MatchResult?)>((nil, nil, false, nil))
        onThreads([
            {   // the compiler: the first lookup after the additions
                Self.wait(for: added)
                _ = try? router.match("/b")
            },
            {   // a reader that changed nothing: answers from the previous table, without waiting
                Self.wait(for: entered)
                let a = try? router.match("/a"), b = try? router.match("/b")
                let whileCompiling = !exited.load(ordering: .acquiring)
                seen.withLock { $0.a = a; $0.b = b; $0.whileCompiling = whileCompiling }
                release.store(true, ordering: .releasing)
            },
            {   // a writer: added /c before the compile began, so it waits for the table with it
                _ = try? router.addRoute("/c")
                added.store(true, ordering: .releasing)
                Self.wait(for: entered)
                let c = try? router.match("/c")
                seen.withLock { $0.writer = c }
            },
        ])
        router.compileHook = nil
        let result = seen.withLock { $0 }

        #expect(result.whileCompiling)                          // looked up while the compile was held
        #expect(result.a?.routeMatch?.pattern == "/a")
        #expect(result.b == .notFound)                          // the previous table
        #expect(result.writer?.routeMatch?.pattern == "/c")     // its own change
        #expect(try router.match("/b").routeMatch?.pattern == "/b")
    }

    /// A resolve on another thread while the table without a removed route compiles: its lookup
    /// reads the previous table, which still has the route, but the route's callbacks are gone;
    /// it matches again on the new table rather than answer "matched, nothing ran".
    @Test func aResolveNeverRunsARemovedRouteHalfway() throws {
        let router = Router()
        let id = try router.addRoute("/x") { _, response in response.status = 201 }
        #expect(try router.resolve("/x").response.status == 201)      // the first table
        let entered = Atomic<Bool>(false), resolving = Atomic<Bool>(false), release = Atomic<Bool>(false)
        router.compileHook = {
            entered.store(true, ordering: .releasing)
            Self.wait(for: release)
        }
        let seen = Mutex<Resolution?>(nil)
        onThreads([
            {   // the writer: removes the route, then compiles (held open by the hook)
                try? router.removeRoute(id)
                try? router.compile()
            },
            {   // a reader that changed nothing
                Self.wait(for: entered)
                resolving.store(true, ordering: .releasing)
                let r = try? router.resolve("/x")
                seen.withLock { $0 = r }
            },
            {   // lets the compile end once the reader is in its resolve
                Self.wait(for: resolving)
                usleep(50_000)
                release.store(true, ordering: .releasing)
            },
        ])
        router.compileHook = nil
        let result = seen.withLock { $0 }
        #expect(result?.status == .notFound && result?.route == nil)
    }
}
