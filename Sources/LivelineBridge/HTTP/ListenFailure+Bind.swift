import Liveline
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ListenFailure {
    /// The bridge's failure to bind `address`, telling an address in use (`EADDRINUSE`) from
    /// other causes; nil for errors that are not the socket's.
    init?(bridgeListeningOn address: ListenAddress, error: any Error) {
        guard let error = error as? IOError else { return nil }
        self.init(
            server: "the bridge", host: address.host, port: address.port, addressInUse: error.errnoCode == EADDRINUSE,
            setting: "`listen:` in the configuration or --listen", cause: "\(error)")
    }
}
