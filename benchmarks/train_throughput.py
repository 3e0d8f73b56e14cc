"""Training throughput: Transformer Studio's pipeline vs. the tutorials' `model.fit`, measured in one run.

Same model (the chatbot preset: 2 layers, d_model 256, 8 heads, d_ff 512), same tokenizer, same data,
same optimizer and loss. Rows:
  tutorial   `model.fit`, no XLA, every batch padded to the maximum length (40), 64 sentences a batch
  xla-fixed  our XLA-compiled train step, still padded to the maximum length (isolates XLA's share)
  studio     our XLA-compiled train step over length-bucketed batches (what `studio train` does)
Rounds alternate between the rows so machine noise hits them alike; the median round counts.
Throughput is real (non-padding) target tokens per second.

    python benchmarks/train_throughput.py --data-dir ../shared/data [--steps 40 --rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from rich.console import Console  # noqa: E402

from studio.config import chatbot_preset  # noqa: E402
from studio.data import BucketedBatches, clean_pairs, encode_pairs, read_chatbot_csv, split_train_dev  # noqa: E402
from studio.data.sources import chatbot_csv  # noqa: E402
from studio.model import Transformer  # noqa: E402
from studio.text import TextPipeline, TokenizerPair, train_tokenizer  # noqa: E402
from studio.train.loss import masked_loss  # noqa: E402
from studio.train.schedule import make_optimizer  # noqa: E402
from studio.train.trainer import Trainer  # noqa: E402


def fixed_padding_batches(examples, batch_size, length, bos, eos, seed=0):
    """The tutorials' input: every sentence padded to `length`, shuffled once, full batches."""
    order = np.random.default_rng(seed).permutation(len(examples))
    source = np.zeros((len(examples), length), np.int32)
    target_in = np.zeros_like(source)
    target_out = np.zeros_like(source)
    for row, index in enumerate(order):
        e = examples[index]
        source[row, : len(e.source)] = e.source
        target_in[row, : len(e.target) + 1] = [bos] + e.target
        target_out[row, : len(e.target) + 1] = e.target + [eos]
    usable = len(examples) // batch_size * batch_size
    return [(source[i:i + batch_size], target_in[i:i + batch_size], target_out[i:i + batch_size])
            for i in range(0, usable, batch_size)]


class Cycle:
    def __init__(self, batches):
        self.batches, self.index = list(batches), 0

    def take(self, count):
        out = []
        for _ in range(count):
            out.append(self.batches[self.index % len(self.batches)])
            self.index += 1
        return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--steps", type=int, default=40, help="train steps per row per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=None, help="sentences per batch [default: the preset's 64]")
    parser.add_argument("--json", default=None, help="also write the rows here")
    args = parser.parse_args(argv)
    console = Console()

    config = chatbot_preset()
    # the tutorial's text for every row (the rows compare training loops, not text pipelines)
    pairs = clean_pairs(read_chatbot_csv(chatbot_csv(args.data_dir)), TextPipeline("tutorial"))
    train_pairs, _ = split_train_dev(pairs, config.train.dev_fraction, config.train.split_seed)
    tokenizer = train_tokenizer("sentencepiece", [p.source for p in train_pairs] + [p.target for p in train_pairs],
                                config.tokenizer.vocab_size)
    m = config.model
    m.src_vocab_size = m.tgt_vocab_size = tokenizer.vocab_size
    examples = encode_pairs(train_pairs, TokenizerPair(tokenizer, tokenizer), m.max_source_len, m.max_target_len)
    max_len = max(m.max_source_len, m.max_target_len)
    batch = config.train.batch_size = args.batch_size or config.train.batch_size
    console.print(f"{len(examples):,} training pairs; model d_model {m.d_model}, {m.num_layers} layers, "
                  f"vocabulary {tokenizer.vocab_size:,}; batch {batch}; {os.cpu_count()} CPU cores")

    # tutorial: model.fit without XLA on fixed-length batches
    tf.keras.utils.set_random_seed(0)
    tutorial_model = Transformer(m).build_weights()
    tutorial_model.compile(optimizer=make_optimizer(m.d_model, config.train.warmup_steps),
                           loss=lambda y, p: masked_loss(y, p, m.pad_id, config.train.label_smoothing),
                           jit_compile=False)
    fixed = fixed_padding_batches(examples, batch, max_len, m.bos_id, m.eos_id)
    tutorial_cycle = Cycle(fixed)

    def run_tutorial(steps):
        chosen = tutorial_cycle.take(steps)
        source, target_in, target_out = (np.concatenate(parts) for parts in zip(*chosen))
        dataset = tf.data.Dataset.from_tensor_slices(((source, target_in), target_out)).batch(batch)
        start = time.perf_counter()
        tutorial_model.fit(dataset, epochs=1, verbose=0)
        return time.perf_counter() - start, int(sum((o != 0).sum() for _, _, o in chosen))

    # ours: the Trainer's XLA-compiled step, on fixed-length and on bucketed batches
    with tempfile.TemporaryDirectory() as scratch:
        bucketed = BucketedBatches(examples, batch, config.train.bucket_width, max_len, m.bos_id, m.eos_id,
                                   m.pad_id, seed=0)
        studio_trainer = Trainer(config, bucketed, None, scratch, Console(quiet=True))
        xla_fixed_trainer = Trainer(config, bucketed, None, scratch, Console(quiet=True))
        studio_cycle = Cycle(bucketed.epoch(0))
        xla_fixed_cycle = Cycle(fixed)

        def runner(trainer, cycle):
            def run(steps):
                chosen = cycle.take(steps)
                start = time.perf_counter()
                tokens = 0
                for b in chosen:
                    tokens += int(np.asarray(trainer._train_step(*b))[3])
                return time.perf_counter() - start, tokens
            return run

        rows = {"tutorial": run_tutorial, "xla-fixed": runner(xla_fixed_trainer, xla_fixed_cycle),
                "studio": runner(studio_trainer, studio_cycle)}
        console.print("Warming up (graph building and XLA compilation of every bucket shape)...")
        warmup = {}
        for name, run in rows.items():
            steps = len(bucketed.buckets) * 2 if name == "studio" else 3
            if name == "studio":  # make sure every bucket shape is compiled before timing
                studio_cycle.batches.sort(key=lambda b: b[0].shape[1])
                seen, first = set(), []
                for b in studio_cycle.batches:
                    if b[0].shape not in seen:
                        seen.add(b[0].shape)
                        first.append(b)
                start = time.perf_counter()
                for b in first:
                    studio_trainer._train_step(*b)
                warmup[name] = time.perf_counter() - start
                studio_cycle.batches = list(bucketed.epoch(1))
            else:
                warmup[name] = run(steps)[0]
        rates = {name: [] for name in rows}
        for round_index in range(args.rounds):
            for name, run in rows.items():
                seconds, tokens = run(args.steps)
                rates[name].append(tokens / seconds)
            console.print(f"round {round_index + 1}: " + ", ".join(f"{n} {r[-1]:,.0f} tok/s" for n, r in rates.items()))

    baseline = statistics.median(rates["tutorial"])
    results = []
    console.print(f"\nTarget tokens per second (median of {args.rounds} rounds x {args.steps} steps):")
    for name in rows:
        median = statistics.median(rates[name])
        results.append({"row": name, "target_tokens_per_second": round(median, 1),
                        "speedup_vs_tutorial": round(median / baseline, 2), "warmup_seconds": round(warmup[name], 1)})
        console.print(f"  {name:10s} {median:10,.0f} tok/s   x{median / baseline:5.2f} vs tutorial   "
                      f"(warm-up {warmup[name]:.1f}s)")
    padded_fraction = 1 - sum(len(e.target) + 1 for e in examples) / (len(examples) * max_len)
    console.print(f"Fixed padding to {max_len} wastes {padded_fraction:.0%} of every target batch on this corpus.")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=2)
    return results


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
