// The driver of scripts/bench/json-parse.sh: parses each file given with Liveline's JSONParser
// and with Foundation's JSONSerialization, the reference, in the same process, and prints the
// median time of each and their ratio. Compiled by the script together with the parser's own
// source files, optimised.
import Foundation

public typealias Millis = Int64

/// This thread's CPU time in seconds: on a shared machine the wall clock also counts the time
/// the scheduler gives to other processes, which grows with the length of what is measured.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The median CPU seconds of `body` over enough runs to take at least `budget` seconds (5 at least).
func median(budget: Double = 1.0, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    let start = cpuSeconds()
    while times.count < 5 || (cpuSeconds() - start < budget && times.count < 1000) {
        let t0 = cpuSeconds()
        try body()
        times.append(cpuSeconds() - t0)
    }
    return times.sorted()[times.count / 2]
}

print("file\tbytes\tliveline_ms\tjsonserialization_ms\tratio")
for path in CommandLine.arguments.dropFirst() {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let bytes = Array(data)
    let liveline = try median { _ = try JSONParser.parse(bytes) }
    let foundation = try median { _ = try JSONSerialization.jsonObject(with: data) }
    let name = URL(fileURLWithPath: path).lastPathComponent
    print(
        String(
            format: "%@\t%d\t%.3f\t%.3f\t%.2f", name, bytes.count, liveline * 1000, foundation * 1000,
            liveline / foundation))
}
