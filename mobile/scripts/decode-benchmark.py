"""Python's side of the mobile decode benchmark: ms per token of plain greedy decoding with the app's ONNX runtime
(one intra-op thread) on the exported graphs, for the sources of mobile/android/src/test/resources/decode/<bundle>.json.
The JVM's side is DecodeBenchmarkTest on the same graphs and sources, timed the same way:

    PYTHONPATH=. .venv/bin/python mobile/scripts/decode-benchmark.py
    (cd mobile/android && mvn test -Dtest=DecodeBenchmarkTest -Dbenchmark=true)

Each bundle: one warm-up pass over the sources, then PASSES timed passes; per pass the encode time and the decode
steps' time (runtime.step and the argmax), summed over the sources; the best pass is reported.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "mobile" / "android" / "src" / "test" / "resources" / "decode"
PASSES = 3


def greedy(runtime, source: list[int], config) -> tuple[float, float, int]:
    """(encode ms, steps ms, steps) of one greedy decode, as DecodeBenchmarkTest times it."""
    started = time.perf_counter()
    state = runtime.encode(np.array([source], np.int32))
    encoded = time.perf_counter()
    token, steps = config.bos_id, 0
    for position in range(config.max_target_len):
        logits, state = runtime.step(state, np.array([token], np.int32), position)
        token = int(np.argmax(logits[0]))
        steps += 1
        if token == config.eos_id:
            break
    return (encoded - started) * 1000, (time.perf_counter() - encoded) * 1000, steps


def measure(bundle: str) -> dict:
    from studio.bundle import load_bundle
    from studio.runtimes.onnx_runtime import ONNXRuntime
    from studio.variants import export_dir_for

    loaded = load_bundle(ROOT / "assets" / bundle)
    export = export_dir_for(loaded.path)  # the graphs DecodeBenchmarkTest runs (whichever onnxruntime runs them)
    config = loaded.config.model
    runtime = ONNXRuntime(export / "encode.onnx", export / "decode_step.onnx", config, threads=1)
    sources = [case["source"] for case in json.loads((FIXTURES / f"{bundle}.json").read_text())["cases"]]
    best = None
    for attempt in range(PASSES + 1):
        totals = np.sum([greedy(runtime, source, config) for source in sources], axis=0)
        if attempt and (best is None or totals[1] < best[1]):  # attempt 0 warms up
            best = totals
    encode_ms, steps_ms, steps = best
    return {"bundle": bundle, "sources": len(sources), "tokens": int(steps), "encode_ms": round(encode_ms, 1),
            "ms_per_token": round(steps_ms / steps, 3)}


if __name__ == "__main__":
    for name in sys.argv[1:] or ("translator", "chatbot"):
        print(json.dumps({"runtime": "python onnxruntime", **measure(name)}))
