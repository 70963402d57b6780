// swift-tools-version:6.0
// Interlock: an embeddable routing core. The Swift module `Interlock` holds every rule; the
// `interlock` dynamic library exports it to C (and through C to every other host).
import PackageDescription

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
        // The C library's headers (pthread, string, stdlib) as a module of their own, which both
        // builds import: Embedded Swift, which builds the shipped C library (CMakeLists.txt), has
        // no Glibc module.
        .systemLibrary(name: "CLibc"),
        .target(
            name: "Interlock",
            dependencies: ["CPCRE2", "CLibc"],
            // Debug builds check exclusivity everywhere, the matcher's state too (see `Matcher`).
            swiftSettings: [.define("INTERLOCK_CHECK_EXCLUSIVITY", .when(configuration: .debug))]
        ),
        // The shipped library's SONAME and export list (interlock.map) are the build's that makes
        // it (CMakeLists.txt), not flags here: a package with unsafe flags cannot be depended on
        // by version.
        // The header, include/interlock.h, as a Swift module: the codes, flags and layouts the
        // ABI layer uses are the header's own.
        .systemLibrary(name: "CInterlock"),
        .target(name: "InterlockABI", dependencies: ["Interlock", "CInterlock", "CLibc"], exclude: ["interlock.map"]),
        .testTarget(name: "InterlockTests", dependencies: ["Interlock"]),
    ]
)
