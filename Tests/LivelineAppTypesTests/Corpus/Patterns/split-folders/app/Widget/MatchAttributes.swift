#if canImport(ActivityKit)
import ActivityKit

public struct MatchAttributes: ActivityAttributes {
    public var homeTeam: String
    public var awayTeam: String
}
#endif
