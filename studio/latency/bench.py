"""Decode latency of every backend on the same bundle, inputs and thread count, measured side by side.

All backends share one process, so thread pools that spin-wait after each call (ONNX Runtime's by
default, OpenMP's in CTranslate2) would steal the CPU from whichever backend runs next: ORT spinning is
off in our runtime and `studio bench` sets OMP_WAIT_POLICY=PASSIVE.

For each output length (short/medium/long) every backend decodes exactly that many tokens (the end
token is masked, as CTranslate2's min_decoding_length does), batch 1. Repeats go round-robin over the
backends so machine noise falls on all of them alike. Reported per backend:
  ms_per_token  time of one decode step (median, p90) once the source is encoded
  first_token   encode + first step: what a user waits before a streamed reply starts (the encoder's cost
                follows the source's length: pass a sentence of the length you care about with --text)
  total         the whole output
plus whether its greedy outputs equal TF's on sample inputs. Ratios are against the tutorials'
naive loop (re-run the model on the whole prefix each step) and against CTranslate2 on the same weights.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from exporters import ensure_exported
from studio.errors import StudioError
from studio.generate import DecodeOptions, DecodeSpec, TokenByToken, decode, decode_steps, strategy_for
from studio.generate.guards import length_cap
from studio.runtimes import load_runtime
from studio.tasks import task_named
from studio.variants import VARIANTS


@dataclass
class Measurement:
    step_seconds: list[float] = field(default_factory=list)
    first_token_seconds: list[float] = field(default_factory=list)
    total_seconds: list[float] = field(default_factory=list)


def _ratio(numerator, denominator):
    if not numerator or not denominator:
        return None
    return numerator / denominator


def _percentile(values, q):
    return float(np.percentile(values, q)) * 1000 if values else None  # None: nothing measurable


def timed_runtime_decode(runtime, source: list[int], spec: DecodeSpec, m: Measurement) -> None:
    """Decode exactly spec.min_new_tokens tokens (spec.max_new_tokens is the same), timing every step."""
    start = last = time.perf_counter()
    for position, _ in enumerate(decode_steps(runtime, [source], spec, TokenByToken())):
        now = time.perf_counter()
        if position == 0:
            m.first_token_seconds.append(now - start)
        else:
            m.step_seconds.append(now - last)
        last = now
    m.total_seconds.append(time.perf_counter() - start)


def timed_ctranslate2_decode(model, source: list[int], steps: int, m: Measurement) -> None:
    """CTranslate2 decodes inside C++; its Python token stream would add per-token Python overhead that
    is not the engine's. So: time a 1-token and an N-token translation; the first is the first-token
    latency, (T(N) - T(1)) / (N - 1) the cost of each further token."""
    start = time.perf_counter()
    model.greedy([source], 1, 1)
    first = time.perf_counter() - start
    start = time.perf_counter()
    model.greedy([source], steps, steps)
    total = time.perf_counter() - start
    m.first_token_seconds.append(first)
    m.total_seconds.append(total)
    if steps > 1 and total > first:  # otherwise the difference is below timing noise: nothing measured
        m.step_seconds.append((total - first) / (steps - 1))


def run_benchmark(bundle, backends: list[str], lengths=(8, 16, 30), repeats: int = 5, threads: int = 2,
                  prompts: list[str] | None = None, progress: Callable[[str], None] = print) -> list[dict]:
    """Exported variants that are missing or stale (CTranslate2's too) are built first."""
    c = bundle.config.model
    if c.members > 1 and any(VARIANTS[b].format == "ctranslate2" for b in backends):
        progress("CTranslate2 runs one model, not an ensemble: its rows are left out")
        backends = [b for b in backends if VARIANTS[b].format != "ctranslate2"]
        if not backends:
            raise StudioError(f"{bundle.path} is an ensemble, which CTranslate2 cannot run: choose other backends")
    prompts = prompts or list(task_named(bundle.config.task.task).prompts[3:4])
    sources = [bundle.preprocessor.encode(p)[0] for p in prompts]
    greedy = DecodeSpec.for_model(c)
    lengths = [min(n, greedy.max_new_tokens) for n in lengths]
    reference = load_runtime(bundle, "tf")
    expected = decode(reference, sources, greedy, TokenByToken())
    export_dir = ensure_exported(bundle, [b for b in backends if VARIANTS[b].exported], progress=progress)

    runners, match = {}, {}
    for backend in backends:
        progress(f"Loading {backend}...")
        if VARIANTS[backend].format == "ctranslate2":
            from studio.latency.ctranslate2_model import CTranslate2Model  # deferred: CTranslate2 is bench-only

            ct2 = CTranslate2Model(export_dir / VARIANTS[backend].files[0].split("/")[0], bundle, threads)
            runners[backend] = lambda source, steps, m, ct2=ct2: timed_ctranslate2_decode(ct2, source, steps, m)
            outputs = ct2.greedy(sources, greedy.max_new_tokens)
        else:
            runtime = load_runtime(bundle, backend, threads=threads)
            runners[backend] = (lambda source, steps, m, rt=runtime: timed_runtime_decode(
                rt, source, DecodeSpec(c.bos_id, c.eos_id, steps, c.pad_id, min_new_tokens=steps), m))
            outputs = decode(runtime, sources, greedy, TokenByToken())
        match[backend] = sum(a == b for a, b in zip(outputs, expected)) / len(expected)
        for steps in lengths:  # warm-up: tracing, allocation, first-call costs
            runners[backend](sources[0], steps, Measurement())

    results = {(b, n): Measurement() for b in backends for n in lengths}
    for repeat in range(repeats):
        progress(f"Round {repeat + 1}/{repeats}...")
        for steps in lengths:
            for backend in backends:
                runners[backend](sources[repeat % len(sources)], steps, results[(backend, steps)])

    rows = []
    for (backend, steps), m in results.items():
        rows.append({"backend": VARIANTS[backend].format, "variant": VARIANTS[backend].label, "runtime": backend, "output_tokens": steps,
                     "threads": threads, "repeats": repeats,
                     "ms_per_token_p50": _percentile(m.step_seconds, 50),
                     "ms_per_token_p90": _percentile(m.step_seconds, 90),
                     "first_token_ms_p50": _percentile(m.first_token_seconds, 50),
                     "total_ms_p50": _percentile(m.total_seconds, 50),
                     "outputs_match_tf": match[backend],
                     "source_tokens": [len(s) for s in sources]})
    by_key = {(r["runtime"], r["output_tokens"]): r for r in rows}
    for row in rows:
        naive = by_key.get(("tf-naive", row["output_tokens"]))
        ct2 = by_key.get(("ctranslate2", row["output_tokens"]))
        row["speedup_vs_tf_naive"] = _ratio(naive and naive["total_ms_p50"], row["total_ms_p50"])
        row["ms_per_token_vs_ctranslate2"] = _ratio(row["ms_per_token_p50"], ct2 and ct2["ms_per_token_p50"])
    return rows



def run_beam_cost(bundle, backends: list[str], beam_size: int, repeats: int = 5, threads: int = 2,
                  prompts: list[str] | None = None, progress: Callable[[str], None] = print) -> list[dict]:
    """What beam search costs beside greedy, end to end as the product decodes (the output-length cap of the
    task, the task's length penalty): per backend, the time of greedy and of beam `beam_size` on the same inputs,
    each summed over every round (rounds alternate the two, round-robin over the backends)."""
    c = bundle.config.model
    task = task_named(bundle.config.task.task)
    penalty = dict(task.decoding).get("length_penalty", 1.0) if dict(task.decoding).get("strategy") == "beam" else 1.0
    beam = DecodeOptions("beam", beam_size=beam_size, length_penalty=penalty).validate()
    prompts = prompts or list(task.prompts)
    sources = [bundle.preprocessor.encode(p)[0] for p in prompts]
    caps = [DecodeSpec.for_model(c, length_cap(len(s)) if task.length_follows_source else None) for s in sources]
    # not CTranslate2 (its own beam search), the naive loop (no beam search) or batch-1 graphs (one row only)
    chosen = [b for b in backends if VARIANTS[b].format != "ctranslate2" and b != "tf-naive" and VARIANTS[b].batch != 1]
    ensure_exported(bundle, [b for b in chosen if VARIANTS[b].exported], progress=progress)
    runtimes = {b: load_runtime(bundle, b, threads=threads) for b in chosen}
    seconds = {(b, kind): 0.0 for b in chosen for kind in ("greedy", "beam")}
    for runtime in runtimes.values():  # warm-up
        decode(runtime, [sources[0]], caps[0], strategy_for(beam))
    for repeat in range(repeats):
        progress(f"Beam round {repeat + 1}/{repeats}...")
        for source, spec in zip(sources, caps):
            for backend, runtime in runtimes.items():
                for kind, strategy in (("greedy", TokenByToken()), ("beam", strategy_for(beam))):
                    started = time.perf_counter()
                    decode(runtime, [source], spec, strategy)
                    seconds[(backend, kind)] += time.perf_counter() - started
    calls = repeats * len(sources)
    return [{"runtime": b, "variant": VARIANTS[b].label, "beam_size": beam_size, "length_penalty": penalty,
             "inputs": len(sources), "repeats": repeats, "threads": threads,
             "greedy_ms_mean": seconds[(b, "greedy")] / calls * 1000,
             "beam_ms_mean": seconds[(b, "beam")] / calls * 1000,
             "beam_vs_greedy": seconds[(b, "beam")] / seconds[(b, "greedy")]} for b in chosen]


def latency_figure(rows: list[dict], title: str):
    """Three panels (ms/token, first token, total), one bar per backend, log scale; the naive loop in red."""
    import matplotlib.ticker  # deferred: every `studio` command imports this module, few draw
    from matplotlib.figure import Figure  # deferred with matplotlib.ticker above

    chosen = sorted(rows, key=lambda r: r["total_ms_p50"])
    names = [r["runtime"] for r in chosen]
    figure = Figure(figsize=(14, 0.45 * len(names) + 1.6))  # not registered with pyplot: nothing to close
    axes = figure.subplots(1, 3)
    for axis, key, label in zip(axes, ("ms_per_token_p50", "first_token_ms_p50", "total_ms_p50"),
                                ("ms per token", "time to first token, ms", "total ms")):
        values = [r[key] or 0.0 for r in chosen]  # 0: not measured (e.g. below timing noise)
        floor = min((v for v in values if v > 0), default=1.0)
        axis.barh(names, [v if v > 0 else np.nan for v in values],
                  color=["#d62728" if n == "tf-naive" else "#1f77b4" for n in names])
        axis.set_title(label)
        axis.set_xscale("log")
        axis.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        axis.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        axis.invert_yaxis()
        for y, value in enumerate(values):  # on a log axis a label at 0 would be drawn at -infinity
            axis.text(value if value > 0 else floor, y, f" {value:.2f}" if value > 0 else " not measured",
                      va="center", fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def plot(rows: list[dict], path: Path) -> None:
    longest = max(r["output_tokens"] for r in rows)
    chosen = [r for r in rows if r["output_tokens"] == longest]
    figure = latency_figure(chosen, f"Decode latency, {longest} tokens, batch 1, {chosen[0]['threads']} threads "
                                    "(median; lower is better)")
    figure.savefig(path, dpi=110)
