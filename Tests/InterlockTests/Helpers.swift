import Testing
@testable import Interlock

/// The id of the route `uri` matches, or nil.
func matchedID(_ router: Router, _ uri: String, method: String? = nil) throws -> RouteID? {
    try router.match(uri, method: method).routeMatch?.routeID
}

/// The error a throwing call raised, or nil if it did not throw.
func caught<T>(_ body: () throws(InterlockError) -> T) -> InterlockError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// Expects `body` to refuse `input` with `code`, at byte `offset`, with a message containing
/// `words` (a case of the tables of refusals the pattern, host and URI tests hold).
func expectRefused(
    _ input: String, _ code: ErrorCode, at offset: Int, saying words: String,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws(InterlockError) -> Void
) {
    let error = caught(body)
    #expect(error?.code == code && error?.offset == offset, "\(input): \(error?.message ?? "no error")", sourceLocation: sourceLocation)
    #expect(error?.message.contains(words) == true, "\(input): \(error?.message ?? "no error")", sourceLocation: sourceLocation)
}

import Glibc

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Runs each body on its own OS thread (not the cooperative pool, whose threads a spinning body
/// would starve) and waits for all of them.
func onThreads(_ bodies: [@Sendable () -> Void]) {
    var threads: [pthread_t] = []
    for body in bodies {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        pthread_create(&thread, nil, { p in
            Unmanaged<ThreadBody>.fromOpaque(p!).takeRetainedValue().run()
            return nil
        }, box)
        threads.append(thread)
    }
    for t in threads { pthread_join(t, nil) }
}

/// One of `items`, chosen by `rng` (the random tables' and requests' building block).
func pick<T>(_ items: [T], _ rng: inout SplitMix) -> T { items[Int(rng.next() % UInt64(items.count))] }
