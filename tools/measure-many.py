#!/usr/bin/env python3
"""Several catalogs in one process against one process per catalog: start time and memory.

Usage: tools/measure-many.py CATALOGS_DIR [RUNS]   (every subdirectory is a catalog)

Each run, interleaved:
  singles: each catalog served alone (`serve DIR -p PORT --watch=false`), one after another;
           its start is the time from exec to "serving registry" (logged once it loaded);
           its memory is VmRSS 0.5 s later. Reported: the sum of the starts and of the RSS.
  one:     one process serving them all (`serve --catalog NAME=DIR,port=0 ... --watch=false`),
           the loads sharing the cores; its start is the time from exec until every catalog
           logged "catalog loaded"; its memory is VmRSS 0.5 s later.
Medians over RUNS (default 3). Cold starts (no index cache). FBC_REGISTRY_BIN picks the binary.
Each start's CPU time (utime+stime of the process when it is done) is reported too: with C
cores, no start of all catalogs side by side can take less than the singles' summed CPU time
over C, so that quotient over the singles' summed start is the best ratio this machine allows.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

BIN = os.environ.get("FBC_REGISTRY_BIN", "target/release/fbc-registry")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_until(args, done, timeout=300):
    """Starts BIN ARGS; returns (seconds until done(log) holds, RSS in KiB 0.5 s later,
    CPU seconds used until done)."""
    with tempfile.TemporaryFile(mode="w+") as log:
        start = time.monotonic()
        proc = subprocess.Popen([BIN, *args], stdout=subprocess.DEVNULL, stderr=log)
        try:
            while True:
                log.seek(0)
                text = log.read()
                if done(text):
                    elapsed = time.monotonic() - start
                    cpu = cpu_seconds(proc.pid)
                    break
                if proc.poll() is not None:
                    raise SystemExit(f"{args} exited: {text[-2000:]}")
                if time.monotonic() - start > timeout:
                    raise SystemExit(f"{args} did not start in {timeout}s")
                time.sleep(0.005)
            time.sleep(0.5)
            return elapsed, rss_kb(proc.pid), cpu
        finally:
            proc.terminate()
            proc.wait()


def singles(catalogs):
    starts, rss, cpu = [], [], []
    for name, path in catalogs:
        t, kb, c = run_until(
            ["serve", path, "-p", "0", "--watch=false", "-t", "/dev/null"],
            lambda text: "serving registry" in text,
        )
        starts.append(t)
        rss.append(kb)
        cpu.append(c)
    return sum(starts), sum(rss), sum(cpu)


def one(catalogs):
    args = ["serve", "--watch=false", "-t", "/dev/null"]
    for name, path in catalogs:
        args += ["--catalog", f"{name}={path},port=0"]
    return run_until(args, lambda text: text.count("catalog loaded") >= len(catalogs))


def main():
    root = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    catalogs = sorted(
        (name, os.path.join(root, name))
        for name in os.listdir(root)
        if os.path.isdir(os.path.join(root, name))
    )
    rows = {"singles": [], "one": []}
    for _ in range(runs):
        rows["singles"].append(singles(catalogs))
        rows["one"].append(one(catalogs))
    s_t = statistics.median(r[0] for r in rows["singles"])
    s_m = statistics.median(r[1] for r in rows["singles"])
    s_c = statistics.median(r[2] for r in rows["singles"])
    o_t = statistics.median(r[0] for r in rows["one"])
    o_m = statistics.median(r[1] for r in rows["one"])
    o_c = statistics.median(r[2] for r in rows["one"])
    cores = len(os.sched_getaffinity(0))
    print(f"catalogs: {', '.join(n for n, _ in catalogs)}; {runs} runs, medians")
    print(f"singles: sum of starts {s_t * 1000:.0f} ms, sum of RSS {s_m / 1024:.1f} MiB")
    print(f"one:     every catalog loaded {o_t * 1000:.0f} ms, RSS {o_m / 1024:.1f} MiB")
    print(f"start ratio {o_t / s_t:.2f} (target <= 0.75), memory ratio {o_m / s_m:.2f} (target <= 1)")
    print(
        f"CPU: singles {s_c * 1000:.0f} ms in all, one process {o_c * 1000:.0f} ms; "
        f"on {cores} cores no side-by-side start beats {s_c / cores * 1000:.0f} ms = "
        f"{s_c / cores / s_t:.2f} of the singles' summed start"
    )
    for kind in ("singles", "one"):
        print(kind, [(round(t * 1000), round(m / 1024, 1), round(c * 1000)) for t, m, c in rows[kind]])


if __name__ == "__main__":
    main()
