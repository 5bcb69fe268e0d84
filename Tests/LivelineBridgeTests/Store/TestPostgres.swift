import Foundation
import LivelineTestSupport
import Synchronization

/// The PostgreSQL server the store tests use: the one `LIVELINE_TEST_POSTGRES_URL` names, or else
/// a throwaway server of this test process's own.
///
/// The throwaway server is made with the installed server binaries (`initdb`, `pg_ctl` from
/// `/usr/lib/postgresql/*/bin`, Homebrew or the `PATH`; `LIVELINE_TEST_POSTGRES_BIN` names the
/// directory instead) in a new temporary directory, listening on 127.0.0.1 on a free port with a
/// password (`liveline`/`liveline`, scram-sha-256), so a machine with PostgreSQL installed and no
/// server running, or one whose server belongs to someone else, tests the store without any
/// set-up. It is started once, on first use, shared by every test of the process, and stopped
/// and deleted when the process ends: a small shell supervises it and stops it when its standard
/// input closes, which happens however the test process ends. As root, the server runs as the
/// `postgres` user, since `initdb` refuses root.
enum TestPostgres {
    /// What the tests get: a URL, or why there is none.
    enum Server: Sendable {
        case url(String)
        /// No server binaries here: the PostgreSQL cases are skipped with this reason.
        case unavailable(String)
        /// The binaries are here but the server did not start: the PostgreSQL cases fail with this.
        case failed(String)
    }

    /// What the store tests skip without a server, and what provides one (`scripts/test.sh`).
    static let requirement = ToolRequirement(untested: "the PostgreSQL store", provider: "postgresql")

    /// The server, started on first use.
    static let server: Task<Server, Never> = Task { await resolve() }

    /// The supervising shell and the write end of its standard input, kept open for the life of
    /// the process: its closing at exit stops the server.
    private static let supervisor = Mutex<(SpawnedProcess, FileHandle)?>(nil)

    private static func resolve() async -> Server {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["LIVELINE_TEST_POSTGRES_URL"], !url.isEmpty { return .url(url) }
        guard let bin = serverBinaries(environment) else {
            return .unavailable(
                "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin, Homebrew's postgresql@N or on the PATH"
            )
        }
        var user: String?
        if getuid() == 0 {
            guard getpwnam("postgres") != nil else {
                return .unavailable("initdb refuses to run as root, and there is no postgres user to run it as")
            }
            user = "postgres"
        }
        var failure = ""
        // A port found free can be taken before the server binds it: then another one.
        for _ in 0..<3 {
            switch await start(bin: bin, user: user) {
            case .url(let url): return .url(url)
            case .unavailable(let reason): return .unavailable(reason)
            case .failed(let reason): failure = reason
            }
        }
        return .failed(failure)
    }

    /// The directory holding `initdb` and `pg_ctl`: the newest of Debian's versions, Homebrew's,
    /// or the first on the `PATH`.
    static func serverBinaries(_ environment: [String: String]) -> String? {
        func hasServer(_ directory: String) -> Bool {
            ["initdb", "pg_ctl", "postgres"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: "\(directory)/\($0)")
            }
        }
        if let chosen = environment["LIVELINE_TEST_POSTGRES_BIN"] { return hasServer(chosen) ? chosen : nil }
        var candidates: [String] = []
        let debian = "/usr/lib/postgresql" // portability: Debian's place, then Homebrew's (Apple silicon, Intel)
        for root in [debian, "/opt/homebrew/opt", "/usr/local/opt"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            let versions = names.filter { root == debian || $0.hasPrefix("postgresql") }
                .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
            candidates += versions.map { "\(root)/\($0)/bin" }
        }
        candidates += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return candidates.first(where: hasServer)
    }

    private static func start(bin: String, user: String?) async -> Server {
        let parent = user == nil ? FileManager.default.temporaryDirectory.path : "/tmp"
        var template = Array("\(parent)/liveline-postgres-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            return .failed("cannot make a temporary directory in \(parent): \(String(cString: strerror(errno)))")
        }
        let directory = String(cString: made)
        let port: Int
        do { port = try freePort() } catch { return .failed("no free port: \(error)") }

        let input = Pipe()
        let output = Pipe()
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess.launch(
                "/bin/sh", arguments: ["-c", script, "test-postgres", bin, directory, String(port), user ?? ""],
                input: input, output: output, error: output)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            return .failed("cannot run /bin/sh: \(error)")
        }
        // Only this process holds the write end; children started later must not keep it open.
        _ = fcntl(input.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        let said = String(decoding: await Subprocess.readToEnd(output), as: UTF8.self)
        guard said.hasPrefix("ready") else {
            await process.exit()
            return .failed("a throwaway PostgreSQL server (\(bin)) did not start: \(said)")
        }
        supervisor.withLock { $0 = (process, input.fileHandleForWriting) }
        return .url("postgres://liveline:liveline@127.0.0.1:\(port)/postgres")
    }

    /// A loopback port nothing listens on now.
    private static func freePort() throws -> Int {
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
        #else
            let stream = SOCK_STREAM
        #endif
        let socket = Foundation.socket(AF_INET, stream, 0)
        guard socket >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `sh -c SCRIPT test-postgres BIN DIRECTORY PORT USER`: makes the cluster, starts it, prints
    /// `ready` (or what went wrong) and closes its output; then waits for its standard input to
    /// close, stops the server and deletes the directory.
    static let script = #"""
        bin=$1 dir=$2 port=$3 user=$4
        as() {
          if [ -z "$user" ]; then "$@"
          elif command -v runuser >/dev/null 2>&1; then runuser -u "$user" -- "$@"
          else su -s /bin/sh "$user" -c '"$0" "$@"' -- "$@"
          fi
        }
        cleanup() {
          as "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
          rm -rf "$dir"
        }
        printf 'liveline\n' > "$dir/password"
        if [ -n "$user" ]; then chown -R "$user" "$dir" || { rm -rf "$dir"; exit 1; }; fi
        if ! as "$bin/initdb" -D "$dir/data" -U liveline --pwfile="$dir/password" --auth-local=trust \
            --auth-host=scram-sha-256 -E UTF8 --no-sync >"$dir/initdb.log" 2>&1; then
          echo "initdb failed:"; tail -20 "$dir/initdb.log"; rm -rf "$dir"; exit 1
        fi
        if ! as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-p $port -h 127.0.0.1 -k $dir -F -c max_connections=300" start >/dev/null 2>&1; then
          echo "the server did not start:"; tail -20 "$dir/server.log"; cleanup; exit 1
        fi
        trap 'cleanup; exit 0' INT TERM HUP
        echo ready
        exec >/dev/null 2>&1
        while read -r _; do :; done
        cleanup
        """#
}
