import Foundation
import Liveline
import LivelineAPNs
import Yams

/// `apns:`, and the `LIVELINE_APNS_*` variables that stand in for its keys, as `liveline play`
/// reads them: a variable that is set replaces its key (a deployment keeps one file and sets
/// the credentials from its secrets), and without `apns:` the variables alone give the
/// credentials. Key and Team IDs and the topic are checked for their shape here, before the
/// bridge serves (`APNsIdentifiers`).
extension BridgeConfigReader {
    static let apnsKeys = [
        "key", "key-env", "key-id", "team-id", "topic", "environment", "environments", "probe-interval",
    ]

    /// A value for one of `apns:`'s keys, from the file or from the environment.
    private struct Setting {
        var text: String
        /// The node in the file, or nil when the environment gave it.
        var node: Node?
        /// The environment variable that gave it.
        var variable: String?
    }

    mutating func apns(_ node: Node?) -> APNsSettings? {
        let credentialVariables = [
            Credentials.keyFileVariable, Credentials.keyVariable, Credentials.keyIDVariable,
            Credentials.teamIDVariable,
        ]
        guard node != nil || credentialVariables.contains(where: { variable($0) != nil }) else { return nil }
        var fields = Fields()
        if let node {
            guard let read = base.fields(of: node, in: "apns", allowed: Self.apnsKeys) else { return nil }
            fields = read
        }
        func setting(_ key: String, _ variable: String) -> Setting? {
            if let value = self.variable(variable) { return Setting(text: value, node: nil, variable: variable) }
            return fields[key].flatMap { node in base.string(node, key).map { Setting(text: $0, node: node) } }
        }
        let key = apnsKey(fields, node: node)
        let keyID = setting("key-id", Credentials.keyIDVariable)
        let teamID = setting("team-id", Credentials.teamIDVariable)
        let topic = setting("topic", Credentials.topicVariable)
        for (name, meaning, variable, value) in [
            ("key-id", "the key's 10-character Key ID", Credentials.keyIDVariable, keyID),
            ("team-id", "the Apple developer Team ID", Credentials.teamIDVariable, teamID),
        ] where value == nil {
            missing(node, inFile: "'\(name)' (\(meaning)), or \(variable)", variables: "\(variable) (\(meaning))")
        }
        check(keyID, "key-id", APNsIdentifiers.keyIDProblem)
        check(teamID, "team-id", APNsIdentifiers.teamIDProblem)
        check(topic, "topic", APNsIdentifiers.topicProblem)
        let environment = apnsEnvironment(fields) ?? .sandbox
        let (environments, probeInterval) = apnsSending(fields, environment: environment)
        guard let key, let keyID, let teamID else { return nil }
        return APNsSettings(
            key: key, keyID: keyID.text, teamID: teamID.text, topic: topic?.text, environment: environment,
            environments: environments, probeInterval: probeInterval)
    }

    /// An environment variable's value, or nil when it is unset or empty.
    private func variable(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The key: `LIVELINE_APNS_KEY_FILE` or `LIVELINE_APNS_KEY`, else the file's `key` (a
    /// `.p8` path) or `key-env` (a variable holding the PEM).
    private mutating func apnsKey(_ fields: Fields, node: Node?) -> APNsSettings.Key? {
        switch (variable(Credentials.keyFileVariable), variable(Credentials.keyVariable)) {
        case (.some, .some):
            base.log.error(
                fileStart,
                "\(Credentials.keyFileVariable) and \(Credentials.keyVariable) are both set; keep the one that holds the APNs key (a path, or the PEM itself)"
            )
            return nil
        case (let path?, nil):
            guard FileManager.default.fileExists(atPath: path) else {
                base.log.error(fileStart, "\(Credentials.keyFileVariable)=\(path): the APNs key file does not exist")
                return nil
            }
            return .file(path)
        case (nil, .some):
            return .environment(Credentials.keyVariable)
        case (nil, nil):
            break
        }
        switch (fields["key"], fields["key-env"]) {
        case (let file?, nil):
            guard let path = base.string(file, "key") else { return nil }
            guard FileManager.default.fileExists(atPath: resolve(path)) else {
                error(file, "the APNs key file '\(path)' does not exist (looked for \(resolve(path)))")
                return nil
            }
            return .file(resolve(path))
        case (nil, let variable?):
            guard let name = base.string(variable, "key-env") else { return nil }
            guard environment[name] != nil || !readsSecrets else {
                error(variable, "the environment variable \(name) is not set; it should hold the APNs key's PEM text")
                return nil
            }
            return .environment(name)
        case (.some, .some):
            if let node { error(node, "apns has both 'key' and 'key-env'; give the key one way") }
        case (nil, nil):
            missing(
                node,
                inFile:
                    "'key' (a .p8 file) or 'key-env' (an environment variable holding its PEM text), or \(Credentials.keyFileVariable) or \(Credentials.keyVariable)",
                variables: "\(Credentials.keyFileVariable) (the .p8 file) or \(Credentials.keyVariable) (its PEM text)")
        }
        return nil
    }

    /// `LIVELINE_APNS_ENVIRONMENT`, else the file's `environment`; nil when neither says.
    private mutating func apnsEnvironment(_ fields: Fields) -> APNsSettings.Environment? {
        let choices: [(String, APNsSettings.Environment)] = [("sandbox", .sandbox), ("production", .production)]
        if let text = variable(Credentials.environmentVariable) {
            guard let value = choices.first(where: { $0.0 == text })?.1 else {
                base.log.error(
                    fileStart, "\(Credentials.environmentVariable)=\(text) is not 'sandbox' or 'production'")
                return nil
            }
            return value
        }
        return fields["environment"].flatMap { base.choice($0, "environment", choices) }
    }

    /// Reports a required setting that neither the file nor the environment gives: at `apns:`,
    /// or at the file's start when the environment alone gave the credentials (naming only the
    /// variables then: there is no `apns:` to add a key to).
    private mutating func missing(_ node: Node?, inFile: String, variables: String) {
        if let node {
            error(node, "apns is missing \(inFile)")
        } else {
            base.log.error(
                fileStart,
                "the APNs credentials from the environment are incomplete: set \(variables) as well, or unset the LIVELINE_APNS_* variables to push to the embedded mock"
            )
        }
    }

    /// Reports a value of the wrong shape where it was written, or naming its variable.
    private mutating func check(_ setting: Setting?, _ key: String, _ rule: (String) -> String?) {
        guard let setting, let problem = rule(setting.text) else { return }
        if let node = setting.node {
            error(node, "apns \(key) '\(setting.text)': \(problem)")
        } else if let variable = setting.variable {
            base.log.error(fileStart, "\(variable)=\(setting.text): \(problem)")
        }
    }
}
