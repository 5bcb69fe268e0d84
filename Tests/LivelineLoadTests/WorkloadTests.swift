import Liveline
import LivelineAPNs
import LivelineFCM
import LivelineMockFCM
import Testing
@testable import LivelineLoad

@Suite("Workload: arrivals, mix, shards, tokens, seeds")
struct WorkloadTests {
    @Test("all at once: every copy starts at 0")
    func allAtOnce() {
        #expect((0..<100).allSatisfy { Arrivals.allAtOnce.offset(ofCopy: $0, total: 100) == 0 })
    }

    @Test("a ramp spreads starts evenly over its duration")
    func ramp() {
        let ramp = Arrivals.ramp(60_000)
        let offsets = (0..<600).map { ramp.offset(ofCopy: $0, total: 600) }
        #expect(offsets.first == 0)
        #expect(offsets[300] == 30_000)
        #expect(offsets.last! < 60_000)
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0.1 - $0.0 == 100 })
    }

    @Test("a rate starts one copy every 1/rate seconds")
    func rate() throws {
        let rate = Arrivals.rate(perSecond: try Arrivals.parseRate("500/s"))
        #expect(rate.offset(ofCopy: 0, total: 10_000) == 0)
        #expect(rate.offset(ofCopy: 1, total: 10_000) == 2)
        #expect(rate.offset(ofCopy: 500, total: 10_000) == 1000)
        #expect(rate.lastOffset(total: 10_000) == 19_998)
        #expect(try Arrivals.parseRate("30/m") == 0.5)
        #expect(try Arrivals.parseRate("2000") == 2000)
        #expect(throws: LoadError.self) { try Arrivals.parseRate("fast") }
        #expect(throws: LoadError.self) { try Arrivals.parseRate("-3/s") }
    }

    @Test("weights mix scenarios in proportion, interleaved, by copy number")
    func mix() throws {
        let a = try Fixtures.scenario(Fixtures.shortYAML, file: "a.yaml")
        let b = try Fixtures.scenario(Fixtures.greedyYAML, file: "b.yaml")
        let mix = try ScenarioMix([(a, 3), (b, 1)])
        let entries = (0..<8).map { mix.assignment(ofCopy: $0).entry }
        #expect(entries.filter { $0 == 0 }.count == 6)
        #expect(entries.filter { $0 == 1 }.count == 2)
        #expect(entries[0..<4] != [0, 0, 0, 1] || entries[4..<8] == entries[0..<4])
        #expect(mix.counts(copies: 0..<1000) == [750, 250])
        // The same copy always plays the same scenario.
        #expect((0..<50).map { mix.assignment(ofCopy: $0).entry } == (0..<50).map { mix.assignment(ofCopy: $0).entry })
    }

    @Test("a platform share spreads Android evenly over the copies, by copy number", arguments: [0, 0.25, 0.3, 0.5, 1])
    func platformShare(share: Double) throws {
        let mix = try PlatformMix(androidShare: share)
        let counts = mix.counts(copies: 0..<1000)
        #expect(counts.android == Int((1000 * share).rounded(.down)))
        #expect(counts.ios + counts.android == 1000)
        // Evenly: every window of 20 copies holds its share, give or take one.
        for start in stride(from: 0, to: 980, by: 20) {
            let window = mix.counts(copies: start..<(start + 20)).android
            #expect(abs(Double(window) - 20 * share) <= 1, "copies \(start)..<\(start + 20): \(window)")
        }
        // A shard of the test sees the same platform for the same copy.
        #expect((0..<50).map { mix.platform(ofCopy: $0) } == (0..<50).map { mix.platform(ofCopy: $0) })
        #expect(mix.hasAndroid == (share > 0) && mix.hasIOS == (share < 1))
    }

    @Test("--android-share reads a share or a percentage and refuses what is not one")
    func platformShareText() throws {
        #expect(try PlatformMix(parsing: "0.5").androidShare == 0.5)
        #expect(try PlatformMix(parsing: "30%").androidShare == 0.3)
        #expect(try PlatformMix(parsing: " 1 ").androidShare == 1)
        #expect(try PlatformMix(parsing: "0.25").description == "25% Android")
        #expect(PlatformMix.iosOnly.description == "iOS")
        for bad in ["1.5", "-0.1", "half", "150%", "nan"] {
            #expect(throws: LoadError.self, "\(bad)") { try PlatformMix(parsing: bad) }
        }
    }

    @Test("Android in the mix needs an android: block, a network target, and no broadcast")
    func androidNeedsItsBlock() async throws {
        let plain = try Fixtures.scenario(Fixtures.shortYAML, file: "plain.yaml")
        let both = try Fixtures.scenario(Fixtures.androidYAML, file: "both.yaml")
        let mock = try await MockFCMServer.start(MockFCMConfiguration())
        let account = try ServiceAccount(json: try mock.makeServiceAccount(project: "p"), source: "mock")
        await mock.stop()
        let fcm = LoadConfiguration.FCMDestination(
            client: .init(account: account, url: "https://127.0.0.1:1"), project: "p", name: "mock")
        var configuration = LoadConfiguration(mix: try ScenarioMix([(both, 1), (plain, 1)]), activities: 10)
        configuration.target = .endpoint(
            APNsEndpoint(host: "127.0.0.1", port: 1, tls: false), signingKey: nil, name: "mock")
        configuration.platforms = try PlatformMix(androidShare: 0.5)
        configuration.fcm = fcm
        #expect {
            try configuration.validate()
        } throws: { error in
            "\(error)".contains("plain.yaml: short has no android: block")
        }
        configuration.mix = try ScenarioMix([(both, 1)])
        try configuration.validate()
        configuration.fcm = nil
        #expect(throws: LoadError.self) { try configuration.validate() }
        configuration.fcm = fcm
        configuration.broadcast = try BroadcastPlan(channels: 2)
        #expect {
            try configuration.validate()
        } throws: { error in
            "\(error)".contains("no broadcast channels")
        }
        configuration.broadcast = nil
        configuration.target = .discard
        #expect {
            try configuration.validate()
        } throws: { error in
            "\(error)".contains("needs a network target")
        }
    }

    @Test("Android's app instances have tokens of their own, the same in every run")
    func fcmTokens() {
        let token = TokenSource.generatedFCMToken(seed: 7, copy: 3)
        #expect(token.hasPrefix("liveline-load-") && token.count == "liveline-load-".count + 32)
        #expect(token == TokenSource.generatedFCMToken(seed: 7, copy: 3))
        #expect(token != TokenSource.generatedFCMToken(seed: 7, copy: 4))
        #expect(token != TokenSource.generatedFCMToken(seed: 8, copy: 3))
    }

    @Test("FILE:WEIGHT arguments")
    func fileArguments() throws {
        #expect(try ScenarioMix.FileArgument(parsing: "a.yaml:3") == .init(path: "a.yaml", weight: 3))
        #expect(try ScenarioMix.FileArgument(parsing: "a.yaml") == .init(path: "a.yaml", weight: 1))
        #expect(try ScenarioMix.FileArgument(parsing: "dir:x/a.yaml") == .init(path: "dir:x/a.yaml", weight: 1))
        #expect(throws: LoadError.self) { try ScenarioMix.FileArgument(parsing: "a.yaml:0") }
    }

    @Test("shards are disjoint and together complete", arguments: [1, 2, 3, 4, 7])
    func shards(count: Int) throws {
        let total = 1003
        var seen = Set<Int>()
        var sizes: [Int] = []
        for index in 1...count {
            let shard = try Shard(index: index, count: count)
            let copies = Array(shard.copies(of: total))
            #expect(copies.allSatisfy(shard.contains(copy:)))
            #expect(seen.isDisjoint(with: copies))
            seen.formUnion(copies)
            sizes.append(copies.count)
        }
        #expect(seen == Set(0..<total))
        #expect(sizes.max()! - sizes.min()! <= 1)
    }

    @Test("--shard parsing")
    func shardParsing() throws {
        #expect(try Shard(parsing: "2/4") == Shard(index: 2, count: 4))
        #expect(throws: LoadError.self) { try Shard(parsing: "0/4") }
        #expect(throws: LoadError.self) { try Shard(parsing: "5/4") }
        #expect(throws: LoadError.self) { try Shard(parsing: "two") }
    }

    @Test("a shard's engines are exactly the whole test's engines for its copies")
    func shardEnginesMatchWhole() async throws {
        let mix = try ScenarioMix([(try Fixtures.scenario(Fixtures.shortYAML), 1)])
        var whole = LoadConfiguration(mix: mix, activities: 40)
        whole.start = Fixtures.start
        whole.arrivals = .ramp(40_000)
        var part = whole
        part.shard = try Shard(index: 2, count: 3)
        let wholeEngines = try LoadRunner(configuration: whole).makeEngines(copies: Array(whole.playedCopies))
        let partEngines = try LoadRunner(configuration: part).makeEngines(copies: Array(part.playedCopies))
        for engine in partEngines {
            let original = wholeEngines[engine.copy]
            #expect(engine.seed == original.seed)
            #expect(engine.startTime == original.startTime)
        }
    }

    @Test("generated tokens are hex, distinct and the same every time")
    func generatedTokens() {
        let tokens = (0..<1000).map { TokenSource.generatedToken(seed: 7, copy: $0) }
        #expect(Set(tokens).count == 1000)
        #expect(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
        #expect(TokenSource.generatedToken(seed: 7, copy: 3) == tokens[3])
        #expect(TokenSource.generatedToken(seed: 8, copy: 3) != tokens[3])
        // Each word of the hash chain as sixteen hex digits, most significant first.
        for start: UInt64 in [0, 1, 0xFEDC_BA98_7654_3210, .max] {
            let words = [start, SeededRandom.mix(start), SeededRandom.mix(SeededRandom.mix(start))]
            #expect(TokenSource.hex(start, words: 3) == HexText.encode(words: words))
        }
    }

    @Test("a token file: one per line, comments skipped, mistakes located")
    func tokenFile() throws {
        let tokens = try TokenSource.parse("# fans\nABCDEF01\n\n  0123abcd  # phone\n", file: "t.txt")
        #expect(tokens == ["abcdef01", "0123abcd"])
        #expect(
            throws: LoadError.invalidFile(
                location: "t.txt:2",
                problem: "'xyz' is not a device token; expected hex digits (an even number of them), one token per line"
            )
        ) {
            try TokenSource.parse("abcd\nxyz\n", file: "t.txt")
        }
        #expect(throws: LoadError.self) { try TokenSource.parse("abcd\nabcd\n", file: "t.txt") }
        let tooFew = #expect(throws: LoadError.self) { try TokenSource.list(["ab"]).validate(copies: 2, file: "t.txt") }
        // The library names its settings; a front end names them its own way.
        #expect(
            tooFew?.description
                == "tokens t.txt: has 1 token; the test needs one per activity (2). Add tokens or lower activities")
        #expect(
            tooFew?.message { "--" + $0.rawValue }
                == "--tokens t.txt: has 1 token; the test needs one per activity (2). Add tokens or lower --activities")
        #expect(tooFew?.exitStatus == .usage)
        #expect(
            LoadError.targetUnavailable(target: "the embedded mock APNs", cause: "port in use").exitStatus == .runFailed
        )
    }

    @Test("broadcast: copies spread over channels, ids stable base64")
    func broadcastPlan() throws {
        let plan = try BroadcastPlan(channels: 4)
        #expect(plan.subscriberCounts(copies: 0..<10) == [3, 3, 2, 2])
        let id = BroadcastPlan.channelID(1, seed: 9)
        #expect(id.count == 24 && id.hasSuffix("=="))
        #expect(id == BroadcastPlan.channelID(1, seed: 9))
        #expect(id != BroadcastPlan.channelID(2, seed: 9))
        let subscriptions = plan.subscriptions(seed: 9, tokens: .generated(seed: 1), copies: 0..<10)
        #expect(subscriptions.count == 4)
        #expect(subscriptions.values.map(\.count).reduce(0, +) == 10)
    }

    @Test("the same seed replays identically; copies differ from each other; another seed differs")
    func seedReproducibility() throws {
        let scenario = try Fixtures.scenario(Fixtures.shortYAML)
        func digest(seed: UInt64?) throws -> Fixtures.DigestSink {
            var configuration = LoadConfiguration(mix: try ScenarioMix([(scenario, 1)], seed: seed), activities: 50)
            configuration.start = Fixtures.start
            configuration.seed = seed
            let runner = try LoadRunner(configuration: configuration)
            var run = ScenarioRun(activities: runner.makeEngines(copies: Array(configuration.playedCopies)))
            var sink = Fixtures.DigestSink()
            run.run(into: &sink)
            return sink
        }
        let first = try digest(seed: 42)
        let again = try digest(seed: 42)
        let other = try digest(seed: 43)
        #expect(first.count > 50 * 4)
        #expect(first.digest == again.digest)
        #expect(first.digest != other.digest)
        // Jitter differs per activity: not every activity pushes at the same instants.
        let timelines = Set(first.timesByActivity.values.map { $0.map { $0 - Fixtures.start } })
        #expect(timelines.count > 10)
    }
}
