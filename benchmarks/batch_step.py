"""Throughput of one decode step against the batch size, on each serving backend: what batching requests
(`studio launch --max-batch N`) can gain, and so which N to default to. Per backend and batch size: the
encoder runs once on `batch` copies of a sentence, then `--steps` steps of `decode_rows` (the step the
scheduler runs: rows at different positions, here staggered by up to 3) are timed; batch sizes and backends are measured
round-robin, `--repeats` times, and the median kept (these machines are noisy: read the ratios).

    python benchmarks/batch_step.py [--task translator --backends tf,tflite,onnx --batches 1,2,4,8,16,32]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from studio.generate.loop import pad_batch  # noqa: E402
from studio.serving import ServedModel  # noqa: E402
from studio.tasks import task_named  # noqa: E402


def time_steps(runtime, source: list[int], batch: int, steps: int) -> float:
    """Seconds for `steps` decode steps at `batch` rows (after the encoder, which is not timed)."""
    state = runtime.encode(pad_batch([source] * batch))
    tokens = np.full((batch,), 5, np.int32)
    stagger = np.arange(batch, dtype=np.int32) % 4
    started = time.perf_counter()
    for position in range(steps):
        _, state = runtime.step_rows(state, tokens, stagger + position)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="translator")
    parser.add_argument("--backends", default="tf,tflite,onnx")
    parser.add_argument("--batches", default="1,2,4,8,16,32")
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    served = ServedModel.load(args.task)
    sample = task_named(args.task).prompts[0]
    backends = args.backends.split(",")
    batches = [int(b) for b in args.batches.split(",")]
    runtimes = {b: served.generator(b, warm_up=True).runtime for b in backends}
    source, _ = served.generator(backends[0]).preprocessor.encode(sample)
    steps = min(args.steps, served.bundle.config.model.max_target_len - 3)
    for backend in backends:  # first calls allocate buffers for each shape: not timed
        for batch in batches:
            time_steps(runtimes[backend], source, batch, 2)
    seconds: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.repeats):
        for backend in backends:
            for batch in batches:
                seconds.setdefault((backend, batch), []).append(time_steps(runtimes[backend], source, batch, steps))
    rows = []
    print(f"{args.task}: {steps} decode steps, median of {args.repeats} round-robin runs")
    print(f"{'backend':<8} {'batch':>5} {'ms/step':>8} {'rows/s':>9} {'vs batch 1':>10}")
    for backend in backends:
        single = statistics.median(seconds[(backend, 1)]) if 1 in batches else None
        for batch in batches:
            median = statistics.median(seconds[(backend, batch)])
            rate = batch * steps / median
            gain = rate / (steps / single) if single else float("nan")
            rows.append({"backend": backend, "batch": batch, "ms_per_step": round(median / steps * 1000, 3),
                         "rows_per_s": round(rate, 1), "throughput_vs_batch_1": round(gain, 2)})
            print(f"{backend:<8} {batch:>5} {median / steps * 1000:>8.2f} {rate:>9.0f} {gain:>9.2f}x")
    if args.json:
        args.json.write_text(json.dumps({"task": args.task, "steps": steps, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
