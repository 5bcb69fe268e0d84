import Foundation
import Liveline

/// Where each activity's device token comes from.
///
/// Generated tokens are 64 lowercase hex digits derived from the seed and the copy number, so
/// a run (and each shard of it) addresses the same tokens every time. Tokens from a file are
/// real update tokens, one per line, handed to copies in order.
public enum TokenSource: Sendable {
    /// Deterministic tokens for a mock.
    case generated(seed: UInt64)
    /// Tokens read from a file, in order.
    case list([String])

    /// The token of copy `copy`. A list must hold at least as many tokens as the test has copies
    /// (checked by ``validate(copies:)``); beyond that it wraps rather than failing.
    public func token(forCopy copy: Int) -> String {
        switch self {
        case .generated(let seed):
            return Self.generatedToken(seed: seed, copy: copy)
        case .list(let tokens):
            return tokens[copy % tokens.count]
        }
    }

    /// Checks that a list has a token for every copy.
    public func validate(copies: Int, file: String) throws(LoadError) {
        if case .list(let tokens) = self, tokens.count < copies {
            throw .invalidSetting(
                .tokens, value: file,
                problem:
                    "has \(tokens.count) token\(tokens.count == 1 ? "" : "s"); the test needs one per activity (\(copies)). Add tokens or lower {activities}"
            )
        }
    }

    /// Reads tokens from text: one hex token per line; blank lines and `#` comments are skipped.
    public static func parse(_ text: String, file: String) throws(LoadError) -> [String] {
        var tokens: [String] = []
        var seen: [String: Int] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let token = String(line).trimmingWhitespace.lowercased()
            if token.isEmpty { continue }
            guard token.count % 2 == 0, token.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
            else {
                throw .invalidFile(
                    location: "\(file):\(number + 1)",
                    problem:
                        "'\(token.prefix(80))' is not a device token; expected hex digits (an even number of them), one token per line"
                )
            }
            if let first = seen[token] {
                throw .invalidFile(
                    location: "\(file):\(number + 1)",
                    problem: "the token repeats line \(first); each activity needs its own token")
            }
            seen[token] = number + 1
            tokens.append(token)
        }
        guard !tokens.isEmpty else {
            throw .invalidFile(location: file, problem: "no tokens; expected one hex token per line")
        }
        return tokens
    }

    /// Reads and parses a token file.
    public static func read(file path: String) throws(LoadError) -> TokenSource {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw .invalidSetting(
                .tokens, value: path,
                problem:
                    "the file \(FileManager.default.fileExists(atPath: path) ? "cannot be read as UTF-8 text" : "does not exist")"
            )
        }
        return .list(try parse(text, file: path))
    }

    /// 64 hex digits from the seed and the copy number.
    public static func generatedToken(seed: UInt64, copy: Int) -> String {
        hex(SeededRandom.hash(seed ^ 0x746f_6b65_6e73, UInt64(truncatingIfNeeded: copy)), words: 4)
    }

    /// An Android app instance's registration token for copy `copy`: `liveline-load-` and 32
    /// hex digits from the seed, a token only a mock takes (any well-formed token is an app
    /// instance there).
    public static func generatedFCMToken(seed: UInt64, copy: Int) -> String {
        "liveline-load-" + hex(SeededRandom.hash(seed ^ 0x6663_6d74_6f6b, UInt64(truncatingIfNeeded: copy)), words: 2)
    }

    /// `words` 64-bit words from a starting hash, as lowercase hex: written straight into the
    /// string's storage, as a networked run makes one per push.
    static func hex(_ start: UInt64, words: Int) -> String {
        String(unsafeUninitializedCapacity: words * 16) { text in
            var word = start
            for index in 0..<words {
                for digit in 0..<16 {
                    text[index * 16 + digit] = HexText.digits[Int((word >> UInt64(60 - 4 * digit)) & 0xF)]
                }
                word = SeededRandom.mix(word)
            }
            return words * 16
        }
    }
}
