# Shared by the callgrind benchmarks (scripts/bench/callgrind-*.sh; sourced, not run).

# callgrind_shim DIR: builds DIR/libsigsuspend.so, to preload under valgrind. Valgrind 3.19
# writes into the signal mask given to sigsuspend, and Swift's runtime (libdispatch's main
# thread waits in dispatchMain) passes a read-only one: valgrind then dies of a SIGSEGV of its
# own. A sigsuspend that passes a copy avoids it.
callgrind_shim() {
  cat > "$1/sigsuspend.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, 8);
}
C
  cc -shared -fPIC -O2 -o "$1/libsigsuspend.so" "$1/sigsuspend.c"
}

# callgrind_copy BINARY OUT: a copy of BINARY without debug information, for valgrind 3.19,
# which cannot read the DWARF 5 of a default build (function names come from the symbol table).
callgrind_copy() {
  mkdir -p "$(dirname "$2")"
  objcopy --strip-debug "$1" "$2"
}
