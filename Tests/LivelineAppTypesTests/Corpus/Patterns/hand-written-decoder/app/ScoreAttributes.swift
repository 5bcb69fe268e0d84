import ActivityKit

struct ScoreAttributes: ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var home: Int
        var away: Int

        enum CodingKeys: String, CodingKey {
            case home = "h"
            case away = "a"
        }

        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            home = try container.decodeIfPresent(Int.self, forKey: .home) ?? 0
            away = try container.decodeIfPresent(Int.self, forKey: .away) ?? 0
        }
    }

    var league: String
}
