// The Live Activity of a football match, as an app declares it.
// Scenarios/football.yaml plays a story that decodes into these types:
//   swift run liveline validate --app Scenarios/app Scenarios/football.yaml

import ActivityKit
import Foundation

struct MatchAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable {
        var minute: Int
        var addedTime: Int
        var homeScore: Int
        var awayScore: Int
        var phase: Phase
        var lastEvent: String?
        var kickoff: Date
    }

    enum Phase: String, Codable, Hashable {
        case preMatch = "pre-match"
        case firstHalf = "first-half"
        case halfTime = "half-time"
        case secondHalf = "second-half"
        case fullTime = "full-time"
    }

    var homeTeam: String
    var awayTeam: String
    var competition: String
    var venue: String
}
