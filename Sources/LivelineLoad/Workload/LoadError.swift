/// Why a load test cannot start or could not finish, said so a user can fix it.
public struct LoadError: Error, Sendable, CustomStringConvertible, Equatable {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
