"""How long `studio launch` takes until the app answers, and until both models have answered on the default
backend: first on copies of the shipped bundles with no exports (a fresh install), then again with the
exports it left (every later launch).

    python benchmarks/first_launch.py [--backend tflite]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from helpers import free_port  # noqa: E402


def seconds_until_ready(chatbot: Path, translator: Path, backend: str, timeout: float = 600) -> tuple[float, float]:
    """(seconds until the page answers, seconds until a chat and a translation on `backend` have answered)."""
    from gradio_client import Client

    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "studio.cli", "launch", "--port", str(port), "--backend", backend,
                               "--chatbot", str(chatbot), "--translator", str(translator)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if time.perf_counter() - started > timeout or server.poll() is not None:
                raise SystemExit(f"studio launch did not come up (exit code {server.poll()})")
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).status == 200:
                    break
            except OSError:
                time.sleep(0.2)
        ready = time.perf_counter() - started
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        client.predict("영화 볼래?", backend, api_name="/chat")
        client.predict("오바마는 대통령이다.", backend, api_name="/translate")
        return ready, time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="tflite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        bundles = []
        for name in ("chatbot", "translator"):
            target = Path(work) / name
            shutil.copytree(ROOT / "assets" / name, target, ignore=shutil.ignore_patterns("exports"))
            bundles.append(target)
        first = seconds_until_ready(*bundles, args.backend)
        exported = sorted(p.name for p in (bundles[0] / "exports").iterdir() if not p.name.startswith("."))
        again = seconds_until_ready(*bundles, args.backend)
    for label, (ready, answered) in (("first launch (no exports)", first), ("next launch (exports present)", again)):
        print(f"{label}: app answers after {ready:.1f} s; both models answered on {args.backend} after {answered:.1f} s")
    print(f"exported by the first launch: {', '.join(exported)}")


if __name__ == "__main__":
    main()
