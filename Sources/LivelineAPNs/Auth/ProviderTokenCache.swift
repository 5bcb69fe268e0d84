import Logging
import NIOConcurrencyHelpers

/// The provider token in use, shared by every connection of a client, renewed as
/// ``ProviderTokenPolicy`` allows: by age before APNs would call it expired, and when APNs
/// says `ExpiredProviderToken`, but never sooner than APNs accepts a new token
/// (`TooManyProviderTokenUpdates`).
///
/// **Concurrency.** Read by every request from any thread; the token sits behind one lock,
/// held only to read or swap it (signing a new one, about once every 50 minutes, happens under it).
final class ProviderTokenCache: Sendable {
    private let key: SigningKey
    private let now: @Sendable () -> Int64
    private let policy: ProviderTokenPolicy
    private let logger: Logger
    private let token: NIOLockedValueBox<ProviderToken?>

    /// `now` gives UNIX seconds (tests pass a clock of their own).
    init(
        key: SigningKey, policy: ProviderTokenPolicy = ProviderTokenPolicy(), logger: Logger,
        now: @escaping @Sendable () -> Int64
    ) {
        self.key = key
        self.policy = policy
        self.logger = logger
        self.now = now
        self.token = NIOLockedValueBox(nil)
    }

    /// The token to send now: the current one, or a new one when it is old enough to renew.
    func current() -> ProviderToken {
        let time = now()
        let (current, replaced) = token.withLockedValue { token -> (ProviderToken, ProviderToken??) in
            if let current = token, !policy.shouldRenew(issuedAt: current.issuedAt, now: time) {
                return (current, nil)
            }
            let fresh = ProviderToken(key: key, issuedAt: time)
            defer { token = fresh }
            return (fresh, .some(token))
        }
        if let replaced {
            logger.debug(
                replaced == nil ? "provider token signed" : "provider token renewed",
                metadata: Self.metadata(key: key, issuedAt: time, replacing: replaced, now: time))
        }
        return current
    }

    /// What became of a token APNs said expired.
    enum Renewal: Hashable {
        /// A new token replaced it.
        case renewed(ProviderToken)
        /// Another request had replaced it already.
        case alreadyRenewed(ProviderToken)
        /// It is younger than APNs's minimum between updates: a new one now would be answered
        /// `TooManyProviderTokenUpdates`, so it stays. (APNs calling a token this young expired
        /// means this machine's clock is far behind.)
        case refused(age: Int64)

        /// The token to send again with, if any.
        var token: ProviderToken? {
            switch self {
            case .renewed(let token), .alreadyRenewed(let token): token
            case .refused: nil
            }
        }
    }

    /// APNs said `stale` expired: replaces it with a new token, unless another request already
    /// did, or it is too young for APNs to accept a new one.
    func renew(replacing stale: ProviderToken) -> Renewal {
        let time = now()
        let renewal = token.withLockedValue { token -> Renewal in
            if let current = token, current != stale { return .alreadyRenewed(current) }
            guard policy.mayRenewAfterExpiry(issuedAt: stale.issuedAt, now: time) else {
                return .refused(age: time - stale.issuedAt)
            }
            let fresh = ProviderToken(key: key, issuedAt: time)
            token = fresh
            return .renewed(fresh)
        }
        switch renewal {
        case .renewed:
            logger.notice(
                "APNs said the provider token expired; renewed it",
                metadata: Self.metadata(key: key, issuedAt: time, replacing: stale, now: time))
        case .refused(let age):
            logger.warning(
                "APNs said the provider token expired, but it was signed \(age)s ago; APNs refuses a new one sooner than \(policy.minimumAge)s after the last (TooManyProviderTokenUpdates), so it is kept: check this machine's clock",
                metadata: Self.metadata(key: key, issuedAt: stale.issuedAt, replacing: nil, now: time))
        case .alreadyRenewed:
            break
        }
        return renewal
    }

    /// What a log line says of a token: its key, team and times, never the token.
    private static func metadata(
        key: SigningKey, issuedAt: Int64, replacing old: ProviderToken?, now: Int64
    ) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "key-id": .string(key.keyID), "team-id": .string(key.teamID), "issued-at": "\(issuedAt)",
        ]
        if let old { metadata["previous-age-seconds"] = "\(now - old.issuedAt)" }
        return metadata
    }
}
