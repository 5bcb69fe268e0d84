import Foundation
import Testing
@testable import LivelineBridge

/// Statements a connection runs again are prepared there and run by name, against a real
/// PostgreSQL server: the rows are the same as unnamed, every kind of parameter included, and a
/// text the server types differently from its parameters falls back to running unnamed.
@Suite struct PostgresStatementCacheTests {
    @Test func aTextRunAgainIsPreparedAndReadsTheSameRows() async throws {
        try await StoreFixture.withStore(.postgres) { store in
            let statements = try #require((store.driver as? PostgresDriver)?.statements)
            let select = """
                SELECT $1::bigint, $2::text, $3::bytea, $4::text, array_to_string($5::text[], ',', 'NULL'),
                       array_to_string($6::bigint[], ','), cardinality($7::bytea[]), ($7::bytea[])[1]
                """
            let binds: [SQLValue] = [
                .int(-9_007_199_254_740_993), .text("ünïcode ⚽"), .bytes([0, 1, 254, 255]), .null,
                .array(.texts(["a", nil, "c"])), .array(.ints([1, -2])), .array(.bytes([[9], nil])),
            ]
            let runs = try await store.transaction { tx in
                var runs: [[SQLValue]] = []
                for _ in 0..<3 { runs.append(try await tx.run(select, binds)[0].values) }
                return runs
            }
            #expect(statements.preparedTexts.contains(select), "prepared on its second run")
            #expect(runs[1] == runs[0] && runs[2] == runs[0], "by name, the same row as unnamed")
            #expect(Array(runs[0][0..<4]) == Array(binds[0..<4]))
            #expect(Array(runs[0][4...]) == [.text("a,NULL,c"), .text("1,-2"), .int(2), .bytes([9])])
        }
    }

    @Test func aTextTheServerTypesOtherwiseRunsUnnamedAndItsTransactionAgain() async throws {
        try await StoreFixture.withStore(.postgres) { store in
            let statements = try #require((store.driver as? PostgresDriver)?.statements)
            // The server takes $1 for a SMALLINT, the prepared run sends a BIGINT's eight bytes:
            // "incorrect binary data format in bind parameter 1".
            let narrowing = "SELECT CAST($1 AS SMALLINT) + 1"
            let attempts = Attempts()
            let values = try await store.transaction { tx in
                await attempts.add()
                var values: [Int64] = []
                for value in [Int64(1), 2, 3] { values.append(try await tx.run(narrowing, [.int(value)])[0].int(0)) }
                return values
            }
            #expect(values == [2, 3, 4])
            #expect(statements.isRefused(narrowing))
            #expect(!statements.preparedTexts.contains(narrowing))
            #expect(await attempts.count == 2, "the aborted transaction ran once more, unnamed")
        }
    }

    @Test func aGenuineErrorIsReportedAsUnnamed() async throws {
        try await StoreFixture.withStore(.postgres) { store in
            let divide = "SELECT 1 / $1::bigint"
            let error = await #expect(throws: StoreError.self) {
                try await store.transaction { tx in
                    try await tx.run(divide, [.int(1)])
                    try await tx.run(divide, [.int(0)])
                }
            }
            #expect(error?.cause.contains("division by zero") == true, "\(String(describing: error))")
        }
    }

    @Test func afterManyRefusedTextsNothingIsPrepared() async throws {
        try await StoreFixture.withStore(.postgres) { store in
            let statements = try #require((store.driver as? PostgresDriver)?.statements)
            // As behind a pooler that keeps no prepared statement: every text is refused.
            for index in 0..<PostgresStatementCache.refusedBeforeStopping {
                let narrowing = "SELECT CAST($1 AS SMALLINT) + \(index)"
                let values = try await store.transaction { tx in
                    var values: [Int64] = []
                    for value in [Int64(1), 2] { values.append(try await tx.run(narrowing, [.int(value)])[0].int(0)) }
                    return values
                }
                #expect(values == [Int64(1 + index), Int64(2 + index)])
            }
            let fine = "SELECT $1::bigint + 1"
            let runs = Attempts()
            try await store.transaction { tx in
                await runs.add()
                for value in [Int64(1), 2, 3] {
                    let sum = try await tx.run(fine, [.int(value)])[0].int(0)
                    #expect(sum == value + 1)
                }
            }
            #expect(statements.preparedTexts.isEmpty, "nothing prepared any more")
            #expect(await runs.count == 1)
        }
    }

    actor Attempts {
        var count = 0
        func add() { count += 1 }
    }
}
