// swift-tools-version:6.0
// The Swift door (the Interlock module) and the Swift peer (RoutingKit), measured side by side.
import PackageDescription

/// SwiftPM names a path dependency after its folder: the checkout's name, whatever it is.
let projectFolder = String(#filePath.dropLast("/benchmarks/swift/Package.swift".count))
let projectIdentity = String(projectFolder.split(separator: "/").last ?? "main").lowercased()

let package = Package(
    name: "SwiftBench",
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/vapor/routing-kit.git", exact: "4.9.3"),
    ],
    targets: [
        .executableTarget(
            name: "SwiftBench",
            dependencies: [
                .product(name: "Interlock", package: projectIdentity),
                .product(name: "RoutingKit", package: "routing-kit"),
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)
