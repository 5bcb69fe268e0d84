import ArgumentParser
import Foundation
import Liveline
import LivelineAppTypes
import LivelineBridge
import LivelineTerminal

/// `liveline validate FILE…`
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check scenario files and report every problem, located.",
        discussion: """
            Each problem is printed as FILE:LINE:COLUMN: error: message, with the line
            and a caret, as compilers do, so editors can jump to it. Warnings point at
            legal but suspicious things, such as more high-priority beats than the
            budget allows.

            A file that validates is safe to play: every template resolves, every
            patch keeps the content-state decodable by the app, and every payload fits
            in 4096 bytes.

            With --app, each file is also checked against the app's own types, read
            from its Swift source: the attributes-type exists, the attributes and every
            content-state the story can reach decode (names, types, optionals, enum raw
            values, dates), and each problem names the Swift declaration. What only
            running the app can tell (a hand-written init(from:)) is a warning, and
            the summary then says what was not checked instead of "decodes in the app".
            A type declared in two files is named with both; --app-type chooses.

            A bridge configuration (a file whose first key is liveline-bridge:) is
            checked as `bridge serve` loads it, with its sources' scenarios and event
            rules; with --app, or its own app: key, every set: rule and value map is
            checked against the app's types too. Its secrets need not be set.

            Exit status: 0 every file is valid (warnings allowed), 1 a file has errors
            (or warnings, with --strict), 64 usage error.
            """
    )

    @Argument(help: ArgumentHelp("Scenario files (or bridge configurations) to check.", valueName: "file"))
    var files: [String]

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    @OptionGroup var app: AppTypesOption

    mutating func run() throws {
        var failed = false
        let appTypes = try app.load()
        for file in files {
            if Self.isBridgeConfiguration(file) {
                if try !validateBridge(file, appTypes: appTypes) { failed = true }
                continue
            }
            let formatter = DiagnosticFormatter(color: Terminal.colorOnStdout, sources: ScenarioFiles.sources(file))
            do {
                let loaded = try ScenarioLoader().load(file: file)
                for warning in loaded.warnings { Terminal.out(formatter.format(warning)) }
                var warnings = loaded.warnings.count
                var verdict = ""
                if let appTypes {
                    let report = AppTypesReport.check(
                        loaded.scenario, against: appTypes, formatter: formatter, print: Terminal.out)
                    warnings += report.warnings
                    if report.errors > 0 {
                        failed = true
                        Terminal.out("\(file): \(report.verdict)")
                        continue
                    }
                    verdict = ", " + report.verdict
                }
                let activities = loaded.scenario.activities.count
                let summary = "\(activities) \(activities == 1 ? "activity" : "activities")" + verdict
                if strict, warnings > 0 {
                    failed = true
                    Terminal.out("\(file): \(warnings) warning(s), failing because of --strict")
                } else {
                    Terminal.out("\(file): ok, \(summary)\(warnings == 0 ? "" : ", \(warnings) warning(s)")")
                }
            } catch {
                failed = true
                for diagnostic in error.diagnostics { Terminal.out(formatter.format(diagnostic)) }
                let errors = error.errors.count
                Terminal.out("\(file): \(errors) \(errors == 1 ? "error" : "errors")")
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// Whether the file is a bridge configuration: its first key is `liveline-bridge:`.
    static func isBridgeConfiguration(_ file: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: file) else { return false }
        let first = String(decoding: data, as: UTF8.self).split(separator: "\n").first { line in
            let text = line.drop { $0 == " " }
            return !text.isEmpty && !text.hasPrefix("#") && text != "---"
        }
        return first?.hasPrefix("liveline-bridge:") == true
    }

    /// A bridge configuration: loaded as `bridge serve` loads it (secrets need not be set),
    /// its sources' scenarios and event rules checked, and against the app's types with `--app`
    /// or its `app:`. Returns whether it passes.
    private func validateBridge(_ file: String, appTypes: AppTypes?) throws -> Bool {
        let formatter = DiagnosticFormatter(color: Terminal.colorOnStdout, sources: ScenarioFiles.sources(file))
        let configuration: BridgeConfiguration
        do {
            configuration = try BridgeConfigurationLoader(readsSecrets: false).load(file: file)
        } catch {
            for diagnostic in error.diagnostics { Terminal.out(formatter.format(diagnostic)) }
            let errors = error.errors.count
            Terminal.out("\(file): \(errors) \(errors == 1 ? "error" : "errors")")
            return false
        }
        let sources = configuration.sources.count
        var summary = "bridge configuration, \(sources) \(sources == 1 ? "source" : "sources")"
        var warnings = 0
        if let types = try appTypes ?? app.load(fallback: configuration.app) {
            let found = BridgeAppReport.check(
                configuration, against: types, color: Terminal.colorOnStdout, print: Terminal.out)
            if found.errors > 0 {
                Terminal.out(
                    "\(file): \(found.errors) \(found.errors == 1 ? "error" : "errors") against the app's types")
                return false
            }
            warnings = found.warnings
            summary +=
                warnings == 0 && types.syntaxErrors.isEmpty
                ? ", decodes in the app"
                : ", not fully checked against the app: \(warnings) \(warnings == 1 ? "warning" : "warnings") above"
        }
        if strict, warnings > 0 {
            Terminal.out("\(file): \(warnings) warning(s), failing because of --strict")
            return false
        }
        Terminal.out("\(file): ok, \(summary)")
        return true
    }
}
