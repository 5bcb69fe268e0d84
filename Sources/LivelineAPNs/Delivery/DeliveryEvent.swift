import LivelineCore

/// What happened to a push on its way to APNs, for live views, logs and load-test reports.
public enum DeliveryEvent: Sendable {
    /// The push (attempt `attempt`, from 1) went to the client, to be written to APNs.
    case sent(activity: Int, push: Push, attempt: Int)
    /// APNs answered 200. `latency` counts from when the push was due (its `Push.time`), not
    /// from when it went out, so queueing and retries are in it.
    case delivered(activity: Int, push: Push, response: APNsResponse, attempts: Int, latency: Millis)
    /// A retryable failure; the push (or a newer one) goes again after `after`.
    case retrying(activity: Int, push: Push, failure: String, attempt: Int, after: Millis)
    /// A push that waited was replaced by a newer one before it could go.
    case superseded(activity: Int, dropped: Push, by: Push)
    /// APNs refused this push for good (4xx); later pushes of the activity still go.
    case rejected(activity: Int, push: Push, response: APNsResponse)
    /// The activity is gone (410, or a bad token): nothing more is sent to it.
    case stopped(activity: Int, reason: String)
    /// Retries ran out.
    case gaveUp(activity: Int, push: Push, failure: String)
    /// The setup is wrong; the run should stop and say how to fix it.
    case configurationError(String)
    /// The run stopped before the push finished (its drain deadline passed): it may or may not
    /// have reached APNs.
    case abandoned(activity: Int, push: Push, reason: String)
    /// One of a renewal's two pushes that is not sent: the activity cannot renew (it has no
    /// push-to-start token, or its predecessor's token was never reported), so the renewal never
    /// happens on the device, which keeps its activity until the system ends it. Settled, not
    /// lost: nothing was owed to APNs.
    case notRenewed(activity: Int, push: Push, reason: String)
}
