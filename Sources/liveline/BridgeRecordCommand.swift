import ArgumentParser
import Foundation
import Liveline
import LivelineBridge

/// `liveline bridge record`: stored events of one activity, or of a whole evening, as a
/// scenario file.
struct BridgeRecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Write what the bridge stored of activities as a scenario file that play and load replay.",
        discussion: """
            One activity:
              liveline bridge record D-58213 --config bridge.yaml --out order.yaml
            A whole evening (every activity with events received in the range, one file):
              liveline bridge record --config bridge.yaml --source sportradar \\
                  --from 2026-11-21T17:00:00Z --to 2026-11-22T00:00:00Z --out saturday.yaml

            Each event the bridge applied becomes a beat at its real offset from the activity's \
            start, with what it changed (templates and dates evaluated), its priority, alert and \
            end, under a comment naming the event. Events that changed nothing, had no rule or were \
            superseded stay as comments. Dates are written relative to each activity's start, so \
            `play` and `load` replay the story from now; `plan --start` at the printed instant shows \
            the bridge's own pushes. Before it is written, the file is played under the virtual \
            clock and compared with what the bridge decided; a difference is a warning. A story's \
            android: block is copied with it, so the recording replays to Android phones too \
            (play --platform both, load --android-share).

            Exit status: 0 written; 1 nothing to record, or the file cannot be written; 2 the store \
            cannot be opened; 64 usage error.
            """
    )

    @OptionGroup var options: BridgeConfigOption

    @Argument(
        help: ArgumentHelp("Activity keys to record (leave out to record by --source, --from, --to).", valueName: "key")
    )
    var keys: [String] = []

    @Option(help: ArgumentHelp("Record the activities with events of this source.", valueName: "source"))
    var source: String?

    @Option(
        help: ArgumentHelp(
            "Record the activities with events received from this instant (ISO-8601).", valueName: "instant"))
    var from: String?

    @Option(help: ArgumentHelp("…and before this one (ISO-8601).", valueName: "instant"))
    var to: String?

    @Option(help: ArgumentHelp("Write the scenario here (default: standard output).", valueName: "file.yaml"))
    var out: String?

    mutating func validate() throws {
        if keys.isEmpty, source == nil, from == nil, to == nil {
            throw ValidationError("name activity keys, or select them with --source, --from and --to")
        }
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, UTCTime.parse(value) == nil {
                throw ValidationError("\(name): expected \(UTCTime.expected), found '\(value)'")
            }
        }
        if let from, let to, let start = UTCTime.parse(from), let end = UTCTime.parse(to), end <= start {
            throw ValidationError("--to \(to) is not after --from \(from)")
        }
    }

    func run() async throws {
        let configuration = try options.load(readsSecrets: false)
        if case .sqlite(let path) = configuration.store, !FileManager.default.fileExists(atPath: path) {
            Terminal.error(
                "liveline bridge record: there is no store at \(path) (has the bridge run with this configuration, from this folder?)"
            )
            throw ExitCode(2)
        }
        let selection = BridgeRecorder.Selection(
            activityKeys: keys, source: source, from: from.flatMap(UTCTime.parse), to: to.flatMap(UTCTime.parse))
        let recording = try await options.withStore(configuration) { store in
            do {
                return try await BridgeRecorder(configuration: configuration, store: store).record(
                    selection, file: out ?? "<stdout>")
            } catch {
                Terminal.error("liveline bridge record: \(error)")
                throw ExitCode(1)
            }
        }
        for warning in recording.warnings { Terminal.error("warning: \(warning)") }
        for note in recording.notes { Terminal.error("note: \(note)") }
        guard let out else {
            Terminal.write(recording.yaml)
            return
        }
        do {
            try recording.yaml.write(toFile: out, atomically: true, encoding: .utf8)
        } catch {
            Terminal.error("liveline bridge record: cannot write \(out): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        Terminal.out(Self.summary(recording, file: out))
    }

    /// What was written, one line per activity, and the commands that replay it.
    private static func summary(_ recording: BridgeRecorder.Recording, file: String) -> String {
        let beats = recording.activities.reduce(0) { $0 + $1.beats.count }
        var lines = [
            "wrote \(file): \(CountText.of(recording.activities.count, "activity", "activities")), \(CountText.of(beats, "beat"))"
        ]
        let width = recording.activities.map(\.activityKey.count).max() ?? 0
        for activity in recording.activities {
            let events = activity.entries.count
            let key = activity.activityKey.padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append(
                "  \(key)  \(activity.source), \(CountText.of(activity.beats.count, "beat")) from \(CountText.of(events, "event")), \(CountText.of(activity.pushes.count, "push", "pushes"))\(activity.ended ? ", ended" : "")"
            )
        }
        lines.append("the bridge's pushes:  liveline plan --start \(UTCTime.format(recording.start)) \(file)")
        lines.append(
            "replay it now:        liveline play \(file)   or, many times over:  liveline load \(file) --activities 1000"
        )
        return lines.joined(separator: "\n")
    }
}
