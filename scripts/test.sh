#!/usr/bin/env bash
# The test command: installs what the tests need and is missing, then runs `swift test`.
#
#   scripts/test.sh [SWIFT TEST OPTIONS…]      e.g. scripts/test.sh --filter StoreBehaviourTests
#
# What the tests use besides Swift: PostgreSQL's server binaries (the store tests start a
# throwaway server with them; LIVELINE_TEST_POSTGRES_URL names an existing database instead),
# Chromium or Google Chrome (the dashboard in a browser), curl, openssl, and python3 with
# jsonschema, PyYAML, h2, cryptography (a second opinion on the FCM assertion's RS256 signature)
# and firebase-admin (the Firebase Admin SDK, sending to the mock FCM). Missing ones are installed with apt-get where it is (as root, or
# with sudo without a password), else with Homebrew where `brew` is (a Mac), and Python's
# modules with pip; without either, the script names what to install. LIVELINE_TEST_INSTALL=0
# installs nothing. A test whose tool is still missing is skipped, not failed, and the run ends
# with one line naming what was not tested and the command that tests it.
#
# It runs in macOS's bash 3.2 and with BSD tools: lists are words in a string (an empty array
# under `set -u` aborts bash 3.2), no bash 4 features; scripts/check/portability checks that.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

if command -v apt-get >/dev/null 2>&1; then installer=apt
elif command -v brew >/dev/null 2>&1; then installer=brew
else installer=none
fi

python_modules() { python3 -c "import $1" >/dev/null 2>&1; }
postgres_server() {
  [ -n "${LIVELINE_TEST_POSTGRES_URL:-}" ] && return 0
  command -v initdb >/dev/null 2>&1 && return 0
  # Debian's place, then Homebrew's: its postgresql@N formulae are not linked onto the PATH.
  for initdb in /usr/lib/postgresql/*/bin/initdb /opt/homebrew/opt/postgresql*/bin/initdb \
    /usr/local/opt/postgresql*/bin/initdb; do
    [ -x "$initdb" ] && return 0
  done
  return 1
}
browser() {
  for name in chromium chromium-browser google-chrome google-chrome-stable; do
    command -v "$name" >/dev/null 2>&1 && return 0
  done
  # Where macOS installs them.
  for app in "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
    "/Applications/Chromium.app/Contents/MacOS/Chromium" \
    "$HOME/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"; do
    [ -x "$app" ] && return 0
  done
  return 1
}
# A tool's package for this machine's installer: Debian's names are the tests' own.
brew_name() {
  case $1 in
    postgresql) echo postgresql@17 ;;
    openssl) echo openssl@3 ;;
    python3) echo python ;;
    *) echo "$1" ;;
  esac
}
apt_name() {
  case $1 in
    pip:pyyaml) echo python3-yaml ;;
    pip:*) echo "python3-${1#pip:}" ;;
    *) echo "$1" ;;
  esac
}

if [ "${LIVELINE_TEST_INSTALL:-1}" != 0 ]; then
  missing=""
  postgres_server || missing="$missing postgresql"
  browser || missing="$missing chromium"
  command -v curl >/dev/null 2>&1 || missing="$missing curl"
  command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
  command -v python3 >/dev/null 2>&1 || missing="$missing python3"
  for module in jsonschema:jsonschema yaml:pyyaml h2:h2 cryptography:cryptography; do
    python_modules "${module%%:*}" || missing="$missing pip:${module#*:}"
  done

  packages="" casks="" pip=""
  for tool in $missing; do
    case "$installer:$tool" in
      apt:pip:*)
        # Debian's own python3 takes modules from apt (pip refuses to touch it); any other from pip.
        if ! command -v python3 >/dev/null 2>&1 || [ "$(command -v python3)" = /usr/bin/python3 ]; then
          packages="$packages $(apt_name "$tool")"
        else
          pip="$pip ${tool#pip:}"
        fi
        ;;
      *:pip:*) pip="$pip ${tool#pip:}" ;;
      apt:*) packages="$packages $tool" ;;
      brew:chromium) casks="$casks google-chrome" ;;
      brew:*) packages="$packages $(brew_name "$tool")" ;;
      none:*) packages="$packages $tool" ;;
    esac
  done
  # The Firebase Admin SDK (the mock FCM's interop test) has no Debian or Homebrew package: pip only.
  if command -v python3 >/dev/null 2>&1; then
    python_modules "firebase_admin, google.auth" || pip="$pip firebase-admin"
  fi

  if [ -n "$packages$casks" ]; then
    case $installer in
      apt)
        sudo=""
        if [ "$(id -u)" != 0 ]; then
          if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
        fi
        if [ "$sudo" = none ]; then
          echo "scripts/test.sh: not installed (needs root):$packages" >&2
        else
          echo "scripts/test.sh: installing$packages"
          # shellcheck disable=SC2086 # $sudo and $packages are lists of words
          { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q &&
            $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $packages; } >/dev/null ||
            echo "scripts/test.sh: apt-get install$packages failed; the tests that need them are skipped" >&2
        fi
        ;;
      brew)
        # shellcheck disable=SC2086
        if [ -n "$packages" ]; then
          echo "scripts/test.sh: installing$packages (Homebrew)"
          brew install --quiet $packages >/dev/null ||
            echo "scripts/test.sh: brew install$packages failed; the tests that need them are skipped" >&2
        fi
        # shellcheck disable=SC2086
        if [ -n "$casks" ]; then
          echo "scripts/test.sh: installing$casks (Homebrew cask)"
          brew install --quiet --cask $casks >/dev/null ||
            echo "scripts/test.sh: brew install --cask$casks failed; the tests that need it are skipped" >&2
        fi
        ;;
      none)
        echo "scripts/test.sh: no apt-get or Homebrew here; install these to test everything:$packages" >&2
        ;;
    esac
  fi
  if [ -n "$pip" ] && command -v python3 >/dev/null 2>&1; then
    echo "scripts/test.sh: installing$pip (pip)"
    # A Python that is managed by its installer (Homebrew's, PEP 668) refuses both; say how.
    # shellcheck disable=SC2086
    python3 -m pip install -q $pip 2>/dev/null || python3 -m pip install -q --user $pip ||
      echo "scripts/test.sh: pip install$pip failed (in a Python managed by Homebrew: python3 -m pip install --user --break-system-packages$pip, or a virtual environment); the tests that need them are skipped" >&2
  fi
fi

# The tests note each tool they skipped for here, one "what<TAB>provider" line each.
skipped=$(mktemp)
trap 'rm -f "$skipped"' EXIT
export LIVELINE_TEST_SKIPPED=$skipped

# A test process that crashes prints the crashed thread's backtrace alone: every thread's,
# symbolicated, takes minutes and buries the one that matters. SWIFT_BACKTRACE set by the
# caller wins.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=yes,threads=crashed,registers=none,images=none}
# ${1+"$@"}: no arguments expand to nothing in every bash.
swift test ${1+"$@"}
status=$?

if [ -s "$skipped" ]; then
  what=$(cut -f1 "$skipped" | sort -u | paste -sd, - | sed 's/,/, /g')
  tools=$(cut -f2 "$skipped" | tr ' ' '\n' | grep -v '^pip:' | sort -u | paste -sd' ' -)
  pip_list=$(cut -f2 "$skipped" | tr ' ' '\n' | sed -n 's/^pip://p' | sort -u | paste -sd' ' -)
  command=""
  if [ -n "$tools" ]; then
    case $installer in
      apt) command="sudo apt-get install -y $tools && " ;;
      brew)
        formulae="" casks=""
        for tool in $tools; do
          if [ "$tool" = chromium ]; then casks="$casks google-chrome"; else formulae="$formulae $(brew_name "$tool")"; fi
        done
        [ -n "$formulae" ] && command="brew install$formulae && "
        [ -n "$casks" ] && command="${command}brew install --cask$casks && "
        ;;
      *) command="install $tools, then " ;;
    esac
  fi
  [ -n "$pip_list" ] && command="${command}python3 -m pip install $pip_list && "
  them=them
  [ "$(cut -f1 "$skipped" | sort -u | wc -l)" -eq 1 ] && them=it
  echo "Not tested here: $what. To test $them: ${command}scripts/test.sh"
fi
exit "$status"
