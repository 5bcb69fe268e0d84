import LivelineCore

/// A successful `messages:send` answer, `{"name": "projects/{project}/messages/{id}"}`.
public enum FCMSendAnswer {
    /// The message's name in a success body, if the body has one.
    public static func messageName(in body: [UInt8]) -> String? {
        guard case .object(let root)? = try? JSONParser.parse(body), case .string(let name)? = root["name"] else {
            return nil
        }
        return name
    }
}
