#!/bin/sh
# check_consumer.sh SOURCE: a Swift package depends on Interlock by version, as a user's would,
#   .package(url: "file://.../interlock", from: "MAJOR.MINOR.0")
# on a git repository holding SOURCE's working tree (Tests/install/snapshot_repo.sh: HEAD with
# the uncommitted changes, in one commit) tagged with the header's version; it imports Interlock,
# adds a route and matches it. Offline: the URL is a local folder.
# It also depends on the product `interlock` (the C library), so that unsafe flags in any target
# of either product fail it: SwiftPM refuses them in a package depended on by version, but only in
# the targets of the products a consumer uses ("the target 'InterlockABI' in product 'interlock'
# contains unsafe build flags").
# A debug build of the core from nothing: about 20 s on 2 cores (`make swiftpm-consumer`).
set -eu
source=$(cd "$1" && pwd)
version=$(sed -n 's/^#define ILK_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$source/include/interlock.h" | paste -sd.)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
sh "$source/Tests/install/snapshot_repo.sh" "$source" "$tmp/interlock" "$version"
mkdir -p "$tmp/consumer/Sources/consumer"
cat > "$tmp/consumer/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "consumer",
    dependencies: [.package(url: "file://$tmp/interlock", from: "${version%.*}.0")],
    targets: [
        .executableTarget(name: "consumer", dependencies: [
            .product(name: "Interlock", package: "interlock"),
            .product(name: "interlock", package: "interlock"),
        ]),
    ]
)
SWIFT
cat > "$tmp/consumer/Sources/consumer/main.swift" <<'SWIFT'
import Interlock

let router = Router()
try router.addRoute("GET /hello/:who")
guard let match = try router.match("/hello/world", method: "GET").routeMatch, match["who"] == "world" else {
    fatalError("consumer: /hello/world did not match GET /hello/:who")
}
print("consumer: \(match.pattern) matched, who=\(match["who"]!)")
SWIFT
# No shared cache of repositories: the URL is a new folder each run.
swift build --package-path "$tmp/consumer" --scratch-path "$tmp/consumer/.build" --disable-dependency-cache
grep -A 8 '"identity" : "interlock"' "$tmp/consumer/Package.resolved" | grep -q "\"version\" : \"$version\"" || {
  echo "swiftpm-consumer: FAILED: Package.resolved does not pin interlock at $version"; cat "$tmp/consumer/Package.resolved"; exit 1; }
"$tmp/consumer/.build/debug/consumer"
echo "swiftpm-consumer: passed (interlock $version resolved by version, built, matched) in $(($(date +%s) - start)) s"
