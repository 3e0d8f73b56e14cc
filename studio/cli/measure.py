"""`studio eval` and `studio bench`: how good a model's outputs are, and how fast each backend decodes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from studio.bundle import default_bundle, load_bundle
from studio.cli.common import (BACKENDS, EXPORT_MISSING, GLOSSARY, LENGTH_PENALTY, PROTECT, advancing, app,
                               check_writable, console, decode_options, load_generator, protector_from, task_of)
from studio.data import read_pairs
from studio.data.sources import EVAL_SETS, TUNING_SETS, chatbot_dev_pairs, chatbot_split, find_file
from studio.errors import StudioError
from studio.evaluate import decoding_name, evaluate, retrieval_baseline
from studio.fidelity import describe as describe_facts
from studio.generate import DecodeOptions
from studio.latency.bench import plot, run_beam_cost, run_benchmark
from studio.train.card import evaluation_entry, record_evaluation
from studio.variants import DEFAULT_BACKEND, VARIANTS, backends_help


def _evaluation_sets(task: str, test: list[Path] | None, sets: str, data_dir: Path | None,
                     config=None) -> list[tuple[str, list]]:
    """(name, pairs) to evaluate on: the --test files, else the task's named sets (the chatbot's is its own
    held-out split of ChatbotData, the translator's are the dev/test files of `studio data`)."""

    if test:
        return [(Path(path).stem, read_pairs(path)) for path in test]
    own = task_of(task).held_out_set
    if own:
        if sets not in ("all", "tuning", own):
            raise StudioError(f"unknown evaluation set(s) {sets} for the {task}: its set is {own} (its "
                              "held-out split of ChatbotData); pass --test FILE for another")
        return [(own, chatbot_dev_pairs(data_dir, config))]
    names = (list(EVAL_SETS) if sets == "all" else list(TUNING_SETS) if sets == "tuning"
             else [n.strip() for n in sets.split(",") if n.strip()])
    unknown = [n for n in names if n not in EVAL_SETS]
    if unknown:
        raise StudioError(f"unknown evaluation set(s) {', '.join(unknown)}; choose from {', '.join(EVAL_SETS)}, "
                          "all or tuning")
    found = {name: find_file(EVAL_SETS[name], data_dir) for name in names}
    missing = [name for name, path in found.items() if path is None]
    if missing or not names:
        raise StudioError(f"evaluation set(s) not found: {', '.join(missing) or 'none named'}; pass --test FILE "
                          "or --data-dir (see `studio data`)")
    return [(name, read_pairs(path)) for name, path in found.items()]


@app.command(name="eval")
def evaluate_command(task: str = typer.Argument(..., help="translator or chatbot"),
                     test: Optional[list[Path]] = typer.Option(None, help="Test file(s) (.tsv pairs, .csv, .ko, "
                                                               "park .tar.gz) [default: --sets]"),
                     sets: str = typer.Option("all", help="Named sets when no --test: all, tuning (park_dev, "
                                                          "wmt24pp_news_dev, jhe_dev), or names; park_test is for "
                                                          "reporting only: never tune on it. The chatbot's set is "
                                                          "its held-out split of ChatbotData"),
                     bundle: Optional[Path] = typer.Option(None, help="Bundle [default: the shipped model]"),
                     backend: str = typer.Option(DEFAULT_BACKEND, help=BACKENDS),
                     beam: int = typer.Option(4, "--beam", help="Beam size for the beam-search row (1 = skip it)"),
                     length_penalty: Optional[float] = LENGTH_PENALTY,
                     limit: Optional[int] = typer.Option(None, min=1, help="Only the first N pairs of each file"),
                     batch_size: int = typer.Option(32, min=1, help="Sentences decoded together"),
                     hypotheses: Optional[Path] = typer.Option(None, help="Write outputs here: one file per test "
                                                               "set and strategy, named after this prefix"),
                     data_dir: Optional[Path] = typer.Option(None, help="Where to find the default test sets"),
                     record: bool = typer.Option(False, help="Also store the scores in the bundle's metrics.json "
                                                             "and model card"),
                     glossary: Optional[Path] = GLOSSARY, protect: bool = PROTECT,
                     keep_figures: bool = typer.Option(True, "--keep-figures/--free-figures",
                                                       help="The translator writes only numbers its source has "
                                                            "(--free-figures: any digits, to measure what that "
                                                            "changes)"),
                     export_missing: bool = EXPORT_MISSING):
    """Corpus BLEU and chrF (sacrebleu, with signatures) for greedy and beam search."""

    translates = task_of(task).translates
    if glossary and not translates:
        raise StudioError("--glossary is for the translator")
    protector = protector_from(glossary, protect) if translates else None  # a bad glossary fails first
    if hypotheses:
        check_writable(hypotheses, "--hypotheses")
    generator = load_generator(bundle, task, backend, export_missing)
    test_sets = _evaluation_sets(task, test, sets, data_dir, generator.config)
    strategies = {"greedy": DecodeOptions(keep_figures=keep_figures)}
    if beam > 1:  # at the task's default length penalty unless one is given
        options = decode_options(task, beam, length_penalty, temperature=1.0, top_k=0, top_p=1.0,
                                 keep_figures=keep_figures)
        strategies[decoding_name(options)] = options
    chatbot = task_of(generator.config.task.task).reply_fluency  # a chatbot's share of distinct replies
    table = Table(title=f"{generator.bundle.path.name} on {backend}")
    for column in ("test set", "pairs", "decoding", "BLEU", "chrF", "BLEU (lc)", "chrF (lc)", "repeating",
                   *(["distinct"] if chatbot else []), *(["facts kept (references)"] if translates else []),
                   "seconds"):
        table.add_column(column)
    signatures = set()
    recorded = {}
    for name, pairs in test_sets:
        pairs = [p for p in pairs if p.source.strip()][:limit] if limit else pairs
        with Progress(console=console, transient=True, disable=not console.is_terminal) as progress:
            job = progress.add_task(f"{name} (sentences decoded)", total=None)
            scores = evaluate(generator, pairs, strategies, batch_size,
                              on_progress=advancing(progress, job),
                              protector=protector)
        if name == task_of(task).held_out_set and not test:  # the chatbot's own split: the bar it must clear
            scores.append(retrieval_baseline(chatbot_split(data_dir, generator.config)[0], pairs))
        for result in scores:
            table.add_row(name, str(len(pairs)), result.name, f"{result.bleu:.2f}", f"{result.chrf:.2f}",
                          f"{result.bleu_lc:.2f}", f"{result.chrf_lc:.2f}",
                          f"{result.repeating:.1%} (references {result.repeating_references:.1%})",
                          *([f"{result.distinct:.1%}"] if chatbot else []),
                          *([describe_facts(result.facts, result.facts_references) if result.facts else "-"]
                            if translates else []),
                          f"{result.seconds:.0f}")
            signatures.update([f"BLEU {result.bleu_signature}", f"chrF {result.chrf_signature}"])
            recorded.setdefault(name, {})[result.name] = evaluation_entry(
                result, len(pairs), backend, task_of(generator.config.task.task))
            if hypotheses:
                target = Path(f"{hypotheses}.{name}.{result.name.replace(' ', '').replace(',', '-')}.txt")
                target.write_text("".join(h + "\n" for h in result.hypotheses), encoding="utf-8")
    Console(width=None if sys.stdout.isatty() else 160).print(table)  # piped: wide enough for every column
    for signature in sorted(signatures):
        console.print(signature, highlight=False)
    if record:
        recorded_in = record_evaluation(generator, recorded, backend)
        console.print(f"Recorded in {recorded_in} and MODEL_CARD.md")


@app.command()
def bench(bundle: Optional[Path] = typer.Option(None, help="Bundle [default: the shipped chatbot]"),
          backends: str = typer.Option("all", help="Comma-separated, or all: " + backends_help(serving=False)),
          lengths: str = typer.Option("8,16,30", help="Output lengths in tokens (short, medium, long)"),
          repeats: int = typer.Option(7, min=1, help="Timed runs per backend and length"),
          threads: int = typer.Option(os.cpu_count() or 1, min=1, help="CPU threads, the same for every backend"),
          text: Optional[list[str]] = typer.Option(None, "--text", help="An input to decode (repeat for several; "
                                                   "the rounds take them in turn) [default: a tutorial prompt]"),
          beam: int = typer.Option(0, "--beam", min=0, max=16, help="Also time beam search of this width against "
                                   "greedy, end to end as the product decodes (0: not)"),
          json_path: Optional[Path] = typer.Option(None, "--json", help="Write the rows here"),
          plot_path: Optional[Path] = typer.Option(None, "--plot", help="Save a bar chart here (PNG)")):
    """Measure decode latency of every backend on the same inputs, side by side in one run."""

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see studio/latency/bench.py: no spin-waiting pools

    try:
        steps = [int(n) for n in lengths.split(",") if n.strip()]
    except ValueError:
        steps = []
    if not steps or min(steps) < 1:
        raise StudioError(f"--lengths expects output lengths of 1 token or more, like 8,16,30, not {lengths!r}")
    for path, option in ((json_path, "--json"), (plot_path, "--plot")):
        if path:
            check_writable(path, option)  # before the benchmark's minutes, not after

    try:
        import tensorflow as tf  # loaded already: `main` imports TensorFlow for this command

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    except RuntimeError:
        console.print("[yellow]TensorFlow was already initialised; its thread count could not be set[/yellow]")
    loaded = load_bundle(bundle or default_bundle("chatbot"))
    chosen = list(VARIANTS) if backends == "all" else [b.strip() for b in backends.split(",") if b.strip()]
    unknown = [b for b in chosen if b not in VARIANTS]
    if unknown:
        raise StudioError(f"unknown backend(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}")
    texts = [t for t in (text or []) if t.strip()]
    if text and not texts:
        raise StudioError("--text is empty: give a sentence to decode")
    rows = run_benchmark(loaded, chosen, steps, repeats, threads, prompts=texts or None,
                         progress=lambda message: console.print(message, highlight=False))
    pieces = "/".join(str(n) for n in rows[0]["source_tokens"]) if rows else "?"
    table = Table(title=f"Decode latency: {loaded.path.name}, batch 1, {threads} threads, median of {repeats}, "
                        f"source of {pieces} tokens")
    for column in ("backend", "variant", "tokens", "ms/token p50", "p90", "first token ms", "total ms",
                   "x vs tf-naive", "ms/token vs CT2", "greedy = TF"):
        table.add_column(column, justify="right" if column not in ("backend", "variant") else "left")
    for row in sorted(rows, key=lambda r: (r["output_tokens"], -r["total_ms_p50"])):
        number = lambda value, digits: "" if value is None else f"{value:.{digits}f}"  # noqa: E731
        table.add_row(row["backend"], row["variant"], str(row["output_tokens"]), number(row["ms_per_token_p50"], 2),
                      number(row["ms_per_token_p90"], 2), number(row["first_token_ms_p50"], 1),
                      number(row["total_ms_p50"], 1),
                      f"{row['speedup_vs_tf_naive']:.1f}x" if row["speedup_vs_tf_naive"] else "",
                      f"{row['ms_per_token_vs_ctranslate2']:.2f}" if row["ms_per_token_vs_ctranslate2"] else "",
                      f"{row['outputs_match_tf']:.0%}")
    Console(width=max(Console().width, 140)).print(table)
    beam_rows = []
    if beam > 1:
        beam_rows = run_beam_cost(loaded, chosen, beam, repeats, threads, prompts=texts or None,
                                  progress=lambda message: console.print(message, highlight=False))
        print_beam_cost(beam_rows)
    if json_path:
        json_path.write_text(json.dumps(rows + beam_rows, indent=2) + "\n", encoding="utf-8")
        console.print(f"Wrote {json_path}")
    if plot_path:
        plot(rows, plot_path)
        console.print(f"Saved {plot_path}")


def print_beam_cost(rows: list[dict]) -> None:
    if not rows:
        return
    first = rows[0]
    table = Table(title=f"Beam {first['beam_size']} (length penalty {first['length_penalty']}) against greedy, end "
                        f"to end, batch 1, {first['threads']} threads: mean of {first['repeats']} rounds of "
                        f"{first['inputs']} inputs")
    for column in ("backend", "variant", "greedy ms", f"beam {first['beam_size']} ms", "beam / greedy"):
        table.add_column(column, justify="right" if "ms" in column or "/" in column else "left")
    for row in sorted(rows, key=lambda r: r["beam_ms_mean"]):
        table.add_row(row["runtime"], row["variant"], f"{row['greedy_ms_mean']:.1f}", f"{row['beam_ms_mean']:.1f}",
                      f"{row['beam_vs_greedy']:.2f}x")
    Console(width=max(Console().width, 120)).print(table)
