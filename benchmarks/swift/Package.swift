// swift-tools-version:6.0
// The Swift door (the Interlock module) and the Swift peer (RoutingKit), measured side by side.
import PackageDescription

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
                .product(name: "Interlock", package: "main"),
                .product(name: "RoutingKit", package: "routing-kit"),
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)
