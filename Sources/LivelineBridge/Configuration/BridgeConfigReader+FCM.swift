import Foundation
import Liveline
import LivelineFCM
import Yams

/// `fcm:` (``FCMSettings``): the service account is read here, so a key file that is missing or
/// not a service account is a located error before the bridge serves.
extension BridgeConfigReader {
    static let fcmKeys = ["service-account", "project", "url", "ca-file"]

    mutating func fcm(_ node: Node?) -> FCMSettings? {
        guard let node, let fields = base.fields(of: node, in: "fcm", allowed: Self.fcmKeys) else { return nil }
        guard let accountNode = fields["service-account"] else {
            error(node, "fcm: needs 'service-account', the path of the Firebase project's service-account JSON")
            return nil
        }
        guard let written = base.string(accountNode, "service-account") else { return nil }
        let path = resolve(written)
        let account: ServiceAccount
        do {
            account = try ServiceAccount(contentsOf: path)
        } catch {
            self.error(accountNode, "service-account '\(written)': \(error)")
            return nil
        }
        var project: String?
        if let projectNode = fields["project"], let text = base.string(projectNode, "project") {
            guard FCMSendRequest.isProjectID(text) else {
                error(projectNode, "project '\(text)' is not a Firebase project id (letters, digits, '-', '.', ':')")
                return nil
            }
            project = text
        }
        guard project != nil || FCMSendRequest.isProjectID(account.projectID) else {
            error(accountNode, "the service account names no project_id; give fcm: a 'project'")
            return nil
        }
        var url = "https://" + FCMSendRequest.host
        if let urlNode = fields["url"], let text = base.string(urlNode, "url") {
            guard text.hasPrefix("https://") || text.hasPrefix("http://") else {
                error(urlNode, "url '\(text)' is not an http(s) address such as https://127.0.0.1:2198")
                return nil
            }
            url = text
        }
        var caFile: String?
        if let caNode = fields["ca-file"], let text = base.string(caNode, "ca-file") {
            guard FileManager.default.fileExists(atPath: resolve(text)) else {
                error(caNode, "ca-file '\(text)' does not exist (looked for \(resolve(text)))")
                return nil
            }
            caFile = resolve(text)
        }
        return FCMSettings(account: account, accountPath: path, project: project, url: url, caFile: caFile)
    }
}
