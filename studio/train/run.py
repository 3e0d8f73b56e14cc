"""`studio train chatbot|translator`: data -> tokenizer -> batches -> Trainer -> bundle + metrics.

The output directory is both the run directory (checkpoints/, tensorboard/, dev.tsv) and a loadable
bundle (config.json, weights.npz, tokenizer/, metrics.json, checksums.json, MODEL_CARD.md): the bundle
files are rewritten whenever the dev loss improves, so an interrupted run still leaves its best model.

`train_task` is the whole run, as the CLI starts it. A caller with its own progress reporting (a job started
from the UI) drives the same steps one by one and passes its listener of `TrainingEvent`s:

    run = prepare_run("translator", out, data_files=files, progress=listener)   # settings and data
    build_tokenizers(run)                                                        # tokenizer(s), run.json
    make_batches(run)                                                            # encoded, length-bucketed
    state = fit(run)                                                             # the Trainer's epochs
    metrics = write_bundle(run, state, select_weights(run))                      # shipped weights, card
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from studio.bundle import Bundle, load_bundle, save_bundle
from studio.config import BundleConfig, apply_overrides, check_settings, preset_config
from studio.data import BucketedBatches, Pair, clean_pairs, encode_pairs, read_pairs, split_train_dev
from studio.data.pipeline import (CURRENT_SPLIT, SPLIT_KEYS, SampledBatches, check_source_weights, parse_source_weights,
                                  source_name)
from studio.data.sources import KOEN_SOURCES, chatbot_csv, koen_source_files, select_sources
from studio.errors import StudioError
from studio.evaluate import decoding_name, score
from studio.files import atomic_write_bytes
from studio.replies import build_replies, training_side
from studio.inference import TextGenerator
from studio.tasks import TASKS, task_named
from studio.text import TokenizerPair, pipeline_for, train_tokenizer
from studio.text.preprocess import Preprocessor
from studio.train.card import model_card, sample_outputs
from studio.train.cleaning import least_likely, pair_scores
from studio.train.progress import ConsoleProgress, Listener, TrainingEvent
from studio.train.transplant import transplant
from studio.weights import assign_arrays, load_npz, save_npz, variables_to_arrays

# the files a task trains on when given none (`Task.training_data`): f(data_dir, sources) -> paths
DEFAULT_DATA = {"chatbot_csv": lambda data_dir, sources: [chatbot_csv(data_dir)],
                "koen_sources": lambda data_dir, sources: koen_source_files(select_sources(sources), data_dir)}
SELECT_BY = ("dev_loss", "dev_token_accuracy", "dev_chrf")
CHRF_SELECT_PAIRS = 100
STARTING_MODEL = "the starting model (no fine-tuned weights beat it on dev)"
LEFT_OUT = "left_out.tsv"
# train.* settings a resumed run cannot change: they decide an epoch's batches
FIXED_ON_RESUME = ("train.source_weights", "train.subword_alpha", "train.seed", "train.split_seed",
                   "train.batch_tokens", "train.batch_size", "train.bucket_width", "train.filter_share",
                   "train.rehearsal")


def read_task_pairs(task: str, data_dir=None, sources: str | None = None, data_files=None) -> tuple[list[Pair], list[str]]:
    """Raw pairs and the names of the files they came from."""
    if data_files:
        files = [Path(f) for f in data_files]
    else:
        files = DEFAULT_DATA[task_named(task).training_data](data_dir, sources)
    pairs = []
    for path in files:
        pairs += read_pairs(path)  # a .csv is read as ChatbotData's Q,A,label table
    return pairs, [str(f) for f in files]


def _tokenizers_for(config: BundleConfig, train_pairs: list[Pair]) -> TokenizerPair:
    tk = config.tokenizer
    options = dict(model_type=tk.model_type, character_coverage=tk.character_coverage)
    if tk.kind == "sentencepiece":
        options["byte_fallback"] = tk.byte_fallback
    sources = [p.source for p in train_pairs]
    targets = [p.target for p in train_pairs]
    if tk.shared:
        shared = train_tokenizer(tk.kind, sources + targets, tk.vocab_size, **options)
        return TokenizerPair(shared, shared)
    return TokenizerPair(train_tokenizer(tk.kind, sources, tk.vocab_size, **options),
                         train_tokenizer(tk.kind, targets, tk.vocab_size, **options))


def spread(pairs: list, count: int) -> list:
    """`count` pairs spread evenly over `pairs`: a corpus in topic order (ChatbotData is sorted by its labels)
    would make its first pairs a biased sample."""
    if len(pairs) <= count:
        return list(pairs)
    return [pairs[i * len(pairs) // count] for i in range(count)]


def selection_chrf(run: "TrainingRun") -> float:
    """chrF on the run's `chrf_pairs` as the app will decode the model (the task's default decoding: beam search
    for a translator, whose greedy outputs a fine-tune can leave looping where beam search does not)."""
    return chrf_on(run.generator(), chrf_pairs(run), options=task_named(run.task).default_options())[0]


def chrf_pairs(run: "TrainingRun") -> list[Pair]:
    """The dev pairs chrF is measured on during a run: `train.chrf_pairs` of them (`CHRF_SELECT_PAIRS` when chrF
    selects the weights and no number is set), spread over the dev split."""
    return spread(run.dev_pairs, run.config.train.chrf_pairs or CHRF_SELECT_PAIRS)


def chrf_on(generator, pairs: list[Pair], batch_size: int = 64, options=None) -> tuple[float, str]:
    """chrF of `generator` on `pairs` (`studio.evaluate.score`), greedy unless `options` say otherwise, and its
    sacrebleu signature."""
    chrf, signature, _ = dev_figures(generator, pairs, batch_size, options)
    return chrf, signature


def dev_figures(generator, pairs: list[Pair], batch_size: int = 64, options=None) -> tuple[float, str, float]:
    """`chrf_on`'s chrF and signature, and the share of distinct outputs (a model that says one thing to every
    input has few)."""
    hypotheses = []
    for start in range(0, len(pairs), batch_size):
        hypotheses += [g.text for g in generator.generate([p.source for p in pairs[start:start + batch_size]],
                                                          options)]
    result = score(pairs, hypotheses, decoding_name(options) if options else "greedy", 0.0)
    return float(result.chrf), result.chrf_signature, len(set(hypotheses)) / max(len(hypotheses), 1)


@dataclass
class TrainingRun:
    """One training run, as its steps hand it on: `prepare_run` (settings, data) -> `build_tokenizers` ->
    `make_batches` -> `fit` -> `select_weights` -> `write_bundle`. Each step fills in its part."""

    task: str
    out: Path
    config: BundleConfig
    progress: Listener = field(default_factory=ConsoleProgress)  # hears what the run does
    resuming: bool = False  # continues the run in `out` from its last checkpoint
    initial: Bundle | None = None  # --init-from: the bundle whose weights a new run starts from
    transplanting: bool = False  # ... with its embeddings re-indexed for another tokenizer
    tokenizer_dir: Path | None = None  # --tokenizer: a tokenizer folder to use instead of training one
    # prepare_run
    files: list[str] = field(default_factory=list)  # the data files read
    dev_files: list[str] = field(default_factory=list)  # the dev pairs' files, when given (else a split of `files`)
    general_files: list[str] = field(default_factory=list)  # where mix_in_general_pairs drew its pairs from
    general_pairs: int = 0  # ... and how many
    pairs: list[Pair] = field(default_factory=list)  # after cleaning and dedup
    train_pairs: list[Pair] = field(default_factory=list)
    dev_pairs: list[Pair] = field(default_factory=list)
    stored_pairs: list[Pair] = field(default_factory=list)  # a chatbot's: its training side as written
    # build_tokenizers
    tokenizers: TokenizerPair | None = None
    # make_batches
    source_weights: dict = field(default_factory=dict)
    train_examples: list = field(default_factory=list)
    dev_examples: list = field(default_factory=list)
    train_batches: object = None  # BucketedBatches or SampledBatches
    dev_batches: BucketedBatches | None = None
    # fit
    trainer: object = None  # studio.train.trainer.Trainer
    _generator: TextGenerator | None = None
    _replies: object = None

    def replies(self):
        """The stored replies the bundle keeps (`studio.replies`), built once; None for a task without them."""
        if self._replies is None and self.stored_pairs:
            self._replies = build_replies(self.stored_pairs)
        return self._replies

    def report(self, kind: str, **fields) -> None:
        self.progress(TrainingEvent(kind, **fields))

    def generator(self) -> TextGenerator:
        """The trainer's model as a text generator (cached-step decoding on TensorFlow), built once."""
        if self._generator is None:
            from studio.runtimes.tf_runtime import TFCachedRuntime  # TensorFlow: not on import (the JAX trainer's)

            self._generator = TextGenerator(Preprocessor(self.config, self.tokenizers),
                                            TFCachedRuntime(self.trainer.model))
        return self._generator


# ---- settings and data ---------------------------------------------------------------------------
def prepare_run(task: str, out: str | Path, resume: bool = False, overrides: dict | None = None,
                preset: str | None = None, init_from: str | Path | None = None,
                tokenizer_dir: str | Path | None = None, data_dir=None, sources: str | None = None,
                data_files=None, progress: Listener | None = None, dev_files=None) -> TrainingRun:
    """A run's settings (a preset with `overrides`, the run in `out` when resuming, the architecture of
    `init_from`) and its data, read, cleaned and split into train and dev pairs (or the dev pairs read from
    `dev_files`)."""
    progress = progress or ConsoleProgress()
    if task not in TASKS:
        raise StudioError(f"unknown task {task!r}; choose {' or '.join(TASKS)}")
    out = Path(out)
    resuming = resume and (out / "run.json").is_file()
    if resume and not resuming:
        progress(TrainingEvent("warning", text=f"No run to resume in {out}; starting a new one."))
    if not resuming and (out / "checkpoints").is_dir() and any((out / "checkpoints").glob("ckpt-*")):
        raise StudioError(f"{out} already holds a training run; pass --resume to continue it, or choose another --out")
    initial = _initial_bundle(Path(init_from)) if init_from and not resuming else None
    if resuming:
        config, data_files, dev_files = _resumed_config(out, overrides or {})
        run = TrainingRun(task, out, config, progress, resuming=True, initial=_started_from(out))
        sources = None
    else:
        config, transplanting = _new_config(task, preset, overrides or {}, initial, tokenizer_dir)
        run = TrainingRun(task, out, config, progress, initial=initial, transplanting=transplanting,
                          tokenizer_dir=Path(tokenizer_dir) if tokenizer_dir is not None else None)
    from studio.model.ensemble import refuse_training  # Keras: loaded when a run starts, not on import

    refuse_training(config.model)
    read_data(run, data_dir, sources, data_files, dev_files)
    return run


def _started_from(out: Path) -> Bundle | None:
    """A resumed fine-tune's starting model (still a candidate for the shipped weights, and what scores the
    pairs it leaves out), when run.json names one that loads and its embeddings were not re-indexed."""
    run = json.loads((out / "run.json").read_text())
    if not run.get("initialized_from") or run.get("embeddings_reindexed"):
        return None
    try:
        return _initial_bundle(Path(run["initialized_from"]))
    except StudioError:
        return None


def _initial_bundle(path: Path) -> Bundle:
    # continue from a bundle's weights (e.g. the shipped model): its architecture and tokenizer, a
    # fresh optimizer; training settings come from the preset and --set
    initial = load_bundle(path)
    if initial.config.model.members != 1:
        raise StudioError(f"{initial.path} is an ensemble of {initial.config.model.members} models; --init-from "
                          "takes one model (the bundle of one of its members)")
    return initial


def _resumed_config(out: Path, overrides: dict) -> tuple[BundleConfig, list[str], list[str]]:
    """The settings of the run in `out`, with the `overrides` a resumed run may take (its run.json updated),
    and the data files (train, then dev) it was built from."""
    run = json.loads((out / "run.json").read_text())
    config = BundleConfig.from_dict(run["config"])
    requested = apply_overrides(BundleConfig.from_dict(run["config"]), overrides)
    # train.* settings may change (a larger budget, more epochs), except those that decide an epoch's batches
    changed = [key for key in overrides if (not key.startswith("train.") or key in FIXED_ON_RESUME)
               and getattr(getattr(requested, key.split(".")[0]), key.split(".")[1])
               != getattr(getattr(config, key.split(".")[0]), key.split(".")[1])]
    if changed:
        raise StudioError(f"cannot change {', '.join(changed)} when resuming (the run was built with other "
                          "values); only train.* settings that do not decide the batches can change")
    run["config"] = requested.to_dict()  # e.g. a larger time budget or more epochs
    atomic_write_bytes(out / "run.json", (json.dumps(run, indent=2, ensure_ascii=False) + "\n").encode())
    return requested, run["data_files"], run.get("dev_files", [])


def _new_config(task: str, preset: str | None, overrides: dict, initial: Bundle | None,
                tokenizer_dir) -> tuple[BundleConfig, bool]:
    """A new run's settings: the preset with `overrides`, or `initial`'s architecture; and whether `initial`'s
    embeddings must be re-indexed for another tokenizer."""
    chosen = preset or task
    config = check_settings(apply_overrides(preset_config(task, chosen), overrides))
    if initial is None:
        if chosen.endswith("-finetune"):
            raise StudioError(f"--preset {chosen} fine-tunes a trained model: give it with --init-from")
        return config, False
    # the architecture comes from the bundle; max lengths may change (no weights depend on them)
    requested_model = config.model
    config.model = dataclasses.replace(initial.config.model)
    for key in overrides:
        section, name = key.split(".", 1)
        if section != "model":
            continue
        if name in ("max_source_len", "max_target_len", "dropout"):  # no weights depend on these
            setattr(config.model, name, getattr(requested_model, name))
        elif getattr(requested_model, name) != getattr(config.model, name):
            raise StudioError(f"--init-from keeps the bundle's architecture; {key} cannot change "
                              "(only model.max_source_len, model.max_target_len and model.dropout can)")
    transplanting = tokenizer_dir is not None or config.task.text_pipeline != initial.config.task.text_pipeline
    if not transplanting:
        config.tokenizer = initial.config.tokenizer
    elif not (config.model.share_embeddings and config.model.tie_output and config.tokenizer.shared):
        raise StudioError("--init-from with a new tokenizer re-indexes one shared, tied embedding; "
                          f"{initial.path} or this preset has separate vocabularies")
    return config, transplanting


def read_data(run: TrainingRun, data_dir=None, sources: str | None = None, data_files=None,
              dev_files=None) -> None:
    """The run's pairs: read, cleaned by its text pipeline, deduplicated and split into train and dev; with
    `dev_files`, dev is theirs and train is every pair whose source is not in dev."""
    config = run.config
    raw_pairs, run.files = read_task_pairs(run.task, data_dir, sources, data_files)
    run.pairs = clean_pairs(raw_pairs, pipeline_for(config.task))
    if not run.resuming:
        config.train.dev_split = CURRENT_SPLIT  # a resumed run keeps the split it was built with
    if dev_files:
        dev_raw, run.dev_files = read_task_pairs(run.task, data_files=dev_files)
        run.dev_pairs = clean_pairs(dev_raw, pipeline_for(config.task))
        if not run.dev_pairs:
            raise StudioError(f"no usable pairs in the dev file(s) {', '.join(Path(f).name for f in dev_files)}")
        key = SPLIT_KEYS[config.train.dev_split]  # as the automatic split keeps near-duplicates on one side
        held_out = {key(p.source) for p in run.dev_pairs}
        run.train_pairs = [p for p in run.pairs if key(p.source) not in held_out]
    else:
        run.train_pairs, run.dev_pairs = split_train_dev(run.pairs, config.train.dev_fraction,
                                                         config.train.split_seed, config.train.dev_split)
    if task_named(run.task).reply_modes:
        run.stored_pairs = training_side(raw_pairs, run.train_pairs, config.train.dev_split)
    if config.train.dev_max_pairs:
        run.dev_pairs = run.dev_pairs[: config.train.dev_max_pairs]
    run.report("info", text=f"{len(raw_pairs):,} pairs read from {len(run.files)} file(s); {len(run.pairs):,} after "
                            f"cleaning and dedup; {len(run.train_pairs):,} train / {len(run.dev_pairs):,} dev")


# ---- tokenizer -----------------------------------------------------------------------------------
def build_tokenizers(run: TrainingRun) -> TokenizerPair:
    """The run's tokenizer(s): trained on its train pairs, reused (--tokenizer, --init-from) or, resuming, the
    run's own; a new run's folder gets them, its vocabulary sizes in the config and run.json. Writes dev.tsv."""
    config, out = run.config, run.out
    if run.resuming:
        run.tokenizers = TokenizerPair.load(out / "tokenizer")
    else:
        started = time.monotonic()
        if run.tokenizer_dir is not None:
            run.tokenizers = TokenizerPair.load(run.tokenizer_dir)
            config.tokenizer.kind, config.tokenizer.shared = run.tokenizers.source.kind, run.tokenizers.shared
            config.tokenizer.vocab_size = run.tokenizers.source.vocab_size
        elif run.initial is not None and not run.transplanting:
            run.tokenizers = run.initial.tokenizers
        else:
            run.tokenizers = _tokenizers_for(config, run.train_pairs)
        tokenizers = run.tokenizers
        reused = run.tokenizer_dir is not None or (run.initial is not None and not run.transplanting)
        run.report("info", text=f"{'Reused' if reused else 'Trained'} {config.tokenizer.kind} tokenizer(s): "
                                f"vocabulary {tokenizers.source.vocab_size:,}"
                                f"{'' if tokenizers.shared else f' / {tokenizers.target.vocab_size:,}'} "
                                f"in {time.monotonic() - started:.1f}s")
        m = config.model
        m.src_vocab_size, m.tgt_vocab_size = tokenizers.source.vocab_size, tokenizers.target.vocab_size
        m.pad_id, m.bos_id, m.eos_id = tokenizers.target.pad_id, tokenizers.target.bos_id, tokenizers.target.eos_id
        # two tokenizers of their own vocabularies share no embedding; an --init-from model's (an imported Marian
        # model's source and target tokenizers number one shared vocabulary) keep its architecture
        if m.share_embeddings and not tokenizers.shared and not (run.initial is not None and not run.transplanting):
            m.share_embeddings = False
        config.task.sources = [Path(f).name for f in run.files]
        out.mkdir(parents=True, exist_ok=True)
        tokenizers.save(out / "tokenizer")
        started_from = ({"initialized_from": str(run.initial.path), "embeddings_reindexed": run.transplanting}
                        if run.initial else {})
        record = {"config": config.to_dict(), "data_files": [str(Path(f).resolve()) for f in run.files],
                  "dev_files": [str(Path(f).resolve()) for f in run.dev_files], **started_from}
        # whole or not at all: a job's early Stop kills the process wherever it is, and Resume reads this
        atomic_write_bytes(out / "run.json", (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode())
    (out / "dev.tsv").write_text("".join(f"{p.source}\t{p.target}\n" for p in run.dev_pairs), encoding="utf-8")
    return run.tokenizers


# ---- batches -------------------------------------------------------------------------------------
def make_batches(run: TrainingRun) -> None:
    """The run's pairs as ids that fit the model's length limits, in length-bucketed batches (subword-sampled
    anew each epoch with train.subword_alpha; weighted per source with train.source_weights)."""
    m, t = run.config.model, run.config.train
    max_ratio = task_named(run.task).max_length_ratio
    try:
        run.source_weights = parse_source_weights(t.source_weights)
        check_source_weights(run.source_weights, {source_name(p.origin) for p in run.pairs}, set(KOEN_SOURCES))
    except ValueError as error:
        raise StudioError(f"train.source_weights: {error}") from None
    run.train_examples = encode_pairs(run.train_pairs, run.tokenizers, m.max_source_len, m.max_target_len,
                                      max_ratio, run.source_weights)
    run.dev_examples = encode_pairs(run.dev_pairs, run.tokenizers, m.max_source_len, m.max_target_len, max_ratio)
    run.report("info", text=f"{len(run.train_examples):,} train / {len(run.dev_examples):,} dev examples fit the "
                            f"length limits ({m.max_source_len}/{m.max_target_len} tokens)")
    batch_tokens = t.batch_tokens
    batch_args = dict(batch_size=t.batch_size, bucket_width=t.bucket_width,
                      max_len=max(m.max_source_len, m.max_target_len), bos_id=m.bos_id, eos_id=m.eos_id,
                      pad_id=m.pad_id, batch_tokens=batch_tokens, seed=t.seed)
    if t.subword_alpha:
        run.train_batches = SampledBatches(run.train_pairs, run.tokenizers, t.subword_alpha, dict(
            max_source_len=m.max_source_len, max_target_len=m.max_target_len, max_ratio=max_ratio,
            source_weights=run.source_weights), batch_args, examples=run.train_examples)
    else:
        run.train_batches = BucketedBatches(run.train_examples, **batch_args)
    run.dev_batches = (BucketedBatches(run.dev_examples, t.batch_size, t.bucket_width,
                                       max(m.max_source_len, m.max_target_len), m.bos_id, m.eos_id, m.pad_id,
                                       batch_tokens=batch_tokens, seed=t.seed)
                       if run.dev_examples else None)


def leave_out_unlikely_pairs(run: TrainingRun) -> None:
    """A fine-tune with `train.filter_share` leaves out that share of its training pairs: those the starting
    model finds least likely (`studio.train.cleaning`), written to left_out.tsv with their scores; a resumed
    run leaves out the same pairs."""
    share, listed = run.config.train.filter_share, run.out / LEFT_OUT
    flat = lambda text: " ".join(text.split())  # noqa: E731
    if run.resuming and listed.is_file():
        gone = {tuple(line.split("\t")[:2]) for line in listed.read_text(encoding="utf-8").splitlines()[1:]}
        run.train_pairs = [p for p in run.train_pairs if (flat(p.source), flat(p.target)) not in gone]
        return
    if not share or run.initial is None or run.transplanting or not run.train_pairs:
        return  # (a resumed run that stopped before the list was written scores the pairs now, as it would have)
    started = time.monotonic()
    generator = TextGenerator.open(run.initial, "tf")
    scores = pair_scores(generator, run.train_pairs, run.tokenizers.target, run.config.model.max_target_len)
    by_pair = dict(zip(run.train_pairs, scores))
    run.train_pairs, dropped = least_likely(run.train_pairs, scores, share)
    listed.write_text("source\ttarget\tmean log-probability\n" + "".join(
        f"{flat(p.source)}\t{flat(p.target)}\t{by_pair[p]:.3f}\n" for p in dropped), encoding="utf-8")
    run.report("info", text=f"Left out {len(dropped):,} of {len(dropped) + len(run.train_pairs):,} training pairs: "
                            f"the {share:.0%} the starting model finds least likely, most often misaligned "
                            f"(a partial or another sentence's translation); listed in {listed.name} "
                            f"({time.monotonic() - started:.0f} s)")


def mix_in_general_pairs(run: TrainingRun, data_dir=None) -> None:
    """A fine-tune with `train.rehearsal` also trains on that many pairs of the task's own training data
    (ChatbotData, the bundled KO-EN files: what the starting model learned from) per pair of the user's, drawn
    with the run's seed (the same pairs on resume) and never one whose source is in the dev split: "mixed
    fine-tuning", so that the model keeps what it knew. Without that data here it trains on the user's alone."""
    ratio = run.config.train.rehearsal
    if not ratio or run.initial is None or not run.train_pairs:
        return
    try:
        general, files = read_task_pairs(run.task, data_dir)
    except StudioError as error:
        run.report("warning", text=f"No general pairs to mix in ({error}); fine-tuning on your pairs alone.")
        return
    wanted = round(ratio * len(run.train_pairs))
    key = SPLIT_KEYS[run.config.train.dev_split]
    taken = {key(p.source) for p in run.dev_pairs} | {key(p.source) for p in run.train_pairs}
    drawn = random.Random(run.config.train.seed).sample(general, min(len(general), 2 * wanted))
    mixed = [p for p in clean_pairs(drawn, pipeline_for(run.config.task)) if key(p.source) not in taken][:wanted]
    run.train_pairs = run.train_pairs + mixed
    run.general_files, run.general_pairs = files, len(mixed)
    run.report("info", text=f"Mixed in {len(mixed):,} pairs of the general training data beside your "
                            f"{len(run.train_pairs) - len(mixed):,}, so that the model keeps what it knew")


# ---- training ------------------------------------------------------------------------------------
def fit(run: TrainingRun, max_steps: int | None = None, checkpoint_minutes: float = 10.0):
    """Train (from scratch, from --init-from's weights, or on from the last checkpoint) until the epochs, the
    step or time budget, early stopping or a signal end it. After each epoch the task's first prompts are
    decoded (a "samples" event) and, when dev improved, best.npz and the bundle are written. Returns the
    Trainer's state (studio.train.checkpoints.TrainState)."""
    from studio.train.trainer import Trainer  # TensorFlow: loaded when training starts, not on import

    config, out = run.config, run.out
    prompts = list(task_named(run.task).prompts)

    def dev_chrf(trainer) -> dict:  # a learning curve a person can read (train.chrf_pairs), or what selects
        return {"dev_chrf": round(selection_chrf(run), 2)} if run.dev_pairs else {}

    def on_epoch_end(trainer, record):
        scores, dev_inputs = {}, []
        if config.train.chrf_pairs and run.dev_pairs:
            dev_inputs = [p.source for p in spread(run.dev_pairs, 3)]  # what it makes of inputs it never trained on
        samples = sample_outputs(run.generator(), prompts[:4] + dev_inputs)
        if "dev_chrf" in record:
            scores["dev_chrf"] = record["dev_chrf"]
        run.report("samples", step=trainer.state.step, epoch=record["epoch"], samples=samples, losses=scores)
        record["samples"] = samples
        if record.get("improved") or trainer.dev_batches is None:
            save_npz(out / "best.npz", variables_to_arrays(trainer.model.weights))
            save_bundle(out, config, run.tokenizers, trainer.model,
                        model_card=model_card(config, {}, run.files + run.general_files), replies=run.replies())

    scoring = config.train.chrf_pairs or config.train.select_by == "dev_chrf"
    trainer = run.trainer = Trainer(config, run.train_batches, run.dev_batches, out, None, on_epoch_end,
                                    checkpoint_minutes, progress=run.progress, scorer=dev_chrf if scoring else None)
    run.report("info", text=f"Model: {trainer.model.parameter_count():,} parameters; {len(run.train_batches)} "
                            "batches per epoch")
    if run.resuming:
        trainer.resume()
    elif run.initial is not None:
        if run.transplanting:
            arrays, report = transplant(run.initial, run.tokenizers, config.train.seed)
            assign_arrays(trainer.model.weights, arrays)
            run.report("info", text=f"Starting from the weights of {run.initial.path}, embeddings re-indexed for "
                                    f"the new tokenizer: {report}")
        else:
            assign_arrays(trainer.model.weights, run.initial.weights)
            run.report("info", text=f"Starting from the weights of {run.initial.path}")
    if config.train.select_by not in SELECT_BY:
        raise StudioError(f"train.select_by must be one of {', '.join(SELECT_BY)}, not {config.train.select_by!r}")
    return trainer.fit(max_steps=max_steps)


def select_weights(run: TrainingRun) -> str:
    """Leave the trainer's model with the weights to ship and say which they are.

    Whichever of the current weights, the best epoch on dev, and the mean of the last checkpoints scores best on
    dev by `train.select_by` (averaging usually wins: it smooths the last updates' noise; the current weights can
    win when a time budget stopped training mid-epoch). A fine-tune chosen by dev chrF also weighs the model it
    started from: when no trained weights beat it on the user's dev pairs, the bundle keeps it, and says so."""
    trainer, t = run.trainer, run.config.train
    candidates = {"last weights": {w.path: w.numpy() for w in trainer.model.weights}}
    if t.select_by == "dev_chrf" and run.initial is not None and not run.transplanting:
        candidates[STARTING_MODEL] = run.initial.weights
    if (run.out / "best.npz").is_file():
        candidates["best epoch"] = load_npz(run.out / "best.npz")
    count = min(t.average_last, len(trainer.checkpoints.all()))
    if t.average_last > 1 and count >= 2:
        candidates[f"average of the last {count} checkpoints"] = trainer.checkpoints.average_weights(count)
    chosen = "last weights"
    if trainer.dev_batches is not None and len(candidates) > 1:
        scores = {}
        for name, weights in candidates.items():
            assign_arrays(trainer.model.weights, weights)
            scores[name] = (selection_chrf(run) if t.select_by == "dev_chrf"
                            else trainer.evaluate()[t.select_by])
        chosen = (min if t.select_by == "dev_loss" else max)(scores, key=scores.get)
        assign_arrays(trainer.model.weights, candidates[chosen])
        chosen += (f" ({t.select_by.replace('_', ' ')} "
                   + ", ".join(f"{name} {score:.4f}" for name, score in scores.items()) + ")")
    return chosen


def write_bundle(run: TrainingRun, state, chosen: str) -> dict:
    """The finished run's bundle: the shipped weights (`chosen`), metrics.json (dev figures, greedy dev chrF,
    sample outputs, the history of its epochs) and MODEL_CARD.md. Returns the metrics."""
    trainer, config, t = run.trainer, run.config, run.config.train
    metrics = {"task": run.task, "weights": chosen, "parameters": trainer.model.parameter_count(),
               **{key: value for key, value in json.loads((run.out / "run.json").read_text()).items()
                  if key in ("initialized_from", "embeddings_reindexed")},
               "text_pipeline": config.task.text_pipeline, "source_weights": t.source_weights,
               "subword_alpha": t.subword_alpha,
               "epochs_trained": state.epoch, "steps": state.step,
               "train_seconds": round(state.train_seconds, 1), "train_target_tokens": state.target_tokens,
               "train_target_tokens_per_second": round(state.target_tokens / max(state.train_seconds, 1e-9), 1),
               "train_pairs": len(run.train_examples), "dev_pairs": len(run.dev_examples),
               "data_files": config.task.sources, "curve": state.curve}
    metrics.update(trainer.evaluate())
    generator = run.generator()
    if run.dev_examples:
        started = time.monotonic()
        metrics["dev_chrf"], metrics["chrf_signature"], distinct = dev_figures(generator, run.dev_pairs)
        metrics["dev_distinct"] = round(distinct, 4)
        metrics["dev_chrf_seconds"] = round(time.monotonic() - started, 1)
    metrics["samples"] = sample_outputs(generator, list(task_named(run.task).prompts))
    metrics["history"] = state.history
    if run.general_pairs:
        metrics["general_pairs"] = run.general_pairs
    save_bundle(run.out, config, run.tokenizers, trainer.model, metrics,
                model_card(config, metrics, run.files + run.general_files), replies=run.replies())
    run.report("info", text=f"Bundle written to {run.out} ({chosen}).")
    return metrics


def train_task(task: str, out: str | Path, data_dir=None, resume: bool = False, sources: str | None = None,
               data_files=None, overrides: dict | None = None, max_steps: int | None = None,
               console: Console | None = None, checkpoint_minutes: float = 10.0, preset: str | None = None,
               init_from: str | Path | None = None, tokenizer_dir: str | Path | None = None,
               progress: Listener | None = None, dev_files=None) -> dict:
    """A whole training run, its progress shown on `console` unless a `progress` listener is given; returns
    the bundle's metrics. `dev_files`: the dev pairs (default: a split of the data)."""
    progress = progress or ConsoleProgress(console or Console(stderr=True))
    run = prepare_run(task, out, resume=resume, overrides=overrides, preset=preset, init_from=init_from,
                      tokenizer_dir=tokenizer_dir, data_dir=data_dir, sources=sources, data_files=data_files,
                      progress=progress, dev_files=dev_files)
    build_tokenizers(run)
    leave_out_unlikely_pairs(run)
    mix_in_general_pairs(run, data_dir)
    make_batches(run)
    state = fit(run, max_steps, checkpoint_minutes)
    return write_bundle(run, state, select_weights(run))


def config_from_args(overrides: list[str]) -> dict:
    parsed = {}
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise StudioError(f"--set expects KEY=VALUE, got {item!r}")
        parsed[key.strip()] = value.strip()
    return parsed


__all__ = ["train_task", "TrainingRun", "prepare_run", "read_data", "build_tokenizers", "make_batches", "fit",
           "select_weights", "write_bundle", "apply_overrides", "config_from_args", "chrf_on", "spread"]
