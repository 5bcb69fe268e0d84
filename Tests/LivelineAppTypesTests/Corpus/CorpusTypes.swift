// Attribute types written the ways real apps write them. This file is compiled into the tests
// (so Foundation's JSONDecoder decodes with these very types) and read by AppSourceReader from
// disk (so the checker sees the same declarations): the two must agree on every payload.

import Foundation

/// ActivityKit is not on Linux; its protocol is what the reader looks for by name.
protocol ActivityAttributes: Codable, Hashable {
    associatedtype ContentState: Codable & Hashable
}

struct RideAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable {
        var driverName: String
        var etaMinutes: Int
        /// A var with a default: still required when decoding.
        var unread: Int = 0
        /// A let with an initial value: never decoded.
        let kind = "ride"
        var note: String?
        var phase: Phase
        var level: Level
        var driver: Driver
        var pickup: Date
        var window: ClosedRange<Date>
        var fare: Decimal
        var receipt: URL?
        var tripID: UUID
        var stops: [Stop]
        var tallies: [String: Int]
        var seats: UInt8
        var rating: Float

        enum CodingKeys: String, CodingKey {
            case driverName = "driver_name"
            case etaMinutes, unread, note, phase, level, driver, pickup, window, fare, receipt, tripID, stops, tallies, seats, rating
        }

        /// A computed property: not stored, not decoded.
        var isLate: Bool { etaMinutes > 30 }
        static let maximumStops = 5
    }

    enum Phase: String, Codable, Hashable {
        case waiting
        case enRoute = "en-route"
        case arrived
    }

    enum Level: Int, Codable, Hashable {
        case low = 1, medium, high
    }

    struct Driver: Codable, Hashable {
        var name: String
        var rating: Double
        var vehicle: Vehicle?
    }

    var rideID: String
    var city: String
}

extension RideAttributes {
    struct Stop: Codable, Hashable {
        var label: String
        var done: Bool
    }

    typealias Vehicle = String
}

/// Conforms in an extension, as apps that share the type with a widget often do.
struct TimerAttributes {
    struct ContentState: Codable, Hashable {
        var ends: Date
        var paused: Bool
    }

    var title: String
}

extension TimerAttributes: ActivityAttributes {}

/// Decodes itself: what it accepts is known only by running it.
struct ScoreAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var score: Score
    }

    struct Score: Codable, Hashable {
        var home: Int
        var away: Int

        init(from decoder: Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 2 else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected home-away"))
            }
            (home, away) = (parts[0], parts[1])
        }
    }

    var league: String
}

/// Enums without raw values, associated values, the standard library's and Foundation's
/// aliases and smaller numbers: what real apps write beyond the common case.
struct OrderAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var status: Status
        var step: Step
        var elapsed: TimeInterval
        var progress: Float16
        var scale: CGFloat
        var pin: CGPoint
        var floor: Int16
        var port: UInt16
        var note: Note?
        var frame: CGRect
        var total: Labeled<Decimal>
    }

    /// Synthesized: `{"received": {}}`, never `"received"`.
    enum Status: Codable, Hashable {
        case received, preparing, ready
    }

    /// Associated values, labelled and not: `{"courier": {"name": "Sam", "_1": 3}}`.
    enum Step: Codable, Hashable {
        case waiting
        case courier(name: String, Int)
        case delivered(at: Date, signedBy: String?)
    }

    enum Note: Codable, Hashable {
        case text(String)
    }

    var orderNumber: Int
}

/// A generic wrapper of the app's own.
struct Labeled<Value: Codable & Hashable>: Codable, Hashable {
    var label: String
    var value: Value
}
