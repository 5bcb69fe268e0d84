#!/usr/bin/env python3
"""The size of each async function's context (its frame, kept in the task's allocator while it
is suspended), read from a release binary's async function pointers; with two binaries, those
whose size differs. A task's frames that outgrow the slab the task starts with cost it more
allocations, which a fan-out holding thousands of tasks at once pays in peak memory.

    scripts/bench/async-frames.py .build/release/liveline | grep -i fanout
    scripts/bench/async-frames.py /tmp/old/liveline /tmp/new/liveline | grep LivelineBridge

Names are mangled: pipe through `swift demangle --simplified`. An async function pointer is two
32-bit words, the function's relative address and the context size, under a symbol ending in
`Tu`; the binary needs its symbol table (`nm` reads it).
"""
import struct
import subprocess
import sys


def sizes(path):
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(shnum):
        _, kind, _, address, offset, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        if address and kind != 8:  # SHT_NOBITS has no bytes in the file
            sections.append((address, offset, size))
    found = {}
    symbols = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    for line in symbols.splitlines():
        parts = line.split()
        if len(parts) != 3 or not parts[2].endswith("Tu"):
            continue
        address = int(parts[0], 16)
        for start, offset, size in sections:
            if start <= address < start + size:
                found[parts[2]] = struct.unpack_from("<I", data, offset + address - start + 4)[0]
                break
    return found


if len(sys.argv) == 2:
    for name, size in sorted(sizes(sys.argv[1]).items()):
        print(size, name)
elif len(sys.argv) == 3:
    a, b = sizes(sys.argv[1]), sizes(sys.argv[2])
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            print(a.get(name, "-"), b.get(name, "-"), name)
else:
    sys.exit(__doc__)
