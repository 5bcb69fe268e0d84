extension Duration {
    /// The span in whole milliseconds (rounded toward zero), as the engine and its clocks count
    /// time. Public surfaces take spans as `Duration`; the engine keeps ``Millis``.
    public var millis: Millis {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
