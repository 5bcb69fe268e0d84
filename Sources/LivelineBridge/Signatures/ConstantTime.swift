/// Byte comparison whose running time does not depend on where two inputs differ.
///
/// Comparing a computed signature with an early exit tells an attacker, through timing, how
/// many leading bytes of a forged signature are right; that turns the receiver into a signing
/// oracle. These functions look at every byte. Lengths are not secret and may end early.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, looking at every byte when lengths agree.
    public static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Whether two byte collections are equal, in constant time for equal lengths.
    public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
