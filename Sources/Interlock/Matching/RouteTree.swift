// The route table as a tree of path segments: the single source of truth for precedence.
//
// Children of a node are tried in this order, which is the precedence rule itself:
//   the node's own leaves (the path ends here), literal children, segments mixing text and
//   parameters (more literal bytes first, then more constrained parameters, then in the order
//   first registered), constrained parameters (in the order first registered), the plain
//   parameter, and last the catch-alls: those after literal text (longer text first), then the
//   plain one.
// A literal is an exact segment, so literal siblings never compete; everything after is a
// fallback that is tried only when the more specific branch fails further on (backtracking).
// Leaves at one node are ordered by the tie rule: an explicit scheme or host first, then an
// explicit method, then registration order.

/// A route variant that ends at a node, with its parameter names in path order.
struct Leaf {
    let route: Route
    let names: ParameterNames
}

final class TreeNode {
    enum Entry: Equatable {
        case root
        case literal([UInt8])
        case parameter
        case constrained(String)
        case catchAll
        /// A segment mixing text and parameters, or a catch-all after text (its last piece).
        case mixed([MixedPiece])
    }

    /// A piece of a mixed segment as the tree keys it: parameter names aside, text ASCII
    /// lower-cased on a case-insensitive router.
    enum MixedPiece: Hashable {
        case text([UInt8])
        case parameter(constraint: String?)
        case catchAll
    }

    let entry: Entry
    /// Literal children by key (ASCII lower-cased on a case-insensitive router).
    var literalChildren: [[UInt8]: TreeNode] = [:]
    /// Literal children in the order added, so that emitted regexes are deterministic; a removed
    /// child leaves a hole (found by its `orderIndex`, not by a search), and the holes go once
    /// they are half the list, so a removal costs the same under a node of any size.
    private var literalSlots: [TreeNode?] = []
    private var literalHoles = 0
    /// Where this node is in its parent's `literalSlots`.
    private var orderIndex = 0
    /// Literal children in the order added (a new array: proportional to their number).
    var literalOrder: [TreeNode] { literalSlots.compactMap { $0 } }
    /// Mixed segments ending within their segment, in precedence order (see `mixedPrecedes`).
    var mixedChildren: [TreeNode] = []
    var constrainedChildren: [TreeNode] = []
    var parameterChild: TreeNode?
    /// Catch-alls after literal text, longer text first.
    var prefixedCatchAlls: [TreeNode] = []
    var catchAllChild: TreeNode?
    var leaves: [Leaf] = []
    /// An estimate of the bytes of regex this subtree compiles to, kept up to date on insertion.
    var size: Int
    /// The compiled form of this subtree; nil when something below changed.
    var compiled: CompiledNode?
    /// The dispatch this node compiled to last, updated in place of a rebuild when it is large.
    var lastDispatch: Dispatch?
    /// Keys of literal children changed since this node last compiled to a dispatch node, which
    /// then rebuilds only their buckets. Kept only while there is such a dispatch node (a full
    /// rebuild needs no list), and each key once (`listedAsChanged`), so that adding many routes
    /// does not keep every parsed literal alive until the next compilation.
    var changedLiterals: [[UInt8]] = []
    /// Whether this node's key is in its parent's `changedLiterals`.
    var listedAsChanged = false
    /// Whether the node's own leaves or its catch-all's changed since the last compilation.
    var terminalsChanged = true

    init(_ entry: Entry) {
        self.entry = entry
        self.size = TreeNode.entrySize(entry) + 4
    }

    /// Forgets the changes since the last compilation (this node's own just compiled).
    func clearChanges() {
        for key in changedLiterals { literalChildren[key]?.listedAsChanged = false }
        changedLiterals = []
        terminalsChanged = false
    }

    /// Whether nothing ends or continues here (a node left so by a removal is pruned).
    var isEmpty: Bool {
        leaves.isEmpty && literalChildren.isEmpty && mixedChildren.isEmpty && constrainedChildren.isEmpty
            && parameterChild == nil && prefixedCatchAlls.isEmpty && catchAllChild == nil
    }

    /// Adds a literal child last in order (its key is in `literalChildren`).
    func appendLiteral(_ child: TreeNode) {
        child.orderIndex = literalSlots.count
        literalSlots.append(child)
    }

    /// Takes a literal child out of the order (its key is out of `literalChildren`).
    func removeLiteral(_ child: TreeNode) {
        guard child.orderIndex < literalSlots.count, literalSlots[child.orderIndex] === child else { return }
        literalSlots[child.orderIndex] = nil
        literalHoles += 1
        if 2 * literalHoles > literalSlots.count {
            literalSlots = literalSlots.compactMap { $0 }
            literalHoles = 0
            for (i, c) in literalSlots.enumerated() { c?.orderIndex = i }
        }
    }

    /// Children in precedence order.
    var childrenInOrder: [TreeNode] {
        var all = literalOrder
        all += mixedChildren
        all += constrainedChildren
        if let p = parameterChild { all.append(p) }
        all += prefixedCatchAlls
        if let c = catchAllChild { all.append(c) }
        return all
    }

    /// Whether this node's entry is a catch-all (plain or after text): its leaves are its
    /// parent's terminals in a dispatch node.
    var isCatchAll: Bool {
        switch entry {
        case .catchAll: return true
        case .mixed(let pieces): return pieces.last == .catchAll
        default: return false
        }
    }

    /// Whether mixed entry `a` is tried before `b` at the same node: more literal bytes, then more
    /// constrained parameters (a tie keeps the order first registered); for catch-alls after text,
    /// longer text.
    static func mixedPrecedes(_ a: [MixedPiece], _ b: [MixedPiece]) -> Bool {
        func weight(_ pieces: [MixedPiece]) -> (Int, Int) {
            var bytes = 0, constrained = 0
            for p in pieces {
                switch p {
                case .text(let t): bytes += t.count
                case .parameter(let c): if c != nil { constrained += 1 }
                case .catchAll: break
                }
            }
            return (bytes, constrained)
        }
        let (ab, ac) = weight(a), (bb, bc) = weight(b)
        return ab != bb ? ab > bb : ac > bc
    }

    static func entrySize(_ e: Entry) -> Int {
        switch e {
        case .root: return 0
        case .literal(let b): return 1 + 2 * b.count
        case .parameter: return 14
        case .constrained(let c): return 60 + c.utf8.count
        case .catchAll: return 18
        case .mixed(let pieces):
            return pieces.reduce(1) { size, p in
                switch p {
                case .text(let t): size + 2 * t.count
                case .parameter(let c): size + 30 + (c.map { 20 + $0.utf8.count } ?? 0)
                case .catchAll: size + 14
                }
            }
        }
    }

    static func leafSize(_ route: Route) -> Int {
        40 + (route.pattern.method?.utf8.count ?? 0) * 2 + (route.pattern.scheme?.utf8.count ?? 0) * 2
            + (route.pattern.host?.utf8.count ?? 0) * 2
    }
}

/// The tie rule between routes with the same path shape: the more specific origin (an exact host,
/// then a wildcard host, longer suffix first, then a scheme alone, then none; a port before none),
/// then an explicit method, then the route registered first.
@inline(__always) func leafPrecedes(_ a: Route, _ b: Route) -> Bool {
    let (oa, ob) = (a.originRank, b.originRank)
    if oa != ob { return oa > ob }
    if (a.pattern.method != nil) != (b.pattern.method != nil) { return a.pattern.method != nil }
    return a.order < b.order
}

struct RouteTree {
    let root = TreeNode(.root)
    let caseInsensitive: Bool
    /// Nodes reached through literals only, by their normalized path (ASCII lower-cased on a
    /// case-insensitive router): the all-literal fast path. "" is the root.
    var staticNodes: [[UInt8]: TreeNode] = [:]
    /// Keys of `staticNodes` whose routes changed since the last compilation.
    var changedStatic: Set<[UInt8]> = []
    /// Parameter-name lists, shared (see `interned`).
    var namesByList: [[String]: ParameterNames] = [:]

    private func key(_ literal: [UInt8]) -> [UInt8] {
        caseInsensitive ? literal.map(lowercased) : literal
    }

    private func existingChild(_ node: TreeNode, _ segment: PatternSegment) -> TreeNode? {
        switch segment {
        case .literal(let b): return node.literalChildren[key(b)]
        case .parameter(_, nil): return node.parameterChild
        case .parameter(_, let c?): return node.constrainedChildren.first { $0.entry == .constrained(c) }
        case .catchAll: return node.catchAllChild
        case .mixed(let pieces):
            let entry = TreeNode.Entry.mixed(mixedKey(pieces))
            return (isCatchAllPiece(pieces.last) ? node.prefixedCatchAlls : node.mixedChildren)
                .first { $0.entry == entry }
        }
    }

    private func isCatchAllPiece(_ p: SegmentPiece?) -> Bool {
        if case .catchAll? = p { return true }
        return false
    }

    /// A mixed segment's pieces as the tree keys them.
    func mixedKey(_ pieces: [SegmentPiece]) -> [TreeNode.MixedPiece] {
        pieces.map { p in
            switch p {
            case .text(let t): .text(key(t))
            case .parameter(_, let c): .parameter(constraint: c)
            case .catchAll: .catchAll
            }
        }
    }

    /// The route already registered with the same method, scheme, host and path shape as one of
    /// `variants` of `route`, if any, other than the route `ignoring` names (one being replaced).
    func conflict(for route: Route, variants: [[PatternSegment]], ignoring: RouteID? = nil) -> Route? {
        for variant in variants {
            var node: TreeNode? = root
            for segment in variant { node = node.flatMap { existingChild($0, segment) } }
            guard let node else { continue }
            let p = route.pattern
            if let other = node.leaves.first(where: {
                $0.route.id != ignoring && $0.route.pattern.method == p.method && $0.route.pattern.scheme == p.scheme
                    && $0.route.pattern.host == p.host && $0.route.pattern.port == p.port
            }) {
                return other.route
            }
        }
        return nil
    }

    /// Adds every variant of `route`; the caller has checked for conflicts.
    mutating func insert(_ route: Route, variants: [[PatternSegment]]) {
        for variant in variants {
            var path: [TreeNode] = [root]
            var node = root
            var names: [String] = []
            for segment in variant {
                names += segment.parameterNames
                if case .catchAll = segment { node.terminalsChanged = true }
                if case .mixed(let pieces) = segment, isCatchAllPiece(pieces.last) { node.terminalsChanged = true }
                if let child = existingChild(node, segment) {
                    if node.lastDispatch != nil, !child.listedAsChanged, case .literal(let b) = child.entry {
                        node.changedLiterals.append(key(b))
                        child.listedAsChanged = true
                    }
                    node = child
                } else {
                    let child: TreeNode
                    switch segment {
                    case .literal(let b):
                        child = TreeNode(.literal(b))
                        node.literalChildren[key(b)] = child
                        node.appendLiteral(child)
                        if node.lastDispatch != nil {
                            node.changedLiterals.append(key(b))
                            child.listedAsChanged = true
                        }
                    case .parameter(_, nil):
                        child = TreeNode(.parameter)
                        node.parameterChild = child
                    case .parameter(_, let c?):
                        child = TreeNode(.constrained(c))
                        node.constrainedChildren.append(child)
                    case .catchAll:
                        child = TreeNode(.catchAll)
                        node.catchAllChild = child
                    case .mixed(let pieces):
                        let key = mixedKey(pieces)
                        child = TreeNode(.mixed(key))
                        if isCatchAllPiece(pieces.last) {
                            let at = node.prefixedCatchAlls.firstIndex { TreeNode.mixedPrecedes(key, Self.pieces($0)) }
                            node.prefixedCatchAlls.insert(child, at: at ?? node.prefixedCatchAlls.count)
                        } else {
                            let at = node.mixedChildren.firstIndex { TreeNode.mixedPrecedes(key, Self.pieces($0)) }
                            node.mixedChildren.insert(child, at: at ?? node.mixedChildren.count)
                        }
                    }
                    // The new subtree's size joins every ancestor's.
                    for ancestor in path { ancestor.size += child.size + 2 }
                    node = child
                }
                path.append(node)
            }
            if variant.allSatisfy({ if case .literal = $0 { return true } else { return false } }) {
                var path: [UInt8] = []
                for case .literal(let b) in variant { path.append(slash); path += key(b) }
                staticNodes[path] = node
                changedStatic.insert(path)
            }
            let leaf = Leaf(route: route, names: interned(names))
            let at = node.leaves.firstIndex { leafPrecedes(route, $0.route) } ?? node.leaves.count
            node.leaves.insert(leaf, at: at)
            node.terminalsChanged = true
            let grow = TreeNode.leafSize(route)
            for n in path {
                n.size += grow
                n.compiled = nil
            }
        }
    }

    /// Removes every variant of `route` (as `insert` added them), and the nodes left with no
    /// leaves and no children, marking what the next compilation must rebuild: the nodes on each
    /// variant's path, a dispatch node's changed literal keys, and the all-literal paths.
    mutating func remove(_ route: Route, variants: [[PatternSegment]]) {
        for variant in variants {
            var path: [TreeNode] = [root]
            for segment in variant {
                guard let child = existingChild(path[path.count - 1], segment) else { break }
                path.append(child)
            }
            guard path.count == variant.count + 1 else { continue }     // already gone (a shared variant)
            let node = path[path.count - 1]
            guard let at = node.leaves.firstIndex(where: { $0.route.id == route.id }) else { continue }
            node.leaves.remove(at: at)
            node.terminalsChanged = true
            if node.isCatchAll { path[path.count - 2].terminalsChanged = true }   // its parent compiles its leaves
            let shrink = TreeNode.leafSize(route)
            for n in path {
                n.size -= shrink
                n.compiled = nil
            }
            // A dispatch node rebuilds only the buckets of the literal children listed as changed.
            for (parent, child) in zip(path, path.dropFirst()) {
                if parent.lastDispatch != nil, !child.listedAsChanged, case .literal(let b) = child.entry {
                    parent.changedLiterals.append(key(b))
                    child.listedAsChanged = true
                }
            }
            if variant.allSatisfy({ if case .literal = $0 { return true } else { return false } }) {
                var key: [UInt8] = []
                for case .literal(let b) in variant { key.append(slash); key += self.key(b) }
                if node.leaves.isEmpty { staticNodes[key] = nil }
                changedStatic.insert(key)
            }
            // Prune from the end: a node with nothing left goes from its parent.
            var depth = path.count - 1
            while depth > 0, path[depth].isEmpty {
                let child = path[depth], parent = path[depth - 1]
                switch child.entry {
                case .literal(let b):
                    let k = key(b)
                    parent.literalChildren[k] = nil
                    // Listed as changed above.
                    parent.removeLiteral(child)
                case .parameter: parent.parameterChild = nil
                case .constrained: parent.constrainedChildren.removeAll { $0 === child }
                case .catchAll:
                    parent.catchAllChild = nil
                    parent.terminalsChanged = true
                case .mixed:
                    parent.mixedChildren.removeAll { $0 === child }
                    parent.prefixedCatchAlls.removeAll { $0 === child }
                    if child.isCatchAll { parent.terminalsChanged = true }
                case .root: break
                }
                for ancestor in path[..<depth] { ancestor.size -= child.size + 2 }
                depth -= 1
            }
        }
    }

    /// A mixed node's pieces.
    private static func pieces(_ node: TreeNode) -> [TreeNode.MixedPiece] {
        if case .mixed(let p) = node.entry { return p }
        return []
    }

    /// One `ParameterNames` per distinct list of names (most routes share a few, such as ["id"]).
    private mutating func interned(_ names: [String]) -> ParameterNames {
        if let known = namesByList[names] { return known }
        let made = ParameterNames(trimmed(names))
        namesByList[names] = made
        return made
    }

    /// The router's one copy of a list of names.
    mutating func shared(_ names: [String]) -> [String] { interned(names).names }
}
