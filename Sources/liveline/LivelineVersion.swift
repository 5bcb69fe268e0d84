/// What `liveline --version` prints: the release and the git commit the binary was built from
/// (`BuildCommit`, generated before each build by `Plugins/BuildCommitPlugin`).
enum LivelineVersion {
    /// The release number; the container image's `org.opencontainers.image.version` label too.
    static let number = "0.1.0"

    /// `liveline 0.1.0 (commit 0f3c…)`, or says the commit is unknown when the binary was built
    /// without git and without `LIVELINE_GIT_COMMIT`.
    static var text: String {
        let commit =
            BuildCommit.value.map { "commit \($0)" }
            ?? "commit unknown: built without git or LIVELINE_GIT_COMMIT"
        return "liveline \(number) (\(commit))"
    }
}
