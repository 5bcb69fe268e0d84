import Testing

@testable import LivelineLoad

/// ``LoadRunContext``'s time limit: a run is given all of it, however its start falls within a
/// millisecond.
@Suite struct LoadRunContextTests {
    @Test(arguments: [Int64(1_000_000), 1_000_001, 1_000_500, 1_000_999])
    func theLimitEndsNoSoonerThanItsLengthAfterTheStart(began: Int64) throws {
        let scenario = try Fixtures.scenario(Fixtures.shortYAML)
        var configuration = LoadConfiguration(mix: try ScenarioMix([(scenario, 1)]), activities: 1)
        configuration.timeLimit = .seconds(2)
        let context = LoadRunContext(
            configuration: configuration, start: 0, board: ProgressBoard(partitions: 1, startClock: 0, endClock: 0))
        let limit = context.limitInstant(began)
        #expect(limit * 1000 >= began + 2_000_000)
        #expect(limit * 1000 < began + 2_001_000)
    }
}
