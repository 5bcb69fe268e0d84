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

            A type declared in two files (two targets, a backup copy) gets a file for
            each, named with its module (widget-match-attributes.yaml); --app-type
            keeps one. With --stdout the scenarios are one YAML stream, each its own
            document after `---`.

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
        var failed = false
        var written: Set<String> = []
        let outputs = Self.outputs(types)
        for (index, output) in outputs.enumerated() {
            let text = ScenarioScaffold(types: output.types).yaml(for: output.attributes, choice: output.choice)
            if toStdout {
                if outputs.count > 1 { Terminal.out(index == 0 ? "---" : "\n---") }
                Terminal.out(text)
                continue
            }
            let path = URL(fileURLWithPath: self.output).appendingPathComponent(output.stem + ".yaml").path
            if written.contains(path) {
                Terminal.error(
                    "error: \(output.attributes.name) (\(output.attributes.declaration.location.file)) would be written to \(path) too; choose one with --app-type"
                )
                failed = true
                continue
            }
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
            written.insert(path)
            Terminal.out(
                "wrote \(path): \(output.attributes.name), \(output.attributes.declaration.location.file):\(output.attributes.declaration.location.line)"
            )
        }
        if failed { throw ExitCode(1) }
    }

    /// One scaffold per `ActivityAttributes` type; a type declared in several files once per
    /// file, each with its own sources chosen and its file named with its module.
    static func outputs(_ types: AppTypes) -> [(attributes: AppStruct, types: AppTypes, stem: String, choice: String?)]
    {
        var outputs: [(attributes: AppStruct, types: AppTypes, stem: String, choice: String?)] = []
        var handled: Set<String> = []
        for attributes in types.activityAttributes {
            guard let ambiguity = types.ambiguity(of: attributes) else {
                outputs.append((attributes, types, ScenarioScaffold.fileStem(for: attributes), nil))
                continue
            }
            guard handled.insert(ambiguity.name).inserted else { continue }
            for declaration in ambiguity.declarations {
                guard case .structure(let duplicate) = declaration else { continue }
                let chosen = types.choosing(fileOf: duplicate.declaration)
                outputs.append(
                    (
                        chosen.attributes(named: ScenarioScaffold.simpleName(duplicate.name)) ?? duplicate, chosen,
                        distinctStem(for: duplicate, in: types, taken: Set(outputs.map(\.stem))),
                        types.choiceName(for: declaration)
                    ))
            }
        }
        return outputs
    }

    /// `widget-match-attributes`: the module, then the folders nearest the file, then a number,
    /// until no other scaffold has the name.
    static func distinctStem(for attributes: AppStruct, in types: AppTypes, taken: Set<String>) -> String {
        let file = attributes.declaration.location.file
        let base = ScenarioScaffold.fileStem(for: attributes)
        var prefixes = types.modules[file].map { [$0] } ?? []
        prefixes += file.split(separator: "/").dropLast().reversed().prefix(3).map(String.init).filter {
            !prefixes.contains($0)
        }
        var stem = base
        for prefix in prefixes {
            stem = ScenarioScaffold.fileStem(named: prefix) + "-" + (stem == base ? base : stem)
            if !taken.contains(stem) { return stem }
        }
        var number = 2
        while taken.contains("\(stem)-\(number)") { number += 1 }
        return "\(stem)-\(number)"
    }
}
