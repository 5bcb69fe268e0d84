// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Liveline",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Liveline", targets: ["Liveline"]),
        .executable(name: "liveline", targets: ["liveline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "Liveline",
            dependencies: [
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .executableTarget(
            name: "liveline",
            dependencies: [
                "Liveline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "LivelineTests",
            dependencies: ["Liveline"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
