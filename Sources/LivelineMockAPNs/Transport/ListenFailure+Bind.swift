import Liveline
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ListenFailure {
    /// The failure of a bind on `host:port`, telling an address in use (`EADDRINUSE`) from
    /// other causes.
    init(server: String, host: String, port: Int, setting: String, error: any Error) {
        let inUse = (error as? IOError)?.errnoCode == EADDRINUSE
        self.init(server: server, host: host, port: port, addressInUse: inUse, setting: setting, cause: "\(error)")
    }
}
