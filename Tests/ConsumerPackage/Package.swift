// swift-tools-version:6.0
// A consumer of UrnaStore by path, in Swift 6 language mode, using only the public API: build and run it
// with Tests/consumer-check.sh. It exits non-zero when a check fails.
import PackageDescription

let package = Package(
    name: "UrnaConsumer",
    dependencies: [.package(name: "Urna", path: "../..")],
    targets: [
        .executableTarget(
            name: "UrnaConsumer", dependencies: [.product(name: "UrnaStore", package: "Urna")],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
