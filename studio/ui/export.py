"""The Export tab: pick a model of the library and a target, and download a zip that runs it there — the model file,
its tokenizer, a manifest with sha256s, golden data to test a port, and a README with working code
(`exporters.package`, the same as `studio export --zip`). After the export the tab shows, for the file it
packed, its size, its parity with TensorFlow (the export's verification) and its latency measured here
(a short `studio bench`), so the choice between fp32, float16 and int8 is made with numbers."""

from __future__ import annotations

import html
import queue
import tempfile
import threading
import time
from pathlib import Path

import gradio as gr

from exporters import ensure_exported
from exporters.verify import verify_exports
from exporters.package import DEFAULT_VARIANTS, package_export, package_variant
from studio import library
from studio.bundle import load_bundle
from studio.errors import StudioError
from studio.latency.bench import run_benchmark
from studio.ui.common import remove_old_files, warn
from studio.variants import VARIANTS, export_dir_for, read_manifest

TARGETS = {"Python (LiteRT)": "python", "Android (Kotlin)": "android", "iOS (Swift)": "ios",
           "Web page (LiteRT.js, offline)": "web"}
CHOICES = {"python": ["tflite", "tflite-float16", "tflite-int8", "tflite-b1", "tflite-b1-float16", "tflite-b1-int8"],
           **{t: ["tflite-b1-float16", "tflite-b1", "tflite-b1-int8"] for t in ("android", "ios", "web")}}


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


def summary(bundle, variant: str, zip_path: Path, check: dict, timing: dict) -> str:
    manifest = read_manifest(export_dir_for(bundle.path))
    file = VARIANTS[variant].files[0]
    parity = (f"largest logit difference {check['max_abs_logit_diff']:.1e}, greedy outputs identical on "
              f"{check['greedy_match_rate']:.0%} of {check['samples']} inputs") if check else \
        "see the greedy outputs below (batch-1 graphs: the zip's golden data checks a port)"
    lines = [f"| {html.escape(bundle.path.name)} | {variant} |", "|---|---|",
             f"| Package | `{html.escape(zip_path.name)}`, {zip_path.stat().st_size / 2**20:.1f} MB |",
             f"| Model file | `{file}`, {manifest['files'][file]['bytes'] / 2**20:.1f} MB |",
             f"| Parity with TensorFlow | {parity} |",
             f"| Measured here (batch 1, 2 threads) | {timing['ms_per_token_p50']:.2f} ms/token, first token "
             f"{timing['first_token_ms_p50']:.1f} ms; greedy outputs = TensorFlow's: "
             f"{timing['outputs_match_tf']:.0%} |"]
    return "\n".join(lines)


class ExportTab:
    def __init__(self):
        self.out_dir = Path(tempfile.mkdtemp(prefix="studio-packages-"))
        gr.Markdown("Export a model for an app: a zip with the model file, its tokenizer, a manifest with sha256s, "
                    "golden data to test your port, and a README with code to run it. The export is checked "
                    "against TensorFlow and timed on this computer.")
        with gr.Row():
            self.model = gr.Dropdown([e.name for e in library.list_models()], label="Model", elem_id="export-model")
            refresh = gr.Button("Refresh", size="sm")
            self.target = gr.Radio(list(TARGETS), value=next(iter(TARGETS)), label="For", elem_id="export-target")
            self.variant = gr.Dropdown(label="Graph", elem_id="export-variant", **_dropdown(next(iter(TARGETS))))
        go = gr.Button("Export and package", variant="primary", elem_id="export-go")
        self.progress = gr.Markdown(elem_id="export-progress")
        self.result = gr.Markdown(elem_id="export-result")
        self.download = gr.File(label="Download", interactive=False, elem_id="export-download")
        private = {"api_visibility": "private"}
        refresh.click(lambda: gr.Dropdown(choices=[e.name for e in library.list_models()]), None, self.model,
                      **private)
        self.target.change(variant_choices, self.target, self.variant, **private)
        go.click(self.export, [self.model, self.target, self.variant], [self.progress, self.result, self.download],
                 **private)

    @property
    def listing(self) -> list:
        return [self.model]

    shown_from: list = []

    @staticmethod
    def shown():
        return gr.Dropdown(choices=[e.name for e in library.list_models()])

    def export(self, name, target_label, variant):
        """Yields (progress, result, download) as the export goes on."""
        if not name:
            warn("Choose a model first.")
            yield "", "", None
            return
        messages: queue.Queue = queue.Queue()
        outcome: dict = {}
        target = TARGETS[target_label]
        thread = threading.Thread(target=self._work, args=(name, target, variant, messages, outcome), daemon=True)
        thread.start()
        lines: list[str] = []
        while thread.is_alive() or not messages.empty():
            try:
                lines.append(html.escape(messages.get(timeout=0.5)))
                yield "\n\n".join(lines[-6:]), "", None
            except queue.Empty:
                continue
        if "error" in outcome:
            warn(outcome["error"])
            yield "\n\n".join(lines[-6:]), f"**The export failed:** {html.escape(outcome['error'])}", None
            return
        yield "\n\n".join(lines[-3:]), outcome["summary"], str(outcome["zip"])

    def _work(self, name, target, variant, messages, outcome) -> None:
        try:
            remove_old_files(self.out_dir, max_age_s=3600)
            entry = library.find_model(name)
            bundle = load_bundle(entry.path)
            variant = package_variant(target, variant)
            out = self.out_dir / f"{time.strftime('%H%M%S')}-{entry.name}-{target}.zip".replace(" ", "-")
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


def _dropdown(target_label: str) -> dict:
    """The graphs a target can ship, its default chosen."""
    target = TARGETS[target_label]
    return {"choices": [(f"{VARIANTS[v].description} ({v})", v) for v in CHOICES[target]],
            "value": DEFAULT_VARIANTS[target] if DEFAULT_VARIANTS[target] in CHOICES[target] else CHOICES[target][0]}
