import Liveline
import Testing

@Suite struct BudgetBucketTests {
    @Test func startsFullAndRefillsOneTokenPerHourOverBudget() {
        var bucket = BudgetBucket(perHour: 12, now: 0)
        var available = bucket.available(at: 0)
        #expect(available == 12)
        var spent = 0
        while bucket.spend(at: 0) { spent += 1 }
        #expect(spent == 12)
        let next = bucket.nextToken(after: 0)
        #expect(next == 300_000)
        available = bucket.available(at: 299_999)
        #expect(available == 0)
        available = bucket.available(at: 300_000)
        #expect(available == 1)
        available = bucket.available(at: 10 * 3_600_000)
        #expect(available == 12)
    }

    @Test func refillsExactlyOverManySmallSteps() {
        var bucket = BudgetBucket(perHour: 7, now: 0)
        while bucket.spend(at: 0) {}
        var t: Millis = 0
        while t < 3_600_000 {
            t += 37
            bucket.refill(to: t)
        }
        let available = bucket.available(at: t)
        #expect(available == 7)
    }

    @Test func aZeroBudgetNeverGivesAToken() {
        var bucket = BudgetBucket(perHour: 0, now: 0)
        let spent = bucket.spend(at: 1_000_000)
        #expect(!spent)
        let next = bucket.nextToken(after: 0)
        #expect(next == nil)
    }

    @Test func defaultsFollowFrequentUpdates() {
        #expect(BudgetBucket.defaultPerHour(frequentUpdates: false) == 12)
        #expect(BudgetBucket.defaultPerHour(frequentUpdates: true) == 48)
    }
}
