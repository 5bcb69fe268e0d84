import LivelineCore

/// The shapes of the identifiers APNs takes, checked before the first push: a typo is then an
/// error that names the value and the fix, rather than a 400 or 403 from APNs minutes into a
/// run (or, with APNs out of reach, nothing at all).
///
/// Each rule returns what is wrong, in words that complete "`--key-id X`: …", or nil when the
/// value has the right shape. The caller says where the value came from (a flag, an
/// environment variable, a line of a configuration file).
public enum APNsIdentifiers {
    /// The length of a Key ID and of a Team ID.
    public static let idLength = 10

    /// A device token (update or push-to-start): hexadecimal, at least 64 digits (32 bytes),
    /// an even number of them. Apple's tokens are 32 bytes today; longer ones are allowed.
    public static func deviceTokenProblem(_ token: String) -> String? {
        let digits = token.utf8.count
        if let bad = token.first(where: { !$0.isHexDigit }) {
            return
                "a device token is hexadecimal (0-9, a-f), and this one has '\(bad)'; print the token's bytes as hex in the app: token.map { String(format: \"%02x\", $0) }.joined()"
        }
        if digits < 64 {
            return
                "a device token has at least 64 hex digits (32 bytes), and this one has \(digits); copy the whole token the app printed"
        }
        if digits % 2 == 1 {
            return "a device token is whole bytes, an even number of hex digits, and this one has \(digits)"
        }
        return nil
    }

    /// A Key ID: 10 letters and digits, shown beside the key in the developer account.
    public static func keyIDProblem(_ id: String) -> String? {
        idProblem(
            id, what: "Key ID",
            whereToFind:
                "it is shown beside the key under Certificates, Identifiers & Profiles → Keys, and in the .p8 file's name (AuthKey_ABC123DEFG.p8)"
        )
    }

    /// A Team ID: 10 letters and digits, shown under Membership details in the developer account.
    public static func teamIDProblem(_ id: String) -> String? {
        idProblem(id, what: "Team ID", whereToFind: "it is shown under Membership details in your developer account")
    }

    /// The app's bundle id as a topic: letters, digits, hyphens and dots, without the
    /// `.push-type.liveactivity` that Liveline adds to every Live Activity push itself.
    public static func topicProblem(_ topic: String) -> String? {
        let suffix = "\(LiveActivityTopic.suffix)"
        if topic.hasSuffix(suffix), topic.count > suffix.count {
            return "give the app's bundle id, \(topic.dropLast(suffix.count)): Liveline adds \(suffix) to every push"
        }
        let allowed = topic.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        if topic.isEmpty || !allowed || topic.hasPrefix(".") || topic.hasSuffix(".") || topic.contains("..") {
            return "a topic is the app's bundle id, like com.example.matchday (letters, digits, hyphens and dots)"
        }
        return nil
    }

    private static func idProblem(_ id: String, what: String, whereToFind: String) -> String? {
        let characters = id.count
        if characters != idLength {
            return "a \(what) has \(idLength) characters, and this one has \(characters); \(whereToFind)"
        }
        if let bad = id.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber)) }) {
            return "a \(what) is letters and digits, and this one has '\(bad)'; \(whereToFind)"
        }
        return nil
    }
}
