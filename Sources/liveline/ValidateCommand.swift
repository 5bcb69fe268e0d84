import ArgumentParser
import Liveline

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

        Exit status: 0 every file is valid (warnings allowed), 1 a file has errors
        (or warnings, with --strict), 64 usage error.
        """
    )

    @Argument(help: ArgumentHelp("Scenario files to check.", valueName: "file"))
    var files: [String]

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    mutating func run() throws {
        var failed = false
        for file in files {
            let formatter = DiagnosticFormatter(color: Terminal.colorOnStdout, sources: ScenarioFiles.sources(file))
            do {
                let loaded = try ScenarioLoader().load(file: file)
                for warning in loaded.warnings { Terminal.out(formatter.format(warning)) }
                let activities = loaded.scenario.activities.count
                let summary = "\(activities) \(activities == 1 ? "activity" : "activities")"
                if strict, !loaded.warnings.isEmpty {
                    failed = true
                    Terminal.out("\(file): \(loaded.warnings.count) warning(s), failing because of --strict")
                } else {
                    Terminal.out("\(file): ok, \(summary)\(loaded.warnings.isEmpty ? "" : ", \(loaded.warnings.count) warning(s)")")
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
}
