"""Train the one Transformer definition on a JAX accelerator, and back-translate with it.

The CPU/TensorFlow trainer (`studio train`) stays the default. This module is for a machine with a GPU and
JAX but no TensorFlow: the same `studio.model.Transformer` (written with `keras.ops`) runs on Keras' JAX
backend, batches come from NumPy, and the weights it writes load into an ordinary bundle
(each run folder is a complete bundle).

Input is a prepared folder (`python -m studio.train.prepare_accelerated`): the bundle config, the tokenizer, `train.tsv`
(`source<TAB>target<TAB>origin`, already through the task's text pipeline) and `dev/*.tsv`.

    KERAS_BACKEND=jax python -m studio.train.accelerated train --data PREP --out RUN --minutes 10
    KERAS_BACKEND=jax python -m studio.train.accelerated translate --run RUN --input en.txt --output bt.tsv

What it does per run: SentencePiece subword sampling each epoch (free at inference), per-source weights
(`--weights news=3,bible_krv_web=0.5`; synthetic back-translated pairs carry the origin `bt` and a `<bt>`
tag as their first source token), fixed length buckets (one compiled training shape each), dev loss and greedy dev
chrF on every tuning set every `--eval-minutes`, and at the end the highest-dev-chrF choice among the last
weights, the best evaluation and the mean of the last checkpoints, stored as float16.

Two deliberate exceptions to "one home": batches use fixed bucket lengths (`BUCKETS`, few compiled shapes on an
accelerator) rather than `BucketedBatches`' width grid, and greedy decoding for evaluation and back-translation is
the model's own `decode_step` under one compiled `jax.lax.scan` rather than `studio.generate`'s per-step NumPy
loop, which would leave a GPU idle between steps.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import keras
import numpy as np
import sacrebleu

from studio.bundle import load_bundle, save_bundle
from studio.config import BundleConfig, apply_overrides
from studio.data.pipeline import check_source_weights, parse_source_weights, weighted_indices
from studio.data.sources import KOEN_SOURCES
from studio.model import Transformer
from studio.model.ensemble import refuse_training
from studio.text.tokenizers import BACK_TRANSLATION_TAG, TokenizerPair
from studio.train.card import model_card
from studio.train.loss import masked_sums
from studio.train.run import config_from_args
from studio.train.schedule import ADAM, transformer_lr
from studio.weights import assign_arrays

BUCKETS = (16, 32, 48, 64, 96, 128, 160, 192, 256)


# ---- data ----------------------------------------------------------------------------------------
def read_tsv(path: Path) -> list[list[str]]:
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0].strip() and parts[1].strip():
            rows.append(parts)
    return rows


class Encoder:
    """Source/target text -> ids, deterministic or with unigram subword sampling."""

    def __init__(self, tokenizers: TokenizerPair, alpha: float):
        self.source, self.target, self.alpha = tokenizers.source, tokenizers.target, alpha
        tag = self.source.encode(BACK_TRANSLATION_TAG)
        self.bt_id = tag[-1] if self.source.id_to_piece(tag[-1]) == BACK_TRANSLATION_TAG else None

    def __call__(self, tokenizer, texts: list[str], sample: bool) -> list[list[int]]:
        return tokenizer.encode_many(texts, self.alpha if sample else 0.0, threads=8)


def make_batches(sources, targets, tags, cfg, batch_tokens: int, rng, eos=2, bos=1, pad=0, lengths=BUCKETS):
    """Bucketed, padded (source, target_in, target_out) int32 batches with one shape per bucket (`lengths`;
    () = every batch padded to the longest length: one shape)."""
    max_len = max(cfg.max_source_len, cfg.max_target_len)
    buckets: dict[int, list[int]] = {}
    for i, (s, t) in enumerate(zip(sources, targets)):
        s_len, t_len = len(s) + 1 + (1 if tags[i] else 0), len(t) + 1
        if s_len > cfg.max_source_len or t_len > cfg.max_target_len or not s or not t:
            continue
        longest = max(s_len, t_len)
        length = next((b for b in lengths if b >= longest), max_len)
        buckets.setdefault(min(length, max_len), []).append(i)
    plan = []
    for length, members in buckets.items():
        members = np.array(members)
        rng.shuffle(members)
        rows = max(8, batch_tokens // length // 8 * 8)
        plan += [(length, rows, members[i: i + rows]) for i in range(0, len(members), rows)]
    rng.shuffle(plan)
    for length, rows, members in plan:
        src = np.full((rows, length), pad, np.int32)
        tin = np.full((rows, length), pad, np.int32)
        tout = np.full((rows, length), pad, np.int32)
        for r, i in enumerate(members):
            s = ([tags[i]] if tags[i] else []) + sources[i] + [eos]
            src[r, :len(s)] = s
            tin[r, :len(targets[i]) + 1] = [bos] + targets[i]
            tout[r, :len(targets[i]) + 1] = targets[i] + [eos]
        yield src, tin, tout


# ---- the run ------------------------------------------------------------------------------------
class Run:
    """The model, its tokenizers and the jitted train/eval/greedy functions of one run."""

    def __init__(self, config: BundleConfig, tokenizers: TokenizerPair, weights: dict | None = None):
        import jax  # only here: importing this module (its tests run Keras on TensorFlow) must not need JAX

        self.jax = jax
        self.config = config
        self.tokenizers = tokenizers
        refuse_training(config.model, weights)
        self.model = Transformer(config.model).build_weights()
        if weights is not None:
            assign_arrays(self.model.weights, weights)
        self.optimizer = None

    # jitted pieces: the train step compiles once per bucket shape, the evaluation once (one dev shape)
    def _state_mapping(self, trainable, non_trainable):
        return list(zip(self.model.trainable_variables, trainable)) + list(
            zip(self.model.non_trainable_variables, non_trainable))

    def compile(self, warmup: int, lr_scale: float, smoothing: float, constant: float = 0.0):
        """The learning rate is an input of the compiled step (`self.learning_rate(step)`), not a constant in
        it: runs that differ only in their schedule (a warm start's lower rate) compile the same programs, so
        with JAX's persistent compilation cache a later run of a lease starts training without compiling."""
        jax, model, pad = self.jax, self.model, self.config.model.pad_id
        d_model = self.config.model.d_model
        self.learning_rate = lambda step: np.float32(transformer_lr(step + 1, d_model, warmup, lr_scale, constant))
        self.optimizer = keras.optimizers.Adam(1.0, **ADAM)  # 1.0: replaced by the step's input
        self.optimizer.build(model.trainable_variables)
        rate = next(i for i, v in enumerate(self.optimizer.variables) if v.name == "learning_rate")

        def loss_fn(trainable, non_trainable, src, tin, tout):
            logits, non_trainable = model.stateless_call(trainable, non_trainable, (src, tin), training=True)
            loss_sum, nll_sum, _, count = masked_sums(logits, tout, pad, smoothing)
            return loss_sum / keras.ops.maximum(count, 1.0), (non_trainable, nll_sum, count)

        grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

        def train_step(state, learning_rate, src, tin, tout):
            trainable, non_trainable, opt_vars = state
            opt_vars = [learning_rate if i == rate else v for i, v in enumerate(opt_vars)]
            (loss, (non_trainable, nll, count)), grads = grad_fn(trainable, non_trainable, src, tin, tout)
            trainable, opt_vars = self.optimizer.stateless_apply(opt_vars, grads, trainable)
            return (trainable, non_trainable, opt_vars), nll, count

        def eval_step(trainable, non_trainable, src, tin, tout):
            logits, _ = model.stateless_call(trainable, non_trainable, (src, tin), training=False)
            _, nll_sum, correct, count = masked_sums(logits, tout, pad, 0.0)
            return nll_sum, correct, count

        self.train_step = jax.jit(train_step, donate_argnums=0)
        self.eval_step = jax.jit(eval_step)
        self.greedy = jax.jit(self._greedy)

    def _greedy(self, trainable, non_trainable, src):
        """Cached greedy decoding of a padded source batch: the model's own decode_step, scanned."""
        jax, model, c = self.jax, self.model, self.config.model
        with keras.StatelessScope(state_mapping=self._state_mapping(trainable, non_trainable)):
            encoder_output, mask = model.encode(src)
            cross = model.cross_key_values(encoder_output)
            cache = model.empty_cache(src.shape[0])

            def step(carry, position):
                tokens, cache = carry
                logits, cache = model.decode_step(tokens, position, cache, cross, mask)
                tokens = keras.ops.cast(keras.ops.argmax(logits, axis=-1), "int32")
                return (tokens, cache), tokens

            start = keras.ops.full((src.shape[0],), c.bos_id, "int32")
            _, outputs = jax.lax.scan(step, (start, cache), keras.ops.arange(c.max_target_len - 1))
        return keras.ops.transpose(outputs)

    def state(self):
        return ([v.value for v in self.model.trainable_variables],
                [v.value for v in self.model.non_trainable_variables],
                [v.value for v in self.optimizer.variables])

    # evaluation
    def dev_loss(self, state, batches) -> float:
        trainable, non_trainable, _ = state
        nll = count = 0.0
        for src, tin, tout in batches:
            n, _, k = self.eval_step(trainable, non_trainable, src, tin, tout)
            nll, count = nll + float(n), count + float(k)
        return nll / max(count, 1.0)

    def translate(self, state, ids_list: list[list[int]], rows: int = 256) -> list[list[int]]:
        trainable, non_trainable = state[0], state[1]
        c = self.config.model
        eos = c.eos_id
        order = sorted(range(len(ids_list)), key=lambda i: len(ids_list[i]))
        results: list[list[int]] = [[] for _ in ids_list]
        for start in range(0, len(order), rows):
            chunk = order[start: start + rows]
            src = np.zeros((rows, c.max_source_len), np.int32)
            for r, i in enumerate(chunk):
                ids = ids_list[i][: c.max_source_len - 1] + [eos]
                src[r, :len(ids)] = ids
            out = np.asarray(self.greedy(trainable, non_trainable, src))
            for r, i in enumerate(chunk):
                row = out[r].tolist()
                results[i] = row[: row.index(eos)] if eos in row else row
        return results


def chrf(hypotheses: list[str], references: list[str]) -> float:
    return float(sacrebleu.metrics.CHRF().corpus_score(hypotheses, [references]).score)


def train(args) -> None:
    data, out = Path(args.data), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    config, tokenizers = _settings(args, data)
    # a warm start: every weight from a finished run or bundle of the same shape (assign_arrays names any mismatch)
    run = Run(config, tokenizers, load_bundle(Path(args.init_from)).weights if args.init_from else None)
    encoder = Encoder(run.tokenizers, args.alpha)
    corpus = _Corpus.read(args, data, encoder)
    config.train.source_weights, config.train.subword_alpha = args.weights, args.alpha  # recorded in the bundle
    dev_sets = _dev_sets(args, data, encoder, config)
    run.compile(config.train.warmup_steps, config.train.lr_scale, config.train.label_smoothing,
                config.train.learning_rate)
    loop = _Loop(run, dev_sets, out, args)
    state = loop.train(corpus, config)
    chosen, scored = loop.choose(state)
    metrics = {"task": config.task.task, "direction": args.direction, "weights": chosen,
               "parameters": run.model.parameter_count(), "steps": loop.step, "epochs_trained": loop.epoch,
               "train_seconds": round(loop.train_seconds, 1), "train_target_tokens": loop.tokens,
               "train_target_tokens_per_second": round(loop.tokens / loop.train_seconds, 1),
               "dev_loss": scored[chosen]["dev_loss"], "chosen_by": "mean greedy dev chrF", "candidates": scored,
               "history": loop.history,
               "recipe": {"alpha": args.alpha, "source_weights": corpus.weights, "batch_tokens": args.batch_tokens,
                          "synthetic": bool(args.synthetic), "tagged": bool(corpus.bt_id)},
               "device": str(run.jax.devices()[0])}
    if args.init_from:
        metrics["initialized_from"] = args.init_from
    if args.synthetic:
        metrics["synthetic_pairs"] = corpus.origins.count("bt")
        metrics["synthetic_file"] = Path(args.synthetic).name
    save_bundle(out, config, run.tokenizers, run.model, metrics, model_card(config, metrics, config.task.sources))
    print(f"done: {loop.step} steps, {loop.epoch} epochs, chose {chosen} (mean dev chrF "
          f"{loop.mean_chrf(scored[chosen]):.2f}, dev loss {scored[chosen]['dev_loss']}); bundle in {out}", flush=True)


def _settings(args, data: Path) -> tuple[BundleConfig, TokenizerPair]:
    """The prepared folder's config (or --config) with --set applied, and its tokenizers (swapped for EN->KO)."""
    config = BundleConfig.load(Path(args.config) if args.config else data / "config.json")
    if args.set:
        config = apply_overrides(config, config_from_args(args.set))
    tokenizers = TokenizerPair.load(data / "tokenizer")
    if args.direction == "enko":  # the trainer does not care about direction: swap the sides
        tokenizers = TokenizerPair(tokenizers.target, tokenizers.source)
        config.task.source_lang, config.task.target_lang = "en", "ko"
    return config, tokenizers


@dataclass
class _Corpus:
    """The training pairs as text, with each one's origin, weight and source tag (`<bt>` for synthetic pairs)."""
    encoder: Encoder
    sources: list[str]
    targets: list[str]
    origins: list[str]
    weights: dict[str, float]  # per origin (--weights)
    example_weights: np.ndarray
    tags: list[int]  # a first source token per pair (0: none)
    bt_id: int | None

    @classmethod
    def read(cls, args, data: Path, encoder: Encoder) -> "_Corpus":
        rows = read_tsv(data / "train.tsv")
        if args.direction == "enko":
            rows = [[r[1], r[0], *r[2:]] for r in rows]
        if args.synthetic:
            synthetic = read_tsv(Path(args.synthetic))
            cap = len(rows) if args.max_synthetic < 0 else args.max_synthetic
            rows += [[s, t, "bt"] for s, t, *_ in synthetic[:cap]]
        origins = [r[2] if len(r) > 2 else "" for r in rows]
        weights = parse_source_weights(args.weights)
        check_source_weights(weights, set(origins), set(KOEN_SOURCES) | {"bt"})
        bt_id = encoder.bt_id if args.tag_synthetic else None
        return cls(encoder, [r[0] for r in rows], [r[1] for r in rows], origins, weights,
                   np.array([weights.get(o, 1.0) for o in origins]),
                   [bt_id if (o == "bt" and bt_id) else 0 for o in origins], bt_id)

    def epoch_batches(self, config: BundleConfig, batch_tokens: int, epoch_rng, lengths=BUCKETS) -> list:
        """One epoch: pairs drawn by weight, subword-sampled, in shuffled length buckets."""
        index = weighted_indices(self.example_weights, epoch_rng)
        s = self.encoder(self.encoder.source, [self.sources[i] for i in index], True)
        t = self.encoder(self.encoder.target, [self.targets[i] for i in index], True)
        return list(make_batches(s, t, [self.tags[i] for i in index], config.model, batch_tokens, epoch_rng,
                                 lengths=lengths))


def _dev_sets(args, data: Path, encoder: Encoder, config: BundleConfig) -> dict:
    """Each tuning set of the prepared folder: its encoded sources, references and dev-loss batches."""
    dev_sets = {}
    for path in sorted((data / "dev").glob("*.tsv")):
        pairs = read_tsv(path)
        if args.direction == "enko":
            pairs = [[p[1], p[0]] for p in pairs]
        src = encoder(encoder.source, [p[0] for p in pairs], False)
        tgt = encoder(encoder.target, [p[1] for p in pairs], False)
        # one padded shape for every dev batch: the evaluation compiles once, not once per bucket
        batches = list(make_batches(src, tgt, [0] * len(src), config.model, 8192, np.random.default_rng(0),
                                    lengths=()))
        dev_sets[path.stem] = dict(src=src, refs=[p[1] for p in pairs], batches=batches)
    return dev_sets


class _Loop:
    """The training loop of one run: steps until the time or step budget, a dev evaluation every
    --eval-minutes (the history, the snapshots to average, the best weights by dev chrF), then the choice."""

    def __init__(self, run: Run, dev_sets: dict, out: Path, args):
        self.run, self.dev_sets, self.out, self.args = run, dev_sets, out, args
        self.history, self.snapshots, self.best = [], [], (-math.inf, None)
        self.step = self.tokens = self.epoch = 0
        self.started = time.monotonic()
        self.train_seconds = 0.0

    def evaluate(self, state, label) -> dict:
        run = self.run
        record = {"step": self.step, "minutes": round((time.monotonic() - self.started) / 60, 2),
                  "epoch": self.epoch, "target_tokens": self.tokens, "label": label}
        losses = []
        for name, dev in self.dev_sets.items():
            loss = run.dev_loss(state, dev["batches"])
            hyps = [run.tokenizers.target.decode(ids) for ids in run.translate(state, dev["src"])]
            record[name] = {"loss": round(loss, 4), "chrf": round(chrf(hyps, dev["refs"]), 2)}
            record[name + "_samples"] = hyps[:3]
            losses.append(loss)
        record["dev_loss"] = round(float(np.mean(losses)), 4)
        return record

    def mean_chrf(self, record) -> float:
        return float(np.mean([record[name]["chrf"] for name in self.dev_sets]))

    def train(self, corpus: _Corpus, config: BundleConfig):
        """Train until the budget is spent (the next epoch's batches prepared in a thread meanwhile); the state."""
        args, run = self.args, self.run
        state = run.state()
        budget = args.minutes * 60
        next_eval = args.eval_minutes * 60
        self.started = time.monotonic()
        lengths = tuple(int(n) for n in args.buckets.split(",")) if args.buckets else BUCKETS
        pending = {"batches": corpus.epoch_batches(config, args.batch_tokens,
                                                   np.random.default_rng([config.train.seed, 0]), lengths)}
        while time.monotonic() - self.started < budget and self.step < args.max_steps:
            batches = pending["batches"]
            self.epoch += 1
            worker = threading.Thread(target=lambda e=self.epoch: pending.update(batches=corpus.epoch_batches(
                config, args.batch_tokens, np.random.default_rng([config.train.seed, e]), lengths)))
            worker.start()
            for src, tin, tout in batches:
                state, _, count = run.train_step(state, run.learning_rate(self.step), src, tin, tout)
                self.step += 1
                self.tokens += int((tout != 0).sum())
                elapsed = time.monotonic() - self.started
                if elapsed >= next_eval or elapsed >= budget or self.step >= args.max_steps:
                    next_eval += args.eval_minutes * 60
                    self._checkpoint(state)
                if elapsed >= budget or self.step >= args.max_steps:
                    break
            worker.join()
        self.train_seconds = time.monotonic() - self.started
        return state

    def _checkpoint(self, state) -> None:
        """A dev evaluation of the current weights: printed, kept in the history, a snapshot to average."""
        record = self.evaluate(state, "current")
        self.history.append(record)
        print(json.dumps({k: v for k, v in record.items() if not k.endswith("_samples")}), flush=True)
        self.snapshots = (self.snapshots + [[np.array(v) for v in state[0]]])[-self.args.average_last:]  # copies
        if self.mean_chrf(record) > self.best[0]:
            self.best = (self.mean_chrf(record), [np.array(v) for v in state[0]])
        (self.out / "history.json").write_text(json.dumps(self.history, indent=1, ensure_ascii=False))

    def choose(self, state) -> tuple[str, dict]:
        """The weights to ship, assigned to the model: the last, the best evaluated or the mean of the last
        snapshots, by mean greedy dev chrF; its name and every candidate's evaluation."""
        run, snapshots = self.run, self.snapshots
        candidates = {"last": [np.asarray(v) for v in state[0]], "best": self.best[1]}
        if len(snapshots) > 1:
            candidates[f"mean_last_{len(snapshots)}"] = [np.mean([s[i] for s in snapshots], axis=0)
                                                        for i in range(len(snapshots[0]))]
        scored = {}
        for name, trainable in candidates.items():
            if trainable is None:
                continue
            record = self.evaluate((trainable, state[1], state[2]), name)
            scored[name] = record
            print(json.dumps({k: v for k, v in record.items() if not k.endswith("_samples")}), flush=True)
        # chosen by greedy dev chrF, the figure the product is judged by: the dev loss of these runs rises (the
        # model grows over-confident) while their translations still improve
        chosen = max(scored, key=lambda n: self.mean_chrf(scored[n]))
        for variable, value in zip(run.model.trainable_variables, candidates[chosen]):
            variable.assign(value)
        return chosen, scored


def translate(args) -> None:
    """Translate a file of sentences with a finished run (greedy), writing one `translation<TAB>input` line per
    input: for back-translation the synthetic Korean comes first, as a KO->EN training pair."""
    bundle = load_bundle(Path(args.run))
    config = bundle.config
    run = Run(config, bundle.tokenizers, bundle.weights)
    run.compile(config.train.warmup_steps, 1.0, 0.0)
    state = run.state()
    encoder = Encoder(run.tokenizers, 0.0)
    lines = [line.strip() for line in Path(args.input).read_text(encoding="utf-8").splitlines() if line.strip()]
    started = time.monotonic()
    ids = encoder(encoder.source, lines, False)
    outputs = run.translate(state, ids, rows=args.rows)
    with open(args.output, "w", encoding="utf-8") as handle:
        for line, out_ids in zip(lines, outputs):
            # one line per input; a translation that never ended is degenerate and left empty (training skips it)
            finished = len(out_ids) < config.model.max_target_len - 1
            text = run.tokenizers.target.decode(out_ids).replace("\t", " ").strip() if finished else ""
            handle.write(f"{text}\t{line}\n")
    print(f"translated {len(lines)} lines in {time.monotonic() - started:.1f}s", flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train")
    t.add_argument("--data", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--config", help="bundle config.json (default: the prepared folder's)")
    t.add_argument("--set", action="append", help="section.name=value, e.g. model.d_model=384")
    t.add_argument("--direction", choices=("koen", "enko"), default="koen")
    t.add_argument("--minutes", type=float, default=10.0)
    t.add_argument("--max-steps", type=int, default=10**9)
    t.add_argument("--eval-minutes", type=float, default=1.0)
    t.add_argument("--batch-tokens", type=int, default=16384)
    t.add_argument("--buckets", default="", help="padded lengths, e.g. 32,64,128: fewer compiled shapes "
                   "(less compiling, more padding); default " + ",".join(map(str, BUCKETS)))
    t.add_argument("--alpha", type=float, default=0.0, help="subword sampling alpha (0 = off; 0.1 measured worse)")
    t.add_argument("--weights", default="", help="per-origin weights, e.g. wmt24pp=3,bible_krv_web=0.5")
    t.add_argument("--synthetic", help="back-translated pairs (korean<TAB>english)")
    t.add_argument("--max-synthetic", type=int, default=-1, help="-1 = as many as real pairs")
    t.add_argument("--tag-synthetic", action="store_true")
    t.add_argument("--average-last", type=int, default=5)
    t.add_argument("--init-from", help="a bundle or run folder of the same model shape to start from")
    b = sub.add_parser("translate")
    b.add_argument("--run", required=True)
    b.add_argument("--input", required=True)
    b.add_argument("--output", required=True)
    b.add_argument("--rows", type=int, default=512)
    args = parser.parse_args(argv)
    if os.environ.get("KERAS_BACKEND", "jax") != "jax" or keras.backend.backend() != "jax":
        parser.error("run with KERAS_BACKEND=jax (this trainer uses JAX directly)")
    train(args) if args.command == "train" else translate(args)


if __name__ == "__main__":
    main()
