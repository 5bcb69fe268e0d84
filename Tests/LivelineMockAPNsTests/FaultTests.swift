import Foundation
import Liveline
import LivelineMockAPNs
import Testing

@Suite("Fault injection")
struct FaultTests {
    func push(_ client: RawH2Client, timestamp: Int64, token: String = Harness.token) async throws -> RawResponse {
        try await client.request(
            path: "/3/device/\(token)", headers: Harness.headers(), body: Harness.payload(timestamp: timestamp))
    }

    @Test("an error rate of 1 answers every push with that status and reason, and the device sees nothing")
    func errorRateAnswersEveryPush() async throws {
        let server = try await Harness.start {
            $0.faults = FaultPlan(errors: [.init(error: .internalServerError, rate: 1)])
        }
        let client = try await Harness.connect(server)
        let response = try await push(client, timestamp: 1)
        #expect(response.status == 500)
        #expect(response.reason == "InternalServerError")
        #expect(server.activities().isEmpty)
        #expect(server.stats().faultsInjected == 1)
        await client.close()
        await server.shutdown()
    }

    @Test("an injected 410 carries the timestamp in milliseconds")
    func injected410CarriesTimestamp() async throws {
        let server = try await Harness.start { $0.faults = FaultPlan(errors: [.init(error: .unregistered, rate: 1)]) }
        let client = try await Harness.connect(server)
        let response = try await push(client, timestamp: 1)
        #expect(response.status == 410)
        #expect(response.body == #"{"reason":"Unregistered","timestamp":\#(Harness.epoch)}"#)
        await client.close()
        await server.shutdown()
    }

    @Test("an unregistered token gets 410 Unregistered, and other tokens are served")
    func unregisteredTokenGets410() async throws {
        let gone = String(repeating: "ab", count: 32)
        let server = try await Harness.start { $0.faults = FaultPlan(unregisteredTokens: [gone]) }
        let client = try await Harness.connect(server)
        let refused = try await push(client, timestamp: 1, token: gone)
        #expect(refused.status == 410)
        #expect(refused.reason == "Unregistered")
        let served = try await push(client, timestamp: 2)
        #expect(served.status == 200)
        #expect(try FaultPlan(yaml: "unregistered: [\(gone)]").unregisteredTokens == [gone])
        await client.close()
        await server.shutdown()
    }

    @Test("error rates are drawn: about the given fraction fails")
    func errorRatesAreFractions() async throws {
        let server = try await Harness.start {
            $0.faults = FaultPlan(errors: [.init(error: .serviceUnavailable, rate: 0.3)], seed: 42)
        }
        let client = try await Harness.connect(server)
        var failures = 0
        for index in 0..<200 {
            let response = try await push(client, timestamp: Int64(index + 1))
            if response.status == 503 { failures += 1 }
        }
        #expect((30...90).contains(failures))
        await client.close()
        await server.shutdown()
    }

    @Test("added latency delays the answer")
    func latencyDelaysTheAnswer() async throws {
        let server = try await Harness.start { $0.faults = FaultPlan(latency: .fixed(150)) }
        let client = try await Harness.connect(server)
        let start = ContinuousClock.now
        let response = try await push(client, timestamp: 1)
        #expect(response.status == 200)
        #expect(ContinuousClock.now - start >= .milliseconds(150))
        await client.close()
        await server.shutdown()
    }

    @Test("a token gets 429 TooManyRequests after N pushes a minute, and is served again a minute later")
    func tooManyRequestsAfterN() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await Harness.start(clock: clock) { $0.faults = FaultPlan(tooManyRequestsAfter: 2) }
        let client = try await Harness.connect(server)
        #expect(try await push(client, timestamp: 1).status == 200)
        #expect(try await push(client, timestamp: 2).status == 200)
        let third = try await push(client, timestamp: 3)
        #expect(third.status == 429)
        #expect(third.reason == "TooManyRequests")
        let otherToken = String(repeating: "ab", count: 32)
        #expect(try await push(client, timestamp: 3, token: otherToken).status == 200)
        clock.advance(by: .milliseconds(60_000))
        #expect(try await push(client, timestamp: 4).status == 200)
        await client.close()
        await server.shutdown()
    }

    @Test("GOAWAY every N requests: the Nth is answered, then GOAWAY and close")
    func goAwayEveryN() async throws {
        let server = try await Harness.start { $0.faults = FaultPlan(goAwayEvery: 2) }
        let client = try await Harness.connect(server)
        #expect(try await push(client, timestamp: 1).status == 200)
        #expect(try await push(client, timestamp: 2).status == 200)
        let goAway = try #require(try await client.waitFor { $0.type == RawFrame.goAway })
        #expect(goAway.goAway?.debug == #"{"reason":"Shutdown"}"#)
        #expect(try await client.waitForClose())
        await server.shutdown()
    }

    @Test("a connection reset every N requests drops the Nth without an answer")
    func resetEveryN() async throws {
        let server = try await Harness.start { $0.faults = FaultPlan(resetEvery: 2) }
        let client = try await Harness.connect(server)
        #expect(try await push(client, timestamp: 1).status == 200)
        await #expect(throws: RawH2Error.self) { try await push(client, timestamp: 2) }
        #expect(try await client.waitForClose())
        #expect(server.stats().connectionResets == 1)
        await server.shutdown()
    }

    @Test("inside a shutdown window pushes get 503 Shutdown and a GOAWAY; after it, 200")
    func shutdownWindow() async throws {
        let clock = ManualClock(start: Harness.epoch)
        let server = try await Harness.start(clock: clock) {
            $0.faults = FaultPlan(shutdownWindows: [ShutdownWindow(after: .seconds(60), duration: .seconds(30))])
        }
        var client = try await Harness.connect(server)
        #expect(try await push(client, timestamp: 1).status == 200)
        clock.advance(by: .milliseconds(70_000))
        let during = try await push(client, timestamp: 2)
        #expect(during.status == 503)
        #expect(during.reason == "Shutdown")
        #expect(try await client.waitFor { $0.type == RawFrame.goAway }?.goAway?.debug == #"{"reason":"Shutdown"}"#)
        clock.advance(by: .milliseconds(30_000))
        client = try await Harness.connect(server)
        #expect(try await push(client, timestamp: 3).status == 200)
        await client.close()
        await server.shutdown()
    }

    @Test("faults set at run time apply to the next push")
    func faultsSetAtRunTime() async throws {
        let server = try await Harness.start()
        let client = try await Harness.connect(server)
        #expect(try await push(client, timestamp: 1).status == 200)
        server.setFaults(FaultPlan(errors: [.init(error: .tooManyRequests, rate: 1)]))
        #expect(try await push(client, timestamp: 2).reason == "TooManyRequests")
        server.setFaults(.none)
        #expect(try await push(client, timestamp: 3).status == 200)
        await client.close()
        await server.shutdown()
    }

    @Test("a fault plan reads from YAML and from JSON")
    func faultPlanParses() throws {
        let plan = try FaultPlan(
            yaml: """
                seed: 7
                errors:
                  - { status: 500, reason: InternalServerError, rate: 0.01 }
                  - { status: 410, reason: Unregistered, rate: 0.002 }
                latency: 5ms-40ms
                too-many-requests-after: 120
                goaway-every: 10000
                reset-every: 50000
                shutdown-windows:
                  - { after: 1m, for: 30s, every: 10m }
                """)
        #expect(plan.errors.count == 2)
        #expect(plan.errors[1].error == .unregistered)
        #expect(plan.latency == .uniform(5, 40))
        #expect(plan.tooManyRequestsAfter == 120)
        #expect(plan.goAwayEvery == 10_000)
        #expect(plan.resetEvery == 50_000)
        #expect(
            plan.shutdownWindows == [ShutdownWindow(after: .seconds(60), duration: .seconds(30), every: .seconds(600))])
        #expect(plan.seed == 7)
        let json = try FaultPlan(
            yaml: #"{"latency":"exp:20ms","errors":[{"status":503,"reason":"ServiceUnavailable","rate":0.5}]}"#)
        #expect(json.latency == .exponential(mean: 20))
        #expect(json.errors.first?.error == .serviceUnavailable)
        #expect(throws: FaultPlanError.self) { try FaultPlan(yaml: "latency: soon") }
        #expect(throws: FaultPlanError.self) { try FaultPlan(yaml: "errors: [{status: 200, reason: OK, rate: 1}]") }
    }

    @Test("fault flags parse: status:reason:rate, latencies and shutdown windows")
    func faultFlagsParse() {
        #expect(FaultPlan.ErrorRate("500:InternalServerError:0.01")?.error == .internalServerError)
        #expect(FaultPlan.ErrorRate("500:InternalServerError") == nil)
        #expect(FaultPlan.ErrorRate("200:OK:0.5") == nil)
        #expect(Latency("20ms") == .fixed(20))
        #expect(Latency("10ms-50ms") == .uniform(10, 50))
        #expect(Latency("exp:1s") == .exponential(mean: 1000))
        #expect(Latency("fast") == nil)
        #expect(ShutdownWindow("1m+30s") == ShutdownWindow(after: .seconds(60), duration: .seconds(30)))
        #expect(ShutdownWindow("1m+30s/10m")?.every == .seconds(600))
        #expect(ShutdownWindow("1m+30s/10s") == nil)
    }
}
