extension BeatSpec {
    /// The first time the beat happens, after the activity start; nil for triggered beats.
    public var firstOffset: Millis? {
        switch timing {
        case .at(let at): at
        case .every(_, let from, _): from
        case .triggered: nil
        }
    }

    /// The last time the beat happens, given the activity's end; nil for triggered beats.
    public func lastOffset(end: Millis) -> Millis? {
        switch timing {
        case .at(let at): return at
        case .every(let interval, let from, let through):
            let last = min(through ?? end, end)
            guard last >= from else { return from }
            return from + (last - from) / interval * interval
        case .triggered: return nil
        }
    }
}
