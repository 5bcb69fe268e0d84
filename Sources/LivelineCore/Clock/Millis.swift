/// Milliseconds. The engine and its clocks keep time as whole milliseconds in an `Int64`: an
/// instant counts from the UNIX epoch on the clock that drives the engine (virtual or real), and
/// a span inside the engine (a policy's interval, a beat's offset) is a difference of two.
/// Integer time keeps the engine exact and cheap.
///
/// At the public surface a `Millis` is an instant (`start`, `now()`, a deadline); spans that
/// callers configure (timeouts, intervals, back-offs) are Swift's `Duration`, turned into
/// milliseconds once with ``Swift/Duration/millis``.
public typealias Millis = Int64
