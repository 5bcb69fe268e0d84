import ArgumentParser
import Foundation
import Liveline
import LivelineAPNs
import NIOPosix

/// `liveline channel create|read|list|delete`
struct ChannelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Manage broadcast channels (iOS 18): one push updates every subscribed activity.",
        discussion: """
            An activity subscribes when it starts with input-push-channel. Play a scenario to
            a channel with `liveline play FILE --channel ID`.

            Apple serves channel management on its own hosts: api-manage-broadcast.sandbox.
            push.apple.com:2195 and api-manage-broadcast.push.apple.com:2196 (--env), or
            give --apns-url for a mock, which serves everything on one port.

            Exit status: 0 success, 1 APNs refused or the channel does not exist, 64 usage.
            """,
        subcommands: [Create.self, Read.self, List.self, Delete.self]
    )

    /// Where and as whom, shared by the subcommands.
    struct Connection: ParsableArguments {
        /// `--topic` (required here, or LIVELINE_APNS_TOPIC) and `--env`.
        @OptionGroup var apps: APNsAppOptions

        @Option(
            name: .customLong("apns-url"),
            help: ArgumentHelp("Manage channels on this server instead, e.g. a mock.", valueName: "url"))
        var apnsURL: String?

        @Option(
            name: .customLong("ca-file"),
            help: ArgumentHelp("Trust these PEM certificates (a mock's self-signed one).", valueName: "file.pem"))
        var caFile: String?

        @OptionGroup var credentials: CredentialOptions

        func channels() throws -> (BroadcastChannels, APNsClient) {
            let key: SigningKey?
            let bundleID: String
            let endpoint: APNsEndpoint
            do {
                key = try credentials.signingKey()
                guard let topic = try apps.bundleID() else {
                    throw ValidationError("give the app's bundle id with --topic (or set \(Credentials.topicVariable))")
                }
                bundleID = topic
                if let apnsURL {
                    endpoint = try APNsEndpoint(url: apnsURL, trustedCertificates: caFile)
                } else {
                    endpoint =
                        try apps.environment() == .production
                        ? BroadcastChannels.productionManagement : BroadcastChannels.sandboxManagement
                }
            } catch let error as CredentialsError {
                Terminal.error("error: \(error)")
                throw ExitCode(1)
            } catch let error as EndpointError {
                Terminal.error("error: \(error)")
                throw ExitCode(1)
            }
            if key == nil, apnsURL == nil {
                Terminal.error(
                    "error: APNs needs credentials: --key FILE.p8 --key-id ID --team-id ID (or \(Credentials.keyFileVariable) or \(Credentials.keyVariable), \(Credentials.keyIDVariable) and \(Credentials.teamIDVariable))"
                )
                throw ExitCode(1)
            }
            let client = try APNsClient(
                configuration: .init(endpoint: endpoint, signingKey: key),
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            return (BroadcastChannels(client: client, bundleID: bundleID), client)
        }
    }

    static func perform(_ connection: Connection, _ body: (BroadcastChannels) async throws -> Void) async throws {
        let (channels, client) = try connection.channels()
        do {
            try await body(channels)
            await client.shutdown()
        } catch {
            await client.shutdown()
            Terminal.error("error: \(error)")
            throw ExitCode(1)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel and print its id.")
        @OptionGroup var connection: Connection
        @Option(
            name: .customLong("storage"),
            help: "Message storage policy: 0 keeps nothing (higher budget), 1 keeps the latest message up to 8 h.")
        var storage = 0

        func run() async throws {
            try await ChannelCommand.perform(connection) { Terminal.out(try await $0.create(storagePolicy: storage)) }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a channel's settings.")
        @OptionGroup var connection: Connection
        @Argument(help: "The channel id.") var id: String

        func run() async throws {
            try await ChannelCommand.perform(connection) { channels in
                let info = try await channels.read(id)
                Terminal.out(
                    "\(info.id) message-storage-policy \(info.messageStoragePolicy) push-type \(info.pushType)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the app's channels, one id per line.")
        @OptionGroup var connection: Connection

        func run() async throws {
            try await ChannelCommand.perform(connection) { for id in try await $0.list() { Terminal.out(id) } }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a channel.")
        @OptionGroup var connection: Connection
        @Argument(help: "The channel id.") var id: String

        func run() async throws {
            try await ChannelCommand.perform(connection) { try await $0.delete(id) }
        }
    }
}
