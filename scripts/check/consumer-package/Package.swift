// swift-tools-version: 6.2
// A Swift backend's view of Liveline: one Live Activity push through the `LivelineAPNs` product
// and nothing else. scripts/check/consumer copies it to a temporary folder with the checkout's
// path in place of "../../..", builds it, sends a push to the mock APNs, and checks that the
// build compiled none of the packages a backend should not pay for (Yams, swift-syntax,
// Hummingbird, PostgresNIO, SQLiteNIO).
import PackageDescription

let package = Package(
    name: "LivelineConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A backend writes .package(url: "https://github.com/…/liveline.git", from: "0.1.0").
        .package(name: "Liveline", path: "../../..")
    ],
    targets: [
        .executableTarget(
            name: "SendPush",
            dependencies: [.product(name: "LivelineAPNs", package: "Liveline")]
        )
    ],
    swiftLanguageModes: [.v6]
)
