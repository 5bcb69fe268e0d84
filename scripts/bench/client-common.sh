# Shared by scripts/bench/apns-client.sh and scripts/bench/fcm-client.sh (sourced, not run):
# a client benchmark pins the mock to one CPU and each client in turn to the other, and reads
# each client's CPU time from its process's rusage.

if [ "$(nproc)" -ge 2 ]; then SERVER_CPU=1; CLIENT_CPU=0; else SERVER_CPU=0; CLIENT_CPU=0; fi
PRIO=(); [ "$(id -u)" -eq 0 ] && PRIO=(nice -n -10)

# need_h2load: installs nghttp2-client when h2load is missing.
need_h2load() {
  command -v h2load >/dev/null && return 0
  echo "installing nghttp2-client (h2load)"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq nghttp2-client >/dev/null
}

# write_cputime DIR: DIR/cputime.py runs a command and writes the CPU seconds (user + system)
# its process used to the file given first: python3 DIR/cputime.py OUT COMMAND…
write_cputime() {
  cat > "$1/cputime.py" <<'PY'
import os, sys
out, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.execvp(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(f"{usage.ru_utime + usage.ru_stime:.6f}\n")
sys.exit(os.waitstatus_to_exitcode(status))
PY
}

# cpu_per_request FILE N: the CPU microseconds per request of a run of N requests whose CPU
# seconds cputime.py wrote to FILE.
cpu_per_request() { awk -v s="$(cat "$1")" -v n="$2" 'BEGIN { printf "%.2f", s * 1e6 / n }'; }

# The median of the arguments (the mean of the two middle ones for an even count).
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# client_builds PRODUCT: sets BIN (liveline) and CLIENT (Benchmarks' PRODUCT) from LIVELINE and
# CLIENT when both are given, else builds both for release here.
client_builds() {
  if [ -n "${LIVELINE:-}" ] && [ -n "${CLIENT:-}" ]; then BIN=$LIVELINE; return 0; fi
  echo "building liveline and Benchmarks' $1 (release)"
  swift build -c release --product liveline 2>&1 | tail -1
  BIN=$(swift build -c release --show-bin-path)/liveline
  swift build -c release --package-path Benchmarks --product "$1" 2>&1 | tail -1
  CLIENT=$(swift build -c release --package-path Benchmarks --show-bin-path)/$1
}

# work_folder: WORK, a temporary folder removed at exit, with every pid in PIDS killed first.
work_folder() {
  WORK=$(mktemp -d)
  PIDS=()
  trap 'for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
}
