"""The Export tab: pick a model of the library and a target, and download a zip that runs it there — the model file,
its tokenizer, a manifest with sha256s, golden data to test a port, and a README with working code
(`exporters.package`, the same as `studio export --zip`). After the export the tab shows, for the file it
packed, its size, its parity with TensorFlow (the export's verification) and its latency measured here
(a short `studio bench`), so the choice between fp32, float16 and int8 is made with numbers; "Compare every
graph" does that for each graph the target can ship, timed side by side in one run."""

from __future__ import annotations

import html
import queue
import tempfile
import threading
import time
from pathlib import Path

import gradio as gr

from exporters import ensure_exported
from exporters.package import DEFAULT_VARIANTS, check_package, package_export
from exporters.verify import verify_exports
from studio import library
from studio.bundle import load_bundle
from studio.errors import StudioError
from studio.files import session_folder
from studio.latency.bench import run_benchmark
from studio.app_model import remove_old_files
from studio.ui.common import warn
from studio.variants import VARIANTS, export_dir_for, read_manifest

TARGETS = {"Python (LiteRT or ONNX Runtime)": "python", "Android (Kotlin library)": "android",
           "iOS (model and data for a Swift port)": "ios", "Web page (LiteRT.js)": "web"}
CHOICES = {"python": ["tflite", "tflite-float16", "tflite-int8", "tflite-b1", "tflite-b1-float16", "tflite-b1-int8",
                      "onnx", "onnx-int8"],
           "android": ["onnx", "onnx-int8", "tflite-b1-float16", "tflite-b1", "tflite-b1-int8"],
           "ios": ["tflite-b1-float16", "tflite-b1", "tflite-b1-int8", "onnx", "onnx-int8"],
           "web": ["tflite-b1-float16", "tflite-b1", "tflite-b1-int8"]}


def variant_choices(target_label: str):
    return gr.Dropdown(**_dropdown(target_label))


def measured(bundle, variant: str, repeats: int = 3) -> dict:
    """ms/token and first-token ms of `variant` here: a short `studio bench` (16 tokens, batch 1)."""
    rows = run_benchmark(bundle, [variant], lengths=(16,), repeats=repeats, threads=2, progress=lambda _: None)
    return rows[0]


def parity(bundle, variant: str) -> dict:
    """The export's check against TensorFlow (`exporters.verify`): from the manifest, else made now. The batch-1
    graphs have none: the benchmark's comparison of greedy outputs stands for it."""
    if not VARIANTS[variant].serves:
        return {}
    export_dir = export_dir_for(bundle.path)
    check = read_manifest(export_dir).get("verification", {}).get(variant)
    return check or verify_exports(bundle, export_dir, [variant])[variant]


def file_megabytes(bundle, variant: str) -> float:
    """The size of the graph file(s) a package of `variant` ships (ONNX: encode and decode_step)."""
    files = read_manifest(export_dir_for(bundle.path))["files"]
    return sum(files[name]["bytes"] for name in VARIANTS[variant].files[:2] if name in files) / 2**20


def comparison_rows(bundle, variants: list[str], progress) -> list[list]:
    """One row per variant: size, parity with TensorFlow and latency here, all timed side by side in one run."""
    ensure_exported(bundle, ["tflite", *variants], progress=progress)
    progress("Timing every graph, side by side...")
    timings = {row["runtime"]: row for row in run_benchmark(bundle, variants, lengths=(16,), repeats=3, threads=2,
                                                            progress=progress)}
    rows = []
    for variant in variants:
        check = parity(bundle, variant)
        timing = timings[variant]
        rows.append([variant, round(file_megabytes(bundle, variant), 1),
                     f"{check['max_abs_logit_diff']:.1e}" if check else "-",
                     f"{check['greedy_match_rate']:.0%}" if check else "-",
                     round(timing["ms_per_token_p50"], 2), round(timing["first_token_ms_p50"], 1),
                     f"{timing['outputs_match_tf']:.0%}"])
    return rows


COMPARISON_HEADERS = ["graph", "MB", "largest logit difference", "greedy = TF (verification)", "ms/token",
                      "first token ms", "greedy = TF (bench)"]


def summary(bundle, variant: str, zip_path: Path, check: dict, timing: dict) -> str:
    file = " + ".join(VARIANTS[variant].files[:2]) if VARIANTS[variant].format == "onnx" else VARIANTS[variant].files[0]
    parity = (f"largest logit difference {check['max_abs_logit_diff']:.1e}, greedy outputs identical on "
              f"{check['greedy_match_rate']:.0%} of {check['samples']} inputs") if check else \
        "batch-1 graphs are not verified logit by logit: see “greedy outputs = TensorFlow's” in the next row"
    lines = [f"| {html.escape(bundle.path.name)} | {variant} |", "|---|---|",
             f"| Package | `{html.escape(zip_path.name)}`, {zip_path.stat().st_size / 2**20:.1f} MB |",
             f"| Model file | `{file}`, {file_megabytes(bundle, variant):.1f} MB |",
             f"| Parity with TensorFlow | {parity} |",
             f"| Measured here (batch 1, 2 threads) | {timing['ms_per_token_p50']:.2f} ms/token, first token "
             f"{timing['first_token_ms_p50']:.1f} ms; greedy outputs = TensorFlow's: "
             f"{timing['outputs_match_tf']:.0%} |"]
    return "\n".join(lines)


def model_choices(name: str | None, known: list[str]) -> tuple[dict, list[str]]:
    """The library's models and the names now known: a model new since `known` was listed is chosen (what a user
    who has just trained one comes to export), else `name` while it is still there, else the first."""
    entries = library.list_models()
    names = [e.name for e in entries]
    new = [e for e in entries if e.name not in known]
    if new and known:
        name = max(new, key=_written).name
    elif name not in names:
        name = next(iter(names), None)
    return {"choices": names, "value": name}, names


def _written(entry: library.ModelEntry) -> float:
    try:
        return (entry.path / "config.json").stat().st_mtime
    except OSError:  # deleted meanwhile
        return 0.0


class ExportTab:
    def __init__(self):
        self.out_dir = session_folder("studio-packages-")
        gr.Markdown("Export a model for an app: a zip with the model file, its tokenizer, a manifest with sha256s, "
                    "golden data to test your port, and a README with code to run it. The export is checked "
                    "against TensorFlow and timed on this computer.")
        with gr.Row():
            choices, names = model_choices(None, [])
            self.model = gr.Dropdown(**choices, label="Model", elem_id="export-model")
            self.known = gr.State(names)  # the names listed last: a model new since then is chosen
            refresh = gr.Button("Refresh", size="sm", scale=0, min_width=90)  # beside the list, not stretched
        with gr.Row():  # the targets on one line, the graph beside them (sharing a row with the model, they wrapped)
            self.target = gr.Radio(list(TARGETS), value=next(iter(TARGETS)), label="For", elem_id="export-target",
                                   scale=3)
            # wide enough for the longest graph's name ("LiteRT float16, batch 1 (tflite-b1-float16)")
            self.variant = gr.Dropdown(label="Graph", elem_id="export-variant", scale=2, min_width=340,
                                       **_dropdown(next(iter(TARGETS))))
        with gr.Row():
            go = gr.Button("Export and package", variant="primary", elem_id="export-go")
            compare = gr.Button("Compare every graph for this target", elem_id="export-compare")
        self.progress = gr.Markdown(elem_id="export-progress")
        self.result = gr.Markdown(elem_id="export-result")
        self.download = gr.File(label="Download", interactive=False, elem_id="export-download")
        self.table = gr.Dataframe(headers=COMPARISON_HEADERS, label="Every graph, measured here (batch 1, 16 tokens, "
                                  "2 threads, side by side)", interactive=False, visible=False, wrap=True,
                                  column_widths=["17%", "8%", "16%", "16%", "12%", "14%", "17%"],
                                  elem_id="export-comparison")
        private = {"api_visibility": "private"}
        refresh.click(self.shown, self.shown_from, self.listing, **private)
        # what the page shows is of one model and target: another choice clears the last export's card and zip
        shown = [self.progress, self.result, self.download, self.table]
        self.target.change(variant_choices, self.target, self.variant, **private).then(cleared, None, shown, **private)
        self.model.change(cleared, None, shown, **private)  # chosen by hand, or anew when the tab lists the library
        self.variant.input(lambda: cleared()[:3], None, shown[:3], **private)  # the comparison is of every graph
        # while an export or a comparison runs, nothing can change what it is of, nor start another
        choosing = [self.model, refresh, self.target, self.variant, go, compare]
        locked, unlocked = usable(False, len(choosing)), usable(True, len(choosing))
        go.click(locked, None, choosing, **private).then(
            self.export, [self.model, self.target, self.variant], [self.progress, self.result, self.download],
            **private).then(unlocked, None, choosing, **private)
        compare.click(locked, None, choosing, **private).then(
            self.compare_graphs, [self.model, self.target], [self.progress, self.table], **private).then(
            unlocked, None, choosing, **private)

    @property
    def listing(self) -> list:
        return [self.model, self.known]

    @property
    def shown_from(self) -> list:
        return [self.model, self.known]

    @staticmethod
    def shown(name: str | None, known: list[str]):
        choices, names = model_choices(name, known)
        return gr.Dropdown(**choices), names

    def export(self, name, target_label, variant):
        """Yields (progress, result, download) as the export goes on."""
        if not name:
            warn("Choose a model first.")
            yield "", "", None
            return
        outcome: dict = {}
        for lines in _in_background(self._work, name, TARGETS[target_label], variant, outcome=outcome):
            yield lines, "", None
        if "error" in outcome:
            warn(outcome["error"])
            yield lines, f"**The export failed:** {html.escape(outcome['error'])}", None
            return
        yield lines, outcome["summary"], str(outcome["zip"])

    def compare_graphs(self, name, target_label):
        """Yields (progress, table) while every graph of the target is exported, checked and timed."""
        hidden = gr.Dataframe(visible=False)
        if not name:
            warn("Choose a model first.")
            yield "", hidden
            return
        outcome: dict = {}
        for lines in _in_background(self._compare_work, name, TARGETS[target_label], outcome=outcome):
            yield lines, hidden
        if "error" in outcome:
            warn(outcome["error"])
            yield f"**The comparison failed:** {html.escape(outcome['error'])}", hidden
            return
        yield lines, gr.Dataframe(value=outcome["rows"], headers=COMPARISON_HEADERS, visible=True)

    @staticmethod
    def _compare_work(name, target, messages, outcome) -> None:
        try:
            bundle = load_bundle(library.find_model(name).path)
            outcome["rows"] = comparison_rows(bundle, CHOICES[target], messages.put)
            messages.put(f"Done: {len(outcome['rows'])} graphs measured")
        except (StudioError, OSError) as error:
            outcome["error"] = str(error)
        except Exception as error:  # noqa: BLE001 - a converter's or runtime's own error: said, not raised
            outcome["error"] = f"{type(error).__name__}: {error}"

    def _work(self, name, target, variant, messages, outcome) -> None:
        try:
            remove_old_files(self.out_dir, max_age_s=3600)
            entry = library.find_model(name)
            bundle = load_bundle(entry.path)
            # a folder per export: the zip keeps a plain name ("faq-bot-python.zip") and never meets another
            out = Path(tempfile.mkdtemp(prefix=time.strftime("%H%M%S-"), dir=self.out_dir)) / \
                f"{entry.name}-{target}.zip".replace(" ", "-")
            variant = check_package(target, variant, out)  # before the export: a missing tool is said at once
            ensure_exported(bundle, [variant, "tflite"], progress=messages.put)  # verification needs tflite too
            package_export(bundle, target, out, variant=variant, progress=messages.put)
            messages.put("Checking it against TensorFlow...")
            check = parity(bundle, variant)
            messages.put("Timing it on this computer...")
            outcome["summary"] = summary(bundle, variant, out, check, measured(bundle, variant))
            outcome["zip"] = out
            messages.put(f"Done: {out.name}")
        except (StudioError, OSError) as error:
            outcome["error"] = str(error)
        except Exception as error:  # noqa: BLE001 - a converter's or runtime's own error: said, not raised
            outcome["error"] = f"{type(error).__name__}: {error}"


def cleared() -> tuple:
    """The progress, result card, download and comparison table of no export."""
    return "", "", None, gr.Dataframe(value=None, visible=False)


def usable(interactive: bool, controls: int):
    """An event function that makes `controls` components usable or not."""
    return lambda: [gr.update(interactive=interactive)] * controls


def _in_background(work, *args, outcome: dict):
    """Run `work(*args, messages, outcome)` in a thread; yields the last progress lines (markdown) as they come."""
    messages: queue.Queue = queue.Queue()
    thread = threading.Thread(target=work, args=(*args, messages, outcome), daemon=True)
    thread.start()
    lines: list[str] = []
    while thread.is_alive() or not messages.empty():
        try:
            lines.append(html.escape(messages.get(timeout=0.5)))
            yield "\n\n".join(lines[-6:])
        except queue.Empty:
            continue
    yield "\n\n".join(lines[-3:])


def graph_name(variant: str) -> str:
    """A graph as the list shows it, short enough not to be cut: "LiteRT float16, batch 1 (tflite-b1-float16)"."""
    v = VARIANTS[variant]
    runtime = {"tflite": "LiteRT", "onnx": "ONNX"}.get(v.format, v.format)
    weights = v.label.replace(" b1", "").replace("dynamic-", "")
    return f"{runtime} {weights}{', batch 1' if v.batch == 1 else ''} ({variant})"


def _dropdown(target_label: str) -> dict:
    """The graphs a target can ship, its default chosen."""
    target = TARGETS[target_label]
    return {"choices": [(graph_name(v), v) for v in CHOICES[target]],
            "value": DEFAULT_VARIANTS[target] if DEFAULT_VARIANTS[target] in CHOICES[target] else CHOICES[target][0]}
