import Liveline

/// Broadcast mode: activities share channels, and one push per channel reaches every
/// subscriber (APNs broadcast, iOS 18).
///
/// Copy `c` of the test subscribes to channel `c % channels`, so subscribers are spread
/// evenly. Only one engine runs per channel: the channel's subscribers all show the same
/// story, which is the point of broadcasting. Channel ids are 16 bytes of base64 derived from
/// the seed, so a mock configured with ``subscriptions(tokens:copies:)`` knows them.
public struct BroadcastPlan: Sendable, Hashable {
    public var channels: Int

    public init(channels: Int) throws(LoadError) {
        guard channels >= 1 else {
            throw .invalidSetting(.channels, value: "\(channels)", problem: "at least one channel is needed")
        }
        self.channels = channels
    }

    /// The channel copy `copy` follows.
    public func channel(ofCopy copy: Int) -> Int { copy % channels }

    /// The channel's base64 id.
    public static func channelID(_ channel: Int, seed: UInt64) -> String {
        var bytes: [UInt8] = []
        var word = SeededRandom.hash(seed ^ 0x6368_616e_6e65_6c73, UInt64(truncatingIfNeeded: channel))
        for _ in 0..<2 {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
            word = SeededRandom.mix(word)
        }
        return base64(bytes)
    }

    /// Channel id → the tokens of the copies that follow it, for the mock's subscriptions.
    public func subscriptions(seed: UInt64, tokens: TokenSource, copies: some Sequence<Int>) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for copy in copies {
            result[Self.channelID(channel(ofCopy: copy), seed: seed), default: []].append(tokens.token(forCopy: copy))
        }
        return result
    }

    /// How many copies of `copies` follow each channel, by channel number.
    public func subscriberCounts(copies: some Sequence<Int>) -> [Int] {
        var counts = Array(repeating: 0, count: channels)
        for copy in copies { counts[channel(ofCopy: copy)] += 1 }
        return counts
    }

    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 0xF) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
