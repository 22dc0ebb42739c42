#!/usr/bin/env python3
"""Client-observed latency of the cluster answers next to GetSuccessors (issue #32).

Usage: measure-cluster-latency.py ADDR PACKAGE CHANNEL INSTALLED VERSION [ROUNDS] [CALLS]

Against a running `fbc-registry serve` at ADDR (pin it to one core and this
client to the other with taskset), asks, interleaved round by round, CALLS
sequential calls of each question and prints each question's median latency per
round and the median over rounds, with its ratio to GetSuccessors:
  successors       GetSuccessors(PACKAGE, installed INSTALLED)
  explain_upgrade  ExplainUpgrade: a Subscription on CHANNEL with INSTALLED (and its
                   CSV at VERSION) and a ClusterExtension with the same bundle
  cluster_upgrade  CheckClusterUpgrade --to 4.17 of the same state
  lint_olm_v1      Lint(package=PACKAGE, target=olm-v1)
  lint_ocp         Lint(package=PACKAGE, target=ocp-4.17)
Needs grpcio and stubs generated from proto/ (python3 -m grpc_tools.protoc
-Iproto --python_out=STUBS --grpc_python_out=STUBS proto/fbc/v1/*.proto) on
PYTHONPATH.
"""
import statistics
import sys
import time

import grpc
from fbc.v1 import cluster_pb2, graph_pb2, graph_pb2_grpc


def main():
    addr, package, channel, installed, version = sys.argv[1:6]
    rounds = int(sys.argv[6]) if len(sys.argv) > 6 else 5
    calls = int(sys.argv[7]) if len(sys.argv) > 7 else 200
    stub = graph_pb2_grpc.GraphStub(grpc.insecure_channel(addr))
    state = (
        f"kind: Subscription\nmetadata: {{name: s, namespace: ns}}\n"
        f"spec: {{name: {package}, channel: {channel}, source: cat, sourceNamespace: olm}}\n"
        f"status: {{installedCSV: {installed}}}\n---\n"
        f"kind: ClusterServiceVersion\nmetadata: {{name: {installed}, namespace: ns}}\n"
        f"spec: {{version: \"{version}\"}}\n---\n"
        f"kind: ClusterExtension\nmetadata: {{name: e}}\n"
        f"spec: {{namespace: e, serviceAccount: {{name: e}}, source: {{sourceType: Catalog, catalog: {{packageName: {package}}}}}}}\n"
        f"status: {{install: {{bundle: {{name: {installed}, version: \"{version}\"}}}}}}\n"
    ).encode()
    files = [cluster_pb2.ClusterStateFile(name="state.yaml", content=state)]
    questions = {
        "successors": lambda: stub.GetSuccessors(graph_pb2.GetSuccessorsRequest(
            package=package, installed=graph_pb2.InstalledBundle(name=installed))),
        "explain_upgrade": lambda: stub.ExplainUpgrade(
            cluster_pb2.ExplainUpgradeRequest(cluster_state=files)),
        "cluster_upgrade": lambda: stub.CheckClusterUpgrade(
            cluster_pb2.CheckClusterUpgradeRequest(to="4.17", cluster_state=files)),
        "lint_olm_v1": lambda: stub.Lint(graph_pb2.LintRequest(package=package, target="olm-v1")),
        "lint_ocp": lambda: stub.Lint(graph_pb2.LintRequest(package=package, target="ocp-4.17")),
    }
    for ask in questions.values():  # warm every path once
        ask()
    medians = {name: [] for name in questions}
    for r in range(rounds):
        for name, ask in questions.items():
            times = []
            for _ in range(calls):
                t0 = time.perf_counter()
                ask()
                times.append(time.perf_counter() - t0)
            medians[name].append(statistics.median(times) * 1e6)
        print(f"round {r + 1}: " + ", ".join(f"{n} {m[-1]:.0f} us" for n, m in medians.items()))
    base = statistics.median(medians["successors"])
    for name, m in medians.items():
        med = statistics.median(m)
        print(f"{name}: median {med:.0f} us = {med / base:.2f}x GetSuccessors")


if __name__ == "__main__":
    main()
