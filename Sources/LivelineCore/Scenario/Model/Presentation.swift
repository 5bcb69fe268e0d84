/// How an activity looks on a screen: which fields or templates fill the Lock Screen and the
/// Dynamic Island's regions, with a tint and an icon.
///
/// It is what the app's SwiftUI views would show, written down so a page (the mock's dashboard)
/// can draw the activity without the app. Every text is a ``PresentationText``: literal words with
/// `{{ state.field }}` and `{{ attributes.field }}` placeholders, checked against the activity's
/// fields when the file loads. Regions left out get a layout derived from the fields.
public struct Presentation: Sendable, Hashable, Encodable {
    /// The accent colour: `#rgb`, `#rrggbb` or a named colour (``namedTints``).
    public var tint: String?
    /// An SF-Symbol-like name (`soccerball`, `box.truck`), drawn as a glyph or a simple shape.
    public var icon: String?
    /// The Lock Screen banner: a title line and the lines under it.
    public var lockScreenTitle: PresentationText?
    /// The lines under the Lock Screen title, top to bottom.
    public var lockScreenLines: [PresentationText]
    /// The compact Dynamic Island, left and right of the camera.
    public var compactLeading: PresentationText?
    /// The compact Dynamic Island, right of the camera.
    public var compactTrailing: PresentationText?
    /// The minimal Dynamic Island, when several activities share it.
    public var minimal: PresentationText?
    /// The expanded Dynamic Island's regions.
    public var expandedLeading: PresentationText?
    /// The expanded Dynamic Island's trailing region, right of the camera.
    public var expandedTrailing: PresentationText?
    /// The expanded Dynamic Island's centre region, under the camera.
    public var expandedCenter: PresentationText?
    /// The expanded Dynamic Island's bottom region, across its width.
    public var expandedBottom: PresentationText?

    /// A presentation with the regions given; the others are derived from the activity's fields.
    public init(
        tint: String? = nil, icon: String? = nil, lockScreenTitle: PresentationText? = nil,
        lockScreenLines: [PresentationText] = [], compactLeading: PresentationText? = nil,
        compactTrailing: PresentationText? = nil, minimal: PresentationText? = nil,
        expandedLeading: PresentationText? = nil, expandedTrailing: PresentationText? = nil,
        expandedCenter: PresentationText? = nil, expandedBottom: PresentationText? = nil
    ) {
        self.tint = tint
        self.icon = icon
        self.lockScreenTitle = lockScreenTitle
        self.lockScreenLines = lockScreenLines
        self.compactLeading = compactLeading
        self.compactTrailing = compactTrailing
        self.minimal = minimal
        self.expandedLeading = expandedLeading
        self.expandedTrailing = expandedTrailing
        self.expandedCenter = expandedCenter
        self.expandedBottom = expandedBottom
    }

    /// Colour names a tint may use, as the system colours read on a dark Lock Screen.
    public static let namedTints: [String: String] = [
        "red": "#ff453a", "orange": "#ff9f0a", "yellow": "#ffd60a", "green": "#30d158", "mint": "#63e6e2",
        "teal": "#40c8e0", "cyan": "#64d2ff", "blue": "#0a84ff", "indigo": "#5e5ce6", "purple": "#bf5af2",
        "pink": "#ff375f", "brown": "#ac8e68", "gray": "#98989d", "white": "#ffffff",
    ]

    enum CodingKeys: String, CodingKey {
        case tint, icon, minimal
        case lockScreenTitle = "lock-screen-title"
        case lockScreenLines = "lock-screen-lines"
        case compactLeading = "compact-leading"
        case compactTrailing = "compact-trailing"
        case expandedLeading = "expanded-leading"
        case expandedTrailing = "expanded-trailing"
        case expandedCenter = "expanded-center"
        case expandedBottom = "expanded-bottom"
    }
}

/// One text of a ``Presentation``: literal parts and placeholders, in order.
///
/// Encoded as a list of parts, `{"text": "…"}` or `{"field": "state.minute", "format": "countdown"}`,
/// so a page fills it in without parsing templates.
public struct PresentationText: Sendable, Hashable, Encodable {
    /// A piece of a presentation text.
    public enum Part: Sendable, Hashable {
        /// Words shown as they are.
        case text(String)
        /// A value: `scope` is `state` or `attributes`, `path` the field (nested with dots).
        case field(scope: String, path: [String], format: PresentationFormat?)
    }

    /// The parts, in reading order.
    public var parts: [Part]

    /// A text of `parts`.
    public init(parts: [Part]) { self.parts = parts }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for part in parts {
            switch part {
            case .text(let text):
                try container.encode(["text": text])
            case .field(let scope, let path, let format):
                var entry = ["field": ([scope] + path).joined(separator: ".")]
                if let format { entry["format"] = format.rawValue }
                try container.encode(entry)
            }
        }
    }
}

/// How a placeholder shows its value: `{{ state.eta | countdown }}`.
public enum PresentationFormat: String, Sendable, Hashable, CaseIterable {
    /// A date as the time left until it (`12 min`, `0:45`), counting down live.
    case countdown
    /// A date as a time of day (`18:42`).
    case time
    /// Text in capitals.
    case upper
}
