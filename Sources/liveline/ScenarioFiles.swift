import Foundation
import Liveline
import LivelineAppTypes
import LivelineTerminal

/// Loads scenario files for commands, printing their diagnostics with source snippets.
enum ScenarioFiles {
    /// The loaded scenario, with its warnings printed to standard error; or, after printing
    /// every diagnostic there, nil.
    /// With `app`, a story that would not decode into the app's types is refused the same way.
    static func load(_ path: String, printWarnings: Bool = true, app: AppTypes? = nil) -> Scenario? {
        let formatter = DiagnosticFormatter(color: Terminal.colorOnStderr, sources: sources(path))
        do {
            let loaded = try ScenarioLoader().load(file: path)
            if printWarnings {
                for warning in loaded.warnings { Terminal.error(formatter.format(warning)) }
            }
            if let app {
                let found = AppTypesReport.check(
                    loaded.scenario, against: app, formatter: formatter, print: Terminal.error)
                if found.errors > 0 {
                    Terminal.error(
                        "\(path): the app would not decode \(found.errors == 1 ? "this" : "these \(found.errors)") (--app); nothing was sent"
                    )
                    return nil
                }
            }
            return loaded.scenario
        } catch {
            for diagnostic in error.diagnostics { Terminal.error(formatter.format(diagnostic)) }
            return nil
        }
    }

    static func sources(_ path: String) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { return [:] }
        return [path: text]
    }
}
