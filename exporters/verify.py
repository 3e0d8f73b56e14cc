"""Do the exported graphs compute what TensorFlow computes? Two checks per exported backend:
max |logit difference| along teacher-forced decode steps (of `decode_step` and, where the graphs have it, of
`decode_rows`, which serves batched requests), and the share of sample inputs whose greedy output is identical
to TF's. Quantized variants report both; only fp32 graphs are expected to match."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from studio.generate import DecodeSpec, Forced, TokenByToken, decode, decode_steps, pad_batch
from studio.runtimes import load_runtime
from studio.runtimes.base import steps_rows
from studio.tasks import task_named
from studio.variants import EXPORTED_BACKENDS, VARIANTS


class _RowsAsStep:
    """`runtime` with `step` run by `decode_rows`, every row at the step's position: the same logits are due."""

    def __init__(self, runtime):
        self.runtime = runtime

    def encode(self, source_ids):
        return self.runtime.encode(source_ids)

    def step(self, state, tokens, position: int):
        return self.runtime.step_rows(state, tokens, np.full(len(tokens), position, np.int32))

    def select(self, state, rows):
        return self.runtime.select(state, rows)


def _forced_logits(runtime, sources, targets, spec) -> list[np.ndarray]:
    return [np.array(logits) for logits in decode_steps(runtime, sources, spec, Forced(targets))]


def verify_exports(bundle, export_dir: Path, backends=None, samples: list[str] | None = None) -> dict:
    """The two checks for `backends` in `export_dir`, an export `export_bundle` has just written (its files are
    not hashed against the manifest again)."""
    samples = samples or list(task_named(bundle.config.task.task).samples)
    sources = [bundle.preprocessor.encode(text)[0] for text in samples]
    spec = DecodeSpec.for_model(bundle.config.model)
    reference = load_runtime(bundle, "tf")
    tf_outputs = decode(reference, sources, spec, TokenByToken())
    # teacher-force TF's own greedy outputs so every step is compared on the same prefix
    targets = pad_batch([[spec.bos] + out for out in tf_outputs], spec.pad)[:, : spec.max_new_tokens]
    expected = _forced_logits(reference, sources, targets, spec)
    results = {}
    for backend in backends or EXPORTED_BACKENDS:
        if not all((Path(export_dir) / f).is_file() for f in VARIANTS[backend].files):
            continue
        runtime = load_runtime(bundle, backend, export_dir=export_dir, checked=True)
        outputs = decode(runtime, sources, spec, TokenByToken())
        compared = list(zip(expected, _forced_logits(runtime, sources, targets, spec)))
        if steps_rows(runtime):
            compared += zip(expected, _forced_logits(_RowsAsStep(runtime), sources, targets, spec))
        results[backend] = {
            "max_abs_logit_diff": max(float(np.max(np.abs(a - b))) for a, b in compared),
            "decode_rows_checked": steps_rows(runtime),
            "greedy_match_rate": sum(a == b for a, b in zip(outputs, tf_outputs)) / len(samples),
            "samples": len(samples),
        }
    return results
