"""Load test: `studio launch` on loopback, driven by N concurrent users, batching off and on, side by side.

For each server setting (`--batching 1,16`: `--max-batch` 1 = off, 16 = continuous batching), one server
runs every level (N = 1, 4, 16, 32, 64 by default) with the same fixed mix of requests: chat and translate
prompts on the default backend (TFLite), greedy decoding. Before the levels, each distinct request is sent
once serially; every concurrent answer must equal its serial answer (the first setting's serial answers
are the reference for all). At each level the floor is measured too: `/health`, an endpoint that runs no
model, through the same queue and client. Then (`--memory-requests`, on the last setting) a long run at
`--memory-clients`, each request a session of its own (as curl sends them), samples the server's resident
memory (RSS) and fits its slope after warm-up.

    python benchmarks/load_test.py [--batching 1,16 --levels 1,4,16,32,64 --requests 400
                                    --memory-requests 10000 --out docs/bench/load.json]

The client is plain HTTP (Gradio's /gradio_api/call API: POST, then the event stream; each simulated user
keeps one session, as a browser tab or gradio_client does), or gradio_client (`--client gradio`, ~100 ms of
client CPU a call on this machine: it measures the client). Prints per level and setting: throughput, p50/
p95/p99 latency as the client sees it (queueing included), errors, outputs that differ from the serial ones,
the floor's throughput, and the ratio of batching on to off. Loopback only.

`--paths gradio,rest` compares instead, on one server (`--max-batch` the first `--batching` value), the two ways
a program can ask for a translation: Gradio's queue (`/gradio_api/call/translate`, then its event stream) and
the LibreTranslate-compatible REST API (`POST /translate`, which calls the batching scheduler directly). The mix
is the translate prompts (greedy, or `--strategy beam`: the translator's default decoding), the client a light
asyncio one (raw HTTP/1.1, one keep-alive connection per simulated user, the same for both paths), each level
run on both paths one after the other, every answer compared with its serial one; then
`--memory-requests` REST requests sample the server's RSS.

    python benchmarks/load_test.py --paths gradio,rest --levels 1,8,32,64 --requests 400 \
        --memory-requests 10000 --out docs/bench/rest-load.json
"""

from __future__ import annotations

import argparse
import asyncio
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


def request_mix(backends: list[str]) -> list[tuple[str, str, str]]:
    """(endpoint, text, backend) for every prompt on every backend."""
    return [(endpoint, text, backend) for backend in backends
            for endpoint, texts in (("/chat", CHAT), ("/translate", TRANSLATE)) for text in texts]


# every parameter of each endpoint (Gradio's plain HTTP API takes no defaults): greedy decoding, or beam search
# with 4 beams (`--strategy beam`)
RAW_DEFAULTS = {"/chat": ["greedy", 4, 0.8, 0, 0.9, None], "/translate": ["greedy", 4, "", True]}


def use_strategy(strategy: str) -> None:
    """Every request of this run decodes with `strategy` (greedy or beam)."""
    for parameters in RAW_DEFAULTS.values():
        parameters[0] = strategy


def raw_predict(url: str, endpoint: str, text: str, backend: str, session: str | None = None) -> str:
    """One request over Gradio's plain HTTP API (POST, then the event stream): the output text. A client
    with next to no cost of its own, unlike gradio_client (~100 ms a call: benchmarks/request_floor.py).
    `session`: the session hash to send (a user's tab); None: each call is a session of its own (curl)."""
    base = f"{url.rstrip('/')}/gradio_api/call{endpoint}"
    data = [] if endpoint == "/health" else [text, backend, *RAW_DEFAULTS[endpoint]]
    body = json.dumps({"data": data, **({"session_hash": session} if session else {})}).encode("utf-8")
    request = urllib.request.Request(base, body, headers={"Content-Type": "application/json"})
    event = json.load(urllib.request.urlopen(request, timeout=120))["event_id"]
    stream = urllib.request.urlopen(f"{base}/{event}", timeout=120).read().decode("utf-8")
    kind = [line[7:] for line in stream.splitlines() if line.startswith("event: ")][-1]
    data = [line[6:] for line in stream.splitlines() if line.startswith("data: ")][-1]
    if kind != "complete":
        raise RuntimeError(f"{kind}: {data}")
    output = json.loads(data)[0]
    return output[0] if isinstance(output, list) else output  # a gr.api function's (text, latency) is one value


class AsyncHttp:
    """One keep-alive HTTP/1.1 connection to the server, as light a client as asyncio allows."""

    def __init__(self, port: int):
        self.port = port
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: bytes = b"", content_type: str = "application/json"):
        """(status, body) of one request; the connection is opened on first use and again after the server
        closes it (an idle keep-alive connection the server closed meanwhile: sent once more, on a new one)."""
        for attempt in (1, 2):
            try:
                return await self._exchange(method, path, body, content_type)
            except (ConnectionError, asyncio.IncompleteReadError, IndexError):
                self.close()
                if attempt == 2:
                    raise

    async def _exchange(self, method: str, path: str, body: bytes, content_type: str):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n")
        self.writer.write(head.encode("latin-1") + body)
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":  # it wins over a Content-Length
            chunks = []
            while (size := int((await self.reader.readline()).split(b";")[0], 16)) > 0:
                chunks.append(await self.reader.readexactly(size + 2))
            while (await self.reader.readline()) not in (b"\r\n", b""):  # trailer fields, then the empty line
                pass
            data = b"".join(chunk[:-2] for chunk in chunks)
        elif "content-length" in headers:
            data = await self.reader.readexactly(int(headers["content-length"]))
        else:
            data = await self.reader.read()
            headers["connection"] = "close"
        if headers.get("connection", "").lower() == "close":
            self.writer.close()
            self.reader = self.writer = None
        return status, data

    async def translate(self, path: str, text: str, strategy: str) -> str:
        """The translation of `text` by `path`: "rest" (POST /translate) or "gradio" (its queue's two calls)."""
        if path == "rest":
            body = json.dumps({"q": text, "source": "ko", "target": "en", "strategy": strategy}).encode("utf-8")
            status, data = await self.request("POST", "/translate", body)
            if status != 200:
                raise RuntimeError(f"{status}: {data[:200]!r}")
            return json.loads(data)["translatedText"]
        body = json.dumps({"data": [text, "tflite", strategy, 4, "", True]}).encode("utf-8")
        status, data = await self.request("POST", "/gradio_api/call/translate", body)
        if status != 200:
            raise RuntimeError(f"{status}: {data[:200]!r}")
        _, stream = await self.request("GET", f"/gradio_api/call/translate/{json.loads(data)['event_id']}")
        lines = stream.decode("utf-8").splitlines()
        kind = [line[7:] for line in lines if line.startswith("event: ")][-1]
        payload = [line[6:] for line in lines if line.startswith("data: ")][-1]
        if kind != "complete":
            raise RuntimeError(f"{kind}: {payload[:200]}")
        return json.loads(payload)[0][0]

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def run_path(port: int, path: str, texts: list[str], clients: int, strategy: str,
                   on_done=None) -> tuple[float, list]:
    """`texts` translated by `clients` simulated users over `path`: (wall seconds, [(ms, output, error)])."""
    queue: asyncio.Queue = asyncio.Queue()
    for index, text in enumerate(texts):
        queue.put_nowait((index, text))
    results: list = [None] * len(texts)

    async def user():
        connection = AsyncHttp(port)
        try:
            while not queue.empty():
                index, text = queue.get_nowait()
                started = time.perf_counter()
                try:
                    output, error = await connection.translate(path, text, strategy), None
                except Exception as failure:  # noqa: BLE001 - every failure is counted and shown
                    output, error = None, f"{type(failure).__name__}: {failure}"
                    connection.close()
                    connection = AsyncHttp(port)
                results[index] = ((time.perf_counter() - started) * 1000, output, error)
                if on_done is not None:
                    on_done()
        finally:
            connection.close()

    started = time.perf_counter()
    await asyncio.gather(*(user() for _ in range(clients)))
    return time.perf_counter() - started, results


def compare_paths(args, paths: list[str]) -> None:
    """--paths: the Gradio queue and the REST API side by side on one server, level by level (the server runs
    TFLite, which both paths are asked for)."""
    unknown = set(paths) - {"gradio", "rest"}
    if unknown:
        raise SystemExit(f"--paths: unknown {', '.join(sorted(unknown))}; choose gradio and rest")
    port = free_port()
    max_batch = int(args.batching.split(",")[0])
    print(f"Starting studio launch on port {port} (--max-batch {max_batch})...")
    server = start_server(port, args.concurrency, [*args.server_args.split(), "--max-batch", str(max_batch)])
    rows, memory_run = [], None
    try:
        serial, serial_ms = {}, []
        for text in TRANSLATE:  # the reference: each prompt alone, through the app's own queue
            wall, [(ms, output, error)] = asyncio.run(run_path(port, "gradio", [text], 1, args.strategy))
            if error:
                raise SystemExit(f"serial request {text!r} failed: {error}")
            serial[text], _ = output, serial_ms.append(ms)
        for path in paths:  # warm both paths up
            asyncio.run(run_path(port, path, TRANSLATE, 1, args.strategy))
        for clients in [int(n) for n in args.levels.split(",")]:
            texts = [TRANSLATE[i % len(TRANSLATE)] for i in range(args.requests)]
            row = {"clients": clients}
            for path in paths:
                wall, outcome = asyncio.run(run_path(port, path, texts, clients, args.strategy))
                requests = [("/translate", text, "tflite") for text in texts]
                by_request = {("/translate", text, "tflite"): output for text, output in serial.items()}
                row[path] = level_row(clients, requests, wall, outcome, by_request)
            ratio = round(row[paths[-1]]["requests_per_second"] / row[paths[0]]["requests_per_second"], 2)
            row["throughput_ratio"] = ratio
            rows.append(row)
            print(f"N={clients:>2}: " + "  |  ".join(
                f"{path} {row[path]['requests_per_second']:6.2f} req/s p50 {row[path]['p50_ms']} ms p99 "
                f"{row[path]['p99_ms']} ms errors {row[path]['errors']} differing {row[path]['outputs_differing']}"
                for path in paths) + f"  ->  {paths[-1]}/{paths[0]} = {ratio:.2f}x")
        if args.memory_requests:
            memory_run = rest_memory_run(args, port, server, serial)
    finally:
        server.terminate()
        server.wait(timeout=30)
    summary = {"url": "loopback", "client": "asyncio, raw HTTP/1.1 keep-alive", "paths": paths,
               "max_batch": max_batch, "server_args": args.server_args, "strategy": args.strategy,
               "mix": f"{len(TRANSLATE)} translate prompts on tflite",
               "serial_p50_ms": round(statistics.median(serial_ms), 1),
               "levels": rows, "memory_run": memory_run, "cpu_count": os.cpu_count()}
    failed = sum(row[path]["errors"] + row[path]["outputs_differing"] for row in rows for path in paths)
    failed += memory_run["errors"] + memory_run["outputs_differing"] if memory_run else 0
    write_summary(args.out, summary, failed)


def rest_memory_run(args, port: int, server, serial: dict) -> dict:
    """`--memory-requests` REST requests at `--memory-clients`, the server's RSS sampled every 250."""
    print(f"Memory run: {args.memory_requests} REST requests at {args.memory_clients} clients...")
    memory = [{"requests": 0, "rss_mib": round(rss_mib(server.pid), 1)}]
    done = [0]

    def sample():
        done[0] += 1
        if done[0] % 250 == 0:
            memory.append({"requests": done[0], "rss_mib": round(rss_mib(server.pid), 1)})

    texts = [TRANSLATE[i % len(TRANSLATE)] for i in range(args.memory_requests)]
    wall, outcome = asyncio.run(run_path(port, "rest", texts, args.memory_clients, args.strategy, sample))
    requests = [("/translate", text, "tflite") for text in texts]
    row = level_row(args.memory_clients, requests, wall, outcome,
                    {("/translate", text, "tflite"): output for text, output in serial.items()})
    warm = min(1000, args.memory_requests // 5)
    slope = slope_per_1000(memory, warm)
    print(f"  {row['requests_per_second']:.1f} req/s, errors {row['errors']}, differing {row['outputs_differing']}; "
          f"RSS {memory[0]['rss_mib']} -> {memory[-1]['rss_mib']} MiB, slope after {warm} requests: {slope} MiB "
          "per 1,000 requests")
    return {**row, "rss": memory, "warm_up_requests": warm, "slope_mib_per_1000_requests": slope}


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


def slope_per_1000(memory: list[dict], skip: int) -> float | None:
    """Least-squares slope of RSS (MiB) against requests, per 1,000 requests, over samples after `skip`."""
    points = [(m["requests"], m["rss_mib"]) for m in memory if m["requests"] >= skip]
    if len(points) < 3:
        return None
    mean_x = statistics.fmean(x for x, _ in points)
    mean_y = statistics.fmean(y for _, y in points)
    covariance = sum((x - mean_x) * (y - mean_y) for x, y in points)
    variance = sum((x - mean_x) ** 2 for x, _ in points)
    return round(1000 * covariance / variance, 2) if variance else None


class Session:
    """One server setting: its process, a client, and the RSS samples taken as requests complete."""

    def __init__(self, args, max_batch: int):
        self.args, self.max_batch = args, max_batch
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/"
        extra = [*args.server_args.split(), "--max-batch", str(max_batch)]
        print(f"Starting studio launch on {self.url} (--max-batch {max_batch}, concurrency {args.concurrency})...")
        self.server = start_server(port, args.concurrency, extra)
        self.memory: list[dict] = []
        self.completed = 0
        self.lock = threading.Lock()
        self.local = threading.local()
        self.session_per_request = False  # True: no session hash is sent, as curl does (Gradio makes one per call)

    def sample_every(self, every: int) -> None:
        with self.lock:
            self.completed += 1
            if self.completed % every == 0:
                self.memory.append({"requests": self.completed, "rss_mib": round(rss_mib(self.server.pid), 1)})

    def call(self, request) -> tuple[float, str | None, str | None]:
        """(ms, output, error) of one request, as this thread's user (one session per thread)."""
        endpoint, text, backend = request
        if not hasattr(self.local, "session"):
            self.local.session = os.urandom(8).hex()
            if self.args.client == "gradio":
                from gradio_client import Client

                self.local.client = Client(self.url, verbose=False)
        started = time.perf_counter()
        try:
            if self.args.client == "raw":
                output = raw_predict(self.url, endpoint, text, backend,
                                     None if self.session_per_request else self.local.session)
            elif endpoint == "/health":
                output = self.local.client.predict(api_name=endpoint)
            else:
                output = self.local.client.predict(text, backend, *RAW_DEFAULTS[endpoint], api_name=endpoint)[0]
            error = None
        except Exception as failure:  # noqa: BLE001 - every failure is counted and shown
            output, error = None, f"{type(failure).__name__}: {failure}"
        return (time.perf_counter() - started) * 1000, output, error

    def run(self, requests: list, clients: int, sample_every: int = 0) -> tuple[float, list]:
        def send(request):
            result = self.call(request)
            if sample_every:
                self.sample_every(sample_every)
            return result

        started = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            results = list(pool.map(send, requests))
        return time.perf_counter() - started, results

    def close(self) -> None:
        self.server.terminate()
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.server.kill()


def level_row(clients: int, requests: list, wall: float, results: list, serial: dict | None) -> dict:
    latencies = [ms for ms, _, error in results if error is None]
    errors = [error for _, _, error in results if error is not None]
    differ = 0 if serial is None else sum(1 for request, (_, output, error) in zip(requests, results)
                                          if error is None and output != serial[request])
    return {"clients": clients, "requests": len(requests), "seconds": round(wall, 1),
            "requests_per_second": round(len(requests) / wall, 2),
            "p50_ms": round(percentile(latencies, 50), 1) if latencies else None,
            "p95_ms": round(percentile(latencies, 95), 1) if latencies else None,
            "p99_ms": round(percentile(latencies, 99), 1) if latencies else None,
            "errors": len(errors), "first_errors": sorted(set(errors))[:3], "outputs_differing": differ}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batching", default="1,16", help="the --max-batch settings to compare (1 = off)")
    parser.add_argument("--levels", default="1,4,16,32,64")
    parser.add_argument("--requests", type=int, default=400, help="requests per level")
    parser.add_argument("--backends", default="tflite", help="comma-separated; the mix runs on each")
    parser.add_argument("--concurrency", type=int, default=4, help="the server's --concurrency")
    parser.add_argument("--memory-requests", type=int, default=0, help="then a long run of this many requests")
    parser.add_argument("--memory-clients", type=int, default=32)
    parser.add_argument("--out", type=Path, default=Path("docs/bench/load.json"))
    parser.add_argument("--server-args", default="", help="extra `studio launch` arguments")
    parser.add_argument("--strategy", choices=["greedy", "beam"], default="greedy",
                        help="how every request decodes (beam: 4 beams, the translator's default decoding)")
    parser.add_argument("--client", choices=["gradio", "raw"], default="raw",
                        help="plain HTTP requests, or gradio_client (each call costs the client ~100 ms)")
    parser.add_argument("--paths", default="", help="gradio,rest: compare Gradio's queue with the REST API "
                                                     "(translate prompts) on one server instead")
    return parser.parse_args()


def serial_reference(session: "Session", mix: list) -> tuple[dict, list[float]]:
    """Each distinct request alone: the outputs every level's must equal, and their times."""
    print(f"Serial reference: {len(mix)} distinct requests...")
    serial, serial_ms = {}, []
    for request in mix:
        ms, output, error = session.call(request)
        if error:
            raise SystemExit(f"serial request {request} failed: {error}")
        serial[request], _ = output, serial_ms.append(ms)
    return serial, serial_ms


def run_levels(session: "Session", args, mix: list, serial: dict, max_batch: int) -> list[dict]:
    """Every --levels client count: the mix's throughput and latency, beside the server's /health floor."""
    rows = []
    for clients in [int(n) for n in args.levels.split(",")]:
        requests = [mix[i % len(mix)] for i in range(args.requests)]
        wall, outcome = session.run(requests, clients)
        row = level_row(clients, requests, wall, outcome, serial)
        health = [("/health", "", "")] * args.requests
        floor_wall, floor_outcome = session.run(health, clients)
        floor = level_row(clients, health, floor_wall, floor_outcome, None)
        row["floor"] = {k: floor[k] for k in ("requests_per_second", "p50_ms", "p99_ms", "errors")}
        rows.append(row)
        print(f"max-batch {max_batch:>2} N={clients:>2}: {row['requests_per_second']:6.2f} req/s  "
              f"p50 {row['p50_ms']} ms  p95 {row['p95_ms']} ms  p99 {row['p99_ms']} ms  errors "
              f"{row['errors']}  differing {row['outputs_differing']}  | floor (/health): "
              f"{floor['requests_per_second']:.1f} req/s, p50 {floor['p50_ms']} ms")
    return rows


def memory_run_of(session: "Session", args, mix: list, serial: dict, max_batch: int) -> dict:
    """--memory-requests at --memory-clients, the server's RSS sampled every 250 requests."""
    print(f"Memory run: {args.memory_requests} requests at {args.memory_clients} clients (--max-batch {max_batch})...")
    session.memory.append({"requests": 0, "rss_mib": round(rss_mib(session.server.pid), 1)})
    requests = [mix[i % len(mix)] for i in range(args.memory_requests)]
    session.session_per_request = args.client == "raw"  # the worst case for the server's sessions
    wall, outcome = session.run(requests, args.memory_clients, sample_every=250)
    row = level_row(args.memory_clients, requests, wall, outcome, serial)
    warm = min(1000, args.memory_requests // 5)
    memory_run = {"max_batch": max_batch, **row, "rss": session.memory, "warm_up_requests": warm,
                  "slope_mib_per_1000_requests": slope_per_1000(session.memory, warm)}
    print(f"  {row['requests_per_second']:.1f} req/s, errors {row['errors']}, differing "
          f"{row['outputs_differing']}; RSS {session.memory[0]['rss_mib']} -> {session.memory[-1]['rss_mib']} MiB, "
          f"slope after {warm} requests: {memory_run['slope_mib_per_1000_requests']} MiB per 1,000 requests")
    return memory_run


def side_by_side(settings: list[int], results: dict[int, list]) -> list[dict]:
    """The last --batching setting against the first, level by level."""
    if len(settings) < 2:
        return []
    comparison, base = [], results[settings[0]]
    print(f"\nSide by side (--max-batch {settings[-1]} vs {settings[0]}):")
    for off, on in zip(base, results[settings[-1]]):
        ratio = round(on["requests_per_second"] / off["requests_per_second"], 2)
        comparison.append({"clients": off["clients"], "throughput_ratio": ratio,
                           "p50_ms": [off["p50_ms"], on["p50_ms"]]})
        print(f"  N={off['clients']:>2}: {off['requests_per_second']:6.2f} -> {on['requests_per_second']:6.2f} "
              f"req/s ({ratio:.2f}x), p50 {off['p50_ms']} -> {on['p50_ms']} ms")
    return comparison


def write_summary(out: Path, summary: dict, failed: int) -> None:
    """The run's JSON at `out`; exit 1 when any request failed or answered otherwise than alone."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"Wrote {out}")
    sys.exit(1 if failed else 0)


def main():
    args = parse_args()
    use_strategy(args.strategy)
    if args.paths:
        compare_paths(args, args.paths.split(","))
        return
    mix = request_mix(args.backends.split(","))
    settings = [int(n) for n in args.batching.split(",")]
    serial, serial_ms, results, memory_run = None, [], {}, None
    for index, max_batch in enumerate(settings):
        session = Session(args, max_batch)
        try:
            if serial is None:
                serial, serial_ms = serial_reference(session, mix)
            else:  # warm up the same paths before timing
                session.run(mix, 1)
            results[max_batch] = run_levels(session, args, mix, serial, max_batch)
            if args.memory_requests and index == len(settings) - 1:
                memory_run = memory_run_of(session, args, mix, serial, max_batch)
        finally:
            session.close()
    comparison = side_by_side(settings, results)
    summary = {"url": "loopback", "client": args.client, "server_args": args.server_args,
               "server_concurrency": args.concurrency, "mix": f"{len(mix)} distinct requests: "
               f"{len(CHAT)} chat + {len(TRANSLATE)} translate prompts on {args.backends}; {args.strategy}",
               "serial_p50_ms": round(statistics.median(serial_ms), 1),
               "levels_by_max_batch": {str(k): v for k, v in results.items()}, "comparison": comparison,
               "memory_run": memory_run, "cpu_count": os.cpu_count()}
    failed = sum(row["errors"] + row["outputs_differing"] for rows in results.values() for row in rows)
    failed += memory_run["errors"] + memory_run["outputs_differing"] if memory_run else 0
    write_summary(args.out, summary, failed)


if __name__ == "__main__":
    main()
