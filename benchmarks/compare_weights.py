"""Compare candidate weights of one training run on its dev split, greedy decoding:
dev loss / token accuracy, chrF against the references, and how often replies repeat themselves
(a repeated word bigram) or collapse onto the same few replies (distinct-reply ratio).

    python benchmarks/compare_weights.py runs/chat1 [--average 5]
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from studio.config import BundleConfig  # noqa: E402
from studio.data import BucketedBatches, Pair, encode_pairs  # noqa: E402
from studio.evaluate import repeats_itself  # noqa: E402
from studio.inference import TextGenerator  # noqa: E402
from studio.runtimes.tf_runtime import TFCachedRuntime  # noqa: E402
from studio.text.preprocess import Preprocessor  # noqa: E402
from studio.model import Transformer  # noqa: E402
from studio.text import TokenizerPair  # noqa: E402
from studio.train.checkpoints import CheckpointStore  # noqa: E402
from studio.train.loss import masked_sums  # noqa: E402
from studio.tasks import task_named  # noqa: E402
from studio.train.run import chrf_on  # noqa: E402
from studio.weights import assign_arrays, load_npz  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("run")
    parser.add_argument("--average", type=int, default=5)
    args = parser.parse_args()
    import json
    from pathlib import Path

    import numpy as np

    run = Path(args.run)
    config = BundleConfig.from_dict(json.loads((run / "run.json").read_text())["config"])
    tokenizers = TokenizerPair.load(run / "tokenizer")
    dev = [Pair(*line.split("\t")) for line in (run / "dev.tsv").read_text(encoding="utf-8").splitlines()]
    m = config.model
    examples = encode_pairs(dev, tokenizers, m.max_source_len, m.max_target_len)
    batches = BucketedBatches(examples, 64, 8, max(m.max_source_len, m.max_target_len), m.bos_id, m.eos_id)
    store = CheckpointStore(run / "checkpoints")
    candidates = {"best dev loss": load_npz(run / "best.npz")}
    last = store.all()[-1]
    candidates[f"last ({last.name})"] = load_npz(last / "model.npz")
    candidates[f"average of last {args.average}"] = store.average_weights(args.average)
    model = Transformer(m).build_weights()
    generator = TextGenerator(Preprocessor(config, tokenizers), TFCachedRuntime(model))
    prompts = list(task_named(config.task.task).prompts)
    table = Table(title=f"{run}: {len(dev)} dev pairs, greedy")
    for column in ("weights", "dev loss", "token acc", "chrF", "repeating", "distinct"):
        table.add_column(column)
    samples = {}
    for name, weights in candidates.items():
        assign_arrays(model.weights, weights)
        totals = np.zeros(4)
        for source, target_in, target_out in batches.epoch(0, shuffle=False):
            totals += [float(x) for x in masked_sums(model((source, target_in)), target_out, 0, 0.0)]
        chrf, _ = chrf_on(generator, dev)
        replies = [g.text for start in range(0, len(dev), 64)
                   for g in generator.generate([p.source for p in dev[start:start + 64]])]
        table.add_row(name, f"{totals[1] / totals[3]:.3f}", f"{totals[2] / totals[3]:.3f}", f"{chrf:.2f}",
                      f"{np.mean([repeats_itself(r) for r in replies]):.1%}", f"{len(set(replies)) / len(replies):.1%}")
        samples[name] = [g.text for g in generator.generate(prompts)]
    console = Console()
    console.print(table)
    for name, replies in samples.items():
        console.print(f"[bold]{name}[/bold]")
        for prompt, reply in zip(prompts, replies):
            console.print(f"  {prompt} -> {reply}", highlight=False)


if __name__ == "__main__":
    main()
