import Foundation
import Liveline
import LivelineAppTypes
import LivelineMockAPNs
import Testing

/// `mock-apns --app`: the device decodes every push with the app's own types, over HTTP/2 on loopback.
@Suite("The mock decodes like the app (--app)")
struct AppTypesDecodeTests {
    static let pushToStart = "73f0c1b6d0a9e5f2c4b7a8d6e1f3c5b7a9d2e4f6c8b1a3d5e7f9c2b4a6d8e0f1"

    static let app: AppTypes = {
        var reader = AppSourceReader()
        reader.read(
            source: """
                import ActivityKit
                struct DeliveryAttributes: ActivityAttributes {
                    struct ContentState: Codable, Hashable {
                        enum Status: String, Codable { case placed, delivered; case onTheWay = "on-the-way" }
                        var status: Status
                        var eta: Date
                        var courier: String?
                    }
                    var order: Int
                }
                """, file: "Delivery.swift")
        return reader.types()
    }()

    static func start() async throws -> DeviceSession {
        try await DeviceSession.start { $0.appDecoding = AppPayloadDecoding(types: app) }
    }

    static let alert = #""alert":{"title":"Order 42","body":"On its way"}"#

    @Test("a start with an attributes-type the app does not declare would not render, and says why")
    func unknownAttributesType() async throws {
        let device = try await Self.start()
        let eta = device.referenceDate(600)
        let start = try #require(
            try await device.push(
                event: "start", state: #"{"status":"placed","eta":\#(eta)}"#,
                extra: #""attributes-type":"OrderAttributes","attributes":{"order":42},"# + Self.alert,
                to: Self.pushToStart))
        #expect(start.outcome == .wouldNotRender)
        #expect(
            start.reasons.contains {
                $0.contains(
                    "attributes-type \"OrderAttributes\" is not an ActivityAttributes type of the app (it has DeliveryAttributes)"
                )
            }, "\(start.reasons)")
        await device.stop()
    }

    @Test(
        "a start whose attributes do not decode would not render; a good one renders and later updates are checked by its type"
    )
    func startThenUpdates() async throws {
        let device = try await Self.start()
        let eta = device.referenceDate(600)
        let badAttributes = try #require(
            try await device.push(
                event: "start", state: #"{"status":"placed","eta":\#(eta)}"#,
                extra: #""attributes-type":"DeliveryAttributes","attributes":{"order":"42"},"# + Self.alert,
                to: Self.pushToStart))
        #expect(badAttributes.outcome == .wouldNotRender)
        #expect(
            badAttributes.reasons.contains {
                $0.contains(
                    "attributes.order is \"42\", but the app decodes a number (Int) (Delivery.swift:9: var order: Int)")
            }, "\(badAttributes.reasons)")

        let good = try #require(
            try await device.push(
                event: "start", timestamp: device.now + 1, state: #"{"status":"placed","eta":\#(eta)}"#,
                extra: #""attributes-type":"DeliveryAttributes","attributes":{"order":42},"input-push-token":1,"#
                    + Self.alert,
                to: Self.pushToStart))
        #expect(good.outcome == .rendered, "\(good.reasons)")
        let token = try #require(good.updateToken)

        // The first state had no courier: inferred shapes would now reject a string there. The app's String? takes it.
        let courier = try #require(
            try await device.push(
                timestamp: device.now + 2, state: #"{"status":"on-the-way","eta":\#(eta),"courier":"Priya"}"#, to: token
            ))
        #expect(courier.outcome == .rendered, "\(courier.reasons)")
        let badEnum = try #require(
            try await device.push(timestamp: device.now + 3, state: #"{"status":"onTheWay","eta":\#(eta)}"#, to: token))
        #expect(badEnum.outcome == .wouldNotRender)
        #expect(
            badEnum.reasons.contains {
                $0.contains(
                    "content-state.status is \"onTheWay\", which is not a raw value of DeliveryAttributes.ContentState.Status"
                )
            }, "\(badEnum.reasons)")
        let unix = try #require(
            try await device.push(
                timestamp: device.now + 4, state: #"{"status":"delivered","eta":\#(device.now)}"#, to: token))
        // JSONDecoder takes the number (as seconds since 2001): the phone renders it, 31 years ahead.
        #expect(unix.outcome == .rendered)
        #expect(
            unix.reasons.contains {
                $0.hasPrefix("rendered, with a wrong value: ") && $0.contains("looks like UNIX seconds")
                    && $0.contains("a date about 31 years ahead that the app would show")
                    && $0.contains("var eta: Date")
            }, "\(unix.reasons)")
        await device.stop()
    }

    @Test("an update to a token the mock saw no start for decodes as the app's only ContentState")
    func updateWithoutStart() async throws {
        let device = try await Self.start()
        let eta = device.referenceDate(60)
        #expect(
            try await device.push(timestamp: device.now, state: #"{"status":"placed","eta":\#(eta)}"#)?.outcome
                == .rendered)
        let missing = try #require(try await device.push(timestamp: device.now + 1, state: #"{"eta":\#(eta)}"#))
        #expect(missing.outcome == .wouldNotRender)
        #expect(
            missing.reasons.contains {
                $0.contains(
                    "content-state.status is missing, but the app's DeliveryAttributes.ContentState requires it")
            }, "\(missing.reasons)")
        await device.stop()
    }
}
