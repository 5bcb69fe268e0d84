/// The streams of ``StreamStateTable``: a map from stream id to entry, for the few hundred
/// streams a connection has open.
///
/// Open addressing with linear probing and a multiplicative hash of the id: stream ids are
/// small, distinct, mostly consecutive odd numbers, so they need no seeded hash, and a lookup
/// costs a multiply and usually one probe instead of a SipHash round (`Dictionary`'s). Stream 0
/// marks an empty slot (no stream has id 0). Removal shifts the following entries back, so no
/// tombstones build up as streams come and go.
struct StreamIDMap {
    typealias Value = StreamStateTable.Entry
    /// What an empty slot holds.
    private static let vacant = Value(state: .open, send: FlowControlWindow(0), receive: FlowControlWindow(0))

    private var keys: [UInt32]
    private var values: [Value]
    private var mask: Int
    private(set) var count = 0

    init() {
        keys = Array(repeating: 0, count: 16)
        values = Array(repeating: Self.vacant, count: 16)
        mask = 15
    }

    private func ideal(_ key: UInt32) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The slot holding `key`, if any.
    func index(forKey key: UInt32) -> Int? {
        var slot = ideal(key)
        while true {
            let held = keys[slot]
            if held == key { return slot }
            if held == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// The value in an occupied slot.
    subscript(at slot: Int) -> Value {
        get { values[slot] }
        _modify { yield &values[slot] }
    }

    subscript(key: UInt32) -> Value? {
        get { index(forKey: key).map { values[$0] } }
        set {
            if let newValue { insert(newValue, for: key) } else { removeValue(forKey: key) }
        }
    }

    /// The occupied slots.
    var occupied: [Int] { keys.indices.filter { keys[$0] != 0 } }

    /// The keys, in no order.
    var allKeys: [UInt32] { keys.filter { $0 != 0 } }

    private mutating func insert(_ value: Value, for key: UInt32) {
        if let slot = index(forKey: key) {
            values[slot] = value
            return
        }
        if (count + 1) * 2 > keys.count { grow() }
        var slot = ideal(key)
        while keys[slot] != 0 { slot = (slot + 1) & mask }
        keys[slot] = key
        values[slot] = value
        count += 1
    }

    @discardableResult
    mutating func removeValue(forKey key: UInt32) -> Value? {
        guard let slot = index(forKey: key) else { return nil }
        return remove(at: slot)
    }

    /// Empties an occupied slot; later entries of its probe run move back into the gap.
    @discardableResult
    mutating func remove(at slot: Int) -> Value {
        let removed = values[slot]
        var gap = slot
        var next = (slot + 1) & mask
        while keys[next] != 0 {
            let home = ideal(keys[next])
            // The entry may fill the gap unless its home lies cyclically in (gap, next].
            let stays = gap <= next ? (gap < home && home <= next) : (gap < home || home <= next)
            if !stays {
                keys[gap] = keys[next]
                values[gap] = values[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        keys[gap] = 0
        values[gap] = Self.vacant
        count -= 1
        return removed
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: Self.vacant, count: oldKeys.count * 2)
        mask = keys.count - 1
        count = 0
        for slot in oldKeys.indices where oldKeys[slot] != 0 {
            insert(oldValues[slot], for: oldKeys[slot])
        }
    }
}
