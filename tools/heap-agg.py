#!/usr/bin/env python3
"""Live heap by the project's own allocating frames, from heaptrack's collapsed stacks.

Usage: heap-agg.py STACKS [FRAMES] [TOP]. STACKS is `heaptrack_print -F FILE
--flamegraph-cost-type leaked` output (one "root;...;leaf bytes" line per stack). Each
stack's bytes go to its innermost FRAMES frames of fbc_catalog / fbc_registry (hashes
dropped); stacks without one are shown by their leaf. Prints the TOP sites, largest first.
"""
import collections
import re
import sys


def main():
    path = sys.argv[1]
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    sites, total = collections.Counter(), 0
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip()
        if not line or " " not in line:
            continue
        stack, cost = line.rsplit(" ", 1)
        cost = int(cost)
        total += cost
        clean = [re.sub(r"::h[0-9a-f]{16}$", "", f) for f in stack.split(";")]
        ours = [f for f in clean if re.match(r"(fbc_catalog|fbc_registry)::", f)]
        key = " <- ".join(reversed(ours[-depth:])) if ours else f"(outside: {clean[-1][:80]})"
        sites[key] += cost
    print(f"live heap: {total / 2**20:.2f} MiB")
    for key, cost in sites.most_common(top):
        print(f"{cost / 2**20:8.2f} MiB  {key[:200]}")


if __name__ == "__main__":
    main()
