import Liveline

/// Which activities of a load test play on Android, as a share of them: `--android-share 0.3`.
///
/// A share rather than one platform per run, because an audience is rarely half and half: a
/// sports app's fans may be 70% on iPhones, a delivery app's customers the other way round, and
/// one number says either (0 is iOS alone, 1 Android alone). Each copy's platform follows from its
/// copy number alone, spread evenly (with 0.25, every fourth copy), so every shard and every
/// replay agrees on it, and `activities × share` copies, rounded down, play on Android.
public struct PlatformMix: Sendable, Hashable, CustomStringConvertible {
    /// The share of activities on Android, from 0 to 1.
    public let androidShare: Double

    /// Every activity on iOS.
    public static let iosOnly = PlatformMix(checked: 0)

    private init(checked share: Double) { androidShare = share }

    /// A mix with `androidShare` of the activities on Android (0 to 1).
    public init(androidShare: Double) throws(LoadError) {
        guard androidShare.isFinite, (0...1).contains(androidShare) else {
            throw .invalidSetting(
                .androidShare, value: "\(androidShare)",
                problem: "must be from 0 (iOS alone) to 1 (Android alone), such as 0.5 or 30%")
        }
        self.init(checked: androidShare)
    }

    /// Reads `0.3` or `30%`.
    public init(parsing text: String) throws(LoadError) {
        let trimmed = text.trimmingWhitespace
        let percent = trimmed.hasSuffix("%")
        guard let number = Double(percent ? String(trimmed.dropLast()) : trimmed) else {
            throw .invalidSetting(
                .androidShare, value: text,
                problem: "expected a share from 0 to 1 or a percentage, such as 0.5 or 30%")
        }
        try self.init(androidShare: percent ? number / 100 : number)
    }

    /// Whether any activity plays on Android.
    public var hasAndroid: Bool { androidShare > 0 }

    /// Whether any activity plays on iOS.
    public var hasIOS: Bool { androidShare < 1 }

    /// The platform copy `copy` plays on: Android where the running count of Android copies,
    /// `⌊(copy + 1) × share⌋`, steps up.
    public func platform(ofCopy copy: Int) -> Platform {
        guard hasAndroid else { return .ios }
        let before = (Double(copy) * androidShare).rounded(.down)
        let after = (Double(copy + 1) * androidShare).rounded(.down)
        return after > before ? .android : .ios
    }

    /// How many of `copies` play on each platform.
    public func counts(copies: some Sequence<Int>) -> (ios: Int, android: Int) {
        var counts = (ios: 0, android: 0)
        for copy in copies {
            if platform(ofCopy: copy) == .android { counts.android += 1 } else { counts.ios += 1 }
        }
        return counts
    }

    /// `30% Android` for a mix, `iOS` or `Android` for one platform.
    public var description: String {
        switch androidShare {
        case 0: "iOS"
        case 1: "Android"
        default: "\(PercentText.format(androidShare)) Android"
        }
    }
}
