import Foundation

#if FUZZING
    /// libFuzzer's driver (from `libclang_rt.fuzzer_no_main`, linked by `scripts/fuzz/build.sh`):
    /// it parses libFuzzer's flags and calls `callback` with each input.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The target libFuzzer's C callback runs; set once, before the driver starts.
    nonisolated(unsafe) private var selected: FuzzTarget?
#endif

/// `liveline-fuzz TARGET [inputs or libFuzzer flags…]`.
///
/// Built normally it replays files (or every file in a folder) through a target and says how
/// many ran: the corpus and past crashes are run this way by the tests' CI. Built by
/// `scripts/fuzz/build.sh` (with `-D FUZZING`, coverage and AddressSanitizer) it hands the
/// arguments after the target's name to libFuzzer.
@main enum FuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget.named(arguments[1]) else {
            let names = FuzzTarget.all.map {
                "  \($0.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \($0.summary)"
            }
            FileHandle.standardError.write(
                Data(
                    """
                    usage: liveline-fuzz TARGET [FILE|FOLDER…]   replay inputs through a target
                    targets:
                    \(names.joined(separator: "\n"))

                    """.utf8))
            exit(2)
        }
        #if FUZZING
            selected = target
            let argv = CommandLine.unsafeArgv
            // libFuzzer sees the program name then its own flags and corpus folders.
            argv[1] = argv[0]
            var argc = CommandLine.argc - 1
            var shifted = argv + 1
            exit(
                runFuzzerDriver(&argc, &shifted) { data, size in
                    _ = selected?.run(UnsafeRawBufferPointer(start: data, count: size))
                    return 0
                })
        #else
            exit(replay(target, paths: Array(arguments.dropFirst(2))))
        #endif
    }

    /// Runs every file under `paths` through `target` and says how many got past its checks;
    /// a crash ends the process, as it should.
    static func replay(_ target: FuzzTarget, paths: [String]) -> Int32 {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("liveline-fuzz: no such file or folder: \(path)\n".utf8))
                return 2
            }
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { "\(path)/\($0)" }
            } else {
                files.append(path)
            }
        }
        var accepted = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            if data.withUnsafeBytes({ target.run($0) }) { accepted += 1 }
        }
        print("\(target.name): \(files.count) input(s) replayed, \(accepted) accepted")
        return 0
    }
}
