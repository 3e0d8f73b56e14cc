"""A/B of two exported `model.tflite` files with the same signatures (e.g. the same weights exported by two
versions of the code): decode_step op counts, and per-step latency in LiteRT measured interleaved in one run
(these machines are noisy: only the ratio means something).

    python benchmarks/tflite_step_ab.py A/exports/model.tflite B/exports/model.tflite [--threads 2 --steps 400]
"""

import argparse
import contextlib
import io
import re
import time
from collections import Counter

import numpy as np


def decode_step_ops(path: str) -> Counter:
    import tensorflow as tf

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        tf.lite.experimental.Analyzer.analyze(model_path=path)
    subgraph = next(s for s in buffer.getvalue().split("Subgraph#") if " decode_step(" in s.split("\n", 1)[0])
    return Counter(re.findall(r"Op#\d+ (\w+)\(", subgraph))


def step_inputs(runner, rng) -> dict:
    feeds = {}
    for name, detail in runner.get_input_details().items():
        shape = [1 if s == -1 else int(s) for s in detail["shape_signature"]]
        if name == "position":
            feeds[name] = np.array(3, np.int32)
        elif name == "tokens":
            feeds[name] = np.full(shape, 5, np.int32)
        elif name == "source_mask":
            feeds[name] = np.zeros(shape, np.float32)
        else:
            feeds[name] = rng.normal(size=shape).astype(np.float32)
    return feeds


def main() -> None:
    from ai_edge_litert.interpreter import Interpreter

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    runners = {}
    for label, path in (("A", args.a), ("B", args.b)):
        ops = decode_step_ops(path)
        print(f"{label} {path}: decode_step has {sum(ops.values())} ops {dict(sorted(ops.items()))}")
        runner = Interpreter(model_path=path, num_threads=args.threads).get_signature_runner("decode_step")
        runners[label] = (runner, step_inputs(runner, rng))
    for runner, feeds in runners.values():  # warm-up
        for _ in range(3):
            runner(**feeds)
    times = {label: [] for label in runners}
    for _ in range(args.steps):
        for label, (runner, feeds) in runners.items():
            started = time.perf_counter()
            runner(**feeds)
            times[label].append(time.perf_counter() - started)
    median = {label: float(np.median(values)) * 1000 for label, values in times.items()}
    print(f"decode_step median over {args.steps} interleaved steps, {args.threads} threads: "
          f"A {median['A']:.3f} ms, B {median['B']:.3f} ms; B/A = {median['B'] / median['A']:.3f}")


if __name__ == "__main__":
    main()
