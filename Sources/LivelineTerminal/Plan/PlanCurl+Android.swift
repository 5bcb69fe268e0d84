import Liveline
import LivelineFCM

extension PlanCurl {
    /// The variable the shell fills in for the app instance's registration token.
    static let tokenVariable = "FCM_REGISTRATION_TOKEN"
    private static let tokenSentinel = "LIVELINE_FCM_TOKEN_SENTINEL"

    /// The comment block of FCM's requests.
    func androidPreamble() -> String {
        """
        #!/bin/sh
        # \(scenario.name): FCM messages planned from \(scenario.file), starting \(UTCTime.format(start)).
        # Set FCM_ACCESS_TOKEN (an OAuth 2.0 access token of the Firebase project's service account, with
        # the scope https://www.googleapis.com/auth/firebase.messaging), FCM_PROJECT_ID (its project_id)
        # and $\(Self.tokenVariable) (the app instance's token). FCM_URL defaults to https://fcm.googleapis.com.
        """
    }

    /// One `messages:send` request as a curl command, after a comment with its time and reason.
    func androidCommand(_ message: AndroidMessage) -> String {
        let body: String
        do {
            let request = try FCMSendRequest(
                project: "project", target: .token(Self.tokenSentinel), message: message)
            body = String(decoding: request.body, as: UTF8.self)
        } catch {
            return "\n# \(DurationText.clock(message.time - start)) \(message.activityName): not sent, \(error)"
        }
        let quoted = body.replacing("'", with: #"'\''"#)
            .replacing(#""\#(Self.tokenSentinel)""#, with: #""'"$\#(Self.tokenVariable)"'""#)
        return [
            "",
            "# \(PlanTable.clock(message.time - start)) \(message.activityName) · \(message.event.rawValue) · \(message.reason)",
            "curl -v \\",
            "  --header \"authorization: Bearer $FCM_ACCESS_TOKEN\" \\",
            "  --header \"content-type: \(FCMSendRequest.contentType)\" \\",
            "  --data '\(quoted)' \\",
            "  --http2 \"${FCM_URL:-https://fcm.googleapis.com}/v1/projects/${FCM_PROJECT_ID}/messages:send\"",
        ].joined(separator: "\n")
    }
}
