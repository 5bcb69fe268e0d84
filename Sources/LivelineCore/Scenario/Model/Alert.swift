/// The `alert` of a push: it lights the screen. `title` and `body` are plain or localized
/// (`loc-key` with `loc-args`).
///
/// One type in two stages: a scenario writes `Alert<TextTemplate>` (its texts may hold
/// templates), and a push carries `Alert<String>`, evaluated for that moment.
public struct Alert<Piece: Sendable & Hashable>: Sendable, Hashable {
    public enum Text: Sendable, Hashable {
        case plain(Piece)
        case localized(key: String, args: [Piece])

        /// The same text with each piece transformed.
        public func map<Other>(_ transform: (Piece) throws -> Other) rethrows -> Alert<Other>.Text {
            switch self {
            case .plain(let piece): .plain(try transform(piece))
            case .localized(let key, let args): .localized(key: key, args: try args.map(transform))
            }
        }
    }

    public var title: Text?
    public var body: Text?
    public var sound: String?

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
