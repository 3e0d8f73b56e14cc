"""`studio train`, `ensemble`, `import`, `export`, `web` and `data`: making, importing, exporting and finding models
and their data."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from exporters import export_bundle
from exporters.package import DEFAULT_VARIANTS, TARGETS, check_package, package_export
from exporters.web import build_site
from studio import library
from studio.bundle import default_bundle, load_bundle
from studio.cli.common import app, console
from studio.importers.hub import MAIN
from studio.importers.pretrained import MAX_LENGTH, import_pretrained, library_target
from studio.data import sources as src
from studio.errors import StudioError
from studio.train.ensemble import ensemble_bundle
from studio.train.run import config_from_args, train_task
from studio.graph_pack import PACK_DIR, pack
from studio.variants import EXPORTED_BACKENDS, VARIANTS, export_dir_for, read_manifest, stale_reasons


@app.command()
def train(task: str = typer.Argument(..., help="chatbot or translator"),
          out: Path = typer.Option(..., help="Run directory; it becomes a loadable bundle"),
          data_dir: Optional[Path] = typer.Option(None, help="Data directory (see `studio data`)"),
          data: Optional[list[Path]] = typer.Option(None, help="Train on these files instead (.csv, .tsv, .ko, .tar.gz)"),
          sources: Optional[str] = typer.Option(None, help="Translator mix: all, commercial-safe, or names (kss,korsts,...)"),
          resume: bool = typer.Option(False, help="Continue the run in --out from its last checkpoint"),
          preset: Optional[str] = typer.Option(None, help="Configuration preset: chatbot, chatbot-small, translator, "
                                                                 "translator-small, translator-tutorial; with "
                                                                 "--init-from on a small set: chatbot-finetune, "
                                                                 "translator-finetune"),
          init_from: Optional[Path] = typer.Option(None, help="Start from this bundle's weights and tokenizer "
                                                               "(e.g. continue training a shipped model); with another "
                                                               "text pipeline or --tokenizer, its embeddings are re-indexed"),
          tokenizer: Optional[Path] = typer.Option(None, help="Use this tokenizer folder (a bundle's tokenizer/) "
                                                              "instead of training one"),
          dev: Optional[list[Path]] = typer.Option(None, help="Dev pairs from these files instead of a split of the "
                                                              "data (pairs in both are left out of training)"),
          epochs: Optional[int] = typer.Option(None, help="Epochs [default: the task's preset]"),
          strategy: Optional[str] = typer.Option(None, help="tf.distribute strategy: default, mirrored, multiworker"),
          max_steps: Optional[int] = typer.Option(None, help="Stop after this many steps (a budget in steps; "
                                                                "--max-minutes is one in time)"),
          max_minutes: Optional[float] = typer.Option(None, help="Stop after this many training minutes (resumable)"),
          checkpoint_minutes: float = typer.Option(10.0, help="Also checkpoint every this many minutes"),
          set_: Optional[list[str]] = typer.Option(None, "--set", help="Override a setting, e.g. model.d_model=128")):
    """Train a chatbot or a translator; writes checkpoints, TensorBoard logs and a bundle into --out."""
    overrides = config_from_args(set_ or [])
    if epochs:
        overrides["train.epochs"] = epochs
    if strategy:
        overrides["train.strategy"] = strategy
    if max_minutes:
        overrides["train.max_minutes"] = max_minutes
    metrics = train_task(task, out, data_dir=data_dir, resume=resume, sources=sources, data_files=data,
                         overrides=overrides, max_steps=max_steps, console=console,
                         checkpoint_minutes=checkpoint_minutes, preset=preset, init_from=init_from,
                         tokenizer_dir=tokenizer, dev_files=dev)
    summary = {k: metrics[k] for k in ("dev_loss", "dev_token_accuracy", "dev_chrf") if k in metrics}
    console.print(f"Done: {summary}")


@app.command()
def ensemble(bundles: list[Path] = typer.Argument(..., help="Two or more bundles of one architecture and tokenizer, "
                                                            "trained apart (e.g. --set train.seed=N)"),
             out: Path = typer.Option(..., help="Where to write the ensemble's bundle")):
    """One bundle of several trained models whose next-token log-probabilities are averaged at every step (an
    ensemble: usually better than each member, and as slow as all of them). Score it with `studio eval`."""
    path = ensemble_bundle(bundles, out)
    console.print(f"Ensemble of {len(bundles)} written to {path}; score it with `studio eval <task> --bundle {path}`",
                  highlight=False)


@app.command("import")
def import_model(source: Path = typer.Argument(..., help="A Marian / OPUS-MT release (its folder or zip: decoder.yml, "
                                                        "the .npz, the vocabulary .yml, source.spm, target.spm), a "
                                                        "Hugging Face MarianMT folder (config.json, "
                                                        "model.safetensors, vocab.json, source.spm, target.spm), or "
                                                        "a Hugging Face model id such as Helsinki-NLP/opus-mt-ko-en "
                                                        "(downloaded into the user cache)"),
                 name: Optional[str] = typer.Option(None, help="Its name in the model library [default: the "
                                                               "folder's or zip's name, or the model id's]"),
                 out: Optional[Path] = typer.Option(None, help="Write the bundle into this new folder instead of "
                                                               "the library"),
                 max_length: int = typer.Option(MAX_LENGTH, help="The longest source and output, in tokens (the "
                                                                 "decode cache's capacity)"),
                 compact: bool = typer.Option(False, "--compact", help="Store float16 weights and int8 embeddings as "
                                                                       "trained bundles do: half the size, outputs "
                                                                       "may differ slightly from Marian's"),
                 revision: str = typer.Option(MAIN, help="With a Hugging Face model id: the branch, tag or commit to "
                                                         "download (each revision has its own cache folder)")):
    """Import a pretrained translator (a Marian / OPUS-MT model, as Marian or Hugging Face publishes it) as a bundle:
    every backend, export and tab then works with it. Its source, licence and published scores go into its card."""
    out = out or library_target(source, name)
    path = import_pretrained(source, out, max_length=max_length, compact=compact, revision=revision,
                             progress=lambda message: console.print(message, highlight=False, markup=False))
    config = load_bundle(path).config.task
    where = f"`studio models --use {path.name}` makes it the translator the app uses" if out.parent == \
        library.models_dir() else f"translate with it: studio translate TEXT --bundle {path}"
    console.print(f"Imported {source.name} as {path} ({config.source_lang}→{config.target_lang}); {where}",
                  highlight=False, markup=False)


@app.command()
def export(bundle: Optional[Path] = typer.Argument(None, help="Bundle directory [default: the shipped chatbot]"),
           out: Optional[Path] = typer.Option(None, help="Output directory [default: BUNDLE/exports]"),
           quantize: str = typer.Option("all", help="TFLite: none, float16, dynamic-int8, or all"),
           onnx_quantize: str = typer.Option("all", help="ONNX: none, int8, or all"),
           verify: bool = typer.Option(True, help="Check the graphs reproduce TensorFlow's logits and greedy outputs"),
           batch1: bool = typer.Option(False, "--batch1", help="Also the batch-1 graphs with static shapes "
                                                                "(model.b1*.tflite: the web page, mobile apps)"),
           pack_graphs: bool = typer.Option(False, "--pack", help="Also keep the fp32 and float16 graphs in the "
                                                                  "bundle as a graph pack (BUNDLE/graphs/, about 1 MB: "
                                                                  "rebuilt from the weights in a second, so a copy "
                                                                  "of the bundle needs no export)"),
           zip_path: Optional[Path] = typer.Option(None, "--zip", help="Then also write a package for --target into "
                                                                       "this zip: the model, tokenizer, manifest, "
                                                                       "golden data and a README with working code"),
           target: Optional[str] = typer.Option(None, help=f"With --zip: {', '.join(sorted(TARGETS))} "
                                                           "[default: python]"),
           variant: Optional[str] = typer.Option(None, help="With --zip: the .tflite variant it ships [default: "
                                                            + ", ".join(f"{t} {v}" for t, v in
                                                                        sorted(DEFAULT_VARIANTS.items())) + "]")):
    """Export a bundle to TFLite (signatures encode/decode_step/decode_rows, builtin ops only) and ONNX, with a
    manifest; with --zip, also a package of what an app needs for one target."""
    if zip_path is None and (target or variant):
        raise StudioError("--target and --variant choose what --zip packages: add --zip OUT.zip")
    if zip_path is not None:  # before the export: a wrong name fails at once, not after minutes
        check_package(target or "python", variant, zip_path)

    def variants(value, format_name, option):
        known = {VARIANTS[name].quantization: name for name in EXPORTED_BACKENDS if VARIANTS[name].format == format_name}
        chosen = list(known) if value == "all" else [v.strip() for v in value.split(",") if v.strip()]
        unknown = [v for v in chosen if v not in known]
        if unknown:
            raise StudioError(f"{option}: unknown variant(s) {', '.join(unknown)}; choose from {', '.join(known)} or all")
        return [known["none"]] + [known[v] for v in chosen if v != "none"]

    tflite = variants(quantize, "tflite", "--quantize")
    backends = tflite + variants(onnx_quantize, "onnx", "--onnx-quantize")
    if batch1:
        quantizations = {VARIANTS[name].quantization for name in tflite}
        backends += [v.name for v in VARIANTS.values() if v.batch == 1 and v.quantization in quantizations]
    def say(message: str) -> None:
        console.print(message, highlight=False)

    source_folder = bundle or default_bundle("chatbot")
    directory = Path(out) if out else export_dir_for(source_folder)
    if zip_path is not None and not any(stale_reasons(source_folder, backends, directory).values()):
        say(f"The export in {directory} is current: packaging it as it is (delete the folder to export anew)")
        manifest = read_manifest(directory)
    else:
        manifest = export_bundle(source_folder, out, backends, verify, progress=say)
    if pack_graphs:
        source = load_bundle(bundle or default_bundle("chatbot"))
        index = pack(source, Path(out) if out else export_dir_for(source.path))
        size = sum(f.stat().st_size for f in (source.path / PACK_DIR).iterdir())
        console.print(f"Graph pack of {', '.join(index['backends'])} written to {source.path / PACK_DIR} "
                      f"({size / 2**20:.1f} MB)", highlight=False)
    table = Table(title="Exported graphs")
    for column in ("file", "MB", "max |logit diff| vs TF", "greedy match"):
        table.add_column(column)
    verification = manifest.get("verification", {})
    backend_of = {file: name for name in EXPORTED_BACKENDS for file in VARIANTS[name].files[:1]}
    for name, entry in manifest["files"].items():
        check = verification.get(backend_of.get(name, ""), {})
        table.add_row(name, f"{entry['bytes'] / 2**20:.1f}",
                      f"{check['max_abs_logit_diff']:.2e}" if check else "",
                      f"{check['greedy_match_rate']:.0%} of {check['samples']}" if check else "")
    Console().print(table)
    if zip_path is not None:
        path = package_export(source_folder, target or "python", zip_path, variant=variant, export_dir=out,
                              progress=say)
        console.print(f"Package for {target or 'python'} written to {path} ({path.stat().st_size / 2**20:.1f} MB, "
                      f"{path.stat().st_size:,} bytes)", highlight=False)


@app.command()
def web(site: Path = typer.Argument(..., help="Folder to write the static site into"),
        bundle: Optional[list[Path]] = typer.Option(None, help="Bundle(s), one tab each [default: the shipped chatbot "
                                                               "and translator]"),
        variant: str = typer.Option("tflite-b1-float16", help="The .tflite the page runs (batch 1, static shapes): "
                                                               "tflite-b1, tflite-b1-float16 or tflite-b1-int8")):
    """Write a static web site that runs the models in the visitor's browser (LiteRT.js, offline after load)."""
    bundles = bundle or [default_bundle("chatbot"), default_bundle("translator")]
    build_site(bundles, site, variant, progress=lambda message: console.print(message, highlight=False))


@app.command()
def data(data_dir: Optional[Path] = typer.Option(None, help="Look only here"),
         download: bool = typer.Option(False, help="Download the public originals into the cache (needs internet)")):
    """Show where training data is found, or download it."""

    if download:
        for path in src.download_originals():
            console.print(f"downloaded {path}")
    table = Table(title="Training and evaluation data")
    table.add_column("dataset")
    table.add_column("file")
    table.add_column("found at")
    rows = [("chatbot", "chatbot/ChatbotData.csv")]
    rows += [(f"koen: {s.name}", s.path) for s in src.KOEN_SOURCES.values()]
    rows += [(f"eval: {name}", path) for name, path in src.EVAL_SETS.items()]
    rows += [(f"back-translation: {name}", path) for name, path in src.EN_MONO.items()]
    missing = 0
    for name, relative in rows:
        found = src.find_file(relative, data_dir)
        missing += found is None
        table.add_row(name, relative, str(found) if found else "[red]not found[/red]")
    Console().print(table)
    searched = [f"{label}: {path}" for label, path in src.candidate_data_dirs(data_dir)] if not data_dir else [str(data_dir)]
    console.print("Searched: " + "; ".join(searched), highlight=False)
    if missing:
        console.print(f"{missing} file(s) not found. To use a folder with this layout, {src.WHERE}; or run "
                      f"`studio data --download` (ChatbotData from {src.CHATBOT_URL}; park tarballs from "
                      f"{src.PARK_URL}).", highlight=False)
