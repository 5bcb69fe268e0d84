import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's memory and CPU time, for the report.
public enum ResourceUsage {
    #if canImport(Glibc)
        private static let selfWho = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
        private static let selfWho = RUSAGE_SELF
    #endif

    /// Peak resident memory in bytes: `VmHWM` from /proc/self/status on Linux, `ru_maxrss`
    /// elsewhere; 0 when neither is available.
    public static func peakResidentBytes() -> Int {
        if let kib = statusField("VmHWM:") { return kib * 1024 }
        var usage = rusage()
        guard getrusage(selfWho, &usage) == 0 else { return 0 }
        #if canImport(Darwin)
            return Int(usage.ru_maxrss)
        #else
            return Int(usage.ru_maxrss) * 1024
        #endif
    }

    /// Current resident memory in bytes (`VmRSS`), 0 where unknown (macOS: no /proc).
    public static func residentBytes() -> Int {
        (statusField("VmRSS:") ?? 0) * 1024
    }

    /// User plus system CPU time of the process, milliseconds.
    public static func cpuMillis() -> Int64 {
        var usage = rusage()
        guard getrusage(selfWho, &usage) == 0 else { return 0 }
        let user = Int64(usage.ru_utime.tv_sec) * 1000 + Int64(usage.ru_utime.tv_usec) / 1000
        let system = Int64(usage.ru_stime.tv_sec) * 1000 + Int64(usage.ru_stime.tv_usec) / 1000
        return user + system
    }

    /// A `kB` field of /proc/self/status; nil where there is no /proc.
    static func statusField(_ name: String) -> Int? {
        #if os(Linux)
            guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
            for line in text.split(separator: "\n") where line.hasPrefix(name) {
                let digits = line.dropFirst(name.count).filter(\.isNumber)
                return Int(digits)
            }
            return nil
        #else
            return nil
        #endif
    }
}

/// Microseconds on the real-time clock (UNIX epoch), the clock push due times are on.
public enum MicroClock {
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }
}
