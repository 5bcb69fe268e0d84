/// Why a server of Liveline (the bridge, the mock APNs, its inspection API, a dashboard) could
/// not listen: the address and port, which server it was, and what to do about it.
///
/// The socket's own words (`bind(descriptor:ptr:bytes:): Address already in use (errno: 98)`)
/// name neither the port nor the likely cause; this does both. The servers build it from the
/// error their bind threw and say whether the address was in use (`EADDRINUSE`).
public struct ListenFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which server: "the bridge", "the mock APNs", "the mock's inspection API", "the dashboard".
    public var server: String
    /// The address it tried to listen on.
    public var host: String
    /// The port it tried to listen on.
    public var port: Int
    /// Whether another socket holds the address (`EADDRINUSE`).
    public var addressInUse: Bool
    /// Where the user sets this server's address, like "`listen:` in the configuration or `--listen`".
    public var setting: String
    /// What the socket said.
    public var cause: String

    /// A failure with every part given; see the properties.
    public init(server: String, host: String, port: Int, addressInUse: Bool, setting: String, cause: String) {
        self.server = server
        self.host = host
        self.port = port
        self.addressInUse = addressInUse
        self.setting = setting
        self.cause = cause
    }

    /// `host:port`, with an IPv6 host in brackets.
    public var address: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    public var description: String {
        if addressInUse {
            return
                "\(server) cannot listen on \(address): the address is in use; another Liveline bridge or mock, or another "
                + "program, is listening on \(address) (perhaps one started earlier still runs); stop it or set \(setting) "
                + "to another port (0 takes any free one)"
        }
        return "\(server) cannot listen on \(address) (set with \(setting)): \(cause)"
    }
}
