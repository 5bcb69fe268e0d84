import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A certificate and key made at start, for TLS without files.
///
/// The certificate is its own CA (basic constraints CA, key usage cert-sign), valid for 30 days
/// from an hour ago, with subject alternative names for `localhost`, `127.0.0.1`, `::1` and the
/// listen host, so `curl --cacert` accepts it for any of them.
struct SelfSignedCertificate {
    let certificatePEM: String
    let certificate: NIOSSLCertificate
    let privateKey: NIOSSLPrivateKey

    /// A certificate named `commonName` ("Liveline mock APNs") for `host` and loopback.
    init(host: String, commonName: String) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("Liveline")
        }
        var names: [GeneralName] = [
            .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            .ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])),
        ]
        if let address = Self.ipBytes(host) {
            if !names.contains(.ipAddress(ASN1OctetString(contentBytes: address[...]))) {
                names.append(.ipAddress(ASN1OctetString(contentBytes: address[...])))
            }
        } else if host != "localhost", !host.isEmpty {
            names.append(.dnsName(host))
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(30 * 86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
                SubjectKeyIdentifier(hash: .init(key.publicKey))
            },
            issuerPrivateKey: .init(key)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let der = serializer.serializedBytes
        certificatePEM = PEMDocument(type: "CERTIFICATE", derBytes: der).pemString
        self.certificate = try NIOSSLCertificate(bytes: der, format: .der)
        privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }

    /// The bytes of an IPv4 or IPv6 literal.
    static func ipBytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
