import ActivityKit

struct ParcelAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var stage: String
        var courierNote: String?

        enum CodingKeys: String, CodingKey {
            case stage
            case courierNote = "courier_note"
        }
    }
}
