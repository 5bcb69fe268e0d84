import Liveline

/// A key's own `renew`, set by its registration (`"renew"` in `PUT /v1/activities/{key}`),
/// over its scenario's policy: off, or its own `before` and `until`.
public enum RenewalChoice: Sendable, Hashable {
    /// The key does not renew, whatever its scenario says (`"renew": false`).
    case off
    /// The key renews `before` into each activity, for a story of at most `until`.
    case on(before: Millis, until: Millis)

    /// The renewal an engine of `program` plays for a key that chose `choice` (nil: the
    /// scenario's), its alert the scenario's, or else `defaultTitle`.
    static func renewal(_ choice: RenewalChoice?, program: ActivityProgram, defaultTitle: String) -> Renewal? {
        switch choice {
        case nil:
            return program.policy.renewal
        case .off?:
            return nil
        case .on(let before, let until)?:
            let alert =
                program.policy.renewal?.alert
                ?? Alert(title: .plain(TextTemplate(defaultTitle)), body: nil, sound: nil)
            return Renewal(before: before, until: until, alert: alert)
        }
    }
}
