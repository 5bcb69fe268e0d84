#!/bin/sh
# Parse time of webhook bodies at and past the bridge's limits, Liveline's JSONParser against
# Foundation's JSONSerialization (in the same process) and Python's json (same files, same run).
# Times are CPU time of the parsing thread (median of runs), not wall time, which on a shared
# machine counts other processes' turns too.
#
#   scripts/bench/json-parse.sh            # this tree's parser
#   scripts/bench/json-parse.sh REV        # also the parser as of git revision REV, for comparison
#
# Bodies: flat objects of N keys ("k0": 0, …) with N = 1,000, 10,000 (the default body-keys, 159
# KiB, under the default 256 KiB body-limit) and 30,000 (past body-keys: what a bridge with
# body-keys raised would parse), and one of 10,000 keys nested in 100 objects of 100.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import json, sys
out = sys.argv[1]
for n in (1000, 10000, 30000):
    open(f"{out}/flat-{n}.json", "w").write(json.dumps({f"k{i}": i for i in range(n)}))
open(f"{out}/nested-10000.json", "w").write(json.dumps({f"o{j}": {f"k{i}": i for i in range(100)} for j in range(100)}))
PY
files=$(ls "$work"/*.json | sort -V)

build() { # build DIR: compiles the driver (as main.swift) with the parser sources in DIR
    cp "$root/scripts/bench/json-parse.swift" "$1/main.swift"
    swiftc -O -module-name LivelineJSONBench -o "$1/bench" "$1/main.swift" \
        "$1/JSONParser.swift" "$1/StateValue.swift" $( [ -f "$1/UTF8Validation.swift" ] && echo "$1/UTF8Validation.swift" )
}

mkdir "$work/now"
cp "$root/Sources/Liveline/Payload/JSONParser.swift" "$root/Sources/Liveline/Scenario/StateValue.swift" "$work/now/"
cp "$root/Sources/Liveline/Payload/UTF8Validation.swift" "$work/now/"
build "$work/now"
echo "== Liveline's JSONParser (this tree) vs JSONSerialization"
"$work/now/bench" $files

if [ $# -ge 1 ]; then
    mkdir "$work/then"
    git -C "$root" show "$1:Sources/Liveline/Payload/JSONParser.swift" > "$work/then/JSONParser.swift"
    git -C "$root" show "$1:Sources/Liveline/Scenario/StateValue.swift" > "$work/then/StateValue.swift"
    git -C "$root" show "$1:Sources/Liveline/Payload/UTF8Validation.swift" > "$work/then/UTF8Validation.swift" 2>/dev/null \
        || rm -f "$work/then/UTF8Validation.swift"
    build "$work/then"
    echo "== Liveline's JSONParser as of $1 vs JSONSerialization"
    "$work/then/bench" $files
fi

echo "== Python's json.loads (reference)"
python3 - $files <<'PY'
import json, os, sys, time
print("file\tbytes\tpython_ms")
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    runs = []
    for _ in range(21):
        start = time.thread_time()
        json.loads(data)
        runs.append(time.thread_time() - start)
    print(f"{os.path.basename(path)}\t{len(data)}\t{sorted(runs)[10] * 1000:.3f}")
PY
"$root/scripts/bench/calibrate"
