import Foundation
import NIOSSL

/// The certificate a mock's TLS listener presents.
public enum MockTLSIdentity: Sendable {
    /// PEM files: a certificate chain and its private key.
    case files(certificatePath: String, keyPath: String)
    /// A self-signed certificate made at start for `localhost`, `127.0.0.1`, `::1` and the
    /// listen host; its PEM is written to `writeCertificateTo` (when set) for clients to trust.
    case selfSigned(writeCertificateTo: String?)
}

/// Why a mock's TLS could not be set up.
public enum MockTLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The certificate or key could not be loaded or made.
    case tls(String)
    /// The certificate PEM could not be written where clients were told to find it.
    case writeCertificate(path: String, reason: String)

    public var description: String {
        switch self {
        case .tls(let reason): "TLS: \(reason)"
        case .writeCertificate(let path, let reason): "cannot write the certificate to \(path): \(reason)"
        }
    }
}

/// A mock's TLS, as the mock APNs and the mock FCM serve it: the server context (TLS 1.2 or
/// newer, the ALPN protocols the mock speaks) and the certificate clients should trust.
public struct MockTLS: Sendable {
    /// The context each accepted connection's `NIOSSLServerHandler` is made with.
    public let context: NIOSSLContext
    /// The PEM of the self-signed certificate, when one was made.
    public let certificatePEM: String?
    /// Where that PEM was written, when a path was given.
    public let certificatePath: String?

    /// Loads or makes `identity` for a listener on `host`. A self-signed certificate is named
    /// `commonName`; `protocols` are offered by ALPN, most preferred first (`["h2"]`).
    public init(
        _ identity: MockTLSIdentity, host: String, commonName: String, protocols: [String]
    ) throws(MockTLSError) {
        var tls: TLSConfiguration
        var pem: String?
        var path: String?
        switch identity {
        case .files(let certificatePath, let keyPath):
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map {
                    NIOSSLCertificateSource.certificate($0)
                }
                let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
                tls = .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            } catch {
                throw .tls("cannot load \(certificatePath) / \(keyPath): \(error)")
            }
        case .selfSigned(let writePath):
            let certificate: SelfSignedCertificate
            do {
                certificate = try SelfSignedCertificate(host: host, commonName: commonName)
            } catch {
                throw .tls("cannot make a self-signed certificate: \(error)")
            }
            tls = .makeServerConfiguration(
                certificateChain: [.certificate(certificate.certificate)],
                privateKey: .privateKey(certificate.privateKey))
            pem = certificate.certificatePEM
            if let writePath {
                do {
                    try certificate.certificatePEM.write(toFile: writePath, atomically: true, encoding: .utf8)
                } catch {
                    throw .writeCertificate(path: writePath, reason: "\(error)")
                }
                path = writePath
            }
        }
        tls.applicationProtocols = protocols
        tls.minimumTLSVersion = .tlsv12
        do {
            context = try NIOSSLContext(configuration: tls)
        } catch {
            throw .tls("\(error)")
        }
        certificatePEM = pem
        certificatePath = path
    }
}
