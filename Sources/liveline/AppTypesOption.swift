import ArgumentParser
import Liveline
import LivelineAppTypes

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

    /// The app's types, or nil when `--app` was not given. Unreadable sources are a usage error.
    func load() throws -> AppTypes? {
        guard !paths.isEmpty else { return nil }
        do {
            return try AppSourceFiles.load(paths)
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Runs ``ScenarioAppCheck`` and prints its diagnostics the way `validate` prints the loader's.
enum AppTypesReport {
    /// Prints the problems with `scenario` against `types` through `print`; returns the error and warning counts.
    static func check(
        _ scenario: Scenario, against types: AppTypes, formatter: DiagnosticFormatter, print: (String) -> Void
    ) -> (errors: Int, warnings: Int) {
        let diagnostics = ScenarioAppCheck(types: types).diagnostics(for: scenario)
        for diagnostic in diagnostics { print(formatter.format(diagnostic)) }
        let errors = diagnostics.filter { $0.severity == .error }.count
        return (errors, diagnostics.count - errors)
    }
}
