#!/usr/bin/env python3
"""A soak: 30 minutes of mixed load on one TLS server, its resources sampled every 10 s
(issue #33, item 5). Not run in CI.

Usage: tools/soak.py [--minutes 30] [--window-minutes 20] [--catalog DIR] [--out DIR]
       tools/soak.py --quick            # the 3-minute rehearsal (window: the last 2)

Builds nothing: target/release/fbc-registry and target/release/examples/olm_load
(`cargo build --release --locked --example olm_load`); openssl makes the certificates;
the gRPC vanishers use grpcio (python3 -m pip install grpcio grpcio-tools), whose stubs
are generated from proto/ into the temporary directory.

One server (not the fleet: the goal is one process's growth, and a rolling restart
would reset it), pinned to --server-cpus, serving a copy of the catalog with TLS on
gRPC, HTTP and metrics (a CA and a leaf for localhost/127.0.0.1 made with openssl),
--max-connection-age 60s with a 30 s grace (deploy/'s grace; the age scaled down) and
--max-connections 2048 (1,000 clients plus the rest). Everything else runs on
--load-cpus:

well-behaved (every failure counted):
  - olm_load: --clients OLM clients over TLS (--tls-ca), as in tools/fleet.py;
  - HTTP: GET /catalogs/soak/api/v1/all and /metas?schema=olm.package, each with and
    without Accept-Encoding: gzip, and conditional GETs with the last ETag (200 or
    304); the body must match Content-Length, gzip must decode, /metas must be JSON
    lines; keep-alive connections (a request on a reused connection the server had
    closed is sent again once, as Go's and browsers' clients do, and counted);
  - GraphQL: POST .../api/v1/graphql, two queries; 200 with `data` and no `errors`;
misbehaving (outcomes recorded, never counted as failures):
  - slow readers: GET /all read 16 KiB a second for 60-90 s, then the rest at full
    speed, to learn whether the server cut them (--stall-timeout 60s);
  - stalled readers: GET /all (HTTP) or ListBundles (raw HTTP/2, no WINDOW_UPDATE)
    read once, then nothing for 100 s: the server should close them (--stall-timeout
    60s);
  - vanishers, one a second: HTTP /all, /all gzip, /metas, a request cut off inside
    its headers, and gRPC ListBundles (grpcio cancelled mid-stream, and raw HTTP/2
    reset), each abandoned mid-reply with a TCP reset;
catalog churn:
  - a rewrite of one small file every 5 s (a reload each);
  - a reload storm every --storm-every: 50 rewrites in 2 s; every other storm ends in
    an invalid file, left 3 s (the reload is refused, the old catalog served) and then
    fixed;
  - certificate rotation every --rotate-every: a new leaf written over the files
    (rename), and a check 3 s later that new gRPC and HTTP connections get it.

Every 10 s: VmRSS, Threads (/proc/PID/status), open fds (/proc/PID/fd), CPU time, and
from /metrics the open connections per listener, calls in flight, the views' bytes,
the snapshot generation and loads; the server exposes no task count (no tokio runtime
metric), so connections and calls in flight stand for tasks. Growth over the last
--window-minutes: the median of the window's last minute against the median of its
first minute, and the least-squares slope over the window times its length, both as a
percentage of the first minute's median; the goal is <= 5 % for RSS, fds and threads,
and zero failed well-behaved requests. Written to --out (default /tmp/soak-DATE):
samples.csv, summary.json, load.json, server.log.

Every child is ended and the temporary directory removed on exit (also on Ctrl-C).
"""
import argparse
import csv
import gzip
import http.client
import json
import os
import random
import shutil
import signal
import socket
import ssl
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ beside the tools
sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet import (BIN, LOAD, ROOT, Proc, free_port, loadavg, parse_secs,  # noqa: E402
                   provenance, require_binaries, run_then_clean_up)
NAME = "soak"
MARKER = "soak-marker"


def log(msg):
    print(f"soak: {msg}", file=sys.stderr, flush=True)


class Counters:
    """Thread-safe counts by key, with a few sample messages per key."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.samples = {}

    def add(self, key, sample=None):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1
            if sample is not None:
                s = self.samples.setdefault(key, [])
                if len(s) < 5 and sample not in s:
                    s.append(str(sample)[:300])

    def get(self, key):
        with self.lock:
            return self.counts.get(key, 0)

    def snapshot(self):
        with self.lock:
            return dict(sorted(self.counts.items())), {k: list(v) for k, v in self.samples.items()}


# ---------------------------------------------------------------------------
# Certificates.

def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


class Pki:
    def __init__(self, d):
        self.dir = d
        self.ca_key, self.ca = d / "ca.key", d / "ca.crt"
        self.key, self.cert = d / "tls" / "tls.key", d / "tls" / "tls.crt"
        (d / "tls").mkdir()
        self.serial = 1000
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", str(self.ca_key), "-out", str(self.ca), "-days", "2",
                "-subj", "/CN=fbc-registry soak CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        self.ext = d / "leaf.ext"
        self.ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                            "basicConstraints=critical,CA:FALSE\n"
                            "keyUsage=critical,digitalSignature\n"
                            "extendedKeyUsage=serverAuth\n")
        self.rotate()

    def rotate(self):
        """A new leaf: key and certificate written beside the files, then renamed over
        them (key first), as a Secret update does. Returns the new certificate (DER)."""
        self.serial += 1
        tmp_key, csr, tmp_cert = (self.dir / "new.key", self.dir / "new.csr", self.dir / "new.crt")
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", str(tmp_key), "-out", str(csr), "-subj", "/CN=localhost")
        openssl("x509", "-req", "-in", str(csr), "-CA", str(self.ca), "-CAkey", str(self.ca_key),
                "-set_serial", str(self.serial), "-days", "1", "-extfile", str(self.ext),
                "-out", str(tmp_cert))
        der = ssl.PEM_cert_to_DER_cert(tmp_cert.read_text())
        os.replace(tmp_key, self.key)
        os.replace(tmp_cert, self.cert)
        return der


# ---------------------------------------------------------------------------
# The catalog's small file: rewritten for reloads, broken on purpose in some storms.

class Marker:
    def __init__(self, catalog_dir, staging):
        self.path = catalog_dir / MARKER / "catalog.json"
        self.path.parent.mkdir()
        self.staging = staging
        self.n = 0
        self.lock = threading.Lock()
        self.write()

    def write(self, broken=False):
        with self.lock:
            self.n += 1
            docs = [
                {"schema": "olm.package", "name": MARKER, "defaultChannel": "stable",
                 "description": f"soak rewrite {self.n} at {time.time():.3f}"},
                {"schema": "olm.channel", "name": "stable", "package": MARKER,
                 "entries": [{"name": f"{MARKER}.v0.0.1"}]},
                {"schema": "olm.bundle", "name": f"{MARKER}.v0.0.1", "package": MARKER,
                 "image": "example.invalid/soak-marker:v0.0.1",
                 "properties": [{"type": "olm.package",
                                 "value": {"packageName": MARKER, "version": "0.0.1"}}]},
            ]
            text = "".join(json.dumps(d) + "\n" for d in docs)
            if broken:
                text = text[: len(text) // 2]  # cut inside a document: invalid JSON
            self.staging.write_text(text)
            os.replace(self.staging, self.path)


# ---------------------------------------------------------------------------
# Well-behaved HTTP.

class KeepAlive:
    """One keep-alive HTTPS connection; a request that fails on a reused connection
    before any answer arrived is sent again once on a new one (counted)."""

    def __init__(self, port, ctx, counters):
        self.port, self.ctx, self.counters = port, ctx, counters
        self.conn = None
        self.used = False

    def request(self, method, path, body=None, headers=None):
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx,
                                                        timeout=60)
                self.used = False
            reused = self.used
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                resp = self.conn.getresponse()
                data = resp.read()
                self.used = True
                if resp.getheader("Connection", "").lower() == "close":
                    self.close()
                return resp, data
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
                self.close()
                if reused and attempt == 1:
                    self.counters.add("keepalive_reconnect", repr(e))
                    continue
                raise
        raise RuntimeError("unreachable")

    def close(self):
        if self.conn is not None:
            self.conn.close()
        self.conn = None


def http_worker(kind, port, ctx, stop, ok, failed, counters, pause):
    """kind: 'all' (identity, gzip, conditional) or 'metas' or 'graphql'."""
    client = KeepAlive(port, ctx, counters)
    etags = {}
    base = f"/catalogs/{NAME}/api/v1"
    queries = [
        {"query": "{ olmpackages { name defaultChannel } summary { totalSchemas } }"},
        {"query": "{ olmbundles(limit: 20, offset: 40) { name package } }"},
    ]
    i = 0
    while not stop.wait(pause):
        i += 1
        try:
            if kind == "graphql":
                q = queries[i % len(queries)]
                label = f"graphql[{i % len(queries)}]"
                resp, data = client.request("POST", f"{base}/graphql", body=json.dumps(q),
                                            headers={"Content-Type": "application/json"})
                if resp.status != 200:
                    raise ValueError(f"status {resp.status}: {data[:200]!r}")
                answer = json.loads(data)
                if answer.get("errors") or not answer.get("data"):
                    raise ValueError(f"answer {data[:200]!r}")
            else:
                path = f"{base}/all" if kind == "all" else f"{base}/metas?schema=olm.package"
                variant = ["identity", "gzip", "conditional"][i % 3]
                headers = {}
                if variant == "gzip":
                    headers["Accept-Encoding"] = "gzip"
                if variant == "conditional" and path in etags:
                    headers["If-None-Match"] = etags[path]
                label = f"{kind}:{variant}"
                resp, data = client.request("GET", path, headers=headers)
                if resp.status == 304 and variant == "conditional":
                    label += ":304"
                elif resp.status != 200:
                    raise ValueError(f"status {resp.status}: {data[:200]!r}")
                else:
                    length = resp.getheader("Content-Length")
                    if length is not None and int(length) != len(data):
                        raise ValueError(f"Content-Length {length} but {len(data)} bytes")
                    if resp.getheader("Content-Encoding") == "gzip":
                        data = gzip.decompress(data)
                    elif variant == "gzip":
                        raise ValueError("asked for gzip, got identity")
                    lines = data.split(b"\n")
                    if lines[-1] != b"" or len(lines) < 2:
                        raise ValueError("not JSON lines")
                    json.loads(lines[0])
                    json.loads(lines[-2])
                    if resp.getheader("ETag"):
                        etags[path] = resp.getheader("ETag")
            ok.add(label)
        except Exception as e:  # every failure of a well-behaved request counts
            failed.add(f"{kind}", f"{type(e).__name__}: {e}")
            client.close()
    client.close()


# ---------------------------------------------------------------------------
# Misbehaving clients.

def tls_socket(port, ctx, timeout=30):
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return ctx.wrap_socket(raw, server_hostname="localhost"), raw


def h2_context(ca):
    """A client TLS context offering ALPN h2, for raw HTTP/2 to the gRPC port."""
    ctx = ssl.create_default_context(cafile=ca)
    ctx.set_alpn_protocols(["h2"])
    return ctx


def reset(raw, sock):
    """Abandon a connection with a TCP reset (no TLS close_notify, no FIN)."""
    try:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
    try:
        raw.close()
    except OSError:
        pass


def h2_request(path, authority="localhost"):
    """The HTTP/2 client preface, SETTINGS, and a gRPC POST of `path` with an empty
    message (HPACK literals, no Huffman)."""
    def lit(index, value):
        v = value.encode()
        head = bytes([index]) if index < 15 else bytes([0x0F, index - 15])
        return head + bytes([len(v)]) + v

    def frame(kind, flags, stream, payload):
        return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload

    block = (bytes([0x83, 0x87]) + lit(4, path) + lit(1, authority) + lit(31, "application/grpc")
             + b"\x00\x02te\x08trailers")
    return (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"") + frame(1, 4, 1, block)
            + frame(0, 1, 1, b"\x00\x00\x00\x00\x00"))


def get_head(path, gzip_ok):
    enc = "Accept-Encoding: gzip\r\n" if gzip_ok else ""
    return f"GET {path} HTTP/1.1\r\nHost: localhost\r\n{enc}\r\n".encode()


def read_until_closed(sock, limit_s, stop):
    """Reads nothing for limit_s, then checks whether the server closed the connection
    (None when the soak ends first)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if stop.wait(1):
            return None
    try:
        sock.settimeout(0.5)
        total = 0
        while True:
            d = sock.recv(1 << 20)
            if not d:
                return "closed by server"
            total += len(d)
            if total > 64 << 20:
                return "still open"
    except (TimeoutError, socket.timeout):
        return "still open"
    except (ConnectionResetError, ssl.SSLError, OSError):
        return "closed by server"


def slow_reader(http_port, ctx, stop, out):
    """GET /all read 16 KiB a second for 60-90 s, then the rest as fast as it comes:
    whether the body arrived whole tells whether the server cut the connection (the
    socket buffers hide a close from a slow reader until it has read them)."""
    base = f"/catalogs/{NAME}/api/v1"
    while not stop.is_set():
        try:
            sock, raw = tls_socket(http_port, ctx)
            sock.sendall(get_head(f"{base}/all", False))
            sock.settimeout(10)
            data, length = b"", None
            start = time.monotonic()
            end = start + random.uniform(60, 90)
            eof = False
            while time.monotonic() < end and not stop.is_set():
                d = sock.recv(16384)
                if not d:
                    eof = True
                    break
                data += d
                time.sleep(1)
            if stop.is_set():
                sock.close()
                break
            while not eof:
                try:
                    d = sock.recv(1 << 20)
                except (TimeoutError, socket.timeout):
                    break
                if not d:
                    eof = True
                    break
                data += d
            sock.close()
            head, _, body = data.partition(b"\r\n\r\n")
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if length is not None and len(body) >= length:
                out.add("slow reader: got the whole body")
            else:
                out.add(f"slow reader: cut by the server ({len(body) >> 20} of "
                        f"{(length or 0) >> 20} MiB)")
        except Exception as e:
            out.add("slow reader: error", f"{type(e).__name__}: {e}")
            stop.wait(1)


def stalled_reader(http_port, grpc_port, ctx, h2ctx, stop, out, which):
    base = f"/catalogs/{NAME}/api/v1"
    while not stop.is_set():
        try:
            if which == "http":
                sock, raw = tls_socket(http_port, ctx)
            else:
                sock, raw = tls_socket(grpc_port, h2ctx)
            if which == "http":
                sock.sendall(get_head(f"{base}/all", False))
            else:
                sock.sendall(h2_request("/api.Registry/ListBundles"))
            sock.settimeout(10)
            sock.recv(16384)
            outcome = read_until_closed(sock, 100, stop)
            if outcome:
                out.add(f"stalled {which} reader: {outcome} after 100 s")
            reset(raw, sock)
        except Exception as e:
            out.add(f"stalled {which} reader: error", f"{type(e).__name__}: {e}")
            stop.wait(1)


def vanisher(http_port, grpc_port, ctx, h2ctx, ca_pem, stubs, stop, out):
    base = f"/catalogs/{NAME}/api/v1"
    grpc_mod = None
    if stubs:
        try:
            import grpc as grpc_mod  # noqa: F401
            sys.path.insert(0, str(stubs))
            import registry_pb2
            import registry_pb2_grpc
        except ImportError as e:
            out.add("grpcio vanisher: unavailable", str(e))
            grpc_mod = None
    kinds = ["all", "all-gzip", "metas", "mid-headers", "grpc-raw"]
    if grpc_mod:
        kinds.append("grpc-cancel")
    i = 0
    while not stop.wait(1.0):
        kind = kinds[i % len(kinds)]
        i += 1
        try:
            if kind == "grpc-cancel":
                creds = grpc_mod.ssl_channel_credentials(root_certificates=ca_pem)
                ch = grpc_mod.secure_channel(
                    f"127.0.0.1:{grpc_port}", creds,
                    options=[("grpc.ssl_target_name_override", "localhost"),
                             ("grpc.use_local_subchannel_pool", 1)])
                stub = registry_pb2_grpc.RegistryStub(ch)
                call = stub.ListBundles(registry_pb2.ListBundlesRequest(), timeout=30)
                want = random.randint(1, 200)
                for n, _ in enumerate(call):
                    if n >= want:
                        break
                call.cancel()
                ch.close()
            elif kind == "grpc-raw":
                sock, raw = tls_socket(grpc_port, h2ctx)
                sock.sendall(h2_request("/api.Registry/ListBundles"))
                sock.settimeout(10)
                sock.recv(random.randint(100, 30000))
                reset(raw, sock)
            elif kind == "mid-headers":
                sock, raw = tls_socket(http_port, ctx)
                sock.sendall(b"GET " + f"{base}/all".encode() + b" HTTP/1.1\r\nHost: loc")
                time.sleep(random.uniform(0, 2))
                reset(raw, sock)
            else:
                path = f"{base}/metas?schema=olm.bundle" if kind == "metas" else f"{base}/all"
                sock, raw = tls_socket(http_port, ctx)
                sock.sendall(get_head(path, kind == "all-gzip"))
                sock.settimeout(10)
                want, got = random.randint(1, 4 << 20), 0
                while got < want:
                    d = sock.recv(65536)
                    if not d:
                        break
                    got += len(d)
                reset(raw, sock)
            out.add(f"vanisher {kind}")
        except Exception as e:
            out.add(f"vanisher {kind}: error", f"{type(e).__name__}: {e}")


# ---------------------------------------------------------------------------
# Samples.

def proc_sample(pid):
    status = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            status[k] = v.strip()
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    clk = os.sysconf("SC_CLK_TCK")
    return {
        "rss_kib": int(status["VmRSS"].split()[0]),
        "hwm_kib": int(status["VmHWM"].split()[0]),
        "threads": int(status["Threads"]),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "cpu_s": round((int(fields[11]) + int(fields[12])) / clk, 2),
    }


def scrape(metrics_port, ctx):
    wanted = {
        'fbc_registry_open_connections{listener="grpc"}': "conns_grpc",
        'fbc_registry_open_connections{listener="http"}': "conns_http",
        'fbc_registry_open_connections{listener="metrics"}': "conns_metrics",
        "fbc_registry_grpc_calls_in_flight": "calls_in_flight",
        "fbc_registry_snapshot_generation": "generation",
        'fbc_registry_catalog_loads_total{result="success"}': "loads_ok",
        'fbc_registry_catalog_loads_total{result="failure"}': "loads_failed",
    }
    out = {v: "" for v in wanted.values()}
    out["view_bytes"] = 0
    try:
        with urllib.request.urlopen(f"https://127.0.0.1:{metrics_port}/metrics", context=ctx,
                                    timeout=5) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("#"):
                    continue
                name, _, value = line.rpartition(" ")
                if name in wanted:
                    out[wanted[name]] = int(float(value))
                elif name.startswith("fbc_registry_memory_bytes{") and 'holder="registry"' not in name:
                    out["view_bytes"] += int(float(value))
    except OSError as e:
        out["scrape_error"] = str(e)
    return out


def growth(samples, key, window_s):
    """Growth over the window (the last window_s), three ways, each in % of the window's
    start: the median of its last minute against its first minute's; the median of its
    last fifth against its first fifth's (4 min each in a 20-minute window: RSS swings
    with every reload and every slow reader, so one minute is noisy); and the
    least-squares slope over the window times its length (against the fitted start)."""
    end = samples[-1]["t"]
    win = [s for s in samples if s["t"] >= end - window_s and s.get(key) not in ("", None)]
    if len(win) < 4:
        return None
    t0 = win[0]["t"]
    fifth = (end - t0) / 5
    xs = [s["t"] for s in win]
    ys = [float(s[key]) for s in win]

    def median_between(lo, hi):
        return statistics.median([y for x, y in zip(xs, ys) if lo <= x <= hi])

    first_min, last_min = median_between(t0, t0 + 59), median_between(end - 59, end)
    first_fifth, last_fifth = median_between(t0, t0 + fifth), median_between(end - fifth, end)
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    fitted_start = my + slope * (xs[0] - mx)

    def pct(new, old):
        return round(100 * (new - old) / old, 2) if old else None

    return {
        "window_first_min_median": first_min, "window_last_min_median": last_min,
        "window_first_fifth_median": first_fifth, "window_last_fifth_median": last_fifth,
        "min": min(ys), "max": max(ys), "mean": round(my, 1),
        "growth_pct_minutes": pct(last_min, first_min),
        "growth_pct_fifths": pct(last_fifth, first_fifth),
        "growth_pct_slope": pct(fitted_start + slope * (xs[-1] - xs[0]), fitted_start),
    }


GOAL_KEYS = ("rss_kib", "fds", "threads")
GROWTH_KEYS = GOAL_KEYS + ("conns_grpc", "conns_http", "calls_in_flight", "view_bytes")


def goal(g):
    """The goal, <= 5 % growth, judged on the two robust measures (fifths and slope);
    the one-minute medians are reported beside them."""
    return {k: (g.get(k) is not None and g[k]["growth_pct_fifths"] is not None
                and max(g[k]["growth_pct_fifths"], g[k]["growth_pct_slope"]) <= 5.0)
            for k in GOAL_KEYS}


def read_samples(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rows:
        out.append({k: (float(v) if v not in ("", None) else "") for k, v in r.items()})
    return out


# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--window-minutes", type=float, default=20)
    ap.add_argument("--catalog", default="/work/shared/catalogs/community-v4.20")
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--rotate-every", default="3m")
    ap.add_argument("--storm-every", default="4m")
    ap.add_argument("--server-cpus", default="0")
    ap.add_argument("--load-cpus", default="1")
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true",
                    help="the rehearsal: 3 minutes, window 2, rotation and storms every minute")
    ap.add_argument("--analyse", metavar="DIR",
                    help="only recompute the growth from DIR/samples.csv (with --window-minutes)")
    args = ap.parse_args()
    if args.analyse:
        samples = read_samples(Path(args.analyse) / "samples.csv")
        g = {k: growth(samples, k, args.window_minutes * 60) for k in GROWTH_KEYS}
        print_growth(g, goal(g), args.window_minutes)
        return
    if args.quick:
        args.minutes, args.window_minutes = 3, 2
        args.rotate_every, args.storm_every = "1m", "1m"
    require_binaries("soak")
    if not shutil.which("openssl"):
        sys.exit("soak: openssl is missing")
    out = Path(args.out or f"/tmp/soak-{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="soak."))
    procs, threads, stop = [], [], threading.Event()
    run_then_clean_up(lambda: run(args, out, tmp, procs, threads, stop),
                      procs, threads, stop, tmp, out, log, join_s=15, load_wait_s=40)


def run(args, out, tmp, procs, threads, stop):
    prov = provenance()
    head = prov["commit"]
    if prov["sources_newer_than_binaries"] or prov["sources_changed_since_commit"]:
        log(f"WARNING: the binaries are not HEAD's build: {prov}")
    meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "commit": head, **prov,
            "catalog": args.catalog, "minutes": args.minutes, "window_minutes": args.window_minutes,
            "clients": args.clients, "rotate_every": args.rotate_every,
            "storm_every": args.storm_every, "loadavg_start": loadavg()}
    log(f"{meta['date']} commit {head[:12]}; load average {meta['loadavg_start']}")
    pki = Pki(tmp)
    ctx = ssl.create_default_context(cafile=str(pki.ca))
    h2ctx = h2_context(str(pki.ca))
    ca_pem = pki.ca.read_bytes()
    catalog = tmp / NAME
    shutil.copytree(args.catalog, catalog)
    marker = Marker(catalog, tmp / "marker.tmp")
    stubs = tmp / "stubs"
    stubs.mkdir()
    made = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
                           f"--python_out={stubs}", f"--grpc_python_out={stubs}",
                           str(ROOT / "proto/registry.proto")], capture_output=True)
    if made.returncode != 0:
        log("grpc_tools unavailable: the grpcio vanisher is left out")
        stubs = None

    taken = set()
    grpc_port, http_port, metrics_port = free_port(taken), free_port(taken), free_port(taken)
    server = Proc("server", ["taskset", "-c", args.server_cpus, str(BIN), "serve", str(catalog),
                             "-p", str(grpc_port), "--http-addr", f"127.0.0.1:{http_port}",
                             "--metrics-addr", f"127.0.0.1:{metrics_port}",
                             "--catalog-name", NAME, "--tls-cert", str(pki.cert),
                             "--tls-key", str(pki.key), "--max-connection-age", "60s",
                             "--max-connection-age-grace", "30s",
                             "--max-connections", "2048", "-t", str(tmp / "termination-log")],
                  out / "server.log")
    procs.append(server)
    end = time.monotonic() + 120
    while "serving registry" not in (out / "server.log").read_text(errors="replace"):
        if not server.alive() or time.monotonic() > end:
            raise RuntimeError("the server did not start: see " + str(out / "server.log"))
        time.sleep(0.1)
    log(f"server {server.pid}: gRPC {grpc_port}, HTTP {http_port}, metrics {metrics_port} (TLS)")

    load = Proc("olm_load", ["taskset", "-c", args.load_cpus, str(LOAD),
                             "--addr", f"127.0.0.1:{grpc_port}", "--clients", str(args.clients),
                             "--ramp", "30s", "--tls-ca", str(pki.ca), "--tls-domain", "localhost",
                             "--phase", "warmup", "--progress", "60s",
                             "--output", str(out / "load.json")],
                out / "load.log", stdin=subprocess.PIPE)
    procs.append(load)
    # Python's own threads go on the load CPUs too.
    os.sched_setaffinity(0, {int(c) for c in args.load_cpus.split(",")})

    ok, failed, misbehaving, churn = Counters(), Counters(), Counters(), Counters()

    def spawn(fn, *a):
        th = threading.Thread(target=fn, args=a, daemon=True)
        th.start()
        threads.append(th)

    spawn(http_worker, "all", http_port, ctx, stop, ok, failed, churn, 2.0)
    spawn(http_worker, "metas", http_port, ctx, stop, ok, failed, churn, 0.5)
    spawn(http_worker, "graphql", http_port, ctx, stop, ok, failed, churn, 0.5)
    spawn(slow_reader, http_port, ctx, stop, misbehaving)
    spawn(slow_reader, http_port, ctx, stop, misbehaving)
    spawn(stalled_reader, http_port, grpc_port, ctx, h2ctx, stop, misbehaving, "http")
    spawn(stalled_reader, http_port, grpc_port, ctx, h2ctx, stop, misbehaving, "grpc")
    spawn(vanisher, http_port, grpc_port, ctx, h2ctx, ca_pem, stubs, stop, misbehaving)

    rotate_every, storm_every = parse_secs(args.rotate_every), parse_secs(args.storm_every)

    def churner():
        next_rotate = time.monotonic() + rotate_every
        next_storm = time.monotonic() + storm_every / 2
        storms = 0
        while not stop.wait(5):
            marker.write()
            churn.add("rewrite")
            now = time.monotonic()
            if now >= next_storm:
                next_storm += storm_every
                storms += 1
                for _ in range(50):
                    marker.write()
                    time.sleep(0.04)
                churn.add("storm")
                if storms % 2 == 0:
                    marker.write(broken=True)
                    churn.add("storm ending in an invalid file")
                    time.sleep(3)
                    marker.write()
            if now >= next_rotate:
                next_rotate += rotate_every
                der = pki.rotate()
                churn.add("certificate rotation")
                time.sleep(3)
                for port, label, c in ((grpc_port, "gRPC", h2ctx), (http_port, "HTTP", ctx)):
                    try:
                        sock, raw = tls_socket(port, c)
                        seen = sock.getpeercert(binary_form=True)
                        sock.close()
                        churn.add(f"rotation seen on {label}" if seen == der
                                  else f"rotation NOT seen on {label}")
                    except Exception as e:
                        churn.add(f"rotation check on {label}: error", f"{type(e).__name__}: {e}")

    spawn(churner)

    samples = []
    t0 = time.monotonic()
    total = args.minutes * 60
    warm = total - args.window_minutes * 60
    told_measured = False
    with open(out / "samples.csv", "w", newline="") as f:
        writer = None
        while True:
            t = time.monotonic() - t0
            if not told_measured and t >= warm:
                load.popen.stdin.write(b"phase measured\n")
                load.popen.stdin.flush()
                told_measured = True
                log(f"t={t:.0f}s measured window starts")
            if not server.alive():
                raise RuntimeError(f"the server exited ({server.exit}): see {out / 'server.log'}")
            row = {"t": round(t, 1), **proc_sample(server.pid), **scrape(metrics_port, ctx)}
            counts = ok.snapshot()[0]
            row["http_ok"] = sum(counts.values())
            row["http_failed"] = sum(failed.snapshot()[0].values())
            row.pop("scrape_error", None)
            samples.append(row)
            if writer is None:
                writer = csv.DictWriter(f, fieldnames=list(row.keys()))
                writer.writeheader()
            writer.writerow(row)
            f.flush()
            if len(samples) % 6 == 1:
                log(f"t={t:5.0f}s rss {row['rss_kib'] / 1024:.1f} MiB fds {row['fds']} "
                    f"threads {row['threads']} grpc conns {row['conns_grpc']} http conns "
                    f"{row['conns_http']} generation {row['generation']} http ok/failed "
                    f"{row['http_ok']}/{row['http_failed']}")
            if t >= total:
                break
            time.sleep(max(0.0, 10 - ((time.monotonic() - t0) % 10)))

    stop.set()
    load.popen.stdin.write(b"stop\n")
    load.popen.stdin.close()
    if not load.wait(90):
        raise RuntimeError("olm_load did not stop")
    for th in threads:
        th.join(timeout=120)
    meta["loadavg_end"] = loadavg()
    report = json.loads((out / "load.json").read_text())
    window = args.window_minutes * 60
    g = {k: growth(samples, k, window) for k in GROWTH_KEYS}
    ok_counts, _ = ok.snapshot()
    failed_counts, failed_samples = failed.snapshot()
    mis_counts, mis_samples = misbehaving.snapshot()
    churn_counts, churn_samples = churn.snapshot()
    server_text = (out / "server.log").read_text(errors="replace")
    summary = {
        "meta": meta,
        "growth": g,
        "goal_met": goal(g),
        "well_behaved": {
            "olm_load": {"calls": report["totals"]["calls"], "failed": report["totals"]["failed"],
                         "failed_by_code": report["totals"]["failed_by_code"],
                         "transparent_retries": report["totals"].get("transparent_retries"),
                         "connects": report["totals"]["connects"],
                         "phases": [{k: p[k] for k in ("name", "calls", "failed", "calls_per_s")}
                                    | {"p50_us": p["latency_us"]["all"]["p50"],
                                       "p99_us": p["latency_us"]["all"]["p99"]}
                                    for p in report["phases"]]},
            "http_ok": ok_counts, "http_failed": failed_counts,
            "http_failure_samples": failed_samples,
        },
        "misbehaving": mis_counts, "misbehaving_samples": mis_samples,
        "churn": churn_counts, "churn_samples": churn_samples,
        "server_log": {
            "reloaded": server_text.count("catalog reloaded"),
            "reload_refused": server_text.count("still serving the last good catalog"),
            "tls_reloaded": server_text.count("TLS certificates reloaded"),
            "tls_not_reloaded": server_text.count("TLS certificates not reloaded"),
            "warnings": server_text.count(" WARN "),
            "errors": server_text.count(" ERROR "),
        },
        "first_sample": samples[0], "last_sample": samples[-1],
        "samples": len(samples),
        "server_exit": None,
    }
    server.stop(30)
    summary["server_exit"] = server.exit[0] if server.exit else None
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print_summary(summary)


def print_growth(g, met, window_minutes):
    print(f"\ngrowth over the last {window_minutes} min: first/last minute medians, "
          "first/last fifth medians, least-squares slope:")
    for k, v in g.items():
        if not v:
            continue
        mark = {True: "ok", False: "OVER 5 %"}.get(met.get(k), "")
        if v["growth_pct_fifths"] is None:
            print(f"  {k:16} {v['window_first_min_median']} -> {v['window_last_min_median']}"
                  f"  (starts at 0)  [{v['min']:.0f} .. {v['max']:.0f}]")
            continue
        print(f"  {k:16} {v['window_first_min_median']:>10.0f} -> {v['window_last_min_median']:>10.0f}"
              f" {v['growth_pct_minutes']:+7.2f} % | {v['window_first_fifth_median']:>10.0f} -> "
              f"{v['window_last_fifth_median']:>10.0f} {v['growth_pct_fifths']:+7.2f} % | slope "
              f"{v['growth_pct_slope']:+7.2f} %  [{v['min']:.0f} .. {v['max']:.0f}, mean "
              f"{v['mean']:.0f}]  {mark}")


def print_summary(s):
    m = s["meta"]
    print(f"\nsoak {m['date']}, commit {m['commit'][:12]}, {m['minutes']} min, catalog {m['catalog']}, "
          f"{m['clients']} OLM clients; load average {m['loadavg_start']} -> {m['loadavg_end']}")
    print_growth(s["growth"], s["goal_met"], m["window_minutes"])
    w = s["well_behaved"]
    print(f"\nwell-behaved: olm_load {w['olm_load']['calls']} calls, {w['olm_load']['failed']} failed "
          f"{w['olm_load']['failed_by_code']}, {w['olm_load']['transparent_retries']} transparent "
          f"retries, {w['olm_load']['connects']} connections")
    for p in w["olm_load"]["phases"]:
        print(f"  {p['name']:9} {p['calls']} calls {p['calls_per_s']:.0f}/s failed {p['failed']} "
              f"p50 {p['p50_us']} us p99 {p['p99_us']} us")
    print(f"  HTTP ok {sum(w['http_ok'].values())} {w['http_ok']}")
    print(f"  HTTP failed {w['http_failed']} {w['http_failure_samples']}")
    print(f"misbehaving: {s['misbehaving']}")
    if s["misbehaving_samples"]:
        print(f"  samples: {s['misbehaving_samples']}")
    print(f"churn: {s['churn']}")
    print(f"server log: {s['server_log']}; exit {s['server_exit']}")


if __name__ == "__main__":
    main()
