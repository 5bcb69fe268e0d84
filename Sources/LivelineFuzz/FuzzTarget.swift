/// One fuzz target: a function fed arbitrary bytes, which must return (never crash, hang or
/// grow without bound) whatever the bytes are. It returns whether the input got past the
/// parser's checks, so a test can tell that the seeds reach the code behind them.
///
/// Each target calls the real parser the way the program does, with the limits the program
/// uses. A target may read a first byte as a choice (which scheme, which side), so one input
/// format reaches several variants.
struct FuzzTarget: Sendable {
    /// The name on the command line and the folder of its corpus, `scripts/fuzz/corpus/<name>/`.
    let name: String
    /// What it feeds, in a line.
    let summary: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Bool

    /// Every target, in the order `scripts/fuzz/run.sh` runs them.
    static let all: [FuzzTarget] = [
        .scenario, .template, .json, .http2Core, .hpack, .mockConnection, .clientConnection, .jwt,
        .webhookVerification, .webhookMapping, .bridgeConfiguration, .streamFraming,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

extension UnsafeRawBufferPointer {
    /// The bytes as text, invalid UTF-8 repaired as the program's readers repair it.
    var text: String { String(decoding: self, as: UTF8.self) }

    /// The first byte as a choice among `count`, and the rest.
    func choice(of count: Int) -> (Int, UnsafeRawBufferPointer) {
        guard let first = first else { return (0, self) }
        return (Int(first) % count, UnsafeRawBufferPointer(rebasing: self[1...]))
    }
}
