"""CPU per event with and without Gradio's traffic summary (`studio.ui.sessions.lighten_queue`), side by side in
one run: the app is launched (no models: `/health` runs none), its queue set back to Gradio's own settings (a
summary after every event, of up to 10,000 events) or left as the app sets it, and `/health` called in a row.

    python benchmarks/traffic_summary_ab.py [--requests 600] [--rounds 2]

Prints, per launch, the process's CPU and the wall time per call (the client runs in the same process: its share
is the same in both).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load_test import free_port  # noqa: E402 - this folder is on the path of a script run from it

WARM_UP = 50


def per_call(gradios_summary: bool, requests: int) -> tuple[float, float]:
    """(ms of CPU, ms of wall time) per `/health` call, after WARM_UP calls."""
    from gradio_client import Client

    from studio.ui.app import launch

    none = Path(tempfile.mkdtemp()) / "none"
    app = launch(none, none, port=free_port(), backend="tf", prevent_thread_lock=True, progress=lambda _: None)
    try:
        if gradios_summary:  # Gradio's defaults (GRADIO_ANALYTICS_CACHE_FREQUENCY, GRADIO_ANALYTICS_MAX_EVENTS)
            app._queue.ANAYLTICS_CACHE_FREQUENCY, app._queue.ANALYTICS_MAX_EVENTS = 1, 10_000
        client = Client(app.local_url, verbose=False, ssl_verify=False)
        for _ in range(WARM_UP):
            client.predict(api_name="/health")
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(requests):
            client.predict(api_name="/health")
        return (time.process_time() - cpu) / requests * 1000, (time.perf_counter() - wall) / requests * 1000
    finally:
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    for _ in range(args.rounds):
        for label, summary in (("Gradio's summary", True), ("no summary (the app)", False)):
            cpu, wall = per_call(summary, args.requests)
            print(f"{label:21s} {cpu:6.2f} ms CPU, {wall:6.2f} ms wall per /health call "
                  f"(calls {WARM_UP + 1}-{WARM_UP + args.requests})", flush=True)


if __name__ == "__main__":
    main()
