"""A/B of two exports of the same weights that differ in how they take the source: a graph traced with a
static source length (every source padded to max_source_len, as exports before format 3 were) against one
traced with a dynamic source length (padded only to a multiple of 16). Both run on `TFLiteRuntime`, which pads
for the graph it loads. Measured interleaved in one run (these machines are noisy: the ratios are the result):
first token (encode + first step) and ms/token at batch 1 on the given sentences, beam 4 end to end against
greedy (the time of every round summed: the same sentences for both), and whether the greedy outputs (token ids)
are identical on the first lines of the tuning sets, batched as the scheduler batches them.

    python benchmarks/source_length_ab.py OLD/model.tflite NEW/model.tflite --bundle assets/translator \\
        [--text SENTENCE ...] [--repeats 15] [--lines 200] [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from studio.bundle import load_bundle
from studio.data import read_pairs
from studio.data.sources import EVAL_SETS, TUNING_SETS, find_file
from studio.generate import DecodeSpec, TokenByToken, decode, decode_steps, strategy_for
from studio.generate.guards import length_cap
from studio.generate.options import DecodeOptions
from studio.runtimes.tflite_runtime import TFLiteRuntime

TEXTS = ("\"옴니버스 방식이 아니라 각 법안이 회의에서 다뤄지고 협상되도록 할 것입니다.",  # 24 pieces
         "미국 정부는 내년부터 새로운 이민 정책을 시행할 예정이라고 밝혔다.",  # 18
         "서울 시민들은 주말 동안 한강 공원에서 열린 축제를 즐겼다.")  # 18


def first_token_and_steps(runtime, source, steps: int, config) -> tuple[float, float]:
    spec = DecodeSpec(config.bos_id, config.eos_id, steps, config.pad_id, min_new_tokens=steps)
    started = last = time.perf_counter()
    first, step_times = 0.0, []
    for position, _ in enumerate(decode_steps(runtime, [source], spec, TokenByToken())):
        now = time.perf_counter()
        if position == 0:
            first = now - started
        else:
            step_times.append(now - last)
        last = now
    return first, float(np.median(step_times))


def end_to_end(generator_decode, source) -> float:
    started = time.perf_counter()
    generator_decode([source])
    return time.perf_counter() - started


def timing(runtimes: dict, sources: list, config, repeats: int, steps: int) -> dict:
    """Medians (ms) of the first token and a step at batch 1, and of greedy and beam 4 (the translator's default:
    length penalty 1.8) end to end, with the product's output-length cap."""
    beam = DecodeOptions("beam", beam_size=4, length_penalty=1.8).validate()
    caps = {id(s): DecodeSpec.for_model(config, length_cap(len(s))) for s in sources}
    results = {label: {"first": [], "step": [], "greedy": [], "beam": []} for label in runtimes}
    for _ in range(2):  # warm-up: allocation and resizing for these shapes
        for runtime in runtimes.values():
            first_token_and_steps(runtime, sources[0], steps, config)
            decode(runtime, [sources[0]], caps[id(sources[0])], strategy_for(beam))
    for repeat in range(repeats):
        source = sources[repeat % len(sources)]
        for label, runtime in runtimes.items():
            first, step = first_token_and_steps(runtime, source, steps, config)
            results[label]["first"].append(first)
            results[label]["step"].append(step)
            spec = caps[id(source)]
            results[label]["greedy"].append(end_to_end(lambda s: decode(runtime, s, spec, TokenByToken()), source))
            results[label]["beam"].append(end_to_end(lambda s: decode(runtime, s, spec, strategy_for(beam)), source))
    # first token and step: medians; greedy and beam: totals over the same sentences (their ratio is beam's cost)
    return {label: {name: float(np.median(values) if name in ("first", "step") else np.sum(values)) * 1000
                    for name, values in r.items()} for label, r in results.items()}


def identical_outputs(runtimes: dict, bundle, lines: int, batch: int, data_dir) -> dict:
    config = bundle.config.model
    spec = DecodeSpec.for_model(config)
    report = {}
    for name in TUNING_SETS:
        path = find_file(EVAL_SETS[name], data_dir)
        if path is None:
            report[name] = "not found"
            continue
        sources = [bundle.preprocessor.encode(p.source)[0] for p in read_pairs(path)[:lines]]
        outputs = {label: [] for label in runtimes}
        for start in range(0, len(sources), batch):
            chunk = sources[start:start + batch]
            for label, runtime in runtimes.items():
                outputs[label] += decode(runtime, chunk, spec, TokenByToken())
        a, b = outputs.values()
        report[name] = f"{sum(x == y for x, y in zip(a, b))} of {len(sources)} identical"
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help="the export with a static source length (before)")
    parser.add_argument("b", help="the export with a dynamic source length (after)")
    parser.add_argument("--bundle", default="assets/translator")
    parser.add_argument("--text", action="append", help="a sentence to time (repeat) [default: three news sentences]")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--steps", type=int, default=16, help="tokens per timed greedy decode")
    parser.add_argument("--lines", type=int, default=200, help="lines of each tuning set compared (0: none)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    bundle = load_bundle(args.bundle)
    config = bundle.config.model
    runtimes = {"A": TFLiteRuntime(args.a, config, "A", args.threads),
                "B": TFLiteRuntime(args.b, config, "B", args.threads)}
    for label, runtime in runtimes.items():
        kind = "static" if runtime.static_source else "dynamic"
        print(f"{label}: {getattr(args, label.lower())} ({kind} source length)")
    sources = [bundle.preprocessor.encode(text)[0] for text in (args.text or TEXTS)]
    print(f"sources of {', '.join(str(len(s)) for s in sources)} tokens; {args.threads} threads; "
          f"median of {args.repeats} interleaved rounds")
    medians = timing(runtimes, sources, config, args.repeats, args.steps)
    print("first token and ms/token: medians; greedy and beam 4: end to end, summed over every round")
    print(f"{'':<3} {'first token ms':>15} {'ms/token':>9} {'greedy ms':>10} {'beam 4 ms':>10} {'beam/greedy':>12}")
    for label, m in medians.items():
        print(f"{label:<3} {m['first']:15.2f} {m['step']:9.3f} {m['greedy']:10.1f} {m['beam']:10.1f} "
              f"{m['beam'] / m['greedy']:12.2f}")
    a, b = medians["A"], medians["B"]
    print(f"B/A: first token {b['first'] / a['first']:.2f}, ms/token {b['step'] / a['step']:.3f}, "
          f"greedy {b['greedy'] / a['greedy']:.2f}, beam 4 {b['beam'] / a['beam']:.2f}")
    if args.lines:
        for name, result in identical_outputs(runtimes, bundle, args.lines, args.batch, args.data_dir).items():
            print(f"greedy outputs, {name} (first {args.lines} lines, batches of {args.batch}): {result}")


if __name__ == "__main__":
    main()
