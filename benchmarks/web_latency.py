"""Per-token latency of the web page next to Python, on the same sentences, in one run (a benchmark, not a test).

For each shipped model: the golden sentences decoded greedily, one at a time, by
  - the static site in headless Chromium (LiteRT.js, WASM, one thread) — `index.html?golden=<model>`,
  - Node 20: LiteRT.js (WASM) and ONNX Runtime Web (WASM, fp32 graphs) — `web/scripts/bench-node.mjs`,
  - Python LiteRT (`ai_edge_litert`) on the same batch-1 .tflite, with 1 thread and with every core.
ms/token is the mean time of the steps after the first (the first includes the encoder), the first token's time
is given over all the sentences and over those of 15-25 source tokens; the ratios are against Python LiteRT with
1 thread on the same file. Every runtime must produce the golden ids.

    python benchmarks/web_latency.py [--variant tflite-b1-float16] [--json docs/bench/web.json]
    python benchmarks/web_latency.py --bundle ~/models/opus-mt-ko-en --variant tflite-b1-int8 --browser-only

`--bundle` (repeatable) measures other bundles than the shipped two, e.g. an imported one; `--browser-only` runs the
page alone (a large model's Node and Python runs take long). The page's time to load each model (fetching its graph,
tokenizer and config, LiteRT.js compiling the graph) is printed too.

Needs Node.js 20+, npm and Debian's chromium (the test suite's setup)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def browser_report(site: Path) -> dict:
    from playwright.sync_api import sync_playwright

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html?golden=1")
            page.wait_for_function("document.querySelector('#golden-result')?.dataset.done === 'true'",
                                   timeout=900_000)
            report = json.loads(page.locator("#golden-result").inner_text())
            browser.close()
    finally:
        server.shutdown()
    if "models" not in report:
        raise SystemExit(f"the page could not run the golden sentences: {report.get('error')}")
    return {m["name"]: m for m in report["models"]}


def python_litert(path: Path, bundle, sources, threads: int) -> list[dict]:
    from studio.generate import DecodeSpec, TokenByToken, decode_steps
    from studio.runtimes.tflite_runtime import TFLiteRuntime

    runtime = TFLiteRuntime(path, bundle.config.model, threads=threads, pool_size=1)
    spec = DecodeSpec.for_model(bundle.config.model)
    rows = []
    for warm_up, source in [(True, sources[0])] + [(False, s) for s in sources]:
        strategy = TokenByToken()
        started = time.perf_counter()
        stamps = [time.perf_counter() for _ in decode_steps(runtime, [source], spec, strategy)]
        if not warm_up:
            later = np.diff(stamps)
            rows.append({"ids": strategy.outputs()[0], "firstTokenMs": (stamps[0] - started) * 1000,
                         "msPerToken": float(later.mean() * 1000) if len(later) else (stamps[0] - started) * 1000})
    return rows


def other_runtimes(bundle, tflite: str, sources) -> dict:
    """Node (LiteRT.js, ONNX Runtime Web) and Python LiteRT on the same sentences."""
    from exporters import ensure_exported
    from exporters.web import WEB_DIR

    export_dir = ensure_exported(bundle, ["onnx"])  # Node's ONNX Runtime Web runs the fp32 graphs
    env = {**os.environ, "GOLDEN_DIR": str(export_dir), "BUNDLE_DIR": str(bundle.path), "LITERT_TFLITE": tflite}
    node = json.loads(subprocess.run(["node", "scripts/bench-node.mjs"], cwd=WEB_DIR, env=env, check=True,
                                     capture_output=True, text=True, timeout=900).stdout)
    return {"Node LiteRT.js (WASM)": node["litert"], "Node ONNX Runtime Web (WASM, fp32)": node["onnx"],
            "Python LiteRT, 1 thread": python_litert(export_dir / tflite, bundle, sources, 1),
            f"Python LiteRT, {os.cpu_count()} threads": python_litert(export_dir / tflite, bundle, sources,
                                                                      os.cpu_count() or 1)}


def machine() -> str:
    """The CPU, for the record: WASM has 128-bit SIMD, native LiteRT uses the widest the CPU has (AVX-512 where
    present), so the browser-to-Python ratio depends on the machine as much as on the code."""
    info = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    flags = set(info.get("flags", "").split())
    simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return (f"{info.get('model name', 'unknown CPU')} (family {info.get('cpu family', '?')}, model "
            f"{info.get('model', '?')}), {simd}, {os.cpu_count()} cores")


MEDIUM = (15, 25)  # a typical sentence's source tokens (</s> included): the first-token figure reported apart


def summary(rows, sources) -> dict:
    medium = [r["firstTokenMs"] for r, s in zip(rows, sources) if MEDIUM[0] <= len(s) <= MEDIUM[1]]
    return {"ms_per_token": float(np.mean([r["msPerToken"] for r in rows])),
            "first_token_ms": float(np.mean([r["firstTokenMs"] for r in rows])),
            # the golden sentences run from 2 to max_source_len tokens: the mean above mixes both ends
            "first_token_ms_15_25_tokens": float(np.mean(medium)) if medium else None,
            "sentences_15_25_tokens": len(medium)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="tflite-b1-float16")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--bundle", type=Path, action="append", default=[],
                        help="a bundle to measure (repeatable); default: the shipped chatbot and translator")
    parser.add_argument("--browser-only", action="store_true", help="the page alone, not Node and Python")
    args = parser.parse_args()

    from exporters.web import build_site
    from studio.bundle import default_bundle, load_bundle
    from studio.variants import VARIANTS

    site = Path(tempfile.mkdtemp(prefix="studio-site-"))
    paths = args.bundle or [default_bundle(name) for name in ("chatbot", "translator")]
    bundles = [load_bundle(path) for path in paths]
    started = time.perf_counter()
    build_site([b.path for b in bundles], site, args.variant, progress=lambda message: None)
    print(f"site built in {time.perf_counter() - started:.1f} s")
    tflite = VARIANTS[args.variant].files[0]
    results = []
    cpu = machine()
    browser = browser_report(site)
    for bundle in bundles:
        name = bundle.config.task.task
        golden = json.loads((site / name / "golden" / "golden.json").read_text(encoding="utf-8"))
        expected = [s["greedy_ids_by_file"][tflite] for s in golden["sentences"]]
        sources = [s["source_ids"] for s in golden["sentences"]]
        runs = {"browser LiteRT.js (WASM)": browser[name]["sentences"]}
        if not args.browser_only:
            runs.update(other_runtimes(bundle, tflite, sources))
        reference = summary(runs.get("Python LiteRT, 1 thread", runs["browser LiteRT.js (WASM)"]),
                            sources)["ms_per_token"]
        size = (site / name / tflite).stat().st_size / 2**20 if (site / name / tflite).exists() else float("nan")
        print(f"\n{name} ({tflite}, {size:.1f} MiB; {len(sources)} golden sentences, greedy, batch 1); "
              f"the page loaded it in {browser[name].get('loadMs', float('nan')):.0f} ms")
        for runtime, rows in runs.items():
            s = summary(rows, sources)
            # ONNX runs the fp32 graphs: its reference is the fp32 .tflite's ids
            wanted = [s["greedy_ids"] for s in golden["sentences"]] if "ONNX" in runtime else expected
            exact = sum(r["ids"] == e for r, e in zip(rows, wanted))
            file = "encode/decode_step.onnx" if "ONNX" in runtime else tflite
            row = {"model": name, "runtime": runtime, "file": file,
                   **s, "ratio_to_python_1_thread": s["ms_per_token"] / reference,
                   "page_load_ms": browser[name].get("loadMs") if runtime.startswith("browser") else None,
                   "golden_ids_exact": f"{exact}/{len(rows)}", "machine": cpu}
            results.append(row)
            medium = s["first_token_ms_15_25_tokens"]
            print(f"  {runtime:42s} {s['ms_per_token']:7.2f} ms/token  first token {s['first_token_ms']:7.1f} ms "
                  f"({'-' if medium is None else f'{medium:.1f}'} ms at {MEDIUM[0]}-{MEDIUM[1]} tokens)  "
                  f"{row['ratio_to_python_1_thread']:5.2f}x  golden ids {row['golden_ids_exact']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
