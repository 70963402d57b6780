// swift-tools-version:6.0
// The `interlock` command: checks route files, matches URIs, builds URLs and counts a log's
// requests by route. A package of its own, so that the library's package depends on nothing.
import PackageDescription

let package = Package(
    name: "interlock-tool",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "interlock-tool", targets: ["InterlockTool"])],  // installed as `interlock`: the library product has that name
    dependencies: [
        .package(name: "Interlock", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "InterlockTool",
            dependencies: [
                "GlibcBaseline",
                .product(name: "Interlock", package: "Interlock"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/interlock"
        ),
        // hypot and hypotf bound to the symbol versions every glibc has (see hypot.c).
        .target(name: "GlibcBaseline", path: "Sources/GlibcBaseline"),
    ]
)
