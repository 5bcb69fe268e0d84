import Foundation
import Liveline
import LivelineMockAPNs
import Testing

/// `GET /activities` in pages: each activity once, in the order the mock saw them, following
/// `next` until it is null; bad parameters are a 400 that says what is wrong.
@Suite struct ActivityPagingTests {
    static func token(_ n: Int) -> String { String(format: "%064x", n + 1) }

    @Test func pagesFollowTheNextCursorToEveryActivityOnce() async throws {
        let session = try await DeviceSession.start { $0.inspection = ("127.0.0.1", 0) }
        do {
            for n in 0..<7 { try await session.push(to: Self.token(n)) }
            let base = "http://127.0.0.1:\(try #require(session.server.inspectionPort))"
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let answer = try await Curl.run(["\(base)/activities?limit=3" + (cursor.map { "&after=\($0)" } ?? "")])
                #expect(answer.status == 200)
                let page = try #require(
                    try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
                #expect(page["total"] as? Int == 7)
                let activities = try #require(page["activities"] as? [[String: Any]])
                seen += activities.compactMap { $0["id"] as? String }
                cursor = page["next"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(seen == (0..<7).map(Self.token), "each once, in the order the mock saw them")

            // Without parameters: the first 100.
            let first = try await Curl.run(["\(base)/activities"])
            let page = try #require(try JSONSerialization.jsonObject(with: Data(first.body.utf8)) as? [String: Any])
            #expect((page["activities"] as? [Any])?.count == 7 && page["next"] is NSNull)

            for (query, message) in [
                ("limit=0", "limit must be a whole number from 1 to 10000, not '0'"),
                ("after=x", "after must be a cursor from a page's next, not 'x'"),
                ("page=2", "unknown query parameter 'page'; GET /activities takes limit and after"),
            ] {
                let refused = try await Curl.run(["\(base)/activities?\(query)"])
                #expect(refused.status == 400)
                #expect(refused.body.contains(message), "\(refused.body)")
            }
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
    }
}
