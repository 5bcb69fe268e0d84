import Crypto
import Foundation

/// Registry API keys, stored as SHA-256 hashes only.
///
/// A key is a long random secret, not a password, so one unsalted SHA-256 is enough: nothing
/// short to brute-force, and a stolen database holds no usable key.
extension SQLStore {
    public func verifyAPIKey(_ presented: String) async throws -> String? {
        let hash = Array(SHA256.hash(data: Array(presented.utf8)))
        let stored = try await transaction { tx in
            try await tx.run("SELECT name, sha256 FROM api_keys ORDER BY name").map {
                (try $0.text(0), try $0.bytes(1))
            }
        }
        // Every stored hash is compared, in constant time, whether or not one matched already.
        var match: String?
        for (name, candidate) in stored where ConstantTime.equals(candidate, hash) && match == nil {
            match = name
        }
        return match
    }
}
