"""Load test: `studio launch` on loopback, driven by N concurrent gradio_client users.

Every level (N = 1, 4, 16, 32 by default) sends the same fixed mix of requests: chat and translate, on
the ONNX, TFLite and TF backends, greedy decoding. Before the levels, each distinct request is sent once
serially; every concurrent answer must equal its serial answer. The server's resident memory (RSS) is
sampled as requests complete, over all levels together (2,000 requests by default).

    python benchmarks/load_test.py [--levels 1,4,16,32 --requests 500 --concurrency 4 --out docs/bench/load.json]

Prints, per level: throughput, p50/p95/p99 latency as the client sees it (queueing included), errors,
and outputs that differ from the serial run; then the memory curve. Loopback only.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from studio.tasks import CHATBOT, TRANSLATOR  # noqa: E402

CHAT = list(CHATBOT.samples)
TRANSLATE = list(TRANSLATOR.samples)
BACKENDS = ["onnx", "tflite", "tf"]


def request_mix() -> list[tuple[str, str, str]]:
    """(endpoint, text, backend) for every prompt on every backend: 42 distinct requests."""
    return [(endpoint, text, backend) for backend in BACKENDS
            for endpoint, texts in (("/chat", CHAT), ("/translate", TRANSLATE)) for text in texts]


# every parameter of each endpoint (Gradio's plain HTTP API takes no defaults): greedy decoding
RAW_DEFAULTS = {"/chat": ["greedy", 4, 0.8, 0, 0.9, None], "/translate": ["greedy", 4, "", True]}


def raw_predict(url: str, endpoint: str, text: str, backend: str) -> str:
    """One request over Gradio's plain HTTP API (POST, then the event stream): the output text. A client
    with next to no cost of its own, unlike gradio_client (~100 ms a call: benchmarks/request_floor.py)."""
    base = f"{url.rstrip('/')}/gradio_api/call{endpoint}"
    body = json.dumps({"data": [text, backend, *RAW_DEFAULTS[endpoint]]}).encode("utf-8")
    request = urllib.request.Request(base, body, headers={"Content-Type": "application/json"})
    event = json.load(urllib.request.urlopen(request, timeout=120))["event_id"]
    stream = urllib.request.urlopen(f"{base}/{event}", timeout=120).read().decode("utf-8")
    kind = [line[7:] for line in stream.splitlines() if line.startswith("event: ")][-1]
    data = [line[6:] for line in stream.splitlines() if line.startswith("data: ")][-1]
    if kind != "complete":
        raise RuntimeError(f"{kind}: {data}")
    output = json.loads(data)[0]
    return output[0] if isinstance(output, list) else output  # a gr.api function's (text, latency) is one value


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_mib(pid: int) -> float:
    """Resident memory of the server process and its children, MiB."""
    total = 0
    pids = [pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
                    .stdout.split()]
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def start_server(port: int, concurrency: int, extra: list[str]) -> subprocess.Popen:
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    command = [sys.executable, "-m", "studio.cli", "launch", "--port", str(port), "--backend", "tflite",
               "--concurrency", str(concurrency), *extra]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    threading.Thread(target=lambda: [print(f"  server: {line.rstrip()}") for line in server.stdout],
                     daemon=True).start()
    deadline = time.monotonic() + 900  # a first launch may export both models
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2)
            return server
        except OSError:
            time.sleep(1)
    server.kill()
    raise SystemExit("the server did not start within 15 minutes")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="1,4,16,32")
    parser.add_argument("--requests", type=int, default=500, help="requests per level")
    parser.add_argument("--concurrency", type=int, default=4, help="the server's --concurrency")
    parser.add_argument("--out", type=Path, default=Path("docs/bench/load.json"))
    parser.add_argument("--server-args", default="", help="extra `studio launch` arguments")
    parser.add_argument("--client", choices=["gradio", "raw"], default="gradio",
                        help="gradio_client (each call costs the client ~100 ms) or plain HTTP requests")
    args = parser.parse_args()
    from gradio_client import Client

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    print(f"Starting studio launch on {url} (concurrency {args.concurrency})...")
    server = start_server(port, args.concurrency, args.server_args.split())
    memory: list[dict] = []
    completed = [0]
    lock = threading.Lock()

    def sample_memory():
        with lock:
            completed[0] += 1
            if completed[0] % 50 == 0:
                memory.append({"requests": completed[0], "rss_mib": round(rss_mib(server.pid), 1)})

    try:
        mix = request_mix()
        client = Client(url, verbose=False)
        serial, serial_ms = {}, []
        print(f"Serial reference: {len(mix)} distinct requests...")
        for request in mix:
            endpoint, text, backend = request
            started = time.perf_counter()
            serial[request] = client.predict(text, backend, api_name=endpoint)[0]
            serial_ms.append((time.perf_counter() - started) * 1000)
        memory.append({"requests": 0, "rss_mib": round(rss_mib(server.pid), 1)})

        rows = []
        for clients in [int(n) for n in args.levels.split(",")]:
            local = threading.local()
            requests = [mix[i % len(mix)] for i in range(args.requests)]

            def send(request):
                if args.client == "gradio" and not hasattr(local, "client"):
                    local.client = Client(url, verbose=False)
                endpoint, text, backend = request
                started = time.perf_counter()
                try:
                    output = (raw_predict(url, endpoint, text, backend) if args.client == "raw"
                              else local.client.predict(text, backend, api_name=endpoint)[0])
                    error = None
                except Exception as failure:  # noqa: BLE001 - every failure is counted and shown
                    output, error = None, f"{type(failure).__name__}: {failure}"
                sample_memory()
                return (time.perf_counter() - started) * 1000, output, error

            started = time.perf_counter()
            with ThreadPoolExecutor(clients) as pool:
                results = list(pool.map(send, requests))
            wall = time.perf_counter() - started
            latencies = [ms for ms, _, error in results if error is None]
            errors = [error for _, _, error in results if error is not None]
            differ = sum(1 for request, (_, output, error) in zip(requests, results)
                         if error is None and output != serial[request])
            row = {"clients": clients, "requests": len(requests), "seconds": round(wall, 1),
                   "requests_per_second": round(len(requests) / wall, 2),
                   "p50_ms": round(percentile(latencies, 50), 1) if latencies else None,
                   "p95_ms": round(percentile(latencies, 95), 1) if latencies else None,
                   "p99_ms": round(percentile(latencies, 99), 1) if latencies else None,
                   "errors": len(errors), "first_errors": sorted(set(errors))[:3], "outputs_differing": differ}
            rows.append(row)
            print(f"N={clients:>2}: {row['requests_per_second']:6.2f} req/s  p50 {row['p50_ms']} ms  "
                  f"p95 {row['p95_ms']} ms  p99 {row['p99_ms']} ms  errors {len(errors)}  differing {differ}")
        memory.append({"requests": completed[0], "rss_mib": round(rss_mib(server.pid), 1)})
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()

    after_warmup = [m for m in memory if m["requests"] >= 200]
    growth = after_warmup[-1]["rss_mib"] - after_warmup[0]["rss_mib"] if len(after_warmup) > 1 else None
    summary = {"url": "loopback", "client": args.client, "server_args": args.server_args,
               "server_concurrency": args.concurrency, "mix": f"{len(mix)} distinct requests: "
               f"{len(CHAT)} chat + {len(TRANSLATE)} translate prompts x backends {', '.join(BACKENDS)}; greedy",
               "serial_p50_ms": round(statistics.median(serial_ms), 1), "levels": rows, "memory": memory,
               "rss_growth_mib_after_200_requests": round(growth, 1) if growth is not None else None,
               "cpu_count": os.cpu_count()}
    print(f"Server RSS: {memory[0]['rss_mib']} MiB after the serial pass, {memory[-1]['rss_mib']} MiB after "
          f"{completed[0]} requests (growth after the first 200: {summary['rss_growth_mib_after_200_requests']} MiB)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"Wrote {args.out}")
    failed = sum(row["errors"] + row["outputs_differing"] for row in rows)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
