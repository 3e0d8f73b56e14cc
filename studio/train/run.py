"""`studio train chatbot|translator`: data -> tokenizer -> batches -> Trainer -> bundle + metrics.

The output directory is both the run directory (checkpoints/, tensorboard/, dev.tsv) and a loadable
bundle (config.json, weights.npz, tokenizer/, metrics.json, checksums.json, MODEL_CARD.md): the bundle
files are rewritten whenever the dev loss improves, so an interrupted run still leaves its best model.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

from rich.console import Console

from studio.bundle import save_bundle
from studio.config import BundleConfig, chatbot_preset, translator_preset, translator_tutorial_preset
from studio.data import BucketedBatches, Pair, clean_pairs, encode_pairs, read_chatbot_csv, read_pairs, split_train_dev
from studio.data.pipeline import (CURRENT_SPLIT, SampledBatches, check_source_weights, parse_source_weights,
                                  source_name)
from studio.data.sources import KOEN_SOURCES, chatbot_csv, koen_source_files, select_sources
from studio.errors import StudioError
from studio.tasks import task_named
from studio.text import TokenizerPair, pipeline_for, train_tokenizer
from studio.weights import load_npz, save_npz, variables_to_arrays

PRESETS = {"chatbot": chatbot_preset, "translator": translator_preset}
CONFIGS = {"chatbot": chatbot_preset, "translator": translator_preset, "translator-tutorial": translator_tutorial_preset}


def apply_overrides(config: BundleConfig, overrides: dict) -> BundleConfig:
    """Overrides like {"model.d_model": 128, "train.epochs": 3}."""
    for key, value in (overrides or {}).items():
        section, _, name = key.partition(".")
        target = getattr(config, section, None)
        if target is None or not hasattr(target, name):
            raise StudioError(f"unknown setting {key!r}")
        current = getattr(target, name)
        if isinstance(current, bool) and isinstance(value, str):
            value = value.lower() in ("1", "true", "yes", "on")
        elif current is not None and not isinstance(current, (list, bool)) and isinstance(value, str):
            value = type(current)(value)
        setattr(target, name, value)
    return config


def read_task_pairs(task: str, data_dir=None, sources: str | None = None, data_files=None) -> tuple[list[Pair], list[str]]:
    """Raw pairs and the names of the files they came from."""
    if data_files:
        files = [Path(f) for f in data_files]
    elif task == "chatbot":
        files = [chatbot_csv(data_dir)]
    else:
        files = koen_source_files(select_sources(sources), data_dir)
    pairs = []
    for path in files:
        pairs += read_chatbot_csv(path) if task == "chatbot" and path.suffix == ".csv" else read_pairs(path)
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


def _device(metrics: dict) -> str:
    """Where a run trained, in words: the accelerated trainer records its JAX device (e.g. "cuda:0")."""
    device = str(metrics.get("device", "cpu")).lower()
    return "a GPU" if device.startswith(("cuda", "gpu", "rocm")) else "CPU"


def model_card(config: BundleConfig, metrics: dict, source_files: list[str]) -> str:
    task = config.task.task
    m = config.model
    size = f", {metrics['parameters']:,} parameters" if "parameters" in metrics else ""
    depth = (f"{m.num_layers}-layer" if m.decoder_depth == m.num_layers
             else f"{m.num_layers}-layer encoder, {m.decoder_depth}-layer decoder")
    # the weights a run started from: described in words when the bundle says which run made them
    start = metrics.get("initialized_from_description") or (f"`{metrics['initialized_from']}`"
                                                             if metrics.get("initialized_from") else "")
    origin = (f"trained with Transformer Studio, starting from the weights of {start}" if start
              else "trained from scratch with Transformer Studio")
    members = metrics.get("ensemble_members", [])
    described = (f"A {depth} encoder-decoder Transformer (d_model {m.d_model}, {m.num_heads} heads, d_ff {m.d_ff}, "
                 f"{m.norm}-LN{size}) {origin}.")
    if m.members > 1:
        described = (f"An ensemble of {m.members} encoder-decoder Transformers of one shape ({depth}, d_model "
                     f"{m.d_model}, {m.num_heads} heads, d_ff {m.d_ff}, {m.norm}-LN; {size.lstrip(', ')} in all), "
                     "trained apart with Transformer Studio on the same data and vocabulary, each with its own "
                     "seed; at every step their next-token log-probabilities are averaged.")
    lines = [f"# Transformer Studio {task}", "", described, "", "## Training data"]
    names = {Path(f).name for f in source_files}
    known = {Path(s.path).name: s for s in KOEN_SOURCES.values()}
    for name in sorted(names):
        if name in known:
            s = known[name]
            note = "" if s.commercial else "  **non-commercial license**"
            lines.append(f"- `{name}` — {s.domain}; {s.license}{note}")
        elif name.lower().startswith("chatbotdata"):
            lines.append(f"- `{name}` — songys/Chatbot_data, Korean chit-chat Q/A pairs, MIT License")
        else:
            lines.append(f"- `{name}`")
    synthetic = metrics.get("synthetic_pairs")
    if synthetic:  # back-translation (studio.train.accelerated --synthetic)
        named = f" (`{metrics['synthetic_file']}`)" if metrics.get("synthetic_file") else ""
        lines.append(f"- {synthetic:,} synthetic pairs{named}: English sentences with Korean made by an EN→KO model "
                     "trained on the pairs above (back-translation). The studio's recipe takes the English from "
                     "`en_mono` (BBC News 2004–05, FNC-1, AG News, Reuters-21578: research / non-commercial "
                     "terms), so they are counted as non-commercial  **non-commercial license**")
    if synthetic or any(n in known and not known[n].commercial for n in names):
        lines += ["", "These weights were trained partly on data licensed for **non-commercial use only**; "
                      "do not use them commercially. For a commercial-safe model, train from scratch with "
                      "`--sources commercial-safe`: a new tokenizer, no `--init-from` these weights"
                  + (", and no back-translated news" if synthetic else "") + "."]
    borrowed = [n for n in sorted(names) if n in known and known[n].commercial and "English from" in known[n].license]
    if borrowed:
        lines += ["", "The English side of " + ", ".join(f"`{n}`" for n in borrowed) + " comes from another corpus "
                     "(named above) under its own terms: check them before commercial use."]
    trainings = [(f"Member `{member['bundle']}` (seed {member.get('seed', '?')}"
                  + (f", from the weights of `{member['initialized_from']}`" if member.get("initialized_from") else "")
                  + "): ", member) for member in members] or [("", metrics)]
    if all("train_seconds" in run for _, run in trainings):
        lines += ["", "## Training"]
        lines += [f"- Before: {stage}" for stage in metrics.get("stages", [])]  # earlier runs these weights come from
        bullet = "- " if members or metrics.get("stages") else ""
        lines += [f"{bullet}{named}{run.get('steps', 0):,} steps ({run.get('epochs_trained', '?')} "
                  f"full epochs), {run['train_seconds'] / 60:,.0f} minutes of training time on {_device(run)}, "
                  f"{run.get('train_target_tokens_per_second', 0):,.0f} target tokens/s; shipped weights: "
                  f"{run.get('weights', 'last')}." for named, run in trainings]
    if metrics.get("status"):
        lines += ["", "## Status", metrics["status"]]
    default = task_named(task).default_decoding
    decoding = (f"beam search ({default.get('beam_size', 4)} beams, length penalty {default.get('length_penalty', 1.0):g})"
                if default["strategy"] == "beam" else default["strategy"])
    lines += ["", "## Intended use",
              "Local demos and study of the Transformer architecture; exporting to TFLite/ONNX for on-device use. "
              f"The app and the CLI decode with {decoding} unless asked otherwise (chosen on the dev sets).",
              "", "## Measured"]
    for member in members:
        figures = ", ".join(f"{key} {member[key]:.4f}" for key in ("dev_token_accuracy", "dev_chrf") if key in member)
        lines.append(f"- member `{member['bundle']}` (seed {member.get('seed', '?')}) alone: {figures}")
    for key in ("dev_loss", "dev_perplexity", "dev_token_accuracy", "dev_chrf"):
        if key in metrics:
            lines.append(f"- {key}: {metrics[key]:.4f}" if isinstance(metrics[key], float) else f"- {key}: {metrics[key]}")
    for test_set, strategies in metrics.get("evaluation", {}).items():
        for strategy, result in strategies.items():
            lowered = (f" (lower-cased: BLEU {result['bleu_lc']:.2f}, chrF {result['chrf_lc']:.2f})"
                       if "chrf_lc" in result else "")
            fluency = "".join(f", {key} replies {result[key]:.1%}" for key in ("repeating", "distinct")
                              if key in result and task == "chatbot")  # a chatbot's fluency (issue 11's measure)
            lines.append(f"- {test_set} ({result['pairs']} pairs), {strategy}: BLEU {result['bleu']:.2f}, "
                         f"chrF {result['chrf']:.2f}{lowered}{fluency}")
    if metrics.get("evaluation"):
        first = next(iter(next(iter(metrics["evaluation"].values())).values()))
        lines.append(f"- sacrebleu signatures: BLEU `{first['bleu_signature']}`, chrF `{first['chrf_signature']}`")
    if metrics.get("samples"):
        lines += ["", f"## Sample outputs ({metrics.get('samples_decoding', 'greedy')})"]
        before = metrics.get("samples_before")  # {"bundle": what it was, "outputs": {source: output}}
        if before:
            lines += ["", f"| input | before: {before['bundle']} | now |", "| --- | --- | --- |"]
            lines += [f"| {_cell(source)} | {_cell(before['outputs'].get(source, ''))} | {_cell(output)} |"
                      for source, output in metrics["samples"].items()]
        else:
            lines += [f"- {source} → {output}" for source, output in metrics["samples"].items()]
    lines += ["", "## Known weaknesses"]
    if task == "chatbot":
        lines.append("- A small model trained on ~11k chit-chat pairs: replies are short, generic, and can ignore "
                     "the question; it has no memory of earlier turns and no factual knowledge.")
    else:
        news = ("its only news is back-translated (synthetic Korean), so news still translates worse than "
                "everyday sentences" if synthetic else
                "trained mostly on non-news text, so news (the tutorials' park corpus) translates worse than "
                "everyday sentences")
        lines.append(f"- Domain mismatch: {news}; names are often garbled, and a small model gets long, "
                     "dense sentences partly wrong.")
        from studio.evaluate import decoding_name

        shown = decoding_name(task_named(task).default_options())
        rows = [(name, results[shown]) for name, results in metrics.get("evaluation", {}).items()
                if "repeating_references" in results.get(shown, {})]
        if rows:
            lines.append(f"- Outputs that write a word pair twice ({shown}), against the references: " + ", ".join(
                f"{name} {row['repeating']:.0%} vs {row['repeating_references']:.0%}" for name, row in rows)
                + " (a paragraph may rightly repeat one; a share well above the references' is the model's).")
    if m.members > 1:
        lines.append(f"- Every decoding step runs each of its {m.members} members, so a reply takes several times "
                     "one model's time (still milliseconds per token on TFLite).")
    lines.append("- " + pipeline_for(config.task).describe())
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Text in a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def sample_outputs(generator, prompts: list[str]) -> dict[str, str]:
    return {prompt: result.text for prompt, result in zip(prompts, generator.generate(prompts))}


def chrf_on(generator, pairs: list[Pair], batch_size: int = 64) -> tuple[float, str]:
    import sacrebleu

    hypotheses = []
    for start in range(0, len(pairs), batch_size):
        hypotheses += [g.text for g in generator.generate([p.source for p in pairs[start:start + batch_size]])]
    chrf = sacrebleu.metrics.CHRF()
    score = chrf.corpus_score(hypotheses, [[p.target for p in pairs]])
    return float(score.score), str(chrf.get_signature())


def train_task(task: str, out: str | Path, data_dir=None, resume: bool = False, sources: str | None = None,
               data_files=None, overrides: dict | None = None, max_steps: int | None = None,
               console: Console | None = None, checkpoint_minutes: float = 10.0, preset: str | None = None,
               init_from: str | Path | None = None, tokenizer_dir: str | Path | None = None) -> dict:
    from studio.inference import TextGenerator
    from studio.train.trainer import Trainer

    console = console or Console(stderr=True)
    if task not in PRESETS:
        raise StudioError(f"unknown task {task!r}; choose chatbot or translator")
    out = Path(out)
    resuming = resume and (out / "run.json").is_file()
    if resume and not resuming:
        console.print(f"[yellow]No run to resume in {out}; starting a new one.[/yellow]")
    if not resuming and (out / "checkpoints").is_dir() and any((out / "checkpoints").glob("ckpt-*")):
        raise StudioError(f"{out} already holds a training run; pass --resume to continue it, or choose another --out")

    initial, transplanting = None, False
    if init_from and not resuming:
        # continue from a bundle's weights (e.g. the shipped model): its architecture and tokenizer, a
        # fresh optimizer; training settings come from the preset and --set
        from studio.bundle import load_bundle

        initial = load_bundle(Path(init_from))
        if initial.config.model.members != 1:
            raise StudioError(f"{initial.path} is an ensemble of {initial.config.model.members} models; --init-from "
                              "takes one model (the bundle of one of its members)")
    if resuming:
        run = json.loads((out / "run.json").read_text())
        config = BundleConfig.from_dict(run["config"])
        requested = apply_overrides(BundleConfig.from_dict(run["config"]), overrides or {})
        # train.* settings may change (a larger budget, more epochs), except those that decide an epoch's batches
        fixed = ("train.source_weights", "train.subword_alpha", "train.seed", "train.split_seed", "train.batch_tokens",
                 "train.batch_size", "train.bucket_width")
        changed = [key for key in (overrides or {}) if (not key.startswith("train.") or key in fixed)
                   and getattr(getattr(requested, key.split(".")[0]), key.split(".")[1])
                   != getattr(getattr(config, key.split(".")[0]), key.split(".")[1])]
        if changed:
            raise StudioError(f"cannot change {', '.join(changed)} when resuming (the run was built with other "
                              "values); only train.* settings that do not decide the batches can change")
        config = requested  # e.g. a larger time budget or more epochs
        run["config"] = config.to_dict()
        (out / "run.json").write_text(json.dumps(run, indent=2, ensure_ascii=False) + "\n")
        tokenizers = TokenizerPair.load(out / "tokenizer")
        data_files, sources = run["data_files"], None
    else:
        chosen = preset or task
        if chosen not in CONFIGS or not chosen.startswith(task):
            raise StudioError(f"unknown preset {chosen!r} for {task}; choose from "
                              f"{', '.join(k for k in CONFIGS if k.startswith(task))}")
        config = apply_overrides(CONFIGS[chosen](), overrides or {})
        if initial is not None:  # the architecture comes from the bundle; max lengths may change (no weights)
            requested_model = config.model
            config.model = dataclasses.replace(initial.config.model)
            for key in overrides or {}:
                section, name = key.split(".", 1)
                if section != "model":
                    continue
                if name in ("max_source_len", "max_target_len", "dropout"):  # no weights depend on these
                    setattr(config.model, name, getattr(requested_model, name))
                elif getattr(requested_model, name) != getattr(config.model, name):
                    raise StudioError(f"--init-from keeps the bundle's architecture; {key} cannot change "
                                      "(only model.max_source_len, model.max_target_len and model.dropout can)")
            transplanting = tokenizer_dir is not None or (
                config.task.text_pipeline != initial.config.task.text_pipeline)
            if not transplanting:
                config.tokenizer = initial.config.tokenizer
            elif not (config.model.share_embeddings and config.model.tie_output and config.tokenizer.shared):
                raise StudioError("--init-from with a new tokenizer re-indexes one shared, tied embedding; "
                                  f"{initial.path} or this preset has separate vocabularies")
    from studio.model.ensemble import refuse_training

    refuse_training(config.model)
    raw_pairs, files = read_task_pairs(task, data_dir, sources, data_files)
    pairs = clean_pairs(raw_pairs, pipeline_for(config.task))
    if not resuming:
        config.train.dev_split = CURRENT_SPLIT  # a resumed run keeps the split it was built with
    train_pairs, dev_pairs = split_train_dev(pairs, config.train.dev_fraction, config.train.split_seed,
                                             config.train.dev_split)
    if config.train.dev_max_pairs:
        dev_pairs = dev_pairs[: config.train.dev_max_pairs]
    console.print(f"{len(raw_pairs):,} pairs read from {len(files)} file(s); {len(pairs):,} after cleaning and "
                  f"dedup; {len(train_pairs):,} train / {len(dev_pairs):,} dev")
    if not resuming:
        started = time.monotonic()
        if tokenizer_dir is not None:
            tokenizers = TokenizerPair.load(Path(tokenizer_dir))
            config.tokenizer.kind, config.tokenizer.shared = tokenizers.source.kind, tokenizers.shared
            config.tokenizer.vocab_size = tokenizers.source.vocab_size
        elif initial is not None and not transplanting:
            tokenizers = initial.tokenizers
        else:
            tokenizers = _tokenizers_for(config, train_pairs)
        reused = tokenizer_dir is not None or (initial is not None and not transplanting)
        console.print(f"{'Reused' if reused else 'Trained'} {config.tokenizer.kind} tokenizer(s): "
                      f"vocabulary {tokenizers.source.vocab_size:,}"
                      f"{'' if tokenizers.shared else f' / {tokenizers.target.vocab_size:,}'} "
                      f"in {time.monotonic() - started:.1f}s")
        m = config.model
        m.src_vocab_size, m.tgt_vocab_size = tokenizers.source.vocab_size, tokenizers.target.vocab_size
        m.pad_id, m.bos_id, m.eos_id = tokenizers.target.pad_id, tokenizers.target.bos_id, tokenizers.target.eos_id
        if m.share_embeddings and not tokenizers.shared:
            m.share_embeddings = False
        config.task.sources = [Path(f).name for f in files]
        out.mkdir(parents=True, exist_ok=True)
        tokenizers.save(out / "tokenizer")
        started_from = {"initialized_from": str(initial.path), "embeddings_reindexed": transplanting} if initial else {}
        (out / "run.json").write_text(json.dumps({"config": config.to_dict(), "data_files": [str(Path(f).resolve()) for f in files],
                                                  **started_from},
                                                 indent=2, ensure_ascii=False) + "\n")
    (out / "dev.tsv").write_text("".join(f"{p.source}\t{p.target}\n" for p in dev_pairs), encoding="utf-8")

    m, t = config.model, config.train
    max_ratio = 3.0 if task == "translator" else None
    try:
        source_weights = parse_source_weights(t.source_weights)
        check_source_weights(source_weights, {source_name(p.origin) for p in pairs}, set(KOEN_SOURCES))
    except ValueError as error:
        raise StudioError(f"train.source_weights: {error}") from None
    train_examples = encode_pairs(train_pairs, tokenizers, m.max_source_len, m.max_target_len, max_ratio,
                                  source_weights)
    dev_examples = encode_pairs(dev_pairs, tokenizers, m.max_source_len, m.max_target_len, max_ratio)
    console.print(f"{len(train_examples):,} train / {len(dev_examples):,} dev examples fit the length limits "
                  f"({m.max_source_len}/{m.max_target_len} tokens)")
    batch_tokens = t.batch_tokens
    batch_args = dict(batch_size=t.batch_size, bucket_width=t.bucket_width,
                      max_len=max(m.max_source_len, m.max_target_len), bos_id=m.bos_id, eos_id=m.eos_id,
                      pad_id=m.pad_id, batch_tokens=batch_tokens, seed=t.seed)
    if t.subword_alpha:
        train_batches = SampledBatches(train_pairs, tokenizers, t.subword_alpha, dict(
            max_source_len=m.max_source_len, max_target_len=m.max_target_len, max_ratio=max_ratio,
            source_weights=source_weights), batch_args, examples=train_examples)
    else:
        train_batches = BucketedBatches(train_examples, **batch_args)
    dev_batches = (BucketedBatches(dev_examples, t.batch_size, t.bucket_width, max(m.max_source_len, m.max_target_len),
                                   m.bos_id, m.eos_id, m.pad_id, batch_tokens=batch_tokens, seed=t.seed)
                   if dev_examples else None)
    prompts = list(task_named(task).prompts)
    holder = {}

    def generator_for(trainer):
        if "generator" not in holder:
            from studio.runtimes.tf_runtime import TFCachedRuntime
            from studio.text.preprocess import Preprocessor

            holder["generator"] = TextGenerator(Preprocessor(config, tokenizers), TFCachedRuntime(trainer.model))
        return holder["generator"]

    def on_epoch_end(trainer, record):
        samples = sample_outputs(generator_for(trainer), prompts[:4])
        for prompt, reply in samples.items():
            console.print(f"  {prompt} -> {reply}", highlight=False)
        record["samples"] = samples
        if record.get("improved") or trainer.dev_batches is None:
            save_npz(out / "best.npz", variables_to_arrays(trainer.model.weights))
            save_bundle(out, config, tokenizers, trainer.model, model_card=model_card(config, {}, files))

    trainer = Trainer(config, train_batches, dev_batches, out, console, on_epoch_end, checkpoint_minutes)
    console.print(f"Model: {trainer.model.parameter_count():,} parameters; {len(train_batches)} batches per epoch")
    if resuming:
        trainer.resume()
    elif initial is not None:
        from studio.weights import assign_arrays

        if transplanting:
            from studio.train.transplant import transplant

            arrays, report = transplant(initial, tokenizers, config.train.seed)
            assign_arrays(trainer.model.weights, arrays)
            console.print(f"Starting from the weights of {initial.path}, embeddings re-indexed for the new "
                          f"tokenizer: {report}")
        else:
            assign_arrays(trainer.model.weights, initial.weights)
            console.print(f"Starting from the weights of {initial.path}")
    if t.select_by not in ("dev_loss", "dev_token_accuracy"):
        raise StudioError(f"train.select_by must be dev_loss or dev_token_accuracy, not {t.select_by!r}")
    state = trainer.fit(max_steps=max_steps)

    # The shipped weights: whichever of the current weights, the best epoch on dev loss, and the mean of
    # the last checkpoints scores best on dev by `train.select_by` (averaging usually wins: it smooths the
    # last updates' noise; the current weights can win when a time budget stopped training mid-epoch).
    from studio.weights import assign_arrays

    candidates = {"last weights": {w.path: w.numpy() for w in trainer.model.weights}}
    if (out / "best.npz").is_file():
        candidates["best epoch"] = load_npz(out / "best.npz")
    count = min(t.average_last, len(trainer.checkpoints.all()))
    if t.average_last > 1 and count >= 2:
        candidates[f"average of the last {count} checkpoints"] = trainer.checkpoints.average_weights(count)
    chosen = "last weights"
    if trainer.dev_batches is not None and len(candidates) > 1:
        scores = {}
        for name, weights in candidates.items():
            assign_arrays(trainer.model.weights, weights)
            scores[name] = trainer.evaluate()[t.select_by]
        chosen = (min if t.select_by == "dev_loss" else max)(scores, key=scores.get)
        assign_arrays(trainer.model.weights, candidates[chosen])
        chosen += (f" ({t.select_by.replace('_', ' ')} "
                   + ", ".join(f"{name} {score:.4f}" for name, score in scores.items()) + ")")
    metrics = {"task": task, "weights": chosen, "parameters": trainer.model.parameter_count(),
               **{key: value for key, value in json.loads((out / "run.json").read_text()).items()
                  if key in ("initialized_from", "embeddings_reindexed")},
               "text_pipeline": config.task.text_pipeline, "source_weights": t.source_weights,
               "subword_alpha": t.subword_alpha,
               "epochs_trained": state.epoch, "steps": state.step,
               "train_seconds": round(state.train_seconds, 1), "train_target_tokens": state.target_tokens,
               "train_target_tokens_per_second": round(state.target_tokens / max(state.train_seconds, 1e-9), 1),
               "train_pairs": len(train_examples), "dev_pairs": len(dev_examples), "data_files": config.task.sources,
               "curve": state.curve}
    metrics.update(trainer.evaluate())
    generator = generator_for(trainer)
    if dev_examples:
        started = time.monotonic()
        metrics["dev_chrf"], metrics["chrf_signature"] = chrf_on(generator, dev_pairs)
        metrics["dev_chrf_seconds"] = round(time.monotonic() - started, 1)
    metrics["samples"] = sample_outputs(generator, prompts)
    metrics["history"] = state.history
    save_bundle(out, config, tokenizers, trainer.model, metrics, model_card(config, metrics, files))
    console.print(f"Bundle written to {out} ({chosen}).")
    return metrics


def config_from_args(overrides: list[str]) -> dict:
    parsed = {}
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise StudioError(f"--set expects KEY=VALUE, got {item!r}")
        parsed[key.strip()] = value.strip()
    return parsed


__all__ = ["train_task", "apply_overrides", "config_from_args"]
