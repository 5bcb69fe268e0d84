/// The `alert` of a push: it lights the screen. `title` and `body` are plain or localized
/// (`loc-key` with `loc-args`).
///
/// One type in two stages: a scenario writes `Alert<TextTemplate>` (its texts may hold
/// templates), and a push carries `Alert<String>`, evaluated for that moment.
public struct Alert<Piece: Sendable & Hashable>: Sendable, Hashable {
    /// A title or a body.
    public enum Text: Sendable, Hashable {
        /// Text shown as it is.
        case plain(Piece)
        /// A key of the app's `Localizable.strings` and the arguments for its format (`loc-key`, `loc-args`).
        case localized(key: String, args: [Piece])

        /// The same text with each piece transformed.
        public func map<Other>(_ transform: (Piece) throws -> Other) rethrows -> Alert<Other>.Text {
            switch self {
            case .plain(let piece): .plain(try transform(piece))
            case .localized(let key, let args): .localized(key: key, args: try args.map(transform))
            }
        }
    }

    /// The alert's title, or nil for none.
    public var title: Text?
    /// The alert's body, or nil for none.
    public var body: Text?
    /// The sound file in the app's bundle, `default`, or nil for silence.
    public var sound: String?

    /// An alert with the parts given.
    public init(title: Text?, body: Text?, sound: String?) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// The same alert with each piece of text transformed (a template evaluated, say).
    public func map<Other>(_ transform: (Piece) throws -> Other) rethrows -> Alert<Other> {
        Alert<Other>(title: try title?.map(transform), body: try body?.map(transform), sound: sound)
    }
}
