import Liveline

/// The request handlers, in the order a push meets them: the token's topic, the fault plan,
/// then the device (or every subscriber of a channel). Each runs under ``MockAPNsState``'s lock
/// and returns a ``StreamAnswer``, published after the lock is released.
extension MockStorage {
    /// Answers a validated device push.
    mutating func answerDevicePush(
        _ push: DevicePushRequest, idHeaders: [(String, String)], id: String, roll: Double, now: Millis
    ) -> StreamAnswer {
        stats.devicePushes += 1
        var deliveries: [DeviceDelivery] = []
        var directive = ConnectionDirective.none
        var error: APNsError?
        var timestamp: Double?
        if let bound = devices.tokens[push.token]?.topic, bound != push.topic {
            error = .deviceTokenNotForTopic
        } else if let fault = injectedFault(for: push.token, roll: roll, now: now) {
            error = fault.error
            directive = fault.directive
        } else {
            timestamp = push.payload.timestamp
            deliveries = deliver(push, now: now)
        }
        let response =
            error.map { StreamResponse.error($0, headers: idHeaders, now: now) }
            ?? StreamResponse(status: 200, headers: idHeaders)
        let answered = AnsweredPush(
            time: now, kind: .device, token: push.token, channelID: nil, id: id, priority: push.priority,
            status: response.status, reason: error?.reason, deliveries: deliveries, payload: push.bodyText,
            warnings: push.warnings, timestamp: timestamp)
        return answer(response, directive: directive, publishing: answered, key: push.token, error: error)
    }

    /// Answers a validated broadcast: the channel must exist, then faults, then every subscriber.
    mutating func answerBroadcast(
        _ push: BroadcastPushRequest, requestID: String, roll: Double, now: Millis
    ) -> StreamAnswer {
        stats.broadcasts += 1
        let headers = [("apns-request-id", requestID)]
        var deliveries: [DeviceDelivery] = []
        var directive = ConnectionDirective.none
        var error: APNsError?
        let key = "channel:\(push.channelID)"
        if let channel = channels.channel(push.channelID, bundleID: push.bundleID) {
            if channel.messageStoragePolicy == 0, push.expiration != 0 {
                error = .badExpirationDate
            } else if let fault = injectedFault(for: key, roll: roll, now: now) {
                error = fault.error
                directive = fault.directive
            } else {
                let payload = LiveActivityPayload(body: push.body, loneSurrogate: push.loneSurrogate)
                for activityID in channels.subscribers[push.channelID] ?? [] {
                    if let delivery = devices.apply(
                        payload, to: activityID, route: .broadcast, priority: push.priority, now: now)
                    {
                        deliveries.append(delivery)
                    }
                }
                channels.store(push.body, priority: push.priority, on: push.channelID, now: now)
            }
        } else {
            error = .channelNotRegistered
        }
        let response =
            error.map { StreamResponse.error($0, headers: headers, now: now) }
            ?? StreamResponse(status: 200, headers: headers)
        let answered = AnsweredPush(
            time: now, kind: .broadcast, token: nil, channelID: push.channelID, id: requestID,
            priority: push.priority, status: response.status, reason: error?.reason, deliveries: deliveries,
            payload: push.bodyText, warnings: push.warnings)
        return answer(response, directive: directive, publishing: answered, key: key, error: error)
    }

    /// Answers the channel-management endpoints.
    mutating func answerChannelRequest(_ request: ValidatedRequest, requestID: String, now: Millis) -> StreamResponse {
        stats.channelRequests += 1
        let headers = [("apns-request-id", requestID)]
        let response: StreamResponse
        switch request {
        case .createChannel(let bundleID, let policy, _):
            if let channel = channels.create(bundleID: bundleID, policy: policy, now: now) {
                response = StreamResponse(status: 201, headers: headers + [("apns-channel-id", channel.id)])
            } else {
                response = .error(.cannotCreateChannelConfig, headers: headers, now: now)
            }
        case .readChannel(let bundleID, let channelID, _):
            if let channel = channels.channel(channelID, bundleID: bundleID) {
                response = .json(
                    200,
                    .object(
                        JSONObject([
                            ("message-storage-policy", .int(Int64(channel.messageStoragePolicy))),
                            ("push-type", .string(channel.pushType)),
                        ])), headers: headers + [("apns-channel-id", channel.id)])
            } else {
                response = .error(.channelNotRegistered, headers: headers, now: now)
            }
        case .deleteChannel(let bundleID, let channelID, _):
            response =
                channels.delete(channelID, bundleID: bundleID)
                ? StreamResponse(status: 204, headers: headers)
                : .error(.channelNotRegistered, headers: headers, now: now)
        case .listChannels(let bundleID, _):
            let ids = channels.list(bundleID: bundleID).map { JSONValue.string($0) }
            response = .json(200, .object(JSONObject([("channels", .array(ids))])), headers: headers)
        case .device, .broadcast:
            response = .error(.badPath, headers: headers, now: now)
        }
        countResponse(response.status)
        return response
    }

    /// Counts a request refused by validation; keeps it in the token's history when there is one.
    mutating func recordRejected(
        _ error: APNsError, token: String?, id: String, priority: Int, payload: String, now: Millis
    ) -> PushPublication {
        let answered = AnsweredPush(
            time: now, kind: .device, token: token, channelID: nil, id: id, priority: priority, status: error.status,
            reason: error.reason, deliveries: [], payload: payload)
        return publish(answered, key: token, error: error)
    }

    // MARK: Parts

    /// Records the push and returns the answer with what the event streams are owed.
    private mutating func answer(
        _ response: StreamResponse, directive: ConnectionDirective, publishing answered: consuming AnsweredPush,
        key: String?, error: APNsError?
    ) -> StreamAnswer {
        StreamAnswer(response: response, directive: directive, publication: publish(answered, key: key, error: error))
    }

    /// Records the push, and returns it for the event streams only when somebody listens (else
    /// the history consumes it, uncopied).
    private mutating func publish(
        _ answered: consuming AnsweredPush, key: String?, error: APNsError?
    ) -> PushPublication {
        if subscribers.isEmpty {
            record(answered, key: key, error: error)
            return PushPublication()
        }
        let published = copy answered
        record(answered, key: key, error: error)
        return PushPublication(record: published, subscribers: subscribers.all)
    }

    /// The plan's fault for a push to `key`, counted.
    private mutating func injectedFault(for key: String, roll: Double, now: Millis) -> FaultState.InjectedFault? {
        guard let fault = faults.fault(for: key, roll: roll, now: now) else { return nil }
        stats.faultsInjected += 1
        return fault
    }

    /// A push to a token that no fault stopped: to its activity, or a new one.
    private mutating func deliver(_ push: DevicePushRequest, now: Millis) -> [DeviceDelivery] {
        let token = push.token
        let known = devices.tokens[token]
        if let activityID = known?.activityID {
            return devices.apply(push.payload, to: activityID, route: .update, priority: push.priority, now: now).map {
                [$0]
            } ?? []
        }
        if known?.topic == nil {
            let topic = devices.topics.intern(push.topic)
            devices.modifyToken(token) { $0.topic = topic }
        }
        if push.payload.event == .start || known?.starts != nil {
            return [start(push.payload, token: token, priority: push.priority, now: now)]
        }
        var activity = devices.newActivity(id: token, token: token, attributesType: nil, now: now)
        activity.updateToken = token
        devices.insert(activity)
        devices.modifyToken(token) { $0.activityID = token }
        return devices.apply(push.payload, to: token, route: .update, priority: push.priority, now: now).map { [$0] }
            ?? []
    }

    /// The id of an activity an earlier start on `token` made that the phone still shows, and
    /// whose content is not older than a start of `timestamp`: the same story started twice. A
    /// start with newer content than the activity shown is a successor (a renewal, whose end of
    /// the older one follows) or another story, not a second start of one.
    private func shownStart(token: String, before count: Int, timestamp: Double?, now: Millis) -> String? {
        guard count > 1 else { return nil }
        for earlier in stride(from: count - 1, through: 1, by: -1) {
            let id = "start:\(token.prefix(12)):\(earlier)"
            if let activity = devices.activities[id], activity.lifecycle(at: now) != .ended,
                activity.lifecycle(at: now) != .dismissed
            {
                if let timestamp, let shown = activity.lastTimestamp, timestamp > shown { continue }
                return id
            }
        }
        return nil
    }

    /// A push to a push-to-start token: each start makes a new activity, which may get an
    /// update token of its own and join a channel (and receive its stored message).
    private mutating func start(
        _ payload: LiveActivityPayload, token: String, priority: Int, now: Millis
    ) -> DeviceDelivery {
        var count = 0
        devices.modifyToken(token) { state in
            count = (state.starts ?? 0) + 1
            state.starts = count
        }
        var activity = devices.newActivity(
            id: "start:\(token.prefix(12)):\(count)", token: nil, attributesType: payload.attributesType, now: now)
        activity.pushToStartToken = token
        var delivery = devices.simulator.apply(payload, to: &activity, route: .start, priority: priority, now: now)
        var storedMessage: ChannelRegistry.StoredMessage?
        if delivery.outcome == .rendered,
            let shown = shownStart(token: token, before: count, timestamp: payload.timestamp, now: now)
        {
            // What a phone does with a second start: a second Live Activity beside the first.
            stats.duplicateStarts += 1
            delivery.duplicateOf = shown
            delivery.reasons.append(
                "a second start on this push-to-start token while \(shown) is still shown: the phone now shows two Live Activities for one story"
            )
        }
        if delivery.outcome == .rendered {
            if payload.inputPushToken {
                let updateToken = MockAPNsState.randomToken()
                activity.updateToken = updateToken
                let activityID = activity.id
                devices.modifyToken(updateToken) { $0.activityID = activityID }
                delivery.updateToken = updateToken
            }
            if let channelID = payload.inputPushChannel {
                channels.ensure(id: channelID, now: now)
                channels.subscribe(activityID: activity.id, to: channelID)
                activity.channels.append(channelID)
                storedMessage = channels.storedMessage(on: channelID, now: now)
            }
        }
        devices.insert(activity)
        if let message = storedMessage {
            _ = devices.apply(
                LiveActivityPayload(body: message.payload), to: activity.id, route: .broadcast,
                priority: message.priority, now: now)
        }
        return delivery
    }
}
