// A segment mixing text and parameters (`:name.json`, `:y-:m-:d.json`, `v:major(\d+).:minor(\d+)`,
// `v*path`), matched in Swift by one rule whose work is linear in the segment (docs/matching.md,
// "Mixed segments"):
//
// - text before the first parameter must begin the segment;
// - a parameter takes at least one byte and ends at the first occurrence of the text after it;
// - the segment's last text, when nothing follows it, must end the segment;
// - a catch-all after text takes the rest of the path;
// - then each constrained parameter's constraint runs once, on what the parameter took: it
//   accepts or refuses that split, and no other split is tried.
//
// Without constraints this is the split that giving each parameter as few bytes as let the rest
// of the segment match finds (a later occurrence of a text only leaves the parameter after it
// more to take, which any parameter can), without trying the splits in turn: written as a regex,
// that search took a step per candidate split and a constraint call per candidate end, so a
// segment of a few dozen bytes ran out of the match limit. Regex units reach a mixed segment
// through a callout, `(?C"mI")`, that runs this rule, then take the segment whole in one group,
// split again (the same rule) when the winner's values are read; dispatch nodes and explanations
// run the rule directly.

/// A mixed segment's rule, compiled: its texts (ASCII lower-cased on a case-insensitive router),
/// the search tables for them, and its parameters' constraints. Shared read-only by threads.
final class MixedSegment: @unchecked Sendable {
    enum Piece {
        /// Text at `start` in `bytes`, `count` long (its search table at the same place in `skips`).
        case text(start: Int, count: Int)
        /// A parameter, with the index of its constraint in `constraints` (-1 for none).
        case parameter(constraint: Int)
        case catchAll
    }

    let pieces: [Piece]
    private let bytes: [UInt8]
    /// For each text, the Knuth-Morris-Pratt failure function: at `i`, the length of the longest
    /// proper prefix of the text's first `i + 1` bytes that is also a suffix of them.
    private let skips: [Int32]
    private let caseInsensitive: Bool
    let constraints: ConstraintTable
    /// For each parameter (catch-all included), in order, the index of its constraint or -1.
    let parameterConstraints: [Int]
    let parameterCount: Int
    /// Whether the last piece is a catch-all (the segment's value runs to the end of the path).
    let endsWithCatchAll: Bool

    /// Compiles a mixed segment's pieces (as the tree keys them) for a router that folds case or
    /// not; `route` names a route through the segment, for the error of a constraint that stops;
    /// `cache` shares the constraints' code with the router's other uses of them.
    convenience init(_ mixed: [TreeNode.MixedPiece], caseInsensitive: Bool, route: String,
                     cache: ConstraintCache? = nil) throws(InterlockError) {
        var constraints: [Constraint] = []
        for case .parameter(let c?) in mixed { constraints.append(try Constraint(c, route: route, cache: cache)) }
        self.init(mixed, caseInsensitive: caseInsensitive, constraints: constraints)
    }

    // What throws (the constraints) is done above, before the object is allocated: Embedded
    // Swift's runtime never frees an object whose initializer throws (see `Unit`).
    private init(_ mixed: [TreeNode.MixedPiece], caseInsensitive: Bool, constraints given: [Constraint]) {
        var pieces: [Piece] = [], bytes: [UInt8] = [], skips: [Int32] = []
        var compiled: [Constraint] = [], parameterConstraints: [Int] = []
        for piece in mixed {
            switch piece {
            case .text(let t):
                let text = caseInsensitive ? t.map(lowercased) : t
                pieces.append(.text(start: bytes.count, count: text.count))
                bytes += text
                skips += MixedSegment.failure(text)
            case .parameter(let c):
                var index = -1
                if let c {
                    index = compiled.count
                    compiled.append(given[compiled.count])
                }
                pieces.append(.parameter(constraint: index))
                parameterConstraints.append(index)
            case .catchAll:
                pieces.append(.catchAll)
                parameterConstraints.append(-1)
            }
        }
        self.pieces = pieces
        self.bytes = bytes
        self.skips = skips
        self.caseInsensitive = caseInsensitive
        self.constraints = ConstraintTable(compiled)
        self.parameterConstraints = parameterConstraints
        self.parameterCount = parameterConstraints.count
        if case .catchAll? = pieces.last { endsWithCatchAll = true } else { endsWithCatchAll = false }
    }

    deinit { constraints.deallocate() }

    private static func failure(_ t: [UInt8]) -> [Int32] {
        var f = [Int32](repeating: 0, count: t.count)
        var k = 0
        for i in 1..<max(t.count, 1) {
            while k > 0 && t[i] != t[k] { k = Int(f[k - 1]) }
            if t[i] == t[k] { k += 1 }
            f[i] = Int32(k)
        }
        return f
    }

    /// Splits the segment of `s` from `start` to `segmentEnd` by the rule (constraints aside), a
    /// catch-all taking the bytes up to `pathEnd`; writes parameter `k`'s bytes as
    /// `starts[k]..<ends[k]` (offsets in `s`).
    ///
    /// - Returns: Whether the segment fits the texts; reads each byte of the segment a bounded
    ///   number of times (each text is searched for once, from where the last one ended).
    func split(_ s: UnsafePointer<UInt8>, from start: Int, segmentEnd: Int, pathEnd: Int,
               starts: UnsafeMutablePointer<Int>, ends: UnsafeMutablePointer<Int>) -> Bool {
        var i = start, k = 0
        var open = -1   // where a parameter waiting for the text after it began
        let last = pieces.count - 1
        for (index, piece) in pieces.enumerated() {
            switch piece {
            case .text(let t, let n):
                if open < 0 {           // the segment's first piece
                    guard segmentEnd - i >= n, same(t, n, s + i) else { return false }
                    i += n
                } else if index == last {
                    let at = segmentEnd - n
                    guard at > open, same(t, n, s + at) else { return false }
                    starts[k] = open; ends[k] = at; k += 1
                    i = segmentEnd
                } else {
                    guard let at = find(t, n, in: s, from: open + 1, to: segmentEnd) else { return false }
                    starts[k] = open; ends[k] = at; k += 1
                    i = at + n
                }
                open = -1
            case .parameter:
                if index == last {
                    guard segmentEnd > i else { return false }
                    starts[k] = i; ends[k] = segmentEnd; k += 1
                    i = segmentEnd
                } else {
                    open = i
                }
            case .catchAll:
                starts[k] = i; ends[k] = pathEnd
                return true
            }
        }
        return i == segmentEnd
    }

    @inline(__always) private func same(_ t: Int, _ n: Int, _ p: UnsafePointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            caseInsensitive ? sameBytesFolded(b.baseAddress! + t, p, n) : sameBytes(b.baseAddress! + t, p, n)
        }
    }

    /// Where text `t` (`n` bytes) first occurs wholly within `from..<to` of `s`, if it does.
    private func find(_ t: Int, _ n: Int, in s: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        bytes.withUnsafeBufferPointer { b in
            skips.withUnsafeBufferPointer { f in
                let text = b.baseAddress! + t, skip = f.baseAddress! + t
                let fold = caseInsensitive
                var j = 0, p = from
                while p < to {
                    let c = fold ? lowercased(s[p]) : s[p]
                    while j > 0 && text[j] != c { j = Int(skip[j - 1]) }
                    if text[j] == c {
                        j += 1
                        if j == n { return p + 1 - n }
                    }
                    p += 1
                }
                return nil
            }
        }
    }
}

/// A unit's mixed segment as its callout and its values read it: the rule, and the capture group
/// that takes the segment whole.
struct MixedRef {
    let segment: Unmanaged<MixedSegment>
    let group: Int
}

/// A unit's mixed segments, in callout order (the unit owns the objects).
struct MixedTable {
    let refs: UnsafeMutablePointer<MixedRef>?
    let segments: [MixedSegment]

    init(_ segments: [MixedSegment], groups: [Int32]) {
        self.segments = segments
        if segments.isEmpty {
            refs = nil
        } else {
            let refs = UnsafeMutablePointer<MixedRef>.allocate(capacity: segments.count)
            for (i, s) in segments.enumerated() { (refs + i).initialize(to: MixedRef(segment: .passUnretained(s), group: Int(groups[i]))) }
            self.refs = refs
        }
    }

    func deallocate() { refs?.deallocate() }
}

extension RegexEmitter {
    /// The callout that stands for the unit's mixed segment `index`.
    static func mixedCallout(_ index: Int) -> String { "(?C\"m\(index)\")" }

    /// How a leaf's capture list names parameter `j` of the unit's mixed segment `index`: below
    /// zero, apart from capture groups (`maximumSegmentParameters` is 8: three bits for `j`).
    static func mixedValue(_ index: Int, _ j: Int) -> Int32 { -Int32(index &* 8 &+ j) - 1 }
}
