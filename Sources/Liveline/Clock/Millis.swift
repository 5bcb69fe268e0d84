/// Milliseconds. Liveline keeps every time and duration as whole milliseconds in an `Int64`:
/// instants count from the UNIX epoch on the clock that drives the engine (virtual or real),
/// durations are differences of those. Integer time keeps the engine exact and cheap.
public typealias Millis = Int64
