#!/usr/bin/env python3
"""Writes COUNT fans of one match as NDJSON, one follower a line, for
`POST /v1/activities/{key}/followers` (10,000 lines a request at most; --split N writes files
of N lines, fans-000.ndjson …) or `liveline bridge followers import FILE --key KEY`.

Each fan is device `fan-N` with an update token (its app already runs the activity); with
--start-only P, that percentage has only a push-to-start token (started by the match's start
push), and with --channel P, that percentage listens to the key's broadcast channel. Tokens are
derived from N (sha256), so the same command writes the same fans.

    python3 Scenarios/sources/sportradar/followers.py 5000 > fans.ndjson
    python3 Scenarios/sources/sportradar/followers.py 100000 --start-only 10 --split 10000
"""
import argparse, hashlib, json, sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int)
    parser.add_argument("--start-only", type=float, default=0, help="percent of fans with only a push-to-start token")
    parser.add_argument("--channel", type=float, default=0, help="percent of fans on the key's broadcast channel")
    parser.add_argument("--split", type=int, default=0, help="write fans-NNN.ndjson files of this many lines instead of stdout")
    args = parser.parse_args()
    out, lines = sys.stdout, 0
    for n in range(args.count):
        if args.split and lines % args.split == 0:
            if out is not sys.stdout:
                out.close()
            out = open(f"fans-{lines // args.split:03d}.ndjson", "w")
        token = hashlib.sha256(f"fan-{n}".encode()).hexdigest()
        fan = {"device": f"fan-{n}"}
        if (n * 7919) % 10000 < args.start_only * 100:
            fan["push-to-start-token"] = token
        else:
            fan["update-token"] = token
            if (n * 104729) % 10000 < args.channel * 100:
                fan["channel"] = True
        out.write(json.dumps(fan, separators=(",", ":")) + "\n")
        lines += 1
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
