import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` before every build of the target that uses it, so `liveline
/// --version` names the commit the binary was built from.
///
/// The commit comes from, in order: the `LIVELINE_GIT_COMMIT` environment variable (a container
/// build, whose context has no `.git`, passes it as a build argument); `git` in the package
/// directory, with `-dirty` when tracked files differ from it; or nothing, and the binary says
/// the commit is unknown. A missing `git` or `.git` never fails the build. The file is rewritten
/// only when its text changes, so an unchanged commit recompiles nothing.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        var environment: [String: String] = [:]
        if let commit = ProcessInfo.processInfo.environment["LIVELINE_GIT_COMMIT"] {
            environment["LIVELINE_GIT_COMMIT"] = commit
        }
        if let path = ProcessInfo.processInfo.environment["PATH"] {
            environment["PATH"] = path
        }
        return [
            .prebuildCommand(
                displayName: "Stamping the git commit into \(target.name)",
                executable: URL(filePath: "/bin/sh"),
                arguments: ["-c", Self.script, "stamp-commit", context.package.directoryURL.path, output.path],
                environment: environment,
                outputFilesDirectory: output
            )
        ]
    }

    /// `sh -c SCRIPT stamp-commit PACKAGE_DIRECTORY OUTPUT_DIRECTORY`; always exits 0.
    static let script = #"""
        package=$1 output=$2
        commit=${LIVELINE_GIT_COMMIT:-}
        if [ -z "$commit" ] && command -v git >/dev/null 2>&1; then
          # Only the package's own repository: a copy inside another repository has no commit of its own.
          top=$(git -C "$package" rev-parse --show-toplevel 2>/dev/null) || top=
          if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$package" && pwd -P)" ]; then
            commit=$(git -C "$package" rev-parse HEAD 2>/dev/null) || commit=
            if [ -n "$commit" ] && ! git -C "$package" --no-optional-locks diff --quiet HEAD -- 2>/dev/null; then
              commit="$commit-dirty"
            fi
          fi
        fi
        commit=$(printf '%s' "$commit" | tr -cd '0-9A-Za-z._-' | cut -c1-80)
        if [ -n "$commit" ]; then value="\"$commit\""; else value=nil; fi
        text="// Generated before each build by Plugins/BuildCommitPlugin; not in the repository.
        enum BuildCommit {
            /// The git commit this binary was built from (\`-dirty\`: with uncommitted changes), or nil.
            static let value: String? = $value
        }"
        mkdir -p "$output" || exit 0
        file="$output/BuildCommit.swift"
        if [ ! -f "$file" ] || [ "$(cat "$file")" != "$text" ]; then
          printf '%s\n' "$text" > "$file.tmp" && mv "$file.tmp" "$file"
        fi
        exit 0
        """#
}
