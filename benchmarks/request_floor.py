"""The floor under every request: what Gradio and HTTP cost with no model at all, next to the model's own
cost, and whether memory grows with requests in each layer. One process, one run, sequential requests:

1. a trivial queued endpoint (`echo`) over raw HTTP (Gradio's /gradio_api/call, POST then the event stream);
2. the same endpoint through `gradio_client` (what benchmarks/load_test.py drives);
3. the chatbot's `/chat` handler called directly (service -> generator -> LiteRT), no HTTP.

    python benchmarks/request_floor.py [--requests 400]

Prints requests/s and the process's RSS growth per 1,000 requests for each (the client shares the process
in 2., so its growth counts there too).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(name: str, call, requests: int) -> None:
    for _ in range(min(60, requests)):  # warm-up: first-use allocations are not growth
        call()
    gc.collect()
    before, started = rss_mib(), time.perf_counter()
    for _ in range(requests):
        call()
    seconds = time.perf_counter() - started
    gc.collect()
    growth = (rss_mib() - before) / requests * 1000
    print(f"{name:<58} {requests / seconds:7.1f} req/s  {1000 * seconds / requests:7.1f} ms each  "
          f"RSS {growth:+6.1f} MiB per 1,000")


def main() -> None:
    import gradio as gr
    from gradio_client import Client

    from studio.ui.chat import chat_api
    from studio.app_model import Limits, AppModel

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=400)
    args = parser.parse_args()

    def echo(text: str) -> str:
        return text

    with gr.Blocks() as demo:
        gr.api(echo, api_name="echo")
    demo.queue(default_concurrency_limit=4)
    demo.launch(prevent_thread_lock=True, quiet=True)
    base = demo.local_url.rstrip("/") + "/gradio_api/call/echo"

    def raw_http():
        request = urllib.request.Request(base, json.dumps({"data": ["영화 볼래?"]}).encode(),
                                         headers={"Content-Type": "application/json"})
        event = json.load(urllib.request.urlopen(request, timeout=30))["event_id"]
        urllib.request.urlopen(f"{base}/{event}", timeout=30).read()

    client = Client(demo.local_url, verbose=False)
    chat = chat_api(AppModel("chatbot", None, Limits()), "tflite")
    try:
        measure("trivial endpoint, raw HTTP (the server's floor)", raw_http, args.requests)
        measure("trivial endpoint, gradio_client (the load test's client)",
                lambda: client.predict("영화 볼래?", api_name="/echo"), args.requests)
        measure("chatbot /chat handler, called directly (the model's cost)", lambda: chat("영화 볼래?"), args.requests)
    finally:
        demo.close()


if __name__ == "__main__":
    main()
