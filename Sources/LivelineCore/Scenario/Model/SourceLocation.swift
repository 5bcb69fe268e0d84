/// A place in a scenario file, for diagnostics: `file:line:column`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file path as the user gave it.
    public var file: String
    /// Line number, from 1.
    public var line: Int
    /// Column number, from 1, counted in Unicode scalars.
    public var column: Int

    /// A location at `line` and `column` of `file`.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}
