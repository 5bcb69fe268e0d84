import NIOCore

/// NIO's view of the usable cores, used for the default number of event-loop threads.
enum NIOCoreCount {
    static var value: Int { NIOCore.System.coreCount }
}
