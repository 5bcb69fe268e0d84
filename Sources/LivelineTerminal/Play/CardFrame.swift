/// The box both cards are drawn in: a line of text clipped and padded between `│ … │`, in
/// colour on a terminal that takes it.
struct CardFrame {
    let width: Int
    let color: Bool

    /// `text` in the SGR colour `code` (`1;32`), or as it is without colour.
    func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    /// One line of the card: `text` clipped to the inside, padded, and painted with `code`.
    func line(_ text: String, _ code: String? = nil) -> String {
        let inner = width - 4
        let clipped = ActivityCard.clip(text, to: inner)
        let padded = clipped + String(repeating: " ", count: inner - clipped.unicodeScalars.count)
        return "│ " + (code.map { paint(padded, $0) } ?? padded) + " │"
    }
}
