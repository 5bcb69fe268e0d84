import ActivityKit

typealias LiveAttributes = ActivityAttributes
