#!/usr/bin/env bash
# The test command: installs what the tests need and is missing, then runs `swift test`.
#
#   scripts/test.sh [SWIFT TEST OPTIONS…]      e.g. scripts/test.sh --filter StoreBehaviourTests
#
# What the tests use besides Swift: PostgreSQL's server binaries (the store tests start a
# throwaway server with them; LIVELINE_TEST_POSTGRES_URL names an existing database instead),
# Chromium (the dashboard in a browser), curl, openssl, and python3 with jsonschema, PyYAML and
# h2. Missing ones are installed with apt-get (as root, or with sudo without a password) and pip;
# LIVELINE_TEST_INSTALL=0 installs nothing. A test whose tool is still missing is skipped, not
# failed, and the run ends with one line naming what was not tested and the command that tests it.
set -uo pipefail
cd "$(dirname "$0")/.."

python_modules() { python3 -c "import $1" >/dev/null 2>&1; }
postgres_server() {
  [ -n "${LIVELINE_TEST_POSTGRES_URL:-}" ] || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null ||
    command -v initdb >/dev/null 2>&1
}

if [ "${LIVELINE_TEST_INSTALL:-1}" != 0 ]; then
  apt=() pip=()
  postgres_server || apt+=(postgresql)
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
    command -v google-chrome >/dev/null 2>&1 || apt+=(chromium)
  command -v curl >/dev/null 2>&1 || apt+=(curl)
  command -v openssl >/dev/null 2>&1 || apt+=(openssl)
  if ! command -v python3 >/dev/null 2>&1; then
    apt+=(python3 python3-jsonschema python3-yaml python3-h2)
  else
    # Debian's own python3 takes modules from apt (pip refuses to touch it); any other from pip.
    for module in jsonschema:jsonschema yaml:pyyaml h2:h2; do
      python_modules "${module%%:*}" && continue
      if [ "$(command -v python3)" = /usr/bin/python3 ] && command -v apt-get >/dev/null 2>&1; then
        apt+=("python3-${module#*:}")
      else
        pip+=("${module#*:}")
      fi
    done
    apt=("${apt[@]/python3-pyyaml/python3-yaml}")
  fi

  if [ ${#apt[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "scripts/test.sh: not installed (no apt-get here): ${apt[*]}" >&2
    else
      sudo=()
      if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); else sudo=(none); fi
      fi
      if [ "${sudo[*]}" = none ]; then
        echo "scripts/test.sh: not installed (needs root): ${apt[*]}" >&2
      else
        echo "scripts/test.sh: installing ${apt[*]}"
        { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q &&
          "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${apt[@]}"; } >/dev/null ||
          echo "scripts/test.sh: apt-get install ${apt[*]} failed; the tests that need them are skipped" >&2
      fi
    fi
  fi
  if [ ${#pip[@]} -gt 0 ]; then
    echo "scripts/test.sh: installing ${pip[*]} (pip)"
    python3 -m pip install -q "${pip[@]}" ||
      echo "scripts/test.sh: pip install ${pip[*]} failed; the tests that need them are skipped" >&2
  fi
fi

# The tests note each tool they skipped for here, one "what<TAB>provider" line each.
skipped=$(mktemp)
trap 'rm -f "$skipped"' EXIT
export LIVELINE_TEST_SKIPPED=$skipped

swift test "$@"
status=$?

if [ -s "$skipped" ]; then
  what=$(cut -f1 "$skipped" | sort -u | paste -sd, - | sed 's/,/, /g')
  apt_list=$(cut -f2 "$skipped" | tr ' ' '\n' | grep -v '^pip:' | sort -u | paste -sd' ' -)
  pip_list=$(cut -f2 "$skipped" | tr ' ' '\n' | sed -n 's/^pip://p' | sort -u | paste -sd' ' -)
  command=""
  if [ -n "$apt_list" ]; then
    if command -v apt-get >/dev/null 2>&1; then command="sudo apt-get install -y $apt_list && "
    else command="install $apt_list, then "; fi
  fi
  [ -n "$pip_list" ] && command="${command}python3 -m pip install $pip_list && "
  them=them; [ "$(cut -f1 "$skipped" | sort -u | wc -l)" -eq 1 ] && them=it
  echo "Not tested here: $what. To test $them: ${command}scripts/test.sh"
fi
exit "$status"
