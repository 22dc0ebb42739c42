#!/usr/bin/env python3
"""A fleet behind a real balancer, and a rolling restart (issue #33, item 4).

Usage: tools/fleet.py [--catalog DIR] [--clients 1000] [--age 60s] [--rollout surge|recreate]
                      [--out DIR] [--quick]        (tools/fleet.py -h for every option)

Builds nothing: it runs target/release/fbc-registry and target/release/examples/olm_load
(`cargo build --release --locked && cargo build --release --locked --example olm_load`)
and Debian's haproxy (`apt-get install -y haproxy`), as plain processes.

1. Three replicas (slots a1..a3), each `serve` of its own copy of the catalog in a
   temporary directory, on its own loopback port, with --max-connection-age (default
   60s), --max-connection-age-grace (default 30s, as deploy/replicas/; 0s: none, see
   deploy/fleet/README.md for why that matters), --shutdown-delay=5s and
   --shutdown-grace=15s (deploy/replicas/deployment.yaml's), and --metrics-addr. Each copy gets a package `fleet-marker` whose default channel
   is the slot's name: olm_load asks it after every new connection, so it knows which
   replica each connection landed on.
2. HAProxy from deploy/fleet/haproxy.cfg: TCP mode, round robin, a gRPC health check
   every second (2 failures: out; 2 passes: in). With --rollout surge, three spare
   slots b1..b3 wait in maintenance.
3. olm_load: --clients clients, one connection each, ListBundles syncs and point
   queries (see examples/olm_load/), phases driven from here: warmup, before,
   during, after.
4. Reloads: every --reload-every seconds each live replica's marker file is rewritten
   (a new description: a new catalog digest), so every replica reloads its whole
   catalog that often; the replicas' rewrites are spread over the interval.
5. The rolling restart, after the `before` phase:
   - surge (a Deployment with maxSurge 1, maxUnavailable 0, as deploy/replicas/):
     start b_i, wait until HAProxy has it UP, SIGTERM a_i, go on to the next without
     waiting for a_i to finish draining (a terminating pod does not count against the
     surge); the phase ends when every a_i has exited;
   - recreate: SIGTERM a_i, wait for it to exit, start it again on the same port,
     wait until HAProxy has it UP, then the next.
6. The `after` phase (default: two connection ages), then the report.

HAProxy and the replicas run on --server-cpus, olm_load on --load-cpus (taskset).
Every second: HAProxy's `show stat` (state and current sessions per server), and the
CPU time (utime + stime, /proc/PID/stat; for a process that exited, its rusage from
wait4) of every process. Printed and written to --out (default /tmp/fleet-DATE): per
phase, calls/s, failed calls by status code, p50/p99/p99.9/max latency, and server CPU
(replicas + HAProxy) per call; the rollout's events; how the connections spread over
the replicas at the start of `after`, half an age and one age later, and at the end
(HAProxy's sessions, and olm_load's clients by the marker's answer); how many client
connections ended per second (mean and peak, from HAProxy's log), and how they ended
(HAProxy's termination state and lifetime). Files: summary.json, load.json (olm_load's
report), samples.csv, haproxy.cfg, haproxy.log, one log per replica process.

Every child is ended and the temporary directory removed on exit (also on Ctrl-C).
"""
import argparse
import csv
import datetime
import json
import os
import random
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target/release/fbc-registry"
LOAD = ROOT / "target/release/examples/olm_load"
TEMPLATE = ROOT / "deploy/fleet/haproxy.cfg"
CLK = os.sysconf("SC_CLK_TCK")
MARKER = "fleet-marker"


def log(msg):
    print(f"fleet: {msg}", file=sys.stderr, flush=True)


def parse_secs(text):
    text = text.strip()
    for unit, mult in (("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)):
        if text.endswith(unit) and text[: -len(unit)].replace(".", "", 1).isdigit():
            return float(text[: -len(unit)]) * mult
    return float(text)


def free_port(taken):
    """A loopback port below the kernel's ephemeral range, so nothing that binds
    port 0 (the other tests on this machine) can be handed it meanwhile."""
    for _ in range(1000):
        port = random.randint(20000, 32000)
        if port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        taken.add(port)
        return port
    raise RuntimeError("no free port")


def provenance():
    """HEAD, and whether the binaries are older than a source file (then they were
    built from something else than HEAD: rebuild before quoting figures)."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--", "src",
                            "crates", "Cargo.toml", "Cargo.lock", "examples/olm_load", "examples/load"],
                           capture_output=True, text=True).stdout.strip()
    built = min(BIN.stat().st_mtime, LOAD.stat().st_mtime)
    newer = []
    for top in ("src", "crates", "examples"):
        for path in (ROOT / top).rglob("*.rs"):
            if path.stat().st_mtime > built:
                newer.append(str(path.relative_to(ROOT)))
    for name in ("Cargo.toml", "Cargo.lock"):
        if (ROOT / name).stat().st_mtime > built:
            newer.append(name)
    return {"commit": head, "sources_changed_since_commit": bool(dirty),
            "binaries_built": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(built)),
            "sources_newer_than_binaries": sorted(newer)[:10]}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Proc:
    """A child process whose CPU time can be read while it runs and after it exits."""

    def __init__(self, name, argv, log_path, stdin=None):
        self.name = name
        self.log_path = log_path
        self.log_file = open(log_path, "ab")
        self.popen = subprocess.Popen(
            argv, stdin=stdin, stdout=self.log_file, stderr=subprocess.STDOUT
        )
        self.pid = self.popen.pid
        self.exit = None  # (status, cpu seconds) once reaped
        self.started = time.monotonic()

    def cpu(self):
        if self.exit is not None:
            return self.exit[1]
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / CLK
        except (OSError, IndexError, ValueError):
            self.poll()
            return self.exit[1] if self.exit else 0.0

    def poll(self):
        if self.exit is None:
            try:
                pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status, usage = self.pid, 0, None
            if pid == self.pid:
                cpu = usage.ru_utime + usage.ru_stime if usage else 0.0
                self.exit = (os.waitstatus_to_exitcode(status) if usage else 0, cpu)
                self.popen.returncode = self.exit[0]
                self.log_file.close()
        return self.exit

    def alive(self):
        return self.poll() is None

    def signal(self, sig):
        if self.alive():
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def wait(self, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not self.alive():
                return True
            time.sleep(0.05)
        return not self.alive()

    def stop(self, grace=3.0):
        if self.alive():
            self.signal(signal.SIGTERM)
            if not self.wait(grace):
                self.signal(signal.SIGKILL)
                self.wait(5)


class Replica:
    def __init__(self, slot, port, base, catalog, args):
        self.slot = slot
        self.port = port
        self.dir = base / slot / "catalog"
        self.marker = self.dir / MARKER / "catalog.json"
        self.staging = base / slot / "marker.tmp"
        self.catalog = catalog
        self.args = args
        self.proc = None
        self.metrics = None
        self.rewrites = 0
        self.generation_lines = 0
        self.incarnation = 0

    def prepare(self):
        shutil.copytree(self.catalog, self.dir)
        (self.dir / MARKER).mkdir()
        self.rewrite()

    def rewrite(self):
        """A new description: a new digest, so the replica reloads its catalog."""
        self.rewrites += 1
        docs = [
            {"schema": "olm.package", "name": MARKER, "defaultChannel": self.slot,
             "description": f"fleet marker of {self.slot}, rewrite {self.rewrites} at {time.time():.3f}"},
            {"schema": "olm.channel", "name": self.slot, "package": MARKER,
             "entries": [{"name": f"{MARKER}.v0.0.1"}]},
            {"schema": "olm.bundle", "name": f"{MARKER}.v0.0.1", "package": MARKER,
             "image": "example.invalid/fleet-marker:v0.0.1",
             "properties": [{"type": "olm.package",
                             "value": {"packageName": MARKER, "version": "0.0.1"}}]},
        ]
        self.staging.write_text("".join(json.dumps(d) + "\n" for d in docs))
        os.replace(self.staging, self.marker)

    def start(self, out):
        self.incarnation += 1
        a = self.args
        argv = ["taskset", "-c", a.server_cpus, str(BIN), "serve", str(self.dir),
                "-p", str(self.port), "--metrics-addr", "127.0.0.1:0",
                "--max-connection-age", a.age, "--max-connection-age-grace", a.age_grace,
                "--shutdown-delay", a.shutdown_delay, "--shutdown-grace", a.shutdown_grace,
                "-t", str(self.dir.parent / "termination-log")]
        self.proc = Proc(f"{self.slot}#{self.incarnation}", argv,
                         out / f"{self.slot}-{self.incarnation}.log")
        self.metrics = None

    def wait_serving(self, timeout=120):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = Path(self.proc.log_path).read_text(errors="replace")
            for line in text.splitlines():
                if "serving Prometheus metrics" in line and "address=" in line:
                    self.metrics = line.split("address=")[1].split()[0]
            if "serving registry" in text:
                return
            if not self.proc.alive():
                raise RuntimeError(f"{self.slot} exited before serving:\n{text[-2000:]}")
            time.sleep(0.05)
        raise RuntimeError(f"{self.slot} not serving within {timeout}s")

    def grpc_connections(self):
        if not self.metrics:
            return None
        try:
            with urllib.request.urlopen(f"http://{self.metrics}/metrics", timeout=2) as r:
                for line in r.read().decode().splitlines():
                    if line.startswith('fbc_registry_open_connections{listener="grpc"}'):
                        return int(float(line.split()[-1]))
        except OSError:
            return None
        return None


class Balancer:
    def __init__(self, run_dir, out, front_port, servers, cpus):
        self.sock = str(run_dir / "haproxy.sock")
        text = string.Template(TEMPLATE.read_text()).substitute(
            RUN_DIR=str(run_dir), FRONTEND=f"127.0.0.1:{front_port}",
            SERVERS="".join(
                f"    server {slot} 127.0.0.1:{port}{'' if on else ' disabled'}\n"
                for slot, port, on in servers))
        self.cfg = out / "haproxy.cfg"
        self.cfg.write_text(text)
        subprocess.run(["haproxy", "-c", "-q", "-f", str(self.cfg)], check=True)
        self.proc = Proc("haproxy", ["taskset", "-c", cpus, "haproxy", "-db", "-f",
                                     str(self.cfg)], out / "haproxy.log")
        end = time.monotonic() + 10
        while not os.path.exists(self.sock):
            if time.monotonic() > end or not self.proc.alive():
                raise RuntimeError("haproxy did not start: see " + str(out / "haproxy.log"))
            time.sleep(0.05)

    def command(self, text):
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(self.sock)
            s.sendall(text.encode() + b"\n")
            chunks = []
            while True:
                d = s.recv(65536)
                if not d:
                    break
                chunks.append(d)
        return b"".join(chunks).decode()

    def stat(self):
        """Per server of the backend: status, scur, stot, econ, wretr, wredis, chkfail."""
        lines = self.command("show stat").splitlines()
        head = lines[0].lstrip("# ").split(",")
        out = {}
        for line in lines[1:]:
            if not line:
                continue
            row = dict(zip(head, line.split(",")))
            if row["pxname"] == "replicas" and row["svname"] not in ("FRONTEND", "BACKEND"):
                out[row["svname"]] = row
        return out

    def wait_up(self, slot, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.stat().get(slot, {}).get("status") == "UP":
                return
            time.sleep(0.1)
        raise RuntimeError(f"haproxy never saw {slot} UP")


class Ledger:
    """CPU seconds spent by a set of processes between boundaries, counting processes
    that started or exited in between."""

    def __init__(self):
        self.last = {}

    def boundary(self, procs):
        total = 0.0
        for p in procs:
            c = p.cpu()
            total += c - self.last.get(id(p), 0.0)
            self.last[id(p)] = c
        return total


def quantiles_of(values):
    if not values:
        return None
    v = sorted(values)
    return {"n": len(v), "min": v[0], "median": v[len(v) // 2],
            "p90": v[min(len(v) - 1, int(len(v) * 0.9))], "max": v[-1]}


def reconnect_waves(path, wall0, phases):
    """Client connections ended per second, by phase: mean and peak (from HAProxy's log:
    accept time plus lifetime). A server that ages every connection out after the same
    time makes clients that connected together leave together."""
    ends = []
    for line in Path(path).read_text(errors="replace").splitlines():
        if " replicas/" not in line or " ts=" not in line:
            continue
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        try:
            accepted = datetime.datetime.strptime(line.split()[0], "%d/%b/%Y:%H:%M:%S.%f")
            ends.append(accepted.timestamp() + int(fields["Tt"]) / 1000 - wall0)
        except (ValueError, KeyError):
            continue
    out = {}
    for ph in phases:
        start, end = ph["start"], ph.get("end", ph["start"])
        per_second = {}
        for t in ends:
            if start <= t < end:
                per_second[int(t)] = per_second.get(int(t), 0) + 1
        secs = max(end - start, 1e-9)
        out[ph["name"]] = {"ended": sum(per_second.values()),
                           "mean_per_s": round(sum(per_second.values()) / secs, 1),
                           "peak_per_s": max(per_second.values(), default=0)}
    return out


def haproxy_endings(path):
    """HAProxy's log of ended client connections: how many ended in each termination
    state, and their lifetimes (s) by state."""
    states = {}
    for line in Path(path).read_text(errors="replace").splitlines():
        if " replicas/" not in line or " ts=" not in line:
            continue
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        state = fields.get("ts", "?")
        try:
            tt = int(fields.get("Tt", "-1")) / 1000
        except ValueError:
            tt = -1
        states.setdefault(state, []).append(tt)
    return {st: {"count": len(v), "lifetime_s": quantiles_of([round(x, 1) for x in v])}
            for st, v in sorted(states.items())}


def spread(counts):
    """How even a {replica: n} map is: max/min and the largest deviation from even."""
    vals = list(counts.values())
    if not vals or sum(vals) == 0:
        return {"counts": counts}
    mean = sum(vals) / len(vals)
    return {"counts": counts,
            "max_over_min": round(max(vals) / max(min(vals), 1), 3),
            "max_deviation_pct": round(100 * max(abs(x - mean) for x in vals) / mean, 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--catalog", default="/work/shared/catalogs/community-v4.20",
                    help="catalog directory, copied per replica (default: %(default)s)")
    ap.add_argument("--clients", type=int, help="default 1000 (--quick: 100)")
    ap.add_argument("--ramp", help="clients start over this (default 30s; --quick: 5s)")
    ap.add_argument("--warm", help="after the ramp, before measuring (default 30s; --quick: 5s)")
    ap.add_argument("--before", help="default 120s (--quick: 20s)")
    ap.add_argument("--after", default=None, help="default: two --age")
    ap.add_argument("--think", default="1s", help="olm_load --think (default 1s)")
    ap.add_argument("--resync", help="olm_load --resync (default 60s; --quick: 15s)")
    ap.add_argument("--age", help="--max-connection-age (default 60s; --quick: 20s)")
    ap.add_argument("--age-grace",
                    help="--max-connection-age-grace (default 30s, as deploy/; --quick: 10s; "
                         "0s: none)")
    ap.add_argument("--shutdown-delay", default="5s")
    ap.add_argument("--shutdown-grace", default="15s")
    ap.add_argument("--reload-every", type=float, default=5.0,
                    help="seconds between rewrites of each replica's catalog (0: no reloads)")
    ap.add_argument("--rollout", choices=["surge", "recreate"], default="surge")
    ap.add_argument("--server-cpus", default="0", help="taskset list for HAProxy and replicas")
    ap.add_argument("--load-cpus", default="1", help="taskset list for olm_load")
    ap.add_argument("--out", default=None, help="results directory (default /tmp/fleet-DATE)")
    ap.add_argument("--quick", action="store_true",
                    help="a rehearsal: 100 clients, ages of 20s, short phases")
    args = ap.parse_args()
    defaults = {"clients": (1000, 100), "ramp": ("30s", "5s"), "warm": ("30s", "5s"),
                "before": ("120s", "20s"), "resync": ("60s", "15s"), "age": ("60s", "20s"),
                "age_grace": ("30s", "10s")}
    for name, (full, quick) in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    age = parse_secs(args.age)
    after = parse_secs(args.after) if args.after else 2 * age

    require_binaries("fleet")
    if not shutil.which("haproxy"):
        sys.exit("fleet: haproxy is not installed: apt-get install -y haproxy")
    if not Path(args.catalog).is_dir():
        sys.exit(f"fleet: {args.catalog} is not a directory")

    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out or f"/tmp/fleet-{stamp}")
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="fleet."))
    procs = []  # everything started, for the cleanup
    stop = threading.Event()
    threads = []
    run_then_clean_up(lambda: run(args, age, after, out, tmp, procs, stop, threads),
                      procs, threads, stop, tmp, out, log, join_s=5, load_wait_s=10)


def require_binaries(prog):
    """Exits, saying how to build it, unless the server and olm_load are built."""
    for path, hint in ((BIN, "cargo build --release --locked"),
                       (LOAD, "cargo build --release --locked --example olm_load")):
        if not path.exists():
            sys.exit(f"{prog}: {path} is missing: {hint}")


def run_then_clean_up(body, procs, threads, stop, tmp, out, say, join_s, load_wait_s):
    """Runs body(); however it ends (an error, Ctrl-C, SIGTERM), stops the threads and
    every process started (olm_load by closing its input, so it writes its report
    first), removes tmp, and says where the results are."""
    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        body()
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=join_s)
        for p in reversed(procs):
            if p.name == "olm_load" and p.alive():
                try:
                    p.popen.stdin.close()
                except OSError:
                    pass
                p.wait(load_wait_s)
            p.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        say(f"results in {out}")


def run(args, age, after, out, tmp, procs, stop, threads):
    taken = set()
    front = free_port(taken)
    first = [Replica(f"a{i}", free_port(taken), tmp, args.catalog, args) for i in (1, 2, 3)]
    spare = ([Replica(f"b{i}", free_port(taken), tmp, args.catalog, args) for i in (1, 2, 3)]
             if args.rollout == "surge" else [])
    live = []  # replicas whose catalogs the reloader rewrites
    live_lock = threading.Lock()
    prov = provenance()
    head = prov["commit"]
    if prov["sources_newer_than_binaries"] or prov["sources_changed_since_commit"]:
        log(f"WARNING: the binaries are not HEAD's build: {prov}")
    haproxy_version = subprocess.run(["haproxy", "-v"], capture_output=True,
                                     text=True).stdout.splitlines()[0]
    meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "commit": head, **prov,
            "catalog": str(args.catalog), "haproxy": haproxy_version,
            "clients": args.clients, "rollout": args.rollout, "age": args.age,
            "age_grace": args.age_grace, "shutdown_delay": args.shutdown_delay,
            "shutdown_grace": args.shutdown_grace, "reload_every_s": args.reload_every,
            "think": args.think, "resync": args.resync, "server_cpus": args.server_cpus,
            "load_cpus": args.load_cpus, "loadavg_start": loadavg()}
    log(f"{meta['date']} commit {head[:12]}, {haproxy_version}")
    log(f"load average at start: {meta['loadavg_start']}")

    for r in first + spare:
        r.prepare()
    for r in first:
        r.start(out)
        procs.append(r.proc)
    for r in first:
        r.wait_serving()
        with live_lock:
            live.append(r)
    balancer = Balancer(tmp, out, front,
                        [(r.slot, r.port, True) for r in first] +
                        [(r.slot, r.port, False) for r in spare], args.server_cpus)
    procs.append(balancer.proc)
    for r in first:
        balancer.wait_up(r.slot)
    log(f"3 replicas of {args.catalog} UP behind HAProxy at 127.0.0.1:{front}")

    load = Proc("olm_load", ["taskset", "-c", args.load_cpus, str(LOAD),
                             "--addr", f"127.0.0.1:{front}", "--clients", str(args.clients),
                             "--ramp", args.ramp, "--think", args.think,
                             "--resync", args.resync, "--marker-package", MARKER,
                             "--phase", "warmup", "--output", str(out / "load.json")],
                out / "load.log", stdin=subprocess.PIPE)
    procs.append(load)
    t0 = time.monotonic()
    wall0 = time.time()

    def tell(line):
        load.popen.stdin.write((line + "\n").encode())
        load.popen.stdin.flush()

    events = []

    def event(text):
        t = round(time.monotonic() - t0, 2)
        events.append({"t": t, "text": text})
        log(f"t={t:.1f}s {text}")
        tell(f"event {text}")

    # Reloads: each live replica's catalog rewritten every --reload-every seconds,
    # the replicas spread over the interval.
    def reloader():
        if args.reload_every <= 0:
            return
        while not stop.is_set():
            with live_lock:
                targets = list(live)
            pause = args.reload_every / max(len(targets), 1)
            for r in targets:
                if stop.wait(pause):
                    return
                try:
                    r.rewrite()
                except OSError as e:
                    log(f"rewrite of {r.slot} failed: {e}")

    samples = []
    all_replicas = first + spare

    def sampler():
        while not stop.wait(1.0):
            try:
                st = balancer.stat()
            except OSError:
                continue
            row = {"t": round(time.monotonic() - t0, 1)}
            for r in all_replicas:
                s = st.get(r.slot, {})
                row[f"{r.slot}_status"] = s.get("status", "")
                row[f"{r.slot}_scur"] = int(s.get("scur") or 0)
                alive = r.proc is not None and r.proc.alive()
                row[f"{r.slot}_grpc_conns"] = r.grpc_connections() if alive else ""
            row["haproxy_cpu_s"] = round(balancer.proc.cpu(), 2)
            row["replicas_cpu_s"] = round(sum(p.cpu() for p in server_procs()), 2)
            row["load_cpu_s"] = round(load.cpu(), 2)
            samples.append(row)

    for fn in (reloader, sampler):
        th = threading.Thread(target=fn, daemon=True)
        th.start()
        threads.append(th)

    server_ledger, replica_ledger, haproxy_ledger, load_ledger = (Ledger(), Ledger(),
                                                                   Ledger(), Ledger())

    def server_procs():
        # Every replica process ever started: one that exited counts its final CPU time.
        return [p for p in procs if p.name not in ("haproxy", "olm_load")]

    phases = []

    def phase(name):
        now = round(time.monotonic() - t0, 2)
        cpu = {"server": server_ledger.boundary(server_procs() + [balancer.proc]),
               "replicas": replica_ledger.boundary(server_procs()),
               "haproxy": haproxy_ledger.boundary([balancer.proc]),
               "load": load_ledger.boundary([load])}
        if phases:
            phases[-1]["end"] = now
            phases[-1]["cpu_s"] = {k: round(v, 3) for k, v in cpu.items()}
        if name:
            phases.append({"name": name, "start": now})
            tell(f"phase {name}")
            log(f"t={now:.1f}s phase {name} (load average {loadavg()})")

    phases.append({"name": "warmup", "start": 0.0})
    server_ledger.boundary(server_procs() + [balancer.proc])
    replica_ledger.boundary(server_procs())
    haproxy_ledger.boundary([balancer.proc])
    load_ledger.boundary([load])
    time.sleep(parse_secs(args.ramp) + parse_secs(args.warm))
    if not load.alive():
        raise RuntimeError("olm_load exited: see " + str(out / "load.log"))
    phase("before")
    time.sleep(parse_secs(args.before))
    phase("during")
    delay = parse_secs(args.shutdown_delay)
    drain_limit = delay + parse_secs(args.shutdown_grace) + 30
    exits = []
    if args.rollout == "surge":
        olds = []
        for old, new in zip(first, spare):
            event(f"start {new.slot}")
            new.start(out)
            procs.append(new.proc)
            new.wait_serving()
            balancer.command(f"enable server replicas/{new.slot}")
            balancer.wait_up(new.slot)
            with live_lock:
                live.append(new)
            event(f"{new.slot} UP in haproxy")
            with live_lock:
                live.remove(old)
            old.proc.signal(signal.SIGTERM)
            event(f"SIGTERM {old.slot}")
            olds.append(old)
        for old in olds:
            if not old.proc.wait(drain_limit):
                event(f"{old.slot} still running {drain_limit}s after SIGTERM: killed")
                old.proc.stop(0)
            event(f"{old.slot} exited ({old.proc.exit[0]})")
            exits.append({"slot": old.slot, "code": old.proc.exit[0]})
            balancer.command(f"disable server replicas/{old.slot}")
        final = spare
    else:
        for r in first:
            with live_lock:
                live.remove(r)
            r.proc.signal(signal.SIGTERM)
            event(f"SIGTERM {r.slot}")
            if not r.proc.wait(drain_limit):
                event(f"{r.slot} still running {drain_limit}s after SIGTERM: killed")
                r.proc.stop(0)
            event(f"{r.slot} exited ({r.proc.exit[0]})")
            exits.append({"slot": r.slot, "code": r.proc.exit[0]})
            r.start(out)
            procs.append(r.proc)
            r.wait_serving()
            balancer.wait_up(r.slot)
            with live_lock:
                live.append(r)
            event(f"{r.slot} UP in haproxy")
        final = first
    phase("after")
    after_start = time.monotonic() - t0
    time.sleep(after)
    phase(None)
    tell("stop")
    load.popen.stdin.close()
    if not load.wait(120):
        raise RuntimeError("olm_load did not stop")
    stop.set()
    for th in threads:
        th.join(timeout=5)
    meta["loadavg_end"] = loadavg()
    log(f"load average at end: {meta['loadavg_end']}")

    # The report.
    report = json.loads((out / "load.json").read_text())
    by_name = {p["name"]: p for p in report["phases"]}
    rows = []
    for ph in phases:
        lp = by_name.get(ph["name"])
        if not lp:
            continue
        calls = lp["calls"]
        cpu = ph.get("cpu_s", {})
        lat = lp["latency_us"]["all"]
        rows.append({
            "phase": ph["name"], "duration_s": lp["duration_s"], "calls": calls,
            "calls_per_s": lp["calls_per_s"], "failed": lp["failed"],
            "failed_by_code": lp["failed_by_code"],
            "p50_us": lat["p50"], "p99_us": lat["p99"], "p999_us": lat["p999"],
            "max_us": lat["max"],
            "per_rpc_p50_p99_us": {k: [v["p50"], v["p99"]] for k, v in
                                  lp["latency_us"].items() if k != "all"},
            "server_cpu_s": cpu.get("server"), "replicas_cpu_s": cpu.get("replicas"),
            "haproxy_cpu_s": cpu.get("haproxy"), "load_cpu_s": cpu.get("load"),
            "server_cpu_us_per_call": round(1e6 * cpu["server"] / calls, 1)
            if calls and "server" in cpu else None,
            "replicas_cpu_us_per_call": round(1e6 * cpu["replicas"] / calls, 1)
            if calls and "replicas" in cpu else None,
            "haproxy_cpu_us_per_call": round(1e6 * cpu["haproxy"] / calls, 1)
            if calls and "haproxy" in cpu else None,
            "reply_mb_per_s": round(lp["reply_mb"] / max(lp["duration_s"], 1e-9), 1),
            "server_cpu_ms_per_mb": round(1e3 * cpu["server"] / lp["reply_mb"], 2)
            if lp["reply_mb"] and "server" in cpu else None,
            "transparent_retries": lp.get("transparent_retries", 0),
            "server_cpu_share_of_core": round(cpu["server"] / lp["duration_s"], 3)
            if "server" in cpu else None,
            "connects": lp["connects"], "landings": lp["landings"],
            "failures": lp["failures"],
        })
    final_slots = [r.slot for r in final]
    # olm_load's clock starts after its discovery: align it on the `before` phase.
    offset = 0.0
    mine = next((p["start"] for p in phases if p["name"] == "before"), None)
    theirs = by_name.get("before", {}).get("start_s")
    if mine is not None and theirs is not None:
        offset = mine - theirs
    marks = {"after+0": after_start, "after+age/2": after_start + age / 2,
             "after+age": after_start + age, "end": after_start + after - 1}
    spreads = {}
    for label, t in marks.items():
        near = min(samples, key=lambda s: abs(s["t"] - t)) if samples else None
        sess = {s: near[f"{s}_scur"] for s in final_slots} if near else {}
        tl = min(report["timeline"], key=lambda e: abs(e["t"] + offset - t), default=None)
        spreads[label] = {"t": round(t, 1), "haproxy_sessions": spread(sess)}
        if tl:
            spreads[label]["clients_by_marker"] = spread(
                {k: v for k, v in tl["by_replica"].items() if k in final_slots})
    reloads = {}
    for r in all_replicas:
        n = 0
        for f in out.glob(f"{r.slot}-*.log"):
            n += f.read_text(errors="replace").count("catalog reloaded")
        reloads[r.slot] = {"rewrites": r.rewrites, "reloads_logged": n}
    st = balancer.stat()
    # Connections opened per client per connection age: about 1 when every connection
    # leaves at its age (GOAWAY), less when they last longer.
    for row in rows:
        row["connects_per_client_per_age"] = round(
            row["connects"] * age / (args.clients * max(row["duration_s"], 1e-9)), 2)
    summary = {"meta": meta, "phases": rows, "events": events, "exits": exits,
               "spread": spreads, "reloads": reloads,
               "haproxy": {s: {k: st[s].get(k) for k in
                               ("status", "stot", "econ", "eresp", "wretr", "wredis",
                                "chkfail", "chkdown")} for s in st},
               "haproxy_connection_endings": haproxy_endings(out / "haproxy.log"),
               "reconnect_waves": reconnect_waves(out / "haproxy.log", wall0, phases),
               "totals": report["totals"]}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if samples:
        with open(out / "samples.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(samples[0].keys()))
            w.writeheader()
            w.writerows(samples)
    print_summary(summary)


def print_summary(s):
    m = s["meta"]
    print(f"\nfleet {m['date']}, commit {m['commit'][:12]}, {m['haproxy']}")
    print(f"catalog {m['catalog']}; {m['clients']} clients; --max-connection-age {m['age']} "
          f"(grace {m['age_grace']}); rollout {m['rollout']}; reload every "
          f"{m['reload_every_s']}s per replica; load average {m['loadavg_start']} -> "
          f"{m['loadavg_end']}")
    print(f"\n{'phase':8} {'secs':>6} {'calls/s':>8} {'MB/s':>6} {'failed':>6} {'retried':>7} "
          f"{'p50 us':>7} {'p99 us':>8} {'p99.9 us':>9} {'max us':>8} {'srv CPU':>8} "
          f"{'us/call':>8} {'(repl':>6} {'+ hap)':>7} {'ms/MB':>6} {'of core':>7}")
    for r in s["phases"]:
        print(f"{r['phase']:8} {r['duration_s']:6.0f} {r['calls_per_s']:8.0f} "
              f"{r['reply_mb_per_s']:6.1f} {r['failed']:6} {r['transparent_retries']:7} "
              f"{r['p50_us']:7} {r['p99_us']:8} {r['p999_us']:9} {r['max_us']:8} "
              f"{r['server_cpu_s'] or 0:8.1f} {r['server_cpu_us_per_call'] or 0:8.1f} "
              f"{r['replicas_cpu_us_per_call'] or 0:6.1f} {r['haproxy_cpu_us_per_call'] or 0:7.1f} "
              f"{r['server_cpu_ms_per_mb'] or 0:6.2f} {r['server_cpu_share_of_core'] or 0:7.2f}")
    for r in s["phases"]:
        if r["failed"]:
            print(f"  {r['phase']}: failed by code {r['failed_by_code']}")
            for f in r["failures"]:
                print(f"    {f['rpc']} {f['code']} x{f['count']}: {f['samples'][:2]}")
    print("\nrollout:")
    for e in s["events"]:
        print(f"  t={e['t']:7.1f}s {e['text']}")
    print("\nspread over the replicas after the rollout:")
    for label, sp in s["spread"].items():
        hs = sp["haproxy_sessions"]
        cm = sp.get("clients_by_marker", {})
        print(f"  {label:12} t={sp['t']:6.1f}s haproxy {hs.get('counts')} "
              f"(max/min {hs.get('max_over_min')}, dev {hs.get('max_deviation_pct')}%); "
              f"marker {cm.get('counts')} (dev {cm.get('max_deviation_pct')}%)")
    print("\nconnections opened per client per connection age, by phase: " + ", ".join(
        f"{r['phase']} {r['connects_per_client_per_age']}" for r in s["phases"]))
    print("client connections ended per second, by phase (mean / peak): " + ", ".join(
        f"{k} {v['mean_per_s']} / {v['peak_per_s']}" for k, v in s["reconnect_waves"].items()))
    print("client connections ended, by HAProxy termination state (lifetime s):")
    for state, e in s["haproxy_connection_endings"].items():
        print(f"  {state}: {e['count']} {e['lifetime_s']}")
    print(f"\nreloads: {s['reloads']}")
    print(f"haproxy: {s['haproxy']}")
    print(f"totals: {s['totals']}")


if __name__ == "__main__":
    main()
