"""How long `studio launch` takes until the app answers: first on copies of the shipped bundles with no
exports (a fresh install), then again with the exports it left (every later launch). Prints both.

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


def seconds_until_ready(chatbot: Path, translator: Path, backend: str, timeout: float = 600) -> float:
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "studio.cli", "launch", "--port", str(port), "--backend", backend,
                               "--chatbot", str(chatbot), "--translator", str(translator)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - started < timeout:
            if server.poll() is not None:
                raise SystemExit(f"studio launch exited with {server.returncode}")
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).status == 200:
                    return time.perf_counter() - started
            except OSError:
                time.sleep(0.2)
        raise SystemExit(f"not ready after {timeout:.0f}s")
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
    print(f"first launch (no exports): {first:.1f} s; exported then: {', '.join(exported)}")
    print(f"next launch (exports present): {again:.1f} s")


if __name__ == "__main__":
    main()
