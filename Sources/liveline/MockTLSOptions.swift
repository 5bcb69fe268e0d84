import ArgumentParser
import Foundation
import LivelineMockTLS

/// `--tls-cert`, `--tls-key` and `--write-ca`: the certificate a mock (`mock-apns`, `mock-fcm`)
/// serves TLS with, its own files or a self-signed one made at start.
struct MockTLSOptions: ParsableArguments {
    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp(
            "PEM certificate chain for TLS. Without it, a self-signed certificate is made at start.", valueName: "file")
    )
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key for --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(
        name: .customLong("write-ca"),
        help: ArgumentHelp(
            "Where to write the self-signed certificate for clients to trust (curl --cacert). Default: liveline-mock-apns.pem (mock-apns) or liveline-mock-fcm.pem (mock-fcm) in the temporary directory.",
            valueName: "path"))
    var writeCA: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
    }

    /// Refuses the certificate files beside the command's flag for serving without TLS.
    func validate(withoutTLS: Bool, flag: String) throws {
        if withoutTLS, tlsCert != nil { throw ValidationError("\(flag) serves no TLS; drop --tls-cert/--tls-key") }
    }

    /// The files given, or a self-signed certificate written to `--write-ca` (by default
    /// `defaultFile` in the temporary directory).
    func identity(defaultFile: String) -> MockTLSIdentity {
        if let tlsCert, let tlsKey { return .files(certificatePath: tlsCert, keyPath: tlsKey) }
        return .selfSigned(
            writeCertificateTo: writeCA
                ?? FileManager.default.temporaryDirectory.appendingPathComponent(defaultFile).path)
    }
}
