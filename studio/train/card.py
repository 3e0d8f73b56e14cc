"""A bundle's MODEL_CARD.md and the figures behind it: what the model is, the data and licenses it was trained
on, how it trained, what it scored (`studio eval --record` stores the scores), sample outputs and known
weaknesses. Written by `studio train`, `studio ensemble` and `studio eval --record`."""

from __future__ import annotations

from pathlib import Path

from studio.bundle import write_metrics
from studio.config import BundleConfig
from studio.data.sources import KOEN_SOURCES
from studio.evaluate import Score, decode_all, decoding_name
from studio.fidelity import Facts
from studio.fidelity import describe as describe_facts
from studio.files import atomic_write_bytes
from studio.generate.guards import RETRY_NO_REPEAT
from studio.tasks import Task, task_named
from studio.text import pipeline_for
from studio.text.protect import Glossary, protector_for


STORED_REPLIES = (" By default the app, the CLI and the API answer with a stored reply: the training answer of the "
                  "question most like the message (`replies.npz`, TF-IDF over character n-grams of the training "
                  "questions, never the dev split's), and the model writes the reply only when no training question "
                  "is alike; `--reply generate` (the Chat tab's Replies setting) has the model write every reply. On "
                  "held-out questions stored replies score above the model's own (the retrieval baseline below).")


def model_card(config: BundleConfig, metrics: dict, source_files: list[str]) -> str:
    task = task_named(config.task.task)
    lines = [f"# Transformer Studio {task.name}", "", _description(config, metrics), ""]
    lines += _data_lines(metrics, source_files)
    lines += _training_lines(metrics)
    if metrics.get("status"):
        lines += ["", "## Status", metrics["status"]]
    default = task.default_decoding
    decoding = (f"beam search ({default.get('beam_size', 4)} beams, length penalty {default.get('length_penalty', 1.0):g})"
                if default["strategy"] == "beam" else default["strategy"])
    lines += ["", "## Intended use",
              "Local demos and study of the Transformer architecture; exporting to TFLite/ONNX for on-device use. "
              f"The app and the CLI decode with {decoding} unless asked otherwise (chosen on the dev sets)."
              + (STORED_REPLIES if task.reply_modes else ""),
              "", "## Measured"]
    lines += _measured_lines(task, metrics)
    lines += _sample_lines(metrics)
    lines += ["", "## Known weaknesses"]
    lines += _weakness_lines(task, config, metrics)
    return "\n".join(lines) + "\n"


def _description(config: BundleConfig, metrics: dict) -> str:
    """The card's first paragraph: the model's shape, size and where its weights come from."""
    m = config.model
    size = f", {metrics['parameters']:,} parameters" if "parameters" in metrics else ""
    depth = (f"{m.num_layers}-layer" if m.decoder_depth == m.num_layers
             else f"{m.num_layers}-layer encoder, {m.decoder_depth}-layer decoder")
    # the weights a run started from: described in words when the bundle says which run made them
    start = metrics.get("initialized_from_description") or (f"`{metrics['initialized_from']}`"
                                                             if metrics.get("initialized_from") else "")
    origin = (f"trained with Transformer Studio, starting from the weights of {start}" if start
              else "trained from scratch with Transformer Studio")
    if m.members > 1:
        return (f"An ensemble of {m.members} encoder-decoder Transformers of one shape ({depth}, d_model "
                f"{m.d_model}, {m.num_heads} heads, d_ff {m.d_ff}, {m.norm}-LN; {size.lstrip(', ')} in all), "
                "trained apart with Transformer Studio on the same data and vocabulary, each with its own "
                "seed; at every step their next-token log-probabilities are averaged.")
    return (f"A {depth} encoder-decoder Transformer (d_model {m.d_model}, {m.num_heads} heads, d_ff {m.d_ff}, "
            f"{m.norm}-LN{size}) {origin}.")


def _data_lines(metrics: dict, source_files: list[str]) -> list[str]:
    """"## Training data": each file with its domain and license, the synthetic pairs, and what the licenses
    allow."""
    lines = ["## Training data"]
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
    return lines


def _device(metrics: dict) -> str:
    """Where a run trained, in words: the accelerated trainer records its JAX device (e.g. "cuda:0")."""
    device = str(metrics.get("device", "cpu")).lower()
    return "a GPU" if device.startswith(("cuda", "gpu", "rocm")) else "CPU"


def _minutes(seconds: float) -> str:
    """"1 minute", "12 minutes", "under a minute"."""
    count = round(seconds / 60)
    return "under a minute" if count < 1 else f"{count:,} minute" + ("s" if count != 1 else "")


def _training_lines(metrics: dict) -> list[str]:
    """"## Training": steps, time, device and throughput of the run (or of each ensemble member)."""
    members = metrics.get("ensemble_members", [])
    trainings = [(f"Member `{member['bundle']}` (seed {member.get('seed', '?')}"
                  + (f", from the weights of `{member['initialized_from']}`" if member.get("initialized_from") else "")
                  + "): ", member) for member in members] or [("", metrics)]
    if not all("train_seconds" in run for _, run in trainings):
        return []
    lines = ["", "## Training"]
    lines += [f"- Before: {stage}" for stage in metrics.get("stages", [])]  # earlier runs these weights come from
    bullet = "- " if members or metrics.get("stages") else ""
    lines += [f"{bullet}{named}{run.get('steps', 0):,} steps ({run.get('epochs_trained', '?')} "
              f"full epochs), {_minutes(run['train_seconds'])} of training time on {_device(run)}, "
              f"{run.get('train_target_tokens_per_second', 0):,.0f} target tokens/s on average (compiling and the "
              f"first slow steps included); shipped weights: "
              f"{run.get('weights', 'last')}." for named, run in trainings]
    return lines


def _measured_lines(task: Task, metrics: dict) -> list[str]:
    """The "## Measured" bullets: members alone, dev figures, each recorded evaluation, sacrebleu's signatures."""
    lines = []
    for member in metrics.get("ensemble_members", []):
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
                              if key in result and task.reply_fluency)  # a chatbot's fluency (issue 11's measure)
            facts = (f"; facts kept, the references' in brackets: {facts_line(result)}"
                     if "facts_kept" in result else "")
            lines.append(f"- {test_set} ({result['pairs']} pairs), {strategy}: BLEU {result['bleu']:.2f}, "
                         f"chrF {result['chrf']:.2f}{lowered}{fluency}{facts}")
    if metrics.get("evaluation"):
        first = next(iter(next(iter(metrics["evaluation"].values())).values()))
        lines.append(f"- sacrebleu signatures: BLEU `{first['bleu_signature']}`, chrF `{first['chrf_signature']}`")
    return lines


def _sample_lines(metrics: dict) -> list[str]:
    """"## Sample outputs": a list, or a table beside an earlier model's outputs."""
    if not metrics.get("samples"):
        return []
    lines = ["", f"## Sample outputs ({metrics.get('samples_decoding', 'greedy')})", "",
             f"As the app decodes: an output caught in a loop is decoded again with repeated {RETRY_NO_REPEAT}-grams "
             "banned (a plain decoding loop, like an exported package's example, can differ there)."]
    before = metrics.get("samples_before")  # {"bundle": what it was, "outputs": {source: output}}
    if before:
        lines += ["", f"| input | before: {before['bundle']} | now |", "| --- | --- | --- |"]
        lines += [f"| {_cell(source)} | {_cell(before['outputs'].get(source, ''))} | {_cell(output)} |"
                  for source, output in metrics["samples"].items()]
    else:
        lines += [f"- {source} → {output}" for source, output in metrics["samples"].items()]
    return lines


def _weakness_lines(task: Task, config: BundleConfig, metrics: dict) -> list[str]:
    """The "## Known weaknesses" bullets: the task's own, what its outputs repeat, an ensemble's cost, and
    what its text pipeline does."""
    synthetic = metrics.get("synthetic_pairs")
    lines = ["- " + (task.weakness_with_synthetic if synthetic and task.weakness_with_synthetic else task.weakness)]
    if not task.reply_fluency:
        shown = decoding_name(task.default_options())
        rows = [(name, results[shown]) for name, results in metrics.get("evaluation", {}).items()
                if "repeating_references" in results.get(shown, {})]
        if rows:
            lines.append(f"- Outputs that write a word pair twice ({shown}), against the references: " + ", ".join(
                f"{name} {row['repeating']:.0%} vs {row['repeating_references']:.0%}" for name, row in rows)
                + " (a paragraph may rightly repeat one; a share well above the references' is the model's).")
    members = config.model.members
    if members > 1:
        lines.append(f"- Every decoding step runs each of its {members} members, so a reply takes several times "
                     "one model's time (still milliseconds per token on TFLite).")
    lines.append("- " + pipeline_for(config.task).describe())
    return lines


def _cell(text: str) -> str:
    """Text in a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def sample_outputs(generator, prompts: list[str]) -> dict[str, str]:
    return {prompt: result.text for prompt, result in zip(prompts, generator.generate(prompts))}


def card_samples(generator, backend: str) -> dict:
    """The model card's sample outputs: its task's card inputs decoded as `studio translate` or `studio chat`
    decodes them when asked for nothing else (default decoding and term protection, no glossary), on `backend`;
    none for a model whose input is not Korean (an imported one: the task's inputs are Korean)."""
    task = task_named(generator.config.task.task)
    if not generator.preprocessor.pair.korean_source:
        return {}
    options = task.default_options()
    protector = protector_for(Glossary(), True) if task.translates else None
    inputs = list(task.card_inputs)
    outputs = decode_all(generator, inputs, options, protector=protector)
    return {"samples": dict(zip(inputs, outputs)), "samples_decoding": f"{decoding_name(options)}, {backend}"}


def facts_line(result: dict) -> str:
    """A recorded evaluation's facts kept (`studio.fidelity`), as `studio eval` prints them."""
    shares = {}
    for key in ("facts_kept", "facts_kept_by_references"):
        counts = result[key]
        shares[key] = Facts(found={k: v["found"] for k, v in counts.items()},
                            kept={k: v["kept"] for k, v in counts.items()})
    return describe_facts(shares["facts_kept"], shares["facts_kept_by_references"])


def evaluation_entry(result: Score, pairs: int, backend: str, task: Task) -> dict:
    """How metrics.json's "evaluation" records one score of `studio eval` (a test set's `pairs`, on `backend`)."""
    return {"bleu": round(result.bleu, 2), "chrf": round(result.chrf, 2), "bleu_lc": round(result.bleu_lc, 2),
            "chrf_lc": round(result.chrf_lc, 2), "repeating": round(result.repeating, 4),
            "repeating_references": round(result.repeating_references, 4),
            **({"distinct": round(result.distinct, 4)} if task.reply_fluency else {}),
            **({"facts_kept": result.facts.as_dict(), "facts_kept_by_references": result.facts_references.as_dict()}
               if task.translates and result.facts else {}), "pairs": pairs,
            "bleu_signature": result.bleu_signature, "chrf_signature": result.chrf_signature, "backend": backend}


def record_evaluation(generator, recorded: dict, backend: str) -> Path:
    """`studio eval --record`: the scores `recorded` ({test set: {decoding: `evaluation_entry`}}) and the card's
    sample outputs, decoded on `backend`, stored in the generator's bundle (metrics.json) and its MODEL_CARD.md
    written again; returns the path of metrics.json."""
    loaded = generator.bundle
    metrics = dict(loaded.metrics)
    evaluation = metrics.setdefault("evaluation", {})
    for test_set in list(evaluation):  # scores of the older, lower-cased-only scheme are superseded
        if any("case:lc" in result.get("bleu_signature", "") for result in evaluation[test_set].values()):
            del evaluation[test_set]
    evaluation.update(recorded)
    metrics.update(card_samples(generator, backend))
    write_metrics(loaded.path, metrics)
    card = model_card(loaded.config, metrics, loaded.config.task.sources)
    atomic_write_bytes(loaded.path / "MODEL_CARD.md", card.encode("utf-8"))
    return loaded.path / "metrics.json"


__all__ = ["model_card", "sample_outputs", "card_samples", "evaluation_entry", "record_evaluation"]
