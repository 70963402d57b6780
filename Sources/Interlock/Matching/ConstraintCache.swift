// One compiled regex per constraint source in a router: a table of 100,000 routes that all say
// `:id(\d+)` compiles and JIT-compiles `\d+` once, not once a route (the JIT code of one regex
// is a few pages). Each use still has its own `Constraint`, which names its route for the error
// of a constraint that stops; they share the code.

/// The compiled code of every constraint source a router's tables use, reused across compiles.
/// Used only while the router's tree lock is held (compiles are serialized by it).
final class ConstraintCache: @unchecked Sendable {
    private var codes: [String: PCRE2Code] = [:]
    /// The entry count after the last pruning: the cache prunes when it has doubled since.
    private var prunedAt = 64

    init() {}

    /// The compiled code of constraint `regex` (already checked by `ConstraintCheck`).
    func code(_ regex: String) throws(InterlockError) -> PCRE2Code {
        if let known = codes[regex] { return known }
        let made = try PCRE2Code(Array(regex.utf8), options: ConstraintCheck.options)
        codes[regex] = made
        if codes.count >= 2 * prunedAt { prune() }
        return made
    }

    /// Drops the codes no compiled table uses any longer (held by the cache alone), so that a
    /// router whose routes come and go forever keeps its cache bounded by what its tables use.
    private func prune() {
        for key in Array(codes.keys) {
            guard var code = codes.removeValue(forKey: key) else { continue }
            if !isKnownUniquelyReferenced(&code) { codes[key] = code }
        }
        prunedAt = max(64, codes.count)
    }
}
