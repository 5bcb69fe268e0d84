#!/usr/bin/env bash
# Fault soak (SECURITY.md / BENCHMARKS.md): 10,000 activities in real time against a misbehaving
# mock APNs for about 10 minutes; every push accounted for, order per activity, flat memory.
# Settings and checks: scripts/soak/soak.py. ACTIVITIES, SPEED, RAMP, FLAT override the defaults.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${LIVELINE:-}" ]; then
  swift build -c release --product liveline >/dev/null
fi
exec python3 scripts/soak/soak.py "$@"
