import ArgumentParser
import Foundation
import Liveline
import LivelineAppTypes
import LivelineBridge
import LivelineTerminal

/// `--app PATH`: the app's Swift source, whose `ActivityAttributes` types scenarios and pushes
/// are checked against.
struct AppTypesOption: ParsableArguments {
    @Option(
        name: .customLong("app"),
        help: ArgumentHelp(
            "The app's Swift source (a file or a folder, repeatable): check against its ActivityAttributes types.",
            valueName: "path"
        )
    )
    var paths: [String] = []

    @Option(
        name: .customLong("app-type"),
        help: ArgumentHelp(
            "Where a type is declared in two files, the one to use: Module.Name or a path (repeatable).",
            valueName: "choice"
        )
    )
    var choices: [String] = []

    /// The app's types, or nil when `--app` was not given (nor `fallback`, a configuration's
    /// `app:`). Unreadable sources are a usage error. Syntax errors and names declared twice
    /// are reported on standard error, located.
    func load(fallback: [String] = []) throws -> AppTypes? {
        let paths = self.paths.isEmpty ? fallback : self.paths
        guard !paths.isEmpty else { return nil }
        let types: AppTypes
        do {
            types = try AppSourceFiles.load(paths, choices: choices)
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(1)
        }
        for syntaxError in types.syntaxErrors {
            Terminal.error(
                "\(syntaxError.location.file):\(syntaxError.location.line):\(syntaxError.location.column): warning: Swift syntax error: \(syntaxError.message); what follows may be read wrongly"
            )
        }
        for ambiguity in types.ambiguities {
            let places = ambiguity.declarations.map {
                "\($0.declaration.location.file):\($0.declaration.location.line)"
            }
            let choices = ambiguity.declarations.map { "--app-type \(types.choiceName(for: $0))" }
            Terminal.error(
                "warning: \(ambiguity.name) is declared \(ambiguity.declarations.count) times: \(places.joined(separator: " and ")); using the first; choose with \(choices.joined(separator: " or "))"
            )
        }
        return types
    }
}

/// Runs ``ScenarioAppCheck`` and prints its diagnostics the way `validate` prints the loader's.
enum AppTypesReport {
    /// Prints the problems with `scenario` against `types` through `print`; returns the report.
    static func check(
        _ scenario: Scenario, against types: AppTypes, formatter: DiagnosticFormatter, print: (String) -> Void
    ) -> ScenarioAppReport {
        let report = ScenarioAppCheck(types: types).report(for: scenario)
        for diagnostic in report.diagnostics { print(formatter.format(diagnostic)) }
        return report
    }
}

/// A bridge configuration against the app's types: its sources' scenarios and every `set:`
/// rule and value map (``BridgeConfiguration/appDiagnostics(using:)``), printed like `validate`.
enum BridgeAppReport {
    /// Prints the problems through `print`; returns the error and warning counts.
    static func check(
        _ configuration: BridgeConfiguration, against types: AppTypes, color: Bool, print: (String) -> Void
    ) -> (errors: Int, warnings: Int) {
        var sources = ScenarioFiles.sources(configuration.file)
        for source in configuration.sources {
            sources.merge(ScenarioFiles.sources(source.scenario.file)) { first, _ in first }
        }
        let formatter = DiagnosticFormatter(color: color, sources: sources)
        let diagnostics = configuration.appDiagnostics(using: AppTypesCheck(types: types))
        for diagnostic in diagnostics { print(formatter.format(diagnostic)) }
        let errors = diagnostics.filter { $0.severity == .error }.count
        return (errors, diagnostics.count - errors)
    }
}
