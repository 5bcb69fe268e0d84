import ArgumentParser
import Foundation
import LivelineLoad

/// `liveline report …`: work with load-test results.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Merge and render load-test results (liveline load --json).",
        subcommands: [MergeCommand.self]
    )

    /// `liveline report merge A.json B.json…`
    struct MergeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Add up results from several machines or runs into one.",
            discussion: """
                Counts and latency histograms add exactly, so the merged percentiles are
                those of every push of every run. Time series are aligned from each run's
                start; latency over time shows the highest of the runs in each interval.

                Example, a test split over four machines:
                  liveline load football.yaml --activities 200000 --shard 1/4 --json p1.json
                  …
                  liveline report merge p1.json p2.json p3.json p4.json \\
                      --json all.json --report all.html --threshold 'p99<250ms'

                Exit status: 0 success; 2 a merged run failed (lost pushes or a
                configuration error); 64 usage error or unreadable file; 99 a threshold
                failed.
                """
        )

        @Argument(help: ArgumentHelp("Result files written by liveline load --json.", valueName: "file.json"))
        var files: [String]

        @Option(help: ArgumentHelp("Write the merged result as JSON.", valueName: "file"))
        var json: String?

        @Option(help: ArgumentHelp("Write the merged HTML report.", valueName: "file.html"))
        var report: String?

        @Option(
            name: .customLong("threshold"),
            help: ArgumentHelp("Fail (exit 99) unless this holds on the merged result. Repeatable.", valueName: "expr"))
        var thresholds: [String] = []

        mutating func validate() throws {
            for threshold in thresholds {
                do { _ = try Threshold(parsing: threshold) } catch { throw ValidationError(error.cliMessage) }
            }
        }

        mutating func run() async throws {
            do {
                let results = try files.map { path throws(LoadError) in try JSONReport.read(file: path) }
                var merged = try ResultMerge.merge(results)
                merged.thresholds = try thresholds.map { text throws(LoadError) in try Threshold(parsing: text) }.map {
                    $0.check(merged)
                }
                try LoadCommand.write(merged, json: json, report: report)
                throw ExitCode(LoadExitStatus.of(merged).rawValue)
            } catch let error as LoadError {
                Terminal.error("error: \(error.cliMessage)")
                throw ExitCode(error.exitStatus.rawValue)
            }
        }
    }
}
