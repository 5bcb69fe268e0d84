import ArgumentParser
import Liveline
import LivelineAppTypes

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
        running the app can tell (a hand-written init(from:)) is a warning.

        Exit status: 0 every file is valid (warnings allowed), 1 a file has errors
        (or warnings, with --strict), 64 usage error.
        """
    )

    @Argument(help: ArgumentHelp("Scenario files to check.", valueName: "file"))
    var files: [String]

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    @OptionGroup var app: AppTypesOption

    mutating func run() throws {
        var failed = false
        let appTypes = try app.load()
        for file in files {
            let formatter = DiagnosticFormatter(color: Terminal.colorOnStdout, sources: ScenarioFiles.sources(file))
            do {
                let loaded = try ScenarioLoader().load(file: file)
                for warning in loaded.warnings { Terminal.out(formatter.format(warning)) }
                var warnings = loaded.warnings.count
                if let appTypes {
                    let found = AppTypesReport.check(loaded.scenario, against: appTypes, formatter: formatter, print: Terminal.out)
                    warnings += found.warnings
                    if found.errors > 0 {
                        failed = true
                        Terminal.out("\(file): \(found.errors) \(found.errors == 1 ? "error" : "errors") against the app's types")
                        continue
                    }
                }
                let activities = loaded.scenario.activities.count
                let summary = "\(activities) \(activities == 1 ? "activity" : "activities")" + (appTypes == nil ? "" : ", decodes in the app")
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
}
