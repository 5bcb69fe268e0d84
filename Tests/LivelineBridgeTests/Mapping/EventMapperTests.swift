import Foundation
import Crypto
import HTTPTypes
import Liveline
import Testing
@testable import LivelineBridge

/// Sample bodies of the example's senders, mapped with Scenarios/bridge.example.yaml's rules.
@Suite struct EventMapperTests {
    static func mapper(_ source: String) throws -> EventMapper {
        EventMapper(source: try #require(try loadExample().source(named: source)))
    }

    static func map(_ source: String, _ body: String, headers: HTTPFields = HTTPFields()) throws -> MappedEvent {
        try mapper(source).map(body: Array(body.utf8), headers: headers)
    }

    static func mappingError(
        _ source: String, _ body: String, headers: HTTPFields = HTTPFields()
    ) throws -> EventMappingError? {
        let mapper = try mapper(source)
        do {
            _ = try mapper.map(body: Array(body.utf8), headers: headers)
            return nil
        } catch {
            return error
        }
    }

    static let pickedUp = """
        {"event_name": "DASHER_PICKED_UP", "external_delivery_id": "D-58213",
         "created_at": "2026-11-23T13:05:00.123456Z", "dropoff_time_estimated": "2026-11-23T13:30:00Z"}
        """

    @Test func doorDashPickedUpTriggersTheBeatAndSetsTheETA() throws {
        let event = try Self.map("doordash", Self.pickedUp)
        #expect(event.eventType == "DASHER_PICKED_UP")
        #expect(event.activityKey == "D-58213")
        #expect(event.eventIDIsBodyHash)
        #expect(event.eventID == "sha256:" + HexText.encode(SHA256.hash(data: Array(Self.pickedUp.utf8))))
        #expect(event.orderKey == .statusRank(2, status: "DASHER_PICKED_UP"))
        #expect(event.actions.count == 2)
        guard case .trigger("picked-up", let input?) = event.actions.first else {
            Issue.record("expected a trigger of picked-up, found \(event.actions)")
            return
        }
        #expect(input == (try JSONParser.parse(Self.pickedUp)))
        #expect(
            event.actions.last
                == .change(
                    ExternalChange(
                        label: "DASHER_PICKED_UP", set: [.init(["eta"], .date(1_795_440_600_000))])))
    }

    @Test func doorDashCancellationSetsAlertsAndEndsInOneChange() throws {
        let event = try Self.map(
            "doordash", #"{"event_name": "DELIVERY_CANCELLED", "external_delivery_id": "D-58213"}"#)
        #expect(
            event.actions == [
                .change(
                    ExternalChange(
                        label: "DELIVERY_CANCELLED",
                        set: [
                            .init(["status"], .string("cancelled")),
                            .init(["message"], .string("Your order was cancelled")),
                        ],
                        alert: Alert<String>(
                            title: .plain("Order cancelled"), body: .plain("Delivery D-58213 was cancelled"), sound: nil
                        ),
                        priority: .high, end: true, dismissal: .immediate))
            ])
    }

    @Test func statusRankOrdersTheDeliveryLife() throws {
        let statuses = [
            "DASHER_CONFIRMED", "DASHER_CONFIRMED_PICKUP_ARRIVAL", "DASHER_PICKED_UP",
            "DASHER_CONFIRMED_DROPOFF_ARRIVAL", "DASHER_DROPPED_OFF",
        ]
        let keys = try statuses.map { status in
            try #require(
                try Self.map(
                    "doordash",
                    #"{"event_name": "\#(status)", "external_delivery_id": "D-1", "dropoff_time_estimated": 1795440600}"#
                ).orderKey)
        }
        #expect(keys == keys.sorted())
        #expect(keys[0] < keys[2] && !(keys[4] < keys[1]))
    }

    @Test func anUnmappedDoorDashEventIsIgnoredNotRejected() throws {
        let event = try Self.map(
            "doordash", #"{"event_name": "DASHER_ENROUTE_TO_PICKUP", "external_delivery_id": "D-1"}"#)
        #expect(event.isIgnored && event.actions.isEmpty && event.orderKey == nil)
    }

    static let uberStatus = """
        {"id": "evt_7f3", "kind": "event.delivery_status", "status": "pickup_complete", "created": 1795437000,
         "delivery_id": "del_9", "data": {"dropoff_eta": "2026-11-23T13:40:00+01:00"}}
        """

    @Test func uberStatusSetsStatusAndETAOrderedByCreated() throws {
        let event = try Self.map("uber", Self.uberStatus)
        #expect(event.eventID == "evt_7f3" && !event.eventIDIsBodyHash)
        #expect(event.activityKey == "del_9")
        #expect(event.orderKey == .timestamp(1_795_437_000_000))
        #expect(
            event.actions == [
                .change(
                    ExternalChange(
                        label: "event.delivery_status",
                        set: [.init(["status"], .string("pickup_complete")), .init(["eta"], .date(1_795_437_600_000))],
                        relevance: 60))
            ])
    }

    @Test func aMissingActivityKeySaysWhatAndWhere() throws {
        let error = try Self.mappingError(
            "uber", #"{"id": "e", "kind": "event.delivery_status", "status": "x", "created": 1}"#)
        #expect(error == .missing(.body(JSONPointer(tokens: ["delivery_id"])), role: "activity-key"))
        #expect(error?.reason == "body has no /delivery_id (activity-key)")
        #expect(error?.status == 422)
    }

    @Test func aDateThatIsNoDate() throws {
        let body = Self.uberStatus.replacingOccurrences(of: "2026-11-23T13:40:00+01:00", with: "soon")
        let error = try Self.mappingError("uber", body)
        #expect(
            error?.reason
                == "/data/dropoff_eta (set eta) is the string 'soon'; expected an ISO-8601 date or UNIX seconds or milliseconds"
        )
    }

    @Test func aBodyThatIsNotJSON() throws {
        let error = try Self.mappingError("uber", "status=delivered")
        #expect(error?.status == 400)
    }

    @Test func standardWebhooksNoteTriggersTheBeatWithInput() throws {
        let body =
            #"{"type": "order.note", "data": {"order_id": 58213, "sequence": 7, "note": "Leave it with the concierge"}}"#
        let event = try Self.map("orders", body, headers: fields(["webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek"]))
        #expect(event.eventID == "msg_p5jXN8AQM9LWM0D4loKWxJek")
        #expect(event.activityKey == "58213")
        #expect(event.orderKey == .sequence(7))
        #expect(
            event.actions == [
                .trigger(
                    beat: "courier-note",
                    input: .object(StateObject([("note", .string("Leave it with the concierge"))])))
            ])
    }

    @Test func standardWebhooksRejectsUnknownTypesAndNeedsItsHeader() throws {
        let unknown = #"{"type": "order.refunded", "data": {"order_id": 1, "sequence": 1}}"#
        let rejected = try Self.mappingError("orders", unknown, headers: fields(["webhook-id": "msg_1"]))
        guard case .unknownEventType("order.refunded", _) = rejected else {
            Issue.record("expected an unknown event type, found \(String(describing: rejected))")
            return
        }
        let noID = try Self.mappingError(
            "orders", #"{"type": "order.delivered", "data": {"order_id": 1, "sequence": 1}}"#)
        #expect(noID?.reason == "request has no header webhook-id (event-id)")
    }

    @Test func aSequenceThatIsNotANumber() throws {
        let body = #"{"type": "order.delivered", "data": {"order_id": 1, "sequence": "seven"}}"#
        let error = try Self.mappingError("orders", body, headers: fields(["webhook-id": "msg_1"]))
        #expect(error?.reason == "/data/sequence (order-key) is the string 'seven'; expected a whole number")
    }
}
