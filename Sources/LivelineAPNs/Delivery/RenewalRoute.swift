import LivelineCore

/// Where a renewing activity's pushes go (`Renewal`), kept by ``PushDelivery`` only for
/// activities that have renewed.
///
/// A renewal's start goes to the push-to-start token; its end, and every push of an older
/// generation, to the predecessor's token; the pushes after it to the update token the successor
/// reports. A renewal whose start APNs did not take never happened for the device: its end is not
/// sent, and the pushes of its generation go to the activity the device still shows.
struct RenewalRoute: Sendable {
    /// The newest generation submitted.
    var newest = 0
    /// The generation the activity's reported update token belongs to.
    var tokenGeneration = 0
    /// The token of the generation before ``tokenGeneration``, kept until that generation's end
    /// (the renewal's second push) is answered.
    var predecessor: (generation: Int, token: String)?
    /// Renewals whose start APNs did not take, by the generation they would have started.
    var failed: Set<Int> = []

    /// The generation on the device that a push of `generation` is for: itself, or the one
    /// before when its renewal failed.
    func effective(_ generation: Int) -> Int {
        var found = generation
        while found > 0, failed.contains(found) { found -= 1 }
        return found
    }

    /// The update token known for `generation` (an effective one), given the activity's newest
    /// reported token: that one, or the predecessor's.
    func token(for generation: Int, reported: String?) -> String? {
        if generation == tokenGeneration { return reported }
        if let predecessor, predecessor.generation == generation { return predecessor.token }
        return nil
    }
}

extension Push {
    /// Whether the push is one of a renewal's two: never merged with another, never replaced.
    var isRenewal: Bool { reason.kind == .renewalStart || reason.kind == .renewalEnd }
}
