import ArgumentParser
import Foundation
import LivelineAppTypes

/// `liveline scaffold --app PATH`
struct ScaffoldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scaffold",
        abstract: "Write a starter scenario for each ActivityAttributes type in the app's source.",
        discussion: """
        Reads the app's Swift source (--app, files or folders) and writes one
        scenario per ActivityAttributes type, named after it (MatchAttributes →
        match-attributes.yaml): every field the app decodes, attributes and
        content-state, with a value of its type and a comment naming the Swift
        type and, for enums, the raw values. Each file validates against the app
        as written; fill in the values and add beats.

        Existing files are never overwritten.

        Exit status: 0 files written, 1 no types found or a file exists, 64 usage error.
        """
    )

    @OptionGroup var app: AppTypesOption

    @Option(name: .shortAndLong, help: ArgumentHelp("The folder to write into.", valueName: "folder"))
    var output = "."

    @Flag(name: .customLong("stdout"), help: "Print the scenarios instead of writing files.")
    var toStdout = false

    mutating func validate() throws {
        if app.paths.isEmpty { throw ValidationError("give the app's Swift source with --app PATH") }
    }

    mutating func run() throws {
        guard let types = try app.load() else { throw ExitCode(64) }
        let scaffold = ScenarioScaffold(types: types)
        var failed = false
        for attributes in types.activityAttributes {
            let text = scaffold.yaml(for: attributes)
            if toStdout {
                Terminal.out(text)
                continue
            }
            let path = URL(fileURLWithPath: output).appendingPathComponent(ScenarioScaffold.fileStem(for: attributes) + ".yaml").path
            if FileManager.default.fileExists(atPath: path) {
                Terminal.error("error: \(path) exists; not overwritten (move it away or pass --output)")
                failed = true
                continue
            }
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
                Terminal.error("error: cannot write \(path)")
                failed = true
                continue
            }
            Terminal.out("wrote \(path): \(attributes.name), \(attributes.declaration.location.file):\(attributes.declaration.location.line)")
        }
        if failed { throw ExitCode(1) }
    }
}
