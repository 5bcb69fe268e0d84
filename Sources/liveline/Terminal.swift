#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import Liveline
import LivelineAppTypes
import LivelineTerminal

/// Where the CLI writes, and whether a person is watching.
enum Terminal {
    static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colours only for a terminal, and never when NO_COLOR is set (no-color.org).
    static var colorOnStderr: Bool { stderrIsTTY && ProcessInfo.processInfo.environment["NO_COLOR"] == nil }
    static var colorOnStdout: Bool { stdoutIsTTY && ProcessInfo.processInfo.environment["NO_COLOR"] == nil }

    /// The terminal's columns and rows, or 80×24 when it cannot tell.
    static var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Writes without a newline.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// The terminal's width in columns (stderr's), or 100 when it cannot be told.
    static var columns: Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 100
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

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
