import Crypto
import Foundation

/// The hash under an HMAC: SHA-256 for nearly every sender, SHA-1 and SHA-512 for a few.
public enum HMACAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// SHA-1, for older senders only.
    case sha1
    /// SHA-256.
    case sha256
    /// SHA-512.
    case sha512
}

/// The secrets an HMAC scheme accepts, newest first; several while a secret is being rotated.
///
/// Each request computes the MAC of its signed content with one key after another and stops at
/// the first whose MAC a presented signature matches. The content is fed in pieces (the id, a
/// separator, the body…) so nothing is concatenated into a new buffer.
///
/// Printing one (in a log line, a test failure) shows how many keys it holds, never a key.
///
/// Each key is kept as an HMAC already keyed (its padded key hashed in), and a request works on
/// a copy: the keying, its allocations and its first hash block are paid once, not per request.
struct HMACKeyring: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let algorithm: HMACAlgorithm
    private let keyed: Keyed

    /// The keys, keyed once, per hash function.
    private enum Keyed: Sendable {
        case sha1([CryptoKey<HMAC<Insecure.SHA1>>])
        case sha256([CryptoKey<HMAC<SHA256>>])
        case sha512([CryptoKey<HMAC<SHA512>>])

        var count: Int {
            switch self {
            case .sha1(let keys): keys.count
            case .sha256(let keys): keys.count
            case .sha512(let keys): keys.count
            }
        }
    }

    /// - Parameter secrets: the raw key bytes, at least one, none empty.
    init(algorithm: HMACAlgorithm, secrets: [[UInt8]], setting: String) throws(WebhookConfigurationError) {
        guard !secrets.isEmpty else { throw WebhookConfigurationError("\(setting): at least one secret is needed") }
        if let empty = secrets.firstIndex(where: \.isEmpty) {
            throw WebhookConfigurationError("\(setting): secret \(empty + 1) is empty")
        }
        self.algorithm = algorithm
        let keys = secrets.map { SymmetricKey(data: $0) }
        keyed =
            switch algorithm {
            case .sha1: .sha1(keys.map { CryptoKey(HMAC(key: $0)) })
            case .sha256: .sha256(keys.map { CryptoKey(HMAC(key: $0)) })
            case .sha512: .sha512(keys.map { CryptoKey(HMAC(key: $0)) })
            }
    }

    /// Keys from text secrets used as their UTF-8 bytes (GitHub, Stripe, Shopify, Square…).
    init(algorithm: HMACAlgorithm, utf8Secrets: [String], setting: String) throws(WebhookConfigurationError) {
        try self.init(algorithm: algorithm, secrets: utf8Secrets.map { Array($0.utf8) }, setting: setting)
    }

    var description: String { "\(keyed.count) HMAC-\(algorithm.rawValue.uppercased()) key(s)" }

    var debugDescription: String { description }

    /// The index of the first key whose MAC over the content `accepts` takes; nil if none.
    /// - Parameters:
    ///   - content: writes the signed content, in order, into the `update` it is given.
    ///   - accepts: compares a computed MAC with the presented signatures (in constant time).
    func firstMatchingKey(
        content: (_ update: (UnsafeRawBufferPointer) -> Void) -> Void,
        accepts: (UnsafeRawBufferPointer) -> Bool
    ) -> Int? {
        switch keyed {
        case .sha1(let keys): Self.firstMatchingKey(keys, content: content, accepts: accepts)
        case .sha256(let keys): Self.firstMatchingKey(keys, content: content, accepts: accepts)
        case .sha512(let keys): Self.firstMatchingKey(keys, content: content, accepts: accepts)
        }
    }

    private static func firstMatchingKey<H: HashFunction>(
        _ keys: [CryptoKey<HMAC<H>>],
        content: (_ update: (UnsafeRawBufferPointer) -> Void) -> Void,
        accepts: (UnsafeRawBufferPointer) -> Bool
    ) -> Int? {
        for (index, key) in keys.enumerated() {
            // A copy of the keyed HMAC: its hash state is copied on the first update.
            var hmac = key.value
            content { hmac.update(data: $0) }
            let code = hmac.finalize()
            if code.withUnsafeBytes(accepts) { return index }
        }
        return nil
    }
}

/// Hands bytes to an `update` function without copying when they are already contiguous.
enum SignedBytes {
    static func feed(_ bytes: some Collection<UInt8>, to update: (UnsafeRawBufferPointer) -> Void) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes(update) }
    }

    static func feed(_ text: String, to update: (UnsafeRawBufferPointer) -> Void) {
        feed(text.utf8, to: update)
    }

    static func feed(_ text: Substring, to update: (UnsafeRawBufferPointer) -> Void) {
        feed(text.utf8, to: update)
    }

    static let dot: [UInt8] = [UInt8(ascii: ".")]
}

/// A swift-crypto key held by a `Sendable` verifier.
///
/// swift-crypto 3 does not mark its key types `Sendable`, though they are immutable values: a
/// key's storage is written once, when it is made, and only read afterwards. Keeping the key
/// (rather than its bytes, as `SigningKey` does for the APNs key) spares building it again on
/// every webhook. Only immutable key types belong in here.
struct CryptoKey<Key>: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: Key

    init(_ value: Key) { self.value = value }

    var description: String { "<key>" }

    var debugDescription: String { description }
}
