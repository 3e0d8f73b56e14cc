"""A fresh install's first minutes, side by side: `studio launch` on copies of the shipped bundles with no exports,
once without their graph packs (every graph converted from the weights: how it was before packs) and once with
them (`BUNDLE/graphs/`, rebuilt in about a second). For each: when the page answers; when the first chat reply
and the first translation come back, both sent as soon as the page answers (seconds after `studio launch`
started); how long the first request on another backend (`--other`, ONNX by default) takes; and the server's
peak resident memory (its process and children) over the whole run.

    python benchmarks/first_launch.py [--backend tflite --other onnx]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from helpers import free_port  # noqa: E402


class PeakMemory:
    """The largest resident memory of a process and its children, sampled every 0.2 s in a thread."""

    def __init__(self, pid: int):
        self.process, self.peak, self._done = psutil.Process(pid), 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self):
        while not self._done.wait(0.2):
            try:
                tree = [self.process, *self.process.children(recursive=True)]
                self.peak = max(self.peak, sum(p.memory_info().rss for p in tree))
            except psutil.Error:
                pass

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        return self.peak / 2**30


def wait_for_page(port: int, server, started: float, timeout: float) -> float:
    while True:
        if time.perf_counter() - started > timeout or server.poll() is not None:
            raise SystemExit(f"studio launch did not come up (exit code {server.poll()})")
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).status == 200:
                return time.perf_counter() - started
        except OSError:
            time.sleep(0.1)


def first_minutes(chatbot: Path, translator: Path, backend: str, other: str, cache: Path,
                  timeout: float = 900) -> dict:
    from gradio_client import Client

    port = free_port()
    started = time.perf_counter()
    env = {**os.environ, "STUDIO_CACHE_DIR": str(cache)}
    server = subprocess.Popen([sys.executable, "-m", "studio.cli", "launch", "--port", str(port), "--backend", backend,
                               "--chatbot", str(chatbot), "--translator", str(translator)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    memory = PeakMemory(server.pid)
    try:
        page = wait_for_page(port, server, started, timeout)

        def answered(text: str, api: str, chosen: str) -> float:
            Client(f"http://127.0.0.1:{port}/", verbose=False).predict(text, chosen, api_name=api)
            return time.perf_counter() - started

        with ThreadPoolExecutor(2) as pool:
            chat = pool.submit(answered, "영화 볼래?", "/chat", backend)
            translation = pool.submit(answered, "오바마는 대통령이다.", "/translate", backend)
            chat, translation = chat.result(), translation.result()
        asked = time.perf_counter() - started
        other_first = answered("넌 누구야?", "/chat", other) - asked
        return {"page": page, "chat": chat, "translation": translation, "other": other_first,
                "peak_gib": memory.stop()}
    finally:
        memory.stop()
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="tflite")
    parser.add_argument("--other", default="onnx", help="the backend a user picks next")
    args = parser.parse_args()
    rows = {}
    for label, ignored in (("no graph packs (before)", ("exports", "graphs")), ("graph packs", ("exports",))):
        with tempfile.TemporaryDirectory() as work:
            bundles = []
            for name in ("chatbot", "translator"):
                target = Path(work) / name
                shutil.copytree(ROOT / "assets" / name, target, ignore=shutil.ignore_patterns(*ignored))
                bundles.append(target)
            rows[label] = first_minutes(*bundles, args.backend, args.other, Path(work) / "cache")
        print(f"{label}: {rows[label]}", flush=True)
    print(f"\nseconds after `studio launch` started (fresh install, {args.backend}); the first {args.other} request "
          "in seconds from its sending; peak RSS of the server's processes")
    print(f"{'':26} {'page':>6} {'1st chat':>9} {'1st transl.':>12} {f'1st {args.other}':>10} {'peak RSS':>9}")
    for label, row in rows.items():
        print(f"{label:26} {row['page']:6.1f} {row['chat']:9.1f} {row['translation']:12.1f} {row['other']:10.1f} "
              f"{row['peak_gib']:7.2f} GiB")


if __name__ == "__main__":
    main()
