// swift-tools-version:6.0
// Interlock: an embeddable routing core. The Swift module `Interlock` holds every rule; the
// `interlock` dynamic library exports it to C (and through C to every other host).
import PackageDescription

/// The package's folder, for linker inputs that need a path.
let packageRoot = String(#filePath.dropLast("Package.swift".count))

let package = Package(
    name: "Interlock",
    products: [
        .library(name: "Interlock", targets: ["Interlock"]),
        .library(name: "interlock", type: .dynamic, targets: ["InterlockABI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"])]
        ),
        .target(
            name: "Interlock",
            dependencies: ["CPCRE2"],
            // Debug builds check exclusivity everywhere, the matcher's state too (see `Matcher`).
            swiftSettings: [.define("INTERLOCK_CHECK_EXCLUSIVITY", .when(configuration: .debug))]
        ),
        .target(
            name: "InterlockABI",
            dependencies: ["Interlock"],
            exclude: ["interlock.map"],
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "-soname=libinterlock.so.0",
                "-Xlinker", "--version-script=\(packageRoot)Sources/InterlockABI/interlock.map",
            ])]
        ),
        .testTarget(name: "InterlockTests", dependencies: ["Interlock"]),
    ]
)
