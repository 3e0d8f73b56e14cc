"""Export packages: one zip per target (`studio export BUNDLE --zip OUT.zip --target python|android|ios|web`) that
hands a model to someone building an app with it. Under one top folder named after the bundle it holds:

    model file(s)      python: a .tflite with signatures (`PYTHON_VARIANT`) or encode/decode_step .onnx (ONNX
                       Runtime); android: the .onnx pair (or a batch-1 .tflite); ios: a batch-1 .tflite (or the
                       .onnx pair); web: the static site of `exporters.web.build_site`, its model in `<task>/`
    tokenizer/         the bundle's tokenizer files (manifest `tokenizer.files`), and config.json (its text pipeline)
    golden/            golden.json and the files it references: what a port must compute (`exporters.golden`);
                       python, android, ios: app.json, the app's outputs on this model (`exporters.app_golden`)
    replies.json/.bin  a chatbot with stored replies: its retrieval index in portable form (`exporters.replies`);
                       web: in the model's folder
    text/, fixtures/   ios: the Unicode 14.0 table and the fixtures a Swift port is held to (`exporters.ios`)
    manifest.json      the export manifest's names, shapes, ids and lengths, listing exactly the files of the zip
    README.md          generated from the manifest: the files, the tensors, the text steps and working code
    example.py         python: a complete script (Python LiteRT or ONNX Runtime + sentencepiece, nothing from
                       this project)
    example.mjs        web: the same in Node, with the page's own modules and its copy of LiteRT.js

The zip is written under a temporary name beside its destination and renamed into place once complete."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import zipfile
from pathlib import Path

from exporters import GOLDEN, ensure_exported, write_golden_data
from exporters.android import LIBRARY, RUN_JVM, library_files
from exporters.app_golden import DOCUMENT_LINES, app_golden, golden_texts, identity
from exporters.ios import (CLOSES, ORT_IOS, ORT_PACKAGE, ORT_VERSION, POD, POD_IOS, POD_VERSION, TOKENIZER_CASES,
                           TABLE_IN_LIBRARY, UNICODE_TABLE, ios_components, port_files, tflite_facts)
from exporters.licences import (UNICODE_14, Component, licence_files, non_commercial, python_components,
                                replies_components, web_components)
from exporters.portable import APP_PY, runtime_files
from exporters.replies import REPLIES_CASES, port_fixture, replies_files, replies_manifest
from exporters.web import DEFAULT_VARIANT as WEB_VARIANT
from exporters.web import build_site, check_web_prerequisites, modules_home
from studio.bundle import load_bundle
from studio.errors import StudioError
from studio.files import sha256_of
from studio.replies import PORTABLE_FILES
from studio.tasks import task_named
from studio.text.pipelines import TRANSLATOR, pipeline_for
from studio.variants import VARIANTS, export_dir_for, read_manifest

FORMAT = "transformer-studio-package/1"
TARGETS = {"python", "android", "ios", "web"}
# The dynamic-shape model.tflite for Python: Python LiteRT resizes inputs, so a Python app runs the very graph the
# project's own Python backend serves and golden.json's ids were made with; it takes sources and caches only as
# long as they need to be (no padding to S, no C-slot cache from the first step) and any batch (`decode_rows`, for a
# server batching requests). The batch-1 graphs exist for runtimes that need static shapes (LiteRT.js, the simplest
# mobile code): `variant="tflite-b1"` packages one for Python too, and example.py runs either kind.
PYTHON_VARIANT = "tflite"
MOBILE_VARIANT = "tflite-b1-float16"  # static shapes, half the fp32 size, the same ids as fp32 on the golden data
# android: the fp32 ONNX graphs, whose outputs the library is proven to give exactly on the JVM (ONNX Runtime Java, the
# same API as onnxruntime-android); the library also runs a batch-1 .tflite on LiteRT (--variant tflite-b1-float16)
ANDROID_VARIANT = "onnx"
DEFAULT_VARIANTS = {"python": PYTHON_VARIANT, "android": ANDROID_VARIANT, "ios": MOBILE_VARIANT, "web": WEB_VARIANT}
APP_OUTPUT_TARGETS = ("python", "android", "ios")  # packages with the app's outputs on their model: golden/app.json
GOLDEN_FILES = ("golden.json", "step0_logits.f32", "normalization.json")
APP_GOLDEN = "golden/app.json"  # the app's outputs (exporters.app_golden): the python package's app.py checks them
RUNTIMES = {"tflite": "LiteRT", "onnx": "ONNX Runtime"}
WEIGHTS_IN_WORDS = {"none": "float32"}  # a variant's quantization as the README says it


def check_target(target: str) -> str:
    if target not in TARGETS:
        raise StudioError(f"--target {str(target)[:40]}: unknown target; choose one of {', '.join(sorted(TARGETS))}")
    return target


def package_variant(target: str, variant: str | None = None) -> str:
    """The variant a `target` package ships: `variant`, or the target's default; StudioError for one it cannot."""
    check_target(target)
    chosen = variant or DEFAULT_VARIANTS[target]
    usable = [name for name, v in VARIANTS.items()
              if (v.format == "tflite" and (target == "python" or v.batch == 1))
              or (v.format == "onnx" and target in ("python", "android", "ios"))]
    if chosen not in usable:
        raise StudioError(f"--variant {str(chosen)[:40]}: the {target} package ships one of {', '.join(usable)}")
    return chosen


def check_package(target: str, variant: str | None, out_zip) -> str:
    """The variant a package ships (`package_variant`), after checking that `out_zip` can be a file's name and that
    what the target needs besides the model is here (before any export: a missing tool fails at once)."""
    chosen = package_variant(target, variant)
    if Path(out_zip).is_dir():
        raise StudioError(f"--zip {out_zip}: is a folder; give a file name such as {Path(out_zip) / 'package.zip'}")
    if target == "web":
        check_web_prerequisites()
    return chosen


def package_export(bundle, target: str, out_zip, *, variant: str | None = None, export_dir=None,
                   progress=print) -> Path:
    """Write the `target` package of `bundle` (a loaded Bundle or its folder) to `out_zip`, exporting what it needs
    first (into `export_dir`, default the bundle's export folder; the web page's always go there, as `studio web`
    puts them); returns the zip's path."""
    chosen = check_package(target, variant, out_zip)
    out_zip = Path(out_zip)
    if isinstance(bundle, (str, os.PathLike)):
        bundle = load_bundle(Path(bundle))
    if bundle.config.tokenizer.kind != "sentencepiece":
        raise StudioError(f"{bundle.path}: a package needs a SentencePiece tokenizer "
                          f"(this bundle uses {bundle.config.tokenizer.kind})")
    top = bundle.path.name.replace(" ", "-")  # a folder a shell command can name without quotes
    with tempfile.TemporaryDirectory(prefix="studio-package-") as scratch:
        if target == "web":
            payload, export_manifest, model = _web_payload(bundle, chosen, Path(scratch), progress)
        else:
            payload, export_manifest, model = _model_payload(bundle, chosen, export_dir, progress)
        if target == "python":
            payload.update({"example.py": EXAMPLE_PY.encode("utf-8"), "app.py": APP_PY.encode("utf-8"),
                            **runtime_files()})
        if target == "android":
            payload.update({**library_files(), "run-jvm.sh": RUN_JVM.encode("utf-8")})
        if target == "ios":
            payload.update(port_files({name: payload[name] for name in export_manifest["tokenizer"]["files"]
                                       if name.endswith(".model")}))
            payload.update(port_fixture(bundle, payload))
        card = _model_card(bundle)
        stored = next((name for name in payload if name.endswith(PORTABLE_FILES["index"])), None)
        components = _components(target, chosen) + (replies_components(card, stored) if stored else [])
        payload.update(licence_files(card, target, components, stored))
        manifest = package_manifest(export_manifest, bundle, target, chosen, model, _entries(payload))
        if target == "ios" and VARIANTS[chosen].format == "tflite":  # what the iOS runtime must support
            manifest["package"].update(tflite_facts(payload[model]))
        if target in APP_OUTPUT_TARGETS:
            payload[APP_GOLDEN] = _app_outputs(bundle, payload, manifest, chosen, export_dir, progress)
        files = manifest["files"] = _entries(payload)
        manifest["package"]["non_commercial"] = non_commercial(card)
        payload["README.md"] = render_readme(manifest, _golden_of(payload, manifest)).encode("utf-8")
        manifest["files"] = dict(sorted({**files, **_entries({"README.md": payload["README.md"]})}.items()))
        payload["manifest.json"] = _json(manifest)
        progress(f"Writing the {target} package of {top} to {out_zip}...")
        return _write_zip(out_zip, top, payload)


def package_app_outputs(bundle, target: str, variant: str, export_dir=None, progress=print) -> bytes:
    """golden/app.json of the `target` package of `bundle` (loaded) with `variant`'s graphs, made or reused."""
    payload, export_manifest, model = _model_payload(bundle, variant, export_dir, progress)
    manifest = package_manifest(export_manifest, bundle, target, variant, model, _entries(payload))
    return _app_outputs(bundle, payload, manifest, variant, export_dir, progress)


def app_outputs_identity(bundle, variant: str, export_dir=None, progress=print) -> str:
    """The hash that names the app's outputs `variant`'s files and this code make (`app_golden.identity`)."""
    payload, _, _ = _model_payload(bundle, variant, export_dir, progress)
    return identity(payload, bundle.config.task.task)


def _app_outputs(bundle, payload: dict, manifest: dict, variant: str, export_dir, progress) -> bytes:
    """golden/app.json: the app's outputs with this package's files, kept beside the export (a batch-1 graph's
    computed one source and one hypothesis at a time, as a port on a phone decodes: `studio.runtimes.one_row`)."""
    cache = Path(export_dir or export_dir_for(bundle.path)) / "golden" / f"app.{variant}.json"
    return app_golden({**payload, "manifest.json": _json(manifest)}, bundle.config.task.task, cache, progress)


def _model_card(bundle) -> str | None:
    card = bundle.path / "MODEL_CARD.md"
    return card.read_text(encoding="utf-8") if card.is_file() else None


def _components(target: str, variant: str) -> list[Component]:
    """The third-party components a `target` package holds or needs (exporters.licences)."""
    if target == "python":
        return python_components(RUNTIMES[VARIANTS[variant].format])
    if target == "web":
        return web_components(modules_home() / "node_modules")  # the site was built from it: installed
    if target == "ios":
        return ios_components(RUNTIMES[VARIANTS[variant].format])
    return [Component(UNICODE_14, "14.0.0", "Unicode-3.0", True,  # android: the library reads it
                      f"{LIBRARY}/{TABLE_IN_LIBRARY}: Unicode 14.0's character data")]


def _current_export(bundle, variant: str, export_dir, progress) -> tuple[Path, dict]:
    """The export folder with `variant` current, and golden data that holds its ids; (folder, manifest)."""
    directory = ensure_exported(bundle, ["tflite", variant], export_dir, progress)  # golden/ needs the fp32 graph
    manifest = read_manifest(directory)
    # golden.json holds the ids of every .tflite; an ONNX graph is checked against the fp32 .tflite's
    model = VARIANTS[variant].files[0] if VARIANTS[variant].format == "tflite" else VARIANTS["tflite"].files[0]
    try:
        golden = json.loads((directory / GOLDEN).read_text(encoding="utf-8"))
        current = bool(manifest.get("golden")) and all(model in s["greedy_ids_by_file"] for s in golden["sentences"])
    except (OSError, ValueError, KeyError, TypeError):
        current = False
    if not current:
        try:
            manifest = write_golden_data(bundle, directory, progress)
        except OSError as error:
            raise StudioError(f"{directory}: cannot write the golden data the package needs "
                              f"({error.strerror or error})") from None
    return directory, manifest


def _bundle_files(bundle, manifest: dict) -> dict[str, Path]:
    """config.json and the tokenizer files (the manifest's `tokenizer.files`), by their path in the bundle."""
    return {name: bundle.path / name for name in ["config.json", *manifest["tokenizer"]["files"]]}


def _model_payload(bundle, variant: str, export_dir, progress) -> tuple[dict, dict, str]:
    """(files of a python/android/ios package by their path in it, the export manifest, the model's path)."""
    directory, manifest = _current_export(bundle, variant, export_dir, progress)
    graphs = VARIANTS[variant].files[:2]  # .tflite: one file; ONNX: encode and decode_step (not decode_rows)
    model = graphs[0]
    payload: dict[str, Path | bytes] = {name: directory / name for name in graphs}
    payload.update(_bundle_files(bundle, manifest))
    payload.update({f"golden/{name}": directory / "golden" / name for name in GOLDEN_FILES})
    payload.update(replies_files(bundle))
    return payload, manifest, model


def _web_payload(bundle, variant: str, scratch: Path, progress) -> tuple[dict, dict, str]:
    """The static site for `bundle` alone (built in `scratch`), its model folder's manifest listing that folder."""
    def report(message: str) -> None:
        if not message.startswith("Wrote the site"):  # not "serve <scratch>": it is gone once the zip is written
            progress(message)

    site = scratch / "site"
    build_site([bundle.path], site, variant, report)
    entry = json.loads((site / "site.json").read_text(encoding="utf-8"))["models"][0]
    folder = site / entry["dir"]
    normalization = export_dir_for(bundle.path) / "golden" / "normalization.json"
    if normalization.is_file():  # build_site copies what the page reads; a port also wants this one
        (folder / "golden" / "normalization.json").write_bytes(normalization.read_bytes())
    manifest = read_manifest(folder)
    manifest["files"] = {name: {"bytes": (folder / name).stat().st_size, "sha256": sha256_of(folder / name)}
                         for name in sorted(_relative_files(folder)) if name != "manifest.json"}
    (folder / "manifest.json").write_bytes(_json(manifest))
    payload: dict[str, Path | bytes] = {name: site / name for name in sorted(_relative_files(site))}
    payload["package.json"] = _json({"private": True, "type": "module",  # Node: src/*.js are ES modules
                                     "description": "Node reads this folder's .js files as ES modules (example.mjs)"})
    payload["example.mjs"] = EXAMPLE_MJS.encode("utf-8")
    return payload, manifest, entry["dir"] + entry["tflite"]


def _relative_files(folder: Path) -> list[str]:
    return [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]


def _entries(payload: dict) -> dict[str, dict]:
    """{path in the package: {"bytes", "sha256"}} of every file of `payload` (a Path to copy, or bytes)."""
    entries = {}
    for name, content in sorted(payload.items()):
        if isinstance(content, Path):
            entries[name] = {"bytes": content.stat().st_size, "sha256": sha256_of(content)}
        else:
            entries[name] = {"bytes": len(content), "sha256": hashlib.sha256(content).hexdigest()}
    return entries


def package_manifest(export_manifest: dict, bundle, target: str, variant: str, model: str, files: dict) -> dict:
    """The package's manifest.json: the export manifest's contract (signatures, special ids, lengths, shapes,
    tokenizer), this package's paths, and `files`."""
    prefix = model.rpartition("/")[0] + "/" if "/" in model else ""  # web: the model's folder in the site
    pipeline = pipeline_for(bundle.config.task)
    sides = bundle.tokenizers.model_files()
    keep = ("task", "signatures", "special_ids", "max_source_len", "max_target_len", "batch_1_graph_shapes",
            "vocab_size", "versions")
    manifest = {"format": FORMAT, **{key: export_manifest[key] for key in keep if key in export_manifest}}
    manifest["package"] = {"target": target, "bundle": bundle.path.name, "variant": variant, "model": model,
                           "quantization": VARIANTS[variant].quantization,
                           "batch_1": VARIANTS[variant].batch == 1, "runtime": RUNTIMES[VARIANTS[variant].format]}
    if VARIANTS[variant].format == "onnx":
        manifest["package"]["decode_step"] = VARIANTS[variant].files[1]
    manifest["text_pipeline"] = {"name": pipeline.name, "lowercase_target": pipeline.lowercase_target,
                                 "config": f"{prefix}config.json", "description": pipeline.describe()}
    manifest["tokenizer"] = {**export_manifest["tokenizer"],
                             "files": [f"{prefix}{name}" for name in export_manifest["tokenizer"]["files"]
                                       if f"{prefix}{name}" in files],  # the web page ships the .model files
                             **{side: f"{prefix}tokenizer/{name}" for side, name in sides.items()}}
    manifest["golden"] = f"{prefix}{GOLDEN}"
    manifest.update(replies_manifest(bundle, files, prefix))
    manifest["source"] = {k: v for k, v in export_manifest.get("source", {}).items() if k != "bundle"}
    verification = export_manifest.get("verification", {}).get(variant)
    if verification:
        manifest["verification"] = verification
    manifest["files"] = files
    return manifest


def _golden_of(payload: dict, manifest: dict) -> dict:
    content = payload[manifest["golden"]]
    return json.loads(content.read_bytes() if isinstance(content, Path) else content)


def _write_zip(out_zip: Path, top: str, payload: dict) -> Path:
    """Write `payload` under `top/` into `out_zip`: to a temporary file beside it, renamed into place when whole."""
    try:
        out_zip.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=out_zip.parent, prefix=f".{out_zip.name}.", suffix=".tmp")
    except OSError as error:
        raise StudioError(f"{out_zip}: cannot write the package here ({error.strerror or error}); "
                          "choose another --zip path") from None
    try:
        with os.fdopen(handle, "wb") as raw:
            with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, content in payload.items():
                    _add_to_zip(archive, f"{top}/{name}", content)
            raw.flush()
            os.fsync(raw.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # mkstemp makes 0600; a package is meant to be handed on
        os.replace(temp, out_zip)
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise StudioError(f"{out_zip}: writing the package failed ({error.strerror or error}); no incomplete file "
                          "was left. Free some space or choose another --zip path") from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return out_zip


def _add_to_zip(archive: zipfile.ZipFile, name: str, content: Path | bytes) -> None:
    """Add a file (copied from a Path, or bytes) that unzips readable by all: 0644, a shell script 0755 (not the
    0600 of the export's temporary files), dated as its file or now."""
    if isinstance(content, Path):
        entry = zipfile.ZipInfo.from_file(content, name)
    else:
        entry = zipfile.ZipInfo(name, time.localtime()[:6])
    entry.external_attr = (0o755 if name.endswith(".sh") else 0o644) << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    if not isinstance(content, Path):
        archive.writestr(entry, content)
        return
    with open(content, "rb") as source, archive.open(entry, "w") as target:
        shutil.copyfileobj(source, target, 1 << 20)


def _json(value) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


# ---------------------------------------------------------------- README.md

def render_readme(manifest: dict, golden: dict) -> str:
    """README.md of a package, from its manifest (its `files` as yet without README.md and manifest.json)."""
    package = manifest["package"]
    sections = [_readme_intro(manifest), _files_section(manifest), _tensors_section(manifest),
                _text_section(manifest), CODE_SECTIONS[package["target"]](manifest, golden),
                _replies_section(manifest), _golden_section(manifest)]
    return "\n\n".join(section for section in sections if section).rstrip() + "\n"


def _readme_intro(manifest: dict) -> str:
    package = manifest["package"]
    kind = ("batch 1, static shapes" if package["batch_1"]
            else "dynamic shapes: any batch, source length and cache length")
    model = (f"`{package['model']}` and `{package['decode_step']}`" if "decode_step" in package
             else f"`{package['model']}`")
    parts = ("two graphs, `encode` and `decode_step`" if "decode_step" in package
             else "two signatures, `encode` and `decode_step`")
    terms = ("**Non-commercial use only**: the model was trained partly on data licensed for non-commercial use "
             "(LICENSE.md, MODEL_CARD.md).\n\n" if package.get("non_commercial") else
             "The model's terms: LICENSE.md and MODEL_CARD.md; third-party components: THIRD_PARTY_NOTICES.md.\n\n")
    return (f"# {package['bundle']}: the {manifest['task']} for {_target_title(package)}\n\n{terms}"
            f"An encoder-decoder Transformer exported by Transformer Studio (`studio export --zip --target "
            f"{package['target']} --variant {package['variant']}`). The model is {model} ({package['variant']}: "
            f"{WEIGHTS_IN_WORDS.get(package['quantization'], package['quantization'])} weights, {kind}); it decodes "
            "one token at a time with a key/value cache "
            f"through {parts}. Everything below is read from `manifest.json`, "
            f"which lists every file of this folder with its size and sha256.")


def _target_title(package: dict) -> str:
    if package["target"] == "python" and package.get("runtime") == "ONNX Runtime":
        return "Python (ONNX Runtime)"
    if package["target"] == "ios" and package.get("runtime") == "ONNX Runtime":
        return "iOS (ONNX Runtime): the model and what a Swift port needs"
    return TARGET_TITLES[package["target"]]


TARGET_TITLES = {"python": "Python (LiteRT)", "android": "Android (a Kotlin library: ONNX Runtime or LiteRT)",
                 "ios": "iOS (LiteRT / TensorFlow Lite): the model and what a Swift port needs",
                 "web": "the web (LiteRT.js, a static page)"}


def _files_section(manifest: dict) -> str:
    rows = [f"| `{name}` | {entry['bytes']:,} | `{entry['sha256']}` |" for name, entry in manifest["files"].items()]
    return "\n".join(["## What's inside", "",
                      "Besides this README and `manifest.json` (which lists this README too):", "",
                      "| file | bytes | sha256 |", "| --- | ---: | --- |", *rows])


def _shape(shape: list, sizes: dict) -> str:
    return "[" + ", ".join(str(sizes.get(dim, dim)) for dim in shape) + "]"


def _tensors_section(manifest: dict) -> str:
    package, shapes = manifest["package"], manifest["batch_1_graph_shapes"]
    S, C, ids = manifest["max_source_len"], manifest["max_target_len"], manifest["special_ids"]
    sizes = {"batch": 1, "source_len": S, "cache_len": C} if package["batch_1"] else {}
    onnx = "decode_step" in package  # the ONNX graphs a package ships: encode and decode_step, not decode_rows
    signatures = ["encode", "decode_step"] + ([] if package["batch_1"] or onnx else ["decode_rows"])
    rows = [f"| `{signature}` | {direction[:-1]} | `{name}` | `{_shape(spec['shape'], sizes)}` | {spec['dtype']} |"
            for signature in signatures for direction in ("inputs", "outputs")
            for name, spec in manifest["signatures"][signature][direction].items()]
    lines = ["## The tensors", "",
             f"- special ids: `<pad>` = {ids['pad']}, `<s>` = {ids['bos']}, `</s>` = {ids['eos']} (`<unk>` = 3)",
             f"- `max_source_len` S = {S} (ids per source, `</s>` included), `max_target_len` C = {C} (the cache "
             f"capacity: the most steps an output takes), vocabulary V = {manifest['vocab_size']}",
             "- feed every tensor **by name**; `decode_step`'s `new_cache_*` outputs are the next step's `cache_*`"]
    if package["batch_1"]:
        buckets = shapes["source_buckets"]
        lines.append("- source buckets: " + (", ".join(f"`encode_{L}`/`decode_step_{L}` take sources of at most {L} "
                                                       f"ids (`source_len` = {L})" for L in buckets)
                                             + "; pad to the shortest that holds the source (or always to S), and step "
                                               "with the `decode_step` of the `encode` you ran" if buckets
                                             else f"none (S = {S} is too short for any)"))
    elif onnx:
        lines.append(f"- `batch`, `source_len` (≤ {S}) and `cache_len` (≤ {C}) are whatever you feed (dynamic "
                     "axes)")
    else:
        lines.append(f"- `batch`, `source_len` (≤ {S}) and `cache_len` (≤ {C}) are whatever you feed: Python "
                     "LiteRT resizes the inputs. `decode_rows` is `decode_step` with one position per row (batching "
                     "requests).")
    return "\n".join([*lines, "", "| signature | in/out | tensor | shape | dtype |", "| --- | --- | --- | --- | --- |",
                      *rows])


PIPELINE_RULES = {
    "tutorial": ("NFC; spaces around `? . ! ,`; each run of characters outside `가-힣 ㄱ-ㅎ ㅏ-ㅣ a-zA-Z 0-9 ? . ! , ' - "
                 "%` and space → one space; whitespace runs → one space; strip",
                 "remove the space before `? . ! ,`; strip; remove control characters (U+0000–0008, U+000B–001F, "
                 "U+007F–009F)"),
    "translator": ("NFC; full-width U+FF01–FF5E → ASCII; `「『《〈` → `“` and `」』》〉` → `”`; a middle dot "
                   "(`·・∙‧`) between two word characters → `, ` (between two digits → `.`); space separators (Zs), "
                   "`\\t\\n\\r\\v\\f`, U+2028/2029/0085 → space; categories Cc, Cf, Cs, Co and Cn (unassigned in "
                   "**Unicode 14.0**) removed; whitespace runs → one space; strip",
                   "strip; Penn Treebank habits undone (``` ``x'' ``` → `“x”`, `film 's` → `film's`, `1995 -- 2005` → "
                   "`1995-2005`; with straight and curly double quotes mixed, all straight); control characters "
                   "(U+0000–0008, U+000B–001F, U+007F–009F) removed"),
}


def _text_section(manifest: dict) -> str:
    pipeline, tokenizer, S = manifest["text_pipeline"], manifest["tokenizer"], manifest["max_source_len"]
    source_rule, output_rule = PIPELINE_RULES[pipeline["name"]]
    return "\n".join([
        "## Text in and out", "",
        f"The bundle's text pipeline is `{pipeline['name']}` (`{pipeline['config']}`: `task.text_pipeline`). "
        f"{pipeline['description']}", "",
        f"**In:** normalize ({source_rule}); SentencePiece ids with `{tokenizer['source']}` (no `<s>`/`</s>`; a lone "
        f"surrogate becomes U+FFFD first); keep the first S − 1 = {S - 1} ids; append `</s>`.", "",
        f"**Out:** cut at the first `</s>`, skip `<pad>`, `<s>` and `<unk>`, decode with `{tokenizer['target']}`, "
        f"delete every U+FFFD, then {output_rule}.", "",
        "Use the real SentencePiece library (the `.model` carries its own `nmt_nfkc` normalizer and byte fallback)."
        + (" Python 3.11 knows Unicode 14.0: characters assigned later must still be removed as Cn."
           if pipeline["name"] == TRANSLATOR else "")])


STORED_REPLY_USE = {
    "python": "`model.reply(text)` gives the stored reply (the model's when none is alike), `model.reply(text, "
              "mode=\"generate\")` the model's; `model.stored_reply(text)` says where a reply comes from (its `match` "
              "and the `question` it answers); `python app.py --reply generate` has the model write every reply.",
    "android": "`chatbot.reply(text)` gives the stored reply (the model's when none is alike), `chatbot.reply(text, "
               "mode = ReplyMode.GENERATE)` the model's; `chatbot.replyWithSource(text)` gives a `Reply` saying where "
               "it came from (`stored`, its `match` and the `question` it answers; `note`: why the model wrote it); "
               "`./run-jvm.sh generate` has the model write every reply. The Kotlin is `replies/` in the library.",
    "ios": "Nothing of it is in Swift: port the Kotlin library's `replies/` (`Retrieval.kt`) and hold it to "
           f"`{REPLIES_CASES}` (Python's normalized text, best row and cosine for hundreds of messages on this very "
           "index, and the code points Python's lower case treats as cased and case-ignorable around a capital "
           "sigma), then to `golden/app.json`'s `output` and `generated`.",
    "web": "The chatbot's tab answers with a stored reply and says where it came from (“stored reply · match 0.57 · "
           "answers “…””), or with the model's when none is alike; its **replies** setting has the model write every "
           "reply. In your own page: `src/retrieval.js` (`loadReplies`, `findReply`).",
}


def _replies_section(manifest: dict) -> str:
    """How a chatbot package's stored replies are found, step by step, for a port; "" without them."""
    replies = manifest.get("replies")
    if not replies:
        return ""
    files = manifest["files"]
    index, arrays = replies["index"], replies["arrays"]
    return "\n".join([
        "## Stored replies", "",
        "The chatbot replies as `studio chat` does by default: with a **stored reply** — the training answer of the "
        "question most like the message — and with the model's own words when no training question shares a "
        "character n-gram with the message, or when asked (mode `generate`). On held-out questions stored replies "
        "score above the model's (27.79 against 22.35 chrF for the shipped chatbot). "
        f"{STORED_REPLY_USE[manifest['package']['target']]}", "",
        f"`{index}` ({files[index]['bytes']:,} bytes) and `{arrays}` ({files[arrays]['bytes']:,} bytes) are its "
        f"TF-IDF index over {replies['rows']:,} training pairs and {replies['terms']:,} character n-grams "
        f"(`{replies['format']}`). `{index}` is UTF-8 JSON: `rows`, `terms`, `nonzeros`, `vocabulary` (the terms by "
        "id), `questions` and `answers` (by row), and `arrays`, where each array of "
        f"`{arrays}` starts (`offset` in bytes) and how many values it has: `idf` float32 [terms], `indptr` int32 "
        "[rows + 1], `indices` int32 and `data` float32 [nonzeros], little-endian (row r's term ids, ascending, "
        "are `indices[indptr[r]:indptr[r + 1]]`, their weights `data[…]`).", "",
        "Finding a reply, exactly as Python does (scores equal to the bit):", "",
        "1. normalize: NFC; lower case as Python's `str.lower()` (İ → i̇; a capital sigma after a cased letter and "
        "before none → ς, case-ignorable characters skipped); every character that is not a letter or a digit "
        "(general category L* or N* in **Unicode 14.0**) → a space; runs of spaces → one; strip;",
        "2. terms: the character 1-, 2- and 3-grams (code points) of `\" \" + text + \" \"`, those only of spaces "
        "dropped, counted; terms not in `vocabulary` are left out (none left: no stored reply);",
        "3. weights: `w = float32(float32(1 + ln count) × idf[id])`; divide each by the L2 norm of all of them (in "
        "float64) and round to float32;",
        "4. score every row: for the message's terms in ascending id, add `float32(w × data)` to the score of each "
        "row that has the term, in float32;",
        "5. the reply is the answer of the best row (the lowest row on a tie); a best score of 0 means none is alike: "
        "the model writes the reply.", "",
        "The pairs are training data as written: LICENSE.md says under which terms they travel."])


def _golden_section(manifest: dict) -> str:
    model = manifest["package"]["model"].rpartition("/")[2]
    golden = manifest["golden"]
    own = ("" if model.endswith(".onnx") else
           f", `greedy_ids_by_file[\"{model}\"]` (this model's greedy ids)")
    return "\n".join([
        "## Testing your port", "",
        f"`{golden}` lists the golden sentences with `text`, `normalized`, `source_ids` (ending in `</s>`), "
        f"`greedy_ids` (Python LiteRT on `model.tflite`{'; the ids an fp32 ONNX model must give' if own == '' else ''})"
        f"{own}, `beam_ids` and `output` (the text shown for `greedy_ids`). `step0_logits.f32` holds the fp32 graph's "
        "logits for `<s>` at position 0 (little-endian float32, one row of V per sentence); `normalization.json` "
        "pairs hard strings with what each pipeline makes of them.", "",
        "Must match exactly: the normalization, `source_ids`, the greedy ids of an fp32 or float16 model, and the "
        "output text. May differ: int8 models (dynamic quantization rounds differently; expect ≥ 80% exact)."])


def _python_code(manifest: dict, golden: dict) -> str:
    model = manifest["package"]["model"]
    sentence = golden["sentences"][0]["text"]
    pins = " ".join(f"{c.name}=={c.version}" for c in python_components(manifest["package"]["runtime"]))
    return "\n".join([
        "## Python", "",
        f"Install what it needs (the versions it was tested with): `pip install {pins}`. "
        "(LiteRT has no working build for macOS on Intel: there, package the ONNX variant, "
        "`studio export BUNDLE --zip OUT.zip --variant onnx`.)", "",
        "`app.py` gives the app's output — the same code as Transformer Studio (`studio_runtime/`) with the same "
        "defaults: sentence splitting, protected numbers, amounts, dates and names, the task's default decoding, the "
        "decode guards, empty input refused — `golden/app.json` holds it for the golden texts. On Python 3.11 "
        "(Unicode 14.0, what the app's golden data follows); another Python's Unicode tables decide which "
        "characters are unassigned, so a text with characters assigned in only one of the two versions may differ "
        "(`PackagedModel` warns when loaded there):", "",
        "```sh", f'python app.py "{sentence}"', "python app.py < input.txt      # one output line per input line",
        "python app.py --golden         # the app's output on every golden text (exit status 1 if not)", "```", "",
        "In your code: `from studio_runtime.packaged import PackagedModel`, `model = PackagedModel(FOLDER)`, "
        "`model(text)` (thread-safe; `InputError` says why a text cannot be taken).", "",
        f"`example.py` is the bare model, for porting it: the text pipeline, the tokenizer and a greedy decode loop "
        f"in one file with nothing of the project — it reads `manifest.json` for the model (`{model}`), tokenizer, "
        "special ids and lengths, so it runs any `model*.tflite` or pair of `.onnx` graphs of this bundle: a "
        "batch-1 graph (static shapes, with its source buckets) or one of any batch size (sources padded to a "
        "multiple of 16, a cache that grows 16 slots at a time, as the project's Python runtime does). Its "
        "`--golden` checks the raw model's ids (golden/golden.json):", "",
        "```sh", f'python example.py "{sentence}"   # prints the normalized text, the ids and the output',
        "python example.py --golden            # checks the script against golden/ (exit status 1 if not)", "```",
        "", "```python", EXAMPLE_PY.rstrip(), "```"])


def _mobile_values(manifest: dict, golden: dict) -> dict[str, str]:
    """The @NAME@ values of the Kotlin and Swift templates, from the manifest and the first golden sentence."""
    signatures = manifest["signatures"]
    cache = next(spec for name, spec in signatures["decode_step"]["inputs"].items() if name.startswith("cache_"))
    sentence = golden["sentences"][0]
    model = manifest["package"]["model"]
    expected = sentence["greedy_ids_by_file"].get(model, sentence["greedy_ids"])

    def names(values):
        return ", ".join(f'"{name}"' for name in values)

    return {"MODEL": model, "PAD": manifest["special_ids"]["pad"], "BOS": manifest["special_ids"]["bos"],
            "EOS": manifest["special_ids"]["eos"], "S": manifest["max_source_len"], "C": manifest["max_target_len"],
            "V": manifest["vocab_size"], "H": cache["shape"][1], "D": cache["shape"][3],
            "ENCODE_OUTPUTS": names(signatures["encode"]["outputs"]),
            "CACHE_INPUTS": names(n for n in signatures["decode_step"]["inputs"] if n.startswith("cache_")),
            "GOLDEN_TEXT": sentence["text"], "GOLDEN_SOURCE": ", ".join(map(str, sentence["source_ids"])),
            "GOLDEN_IDS": ", ".join(map(str, expected)),
            "BUCKETS": ", ".join(map(str, manifest["batch_1_graph_shapes"]["source_buckets"])) or "none"}


def _fill(template: str, values: dict) -> str:
    for name, value in values.items():
        template = template.replace(f"@{name}@", str(value))
    return template


def _android_code(manifest: dict, golden: dict) -> str:
    package = manifest["package"]
    translates = task_named(manifest["task"]).translates
    kind, call = ("Translator", "translate(text)") if translates else ("Chatbot", "reply(text)")
    replies = manifest.get("replies") or {}
    model_files = ", ".join(f"`{name}`" for name in ("manifest.json", "config.json", "tokenizer/", package["model"],
                                                     package.get("decode_step"), replies.get("index"),
                                                     replies.get("arrays")) if name)
    return "\n".join([
        "## Android: the Kotlin library", "",
        "`library/` is an Android library module in pure Kotlin that gives this model's output exactly as the app "
        "does: its own SentencePiece tokenizer, the text pipeline (with Unicode 14.0 as data), sentence splitting, "
        "the app's protection of numbers, amounts, dates, times, URLs, names and your glossary, greedy / beam / "
        "sampled decoding with the app's defaults, the decode guards (no invented figures, years kept, the loop "
        "retry), streaming and cancellation, over ONNX Runtime (`onnxruntime-android`) or LiteRT.", "",
        "**What was verified, and where.** On the JVM (Java 17, Maven: `library/pom.xml` builds the same sources): "
        "the tokenizer's ids equal SentencePiece's, the text and protection code answers as Python's on every "
        "case of its fixtures, the decode loop gives the app's ids, and the library's outputs on this package's "
        "golden texts are `golden/app.json` (the app's) — run `./run-jvm.sh` to see it. The LiteRT runtime is "
        "compiled against LiteRT's Interpreter classes, never run; `library/build.gradle.kts`, the asset loader and "
        "the sample Activity were not built here (no Android SDK).", "",
        "### Add it to an app", "",
        "1. Copy `library/` into your project's root as a module (`settings.gradle.kts`: "
        "`include(\":transformerstudio\")` and `project(\":transformerstudio\").projectDir = file(\"library\")`) "
        "and depend on it: `implementation(project(\":transformerstudio\"))`. Its versions are pinned in "
        "`build.gradle.kts`; its `consumer-rules.pro` keeps what a shrunk (R8) release build needs.",
        f"2. Copy this folder's model — {model_files} — into "
        "`app/src/main/assets/model/`, and keep the graphs uncompressed: `androidResources { noCompress += "
        "listOf(\"onnx\", \"tflite\") }` (a `.tflite` is then memory-mapped, not copied).",
        "3. Open it once, off the main thread, and keep it (it is thread-safe):", "",
        "```kotlin",
        f"val model = {kind}.open(AssetModelFiles(context.assets, \"model\"))   // transformerstudio.android",
        f"val output = model.{call}   // InputException says why a text cannot be taken",
        "model.close()", "```", "",
        "`library/sample/MainActivity.kt` shows it in an Activity with a coroutine; `library/README.md` has the "
        "whole API (options, glossary, streaming, cancellation).", "",
        "### Try it on a computer", "", *_android_try_it(package, translates)])


def _android_try_it(package: dict, translates: bool) -> list[str]:
    """How to run the package on a computer: run-jvm.sh on ONNX graphs; LiteRT runs on Android only."""
    if "decode_step" not in package:
        return ["LiteRT runs on Android only, so `./run-jvm.sh` refuses this package's `.tflite`. To try the same "
                "model on a computer, export an ONNX package of it (`studio export BUNDLE --zip android-onnx.zip "
                "--target android --variant onnx`) and run that package's `./run-jvm.sh`."]
    command = "translate" if translates else "chat"
    return ["```sh", f"./run-jvm.sh {'translate' if translates else 'reply'} < input.txt   # one output line per line "
            "(Java 17+ and Maven; built on first use)", "```", "",
            f"Compare it with `studio {command} --bundle BUNDLE --backend onnx` on the same lines, BUNDLE being the "
            "model folder this package was exported from (without `--bundle`, `studio` runs its shipped model)."]


KOTLIN = "library/src/main/kotlin/transformerstudio"  # the Kotlin reference, as the android package holds it


def _ios_code(manifest: dict, golden: dict) -> str:
    package = manifest["package"]
    onnx = package["runtime"] == "ONNX Runtime"
    graphs = f"`{package['model']}` and `{package['decode_step']}`" if onnx else f"`{package['model']}`"
    pod, spm = _ios_pod_route(onnx), _ios_spm_route(onnx)
    sketch = [] if onnx else _ios_sketch(manifest, golden)
    return "\n".join([
        "## iOS: what this package holds, and what it does not", "",
        "**Nothing in Swift was compiled or run for this package**: there is no Swift library here, no Xcode "
        "project, and no test ran on an iPhone or a simulator. It hands a Swift port the model and every data file "
        "and check the Android library (pure Kotlin) is built and tested with.", "",
        f"**Verified by the exporter, in Python:** {_ios_verified(manifest, graphs, onnx)}; `{APP_GOLDEN}` is the "
        f"app's own code run on {graphs}; the fixtures are Python's answers.", "",
        "**Not included, in any language for iOS:** a tokenizer, the text pipeline, sentence splitting, the "
        "protection of numbers, amounts, dates, times, URLs, names and glossary terms, the decode guards, beam "
        "search and sampling. The Kotlin library has all of them; a Swift port writes them (below).", "",
        *_ios_files_table(manifest, graphs, onnx), "",
        *(spm + [""] + pod if onnx else pod + [""] + spm), "",
        *_ios_porting(manifest, golden, onnx), *([""] + sketch if sketch else [])])


def _ios_golden_keys(manifest: dict, golden: dict, onnx: bool) -> tuple[str, str]:
    """Where a port's greedy and beam ids are in golden/golden.json, in words."""
    model = manifest["package"]["model"]
    standard = model.replace(".b1", "")
    if onnx:
        return ("`greedy_ids` (the fp32 .tflite's, which the fp32 ONNX graphs give)",
                "`beam_ids` (the fp32 .tflite's)")
    beam_key = (f"`beam_ids_by_file[\"{standard}\"]` (the dynamic-shape file of the same weights)"
                if standard in golden["sentences"][0].get("beam_ids_by_file", {}) else
                f"`beam_ids` (the fp32 `model.tflite`'s: `{standard}` was not exported with it)")
    return f"`greedy_ids_by_file[\"{model}\"]`", beam_key


def _ios_verified(manifest: dict, graphs: str, onnx: bool) -> str:
    """What the exporter checked of the graph, in words."""
    checked = manifest.get("verification") or {}
    if not onnx:
        greedy = f"`greedy_ids_by_file[\"{manifest['package']['model']}\"]`"
        return (f"the greedy ids of `golden/golden.json` under {greedy} were computed from {graphs} itself "
                "(Python LiteRT)")
    return "the greedy ids of `golden/golden.json` come from the fp32 .tflite" + (
        f", and the export checked {graphs} against TensorFlow ({checked['samples']} samples: greedy ids "
        f"{checked['greedy_match_rate']:.0%} equal, logits within {checked['max_abs_logit_diff']:.1e}; "
        "manifest `verification`)" if {"samples", "greedy_match_rate", "max_abs_logit_diff"} <= set(checked)
        else "")


def _ios_files_table(manifest: dict, graphs: str, onnx: bool) -> list[str]:
    """The table of the package's files: what each is and what a port uses it for."""
    package, task = manifest["package"], task_named(manifest["task"])
    tokenizers = ", ".join(f"`{name}`" for name in manifest["tokenizer"]["files"] if name.endswith(".model"))
    kind = "the dynamic-shape pair `encode`/`decode_step` (opset 17)" if onnx else (
        f"signatures `encode`, `decode_step` and their source buckets; builtin ops only"
        f"{', custom ops ' + ', '.join(package['custom_ops']) if package.get('custom_ops') else ''}; its metadata's "
        f"`min_runtime_version` is {package.get('min_runtime_version') or 'not set'}")
    pipeline = manifest["text_pipeline"]["name"]
    app = (f"the app's outputs on {len(golden_texts(manifest['task']))} golden texts"
           + (f" and on the first {DOCUMENT_LINES} as one text" if task.translates else "")
           + f": `studio {'translate' if task.translates else 'chat'}` with its default decoding ("
           + ("beam search, protection on" if task.translates else "greedy") + ") on this very graph"
           + ("" if onnx or not package["batch_1"] else
              f", each source{' and each beam hypothesis' if task.translates else ''} decoded alone, at batch 1, "
              "as a port on a phone decodes it"))
    rows = [
        ("file", "what it is", "a port uses it for"),
        (graphs, kind, "the decode loop"),
        (tokenizers, "SentencePiece (unigram, byte fallback, its own `nmt_nfkc` normalizer)", "ids in, text out"),
        ("`config.json`", f"`task.text_pipeline`: `{pipeline}`", "which normalization"),
        (f"`{UNICODE_TABLE}`", "Unicode 14.0 as data, the file the Kotlin library reads (`UnicodeTable.kt`): one "
         "section a line after its `@name`, numbers in hex — `@category` runs `start:Cat`; `@space`, `@lower`, "
         "`@upper` ranges `start-end`; `@tolower`, `@toupper`, `@casefold`, `@nfd` as `cp=mapping` (code points "
         "joined by `.`); `@ccc` as `start-end:class`; `@compose` as `first.second=composite`. Written from Python "
         "3.11's `unicodedata` (mobile/scripts/unicode14-tables.py)",
         "general categories (Cn!), whitespace, case and NFC exactly as the app's Python"),
        ("`golden/golden.json`, `golden/step0_logits.f32`", "the raw model: source ids, greedy and beam ids, "
         "step-0 logits (the section below)", "the tokenizer and the decode loop"),
        ("`golden/normalization.json`", "28 hard strings and what each pipeline makes of them", "normalization"),
        (f"`{APP_GOLDEN}`", app, "the whole pipeline"),
        (f"`{TOKENIZER_CASES}`", "the Kotlin tokenizer fixture's lines (emoji, controls, lone surrogates, "
         "characters newer than Unicode 14, lines of thousands of characters) with this package's tokenizer's "
         "`ids`, `decoded` (null: the line itself) and `decode_cases`; each model's `model` is its path here",
         "the tokenizer"),
        ("`fixtures/normalization-cases.json`", "hundreds of hostile strings with both pipelines' answers "
         "(`tutorial`, `tutorial_lower`, `translator`, `*_output`)", "normalization"),
        ("`fixtures/nfc-cases.json`", "NFC of every code point Unicode 14.0 changes, and tricky sequences", "NFC"),
    ] + ([] if "replies" not in manifest else [
        (f"`{manifest['replies']['index']}`, `{manifest['replies']['arrays']}`", "the stored replies: a TF-IDF "
         "index over the training pairs (the section below)", "stored replies"),
        (f"`{REPLIES_CASES}`", "hundreds of messages with Python's normalized text, best row and cosine on this "
         "index; the code points a capital sigma's lower case looks at", "stored replies")])
    table = [f"| {a} | {b} | {c} |" for a, b, c in rows[:1]] + ["| --- | --- | --- |"] + [
        f"| {a} | {b} | {c} |" for a, b, c in rows[1:]]
    return table


def _ios_pod_route(onnx: bool) -> list[str]:
    return [
        "### Route (a): LiteRT (TensorFlow Lite) with CocoaPods", "",
        "```ruby", f"platform :ios, '{POD_IOS}'", "use_frameworks!", f"pod '{POD}', '~> {POD_VERSION}'", "```", "",
        f"then `import TensorFlowLite`. {POD_VERSION} is the last stable `{POD}` published on CocoaPods trunk "
        "(LiteRT's own pods publish nightlies only). **CocoaPods trunk becomes read-only on "
        f"{CLOSES}**: every version already published, {POD_VERSION} included, stays installable, but no new "
        "version of any pod will be published there, so this pod will get no further update through CocoaPods. "
        "Open the graph's signatures by name with `Interpreter.signatureRunner(with: \"encode\")` and "
        "`signatureRunner(with: \"decode_step\")` (and `encode_<L>` / `decode_step_<L>` for a bucket), then "
        "`invoke(with: [String: Data])` and `output(named:)`: the plain `copy(_:toInputAt:)` / `output(at:)` API "
        "reaches only the primary subgraph (`decode_step`) and cannot run `encode`.",
        *([] if not onnx else ["", "This package holds ONNX graphs: route (a) needs the .tflite package, "
                                   f"`studio export BUNDLE --zip OUT.zip --target ios` (`{MOBILE_VARIANT}`)."]), "",
        "LiteRT's own Swift package (the `Package.swift` of google-ai-edge/LiteRT, 2026) is not pinned here: no "
        "release of it was verified, and its manifest links with `unsafeFlags`, which Swift Package Manager refuses "
        "in a dependency pinned by version."]


def _ios_spm_route(onnx: bool) -> list[str]:
    return [
        "### Route (b): ONNX Runtime with Swift Package Manager", "",
        "```swift", f'.package(url: "{ORT_PACKAGE}", exact: "{ORT_VERSION}")', "```", "",
        f"(product `onnxruntime`, module `OnnxRuntimeBindings`, iOS {ORT_IOS}+; the tag wraps ONNX Runtime "
        f"{ORT_VERSION}). "
        + ("It runs this package's graphs. " if onnx else
           "It runs the ONNX graphs, not this .tflite: package them with `studio export BUNDLE --zip OUT.zip "
           "--target ios --variant onnx` (fp32; `onnx-int8` for dynamic int8), whose golden/app.json is then theirs. ")
        + "The API is Objective-C (`objectivec/include/` in that package): `ORTSession`'s "
        "`initWithEnv:modelPath:sessionOptions:error:` and `runWithInputs:outputNames:runOptions:error:`, "
        "`ORTValue`'s `initWithTensorData:elementType:shape:error:`. The graphs take any source length up to S and "
        "any cache length up to C; the Kotlin library's `runtime/OnnxRuntime.kt` shows how it feeds them. The "
        "graphs were run here with Python's onnxruntime, never with the Swift package."]


def _ios_porting(manifest: dict, golden: dict, onnx: bool) -> list[str]:
    """The order to port in, each step's Kotlin reference and the check it must pass."""
    package, task = manifest["package"], task_named(manifest["task"])
    pipeline = manifest["text_pipeline"]["name"]
    greedy, beam_key = _ios_golden_keys(manifest, golden, onnx)
    return [
        "### Porting, in this order", "",
        "The reference implementation is the Kotlin library: pure Kotlin, no JNI, reading these same files and "
        "held to these same fixtures on the JVM. The android package of this bundle carries its sources "
        "(`studio export BUNDLE --zip android.zip --target android`, `library/`; in the repository "
        "`mobile/android/`). Port a step, make it pass its check, then the next:", "",
        "| step | the Kotlin reference (`" + KOTLIN + "/`) | must pass |", "| --- | --- | --- |",
        f"| 1. tokenizer | `tokenizer/` (the `.model` protobuf, the normalizer's trie, unigram Viterbi, byte "
        f"fallback); or google/sentencepiece's C++ library behind an Objective-C++ bridge | every `ids`, `decoded` "
        f"and `decode_cases` entry of `{TOKENIZER_CASES}` |",
        f"| 2. normalization | `text/UnicodeTable.kt` + `Unicode14.kt` (reading `{UNICODE_TABLE}`), `Nfc.kt`, "
        f"`Normalize.kt`, `Pipelines.kt` | `fixtures/nfc-cases.json`; the `{pipeline}` and `{pipeline}_output` "
        "fields of `fixtures/normalization-cases.json` and `golden/normalization.json`; then `golden.json`'s "
        "`normalized` and `source_ids` |",
        "| 3. decode loop | `decode/Generate.kt`, `BeamSearch.kt`, "
        + ("`runtime/OnnxRuntime.kt`" if onnx
           else "`library/src/litert/kotlin/transformerstudio/runtime/LiteRtRuntime.kt`")
        + f" | greedy: {greedy}; beam (size 4, length penalty 1.0): {beam_key}; the output text: `output`"
        + ("; the step-0 logits within 1e-3 of `step0_logits.f32`" if package["quantization"] == "none" else "")
        + " |",
        "| 4. the app's pipeline | `Translator.kt`, `Chatbot.kt`, `text/Sentences.kt`, `Protector.kt`, "
        "`Protection.kt`, `Numbers.kt`, `Dates.kt`, `Facts.kt`, `decode/Guards.kt`, `TaskDecoder.kt` | every "
        f"`{APP_GOLDEN}` case's `output` for its `text`" + (", and `document`" if task.translates else "")
        + (" and, with mode generate, its `generated`" if "replies" in manifest else "") + " |",
        *([] if "replies" not in manifest else [
            f"| 5. stored replies (before step 4) | `replies/Retrieval.kt` (reading `{manifest['replies']['index']}`, "
            "`Nfc.kt`, `Unicode14.kt`) | every case of `" + REPLIES_CASES + "`: `normalized`, `row` and `match` "
            "(within 1e-6) |"]), "",
        *([] if not task.translates else [
            "Step 4 follows the model's language pair (`config.json`'s `task.source_lang` and `task.target_lang`; "
            "ko→en where absent), decided in one place as `text/LanguagePair.kt` does: a line is translated when it "
            "has a Korean letter (a Korean source) or any letter (others); Korean amounts, times, ranges, months, "
            "numbers, figures and Latin or bracketed names are protected only for ko→en, URLs, e-mail addresses and "
            "the glossary for every pair; English sentence finishing only for an English target.", ""]),
        "The Kotlin library's decode fixtures (`mobile/android/src/test/resources/decode/` in the repository) are "
        "made on the shipped models' ONNX graphs, not on this one, so they are not here: `golden.json` and "
        f"`{APP_GOLDEN}` are this package's own. Int8 graphs may differ (≥ 80% of ids exact, as in the section "
        "below)."]


def _ios_sketch(manifest: dict, golden: dict) -> list[str]:
    return [
        "### The decode loop in Swift: never compiled or run", "",
        "A sketch of the greedy loop with this model's names and numbers filled in, for route (a). **It was never "
        "compiled or run**; its calls were checked only against the sources of TensorFlowLiteSwift's "
        "`SignatureRunner.swift`. It always pads to S (no buckets), and its `checkGolden` is the first check of "
        "step 3.", "",
        "```swift", _fill(SWIFT, _mobile_values(manifest, golden)).rstrip(), "```"]

def _web_code(manifest: dict, golden: dict) -> str:
    sentence = golden["sentences"][0]["text"]
    return "\n".join([
        "## The web page", "",
        "This folder is a static site: the page (`index.html`, `app.js`), its modules (`src/`), LiteRT.js and "
        f"SentencePiece compiled to WASM (`vendor/`, nothing comes from a CDN), `site.json`, and the model in "
        f"`{manifest['package']['model'].rpartition('/')[0]}/`. Serve it with any static file server:", "",
        "```sh", "python -m http.server 8000 --bind 127.0.0.1 --directory .", "```", "",
        "and open http://127.0.0.1:8000/ (not `file://`: the page fetches its files). `?golden=1` decodes every "
        "golden sentence in the browser and reports whether the ids match. To embed it, copy the folder into your "
        "site and link or frame it:", "",
        "```html", '<iframe src="/transformer-studio/index.html" title="Transformer Studio" '
                   'style="width: 100%; height: 32rem; border: 0"></iframe>', "```", "",
        "or use its modules in your own page: `src/decode.js` (`prepareSource`, `generate`, `finishOutput`), "
        "`src/litert_runtime.js` (`initLiteRt`, `createLiteRtRuntime`), `src/tokenizer.js`, `src/normalize.js`, with "
        "the import map of `index.html`.", "",
        "## Node", "",
        "`example.mjs` runs the same modules in Node 20.6+ with the site's own copy of LiteRT.js: nothing to "
        "install.", "",
        "```sh", f'node example.mjs "{sentence}"', "```", "",
        "```js", EXAMPLE_MJS.rstrip(), "```"])


CODE_SECTIONS = {"python": _python_code, "android": _android_code, "ios": _ios_code, "web": _web_code}


# ---------------------------------------------------------------- the code the packages carry

EXAMPLE_PY = r'''#!/usr/bin/env python3
"""Run this folder's model with Python LiteRT (a .tflite) or ONNX Runtime (encode and decode_step .onnx): read a
sentence as the bundle's text pipeline does, decode it greedily with the cached `encode` / `decode_step` graphs,
and print the output.

    pip install ...                    # README.md names the runtime, sentencepiece and numpy versions tested
    python example.py "영화 볼래?"      # the normalized text, the source ids, the output ids, the output
    python example.py --golden         # check this script against golden/ (exit status 1 on a mismatch)

manifest.json names the model, tokenizer, special ids and lengths. Nothing here comes from Transformer Studio:
the text functions are copies of its studio/text/pipelines.py and normalize.py."""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

import numpy as np
import sentencepiece as spm

try:
    from ai_edge_litert.interpreter import Interpreter
except ImportError:  # an ONNX package needs only onnxruntime
    Interpreter = None
try:
    import onnxruntime
except ImportError:  # a .tflite package needs only ai-edge-litert
    onnxruntime = None

HERE = Path(__file__).resolve().parent
STEP = 16  # graphs of any batch size: sources padded to a multiple of this; the cache grows this many slots at a time

# ---- the "tutorial" pipeline: the tutorials' normalization ----
_PUNCT = re.compile(r"([?.!,])")
_DISALLOWED = re.compile(r"[^가-힣ㄱ-ㅎㅏ-ㅣa-zA-Z0-9?.!,'\-% ]+")
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r" ([?.!,])")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # Unicode's Cc, but tab and line break


def tutorial_source(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    text = _PUNCT.sub(r" \1 ", text)
    text = _DISALLOWED.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def tutorial_output(text: str) -> str:
    return _CONTROL.sub("", _SPACE_BEFORE_PUNCT.sub(r"\1", text).strip())


# ---- the "translator" pipeline: text as people write it ----
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}  # ！..～ -> !..~
_QUOTES = str.maketrans("「『《〈」』》〉", "““““””””")
_MIDDLE_DOT = re.compile(r"(?<=\w)[·・∙‧](?=\w)")
_DIGITS = "0123456789"
_PTB_QUOTE = re.compile(r"``\s*|\s*''")
_SPACED_POSSESSIVE = re.compile(r"(?<=[A-Za-z0-9]) 's(?=\s|$)")
_CLOSING_QUOTE = re.compile(r"[A-Za-z0-9]'(?![A-Za-z])")
_RANGE_DASH = re.compile(r"(?<=\d) ?-- ?(?=\d)")


def _keep(char: str) -> str:
    category = unicodedata.category(char)  # Python's Unicode version decides Cn: 3.11 has 14.0
    if category == "Zs" or char in "\t\n\r\v\f\u2028\u2029\x85":
        return " "
    if category in ("Cc", "Cf", "Cs", "Co", "Cn"):
        return ""
    return char


def translator_source(text: str) -> str:
    text = unicodedata.normalize("NFC", text).translate(_FULLWIDTH).translate(_QUOTES)
    text = _MIDDLE_DOT.sub(lambda m: "." if text[m.start() - 1] in _DIGITS and text[m.end()] in _DIGITS else ", ", text)
    text = "".join(_keep(char) for char in text)
    return _SPACES.sub(" ", text).strip()


def untokenize_ptb(text: str) -> str:
    opened = False

    def quote(match: re.Match) -> str:
        nonlocal opened
        if match.group(0).startswith("`"):
            opened = True
            return "“"
        closing, opened = ("”" if opened else "'"), False
        return closing

    text = _PTB_QUOTE.sub(quote, text)
    text = _SPACED_POSSESSIVE.sub(lambda m: m.group(0) if _CLOSING_QUOTE.search(text, m.end()) else "'s", text)
    if '"' in text:
        text = text.replace("“", '"').replace("”", '"')
    return _RANGE_DASH.sub("-", text)


def translator_output(text: str) -> str:
    return _CONTROL.sub("", untokenize_ptb(text.strip()))


PIPELINES = {"tutorial": (tutorial_source, tutorial_output), "translator": (translator_source, translator_output)}


class Tokenizer:
    """SentencePiece with the bundle's special ids: <pad> 0, <s> 1, </s> 2, <unk> 3."""

    def __init__(self, path: Path):
        self.sp = spm.SentencePieceProcessor(model_file=str(path))

    def encode(self, text: str) -> list[int]:
        text = "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)  # lone surrogates
        return list(self.sp.encode(text, out_type=int))

    def decode(self, ids) -> str:
        kept = []
        for token in ids:
            if token == self.sp.eos_id():
                break
            if token not in (self.sp.pad_id(), self.sp.bos_id(), self.sp.unk_id()):
                kept.append(int(token))
        return self.sp.decode(kept).replace("\ufffd", "")  # broken byte sequences


class OnnxGraph:
    """An ONNX graph called like a LiteRT signature runner: inputs by name in, a dict of outputs out."""

    def __init__(self, path: Path, threads: int | None = None):
        if onnxruntime is None:
            sys.exit("this package's model is ONNX: pip install onnxruntime")
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.outputs = [output.name for output in self.session.get_outputs()]
        self.inputs = {graph_input.name for graph_input in self.session.get_inputs()}

    def __call__(self, **inputs):
        feed = {name: value for name, value in inputs.items() if name in self.inputs}
        return dict(zip(self.outputs, self.session.run(self.outputs, feed)))

    def get_input_details(self) -> dict:
        return {i.name: {"shape_signature": [d if isinstance(d, int) else -1 for d in i.shape]}
                for i in self.session.get_inputs()}


def signature_runners(path: Path, manifest: dict, threads: int | None) -> dict:
    """{"encode": ..., "decode_step": ..., ...}: a .tflite's signature runners, or the package's two ONNX graphs."""
    if path.suffix == ".onnx":
        step = path.with_name(manifest["package"]["decode_step"])
        return {"encode": OnnxGraph(path, threads), "decode_step": OnnxGraph(step, threads)}
    if Interpreter is None:
        sys.exit("this package's model is a .tflite: pip install ai-edge-litert")
    interpreter = Interpreter(model_path=str(path), num_threads=threads)
    return {name: interpreter.get_signature_runner(name) for name in interpreter.get_signature_list()}


class Model:
    """A .tflite with signatures `encode` and `decode_step` (or those two as ONNX graphs): a batch-1 graph (static
    shapes; it may also hold `encode_<L>`/`decode_step_<L>` for sources of at most L ids) or one of any batch size
    (dynamic shapes)."""

    def __init__(self, path: Path, manifest: dict, threads: int | None = None):
        self.runners = signature_runners(path, manifest, threads)
        self.pad, self.bos, self.eos = (manifest["special_ids"][key] for key in ("pad", "bos", "eos"))
        self.max_source_len, self.max_target_len = manifest["max_source_len"], manifest["max_target_len"]
        inputs = self.runners["decode_step"].get_input_details()
        self.cache_names = sorted(name for name in inputs if name.startswith("cache_"))
        _, self.heads, slots, self.head_dim = (int(n) for n in inputs["cache_k_0"]["shape_signature"])
        self.static = slots > 0  # a batch-1 graph: sources of exactly S (or L) ids, caches of C slots
        self.buckets = sorted(int(name[len("encode_"):]) for name in self.runners if name.startswith("encode_"))

    def source_length(self, tokens: int) -> int:
        if self.static:  # the shortest bucket that holds the source, else S
            return next((length for length in self.buckets if tokens <= length), self.max_source_len)
        return min(self.max_source_len, max(STEP, -(-tokens // STEP) * STEP))

    def greedy(self, source_ids: list[int]) -> list[int]:
        """The greedy output ids of `source_ids` (which end in </s>), without <s> and </s>."""
        length = self.source_length(len(source_ids))
        source = np.full((1, length), self.pad, np.int32)
        source[0, : len(source_ids)] = source_ids
        suffix = f"_{length}" if self.static and length < self.max_source_len else ""
        encoded = self.runners["encode" + suffix](source_ids=source)  # source_mask, cross_k_<i>, cross_v_<i>
        step = self.runners["decode_step" + suffix]  # the one that reads what that encode made
        slots = self.max_target_len if self.static else 0
        cache = {name: np.zeros((1, self.heads, slots, self.head_dim), np.float32) for name in self.cache_names}
        token, output = self.bos, []
        for position in range(self.max_target_len):
            if position >= slots:  # a dynamic cache grows STEP slots at a time
                more = min(self.max_target_len, slots + STEP) - slots
                cache = {name: np.pad(array, ((0, 0), (0, 0), (0, more), (0, 0))) for name, array in cache.items()}
                slots += more
            result = step(tokens=np.array([token], np.int32), position=np.array(position, np.int32), **encoded, **cache)
            token = int(np.argmax(result["logits"][0]))  # the first index on ties
            if token == self.eos:
                break
            output.append(token)
            cache = {name: result[f"new_{name}"] for name in self.cache_names}
        return output


class Package:
    """This folder's model, tokenizer and text pipeline: `run(text)` -> (normalized, source ids, output ids, text,
    warnings)."""

    def __init__(self, folder: Path = HERE, threads: int | None = None):
        self.folder = folder
        self.manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        self.model = Model(folder / self.manifest["package"]["model"], self.manifest, threads)
        self.source_tokenizer = Tokenizer(folder / self.manifest["tokenizer"]["source"])
        self.target_tokenizer = Tokenizer(folder / self.manifest["tokenizer"]["target"])
        self.source, self.output = PIPELINES[self.manifest["text_pipeline"]["name"]]

    def prepare(self, text: str) -> tuple[str, list[int], list[str]]:
        """(the normalized text, its source ids ending in </s>, warnings)."""
        normalized, warnings = self.source(text), []
        ids = self.source_tokenizer.encode(normalized)
        limit = self.manifest["max_source_len"] - 1  # room for </s>
        if len(ids) > limit:
            warnings.append(f"input was {len(ids)} tokens; only the first {limit} were used "
                            f"(this model reads at most {limit})")
            ids = ids[:limit]
        return normalized, ids + [self.manifest["special_ids"]["eos"]], warnings

    def finish(self, ids) -> str:
        return self.output(self.target_tokenizer.decode(ids))

    def run(self, text: str):
        normalized, source_ids, warnings = self.prepare(text)
        ids = self.model.greedy(source_ids)
        return normalized, source_ids, ids, self.finish(ids), warnings


def check_golden(package: Package) -> list[str]:
    """What differs from golden/: normalization, source ids, greedy ids (int8: within 20%), output text."""
    golden = json.loads((package.folder / package.manifest["golden"]).read_text(encoding="utf-8"))
    model = Path(package.manifest["package"]["model"]).name
    problems, differing = [], 0
    for s in golden["sentences"]:
        normalized, source_ids, ids, _, _ = package.run(s["text"])
        by_file = s["greedy_ids_by_file"]  # else the standard file of the same quantization
        expected = by_file[model] if model in by_file else by_file.get(model.replace(".b1", ""), s["greedy_ids"])
        checks = [("normalized", normalized, s["normalized"]), ("source ids", source_ids, s["source_ids"]),
                  ("output", package.finish(s["greedy_ids"]), s["output"])]
        problems += [f"{s['text']!r}: {what} {got!r}, golden {want!r}" for what, got, want in checks if got != want]
        if ids != expected:
            differing += 1
            problems += [] if "int8" in model else [f"{s['text']!r}: greedy ids {ids}, golden {expected}"]
    if differing > 0.2 * len(golden["sentences"]):
        problems.append(f"greedy ids differ on {differing} of {len(golden['sentences'])} sentences")
    cases = json.loads((package.folder / Path(package.manifest["golden"]).parent / "normalization.json")
                       .read_text(encoding="utf-8"))
    for case in cases:
        for name, (source, output) in PIPELINES.items():
            for field, got in ((name, source(case["text"])), (f"{name}_output", output(case["text"]))):
                if got != case[field]:
                    problems.append(f"normalization.json {case['text']!r}: {field} {got!r}, golden {case[field]!r}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("text", nargs="?", help="a sentence")
    parser.add_argument("--golden", action="store_true", help="check this script against golden/")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    package = Package(threads=args.threads)
    if args.golden:
        problems = check_golden(package)
        print("\n".join(problems) or f"golden: every sentence and normalization case matches "
                                      f"({package.manifest['package']['model']})")
        return 1 if problems else 0
    if args.text is None:
        parser.error("give a sentence, or --golden")
    normalized, source_ids, ids, text, warnings = package.run(args.text)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"normalized: {normalized}\nsource ids: {source_ids}\noutput ids: {ids}\noutput: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

EXAMPLE_MJS = r'''// Run this site's model in Node 20.6+ with the page's own modules and its copy of LiteRT.js (WASM):
//   node example.mjs "영화 볼래?"
// Nothing to install. index.html's import map, for Node: the bare package names go to the files in vendor/.
import { readFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = new URL("./", import.meta.url);
const read = (path, base = here) => readFileSync(new URL(path, base));
const VENDOR = { "@litertjs/core": "vendor/litertjs/core/index.js",
  "@litertjs/wasm-utils": "vendor/litertjs/wasm-utils/index.js", "@sctg/sentencepiece-js": "vendor/sentencepiece/index.js" };
const urls = Object.fromEntries(Object.entries(VENDOR).map(([name, path]) => [name, new URL(path, here).href]));
register("data:text/javascript," + encodeURIComponent(`const urls = ${JSON.stringify(urls)};
export async function resolve(specifier, context, next) {
  return urls[specifier] ? { url: urls[specifier], shortCircuit: true } : next(specifier, context);
}`));
const { finishOutput, generate, prepareSource } = await import("./src/decode.js");
const { createLiteRtRuntime, initLiteRt } = await import("./src/litert_runtime.js");
const { pipelineForConfig } = await import("./src/normalize.js");
const { loadTokenizer } = await import("./src/tokenizer.js");

/** LiteRT.js loads its WASM glue with importScripts (a worker's); in Node, evaluate it with a Node require. */
async function initLiteRtNode(wasmFolder) {
  globalThis.self ??= globalThis;
  globalThis.importScripts = (url) => {
    const path = url.startsWith("file:") ? fileURLToPath(url) : url;
    const glue = new Function("require", "__filename", "__dirname", `${readFileSync(path, "utf8")}\nreturn ModuleFactory;`);
    globalThis.ModuleFactory = glue(createRequire(path), path, dirname(path));
  };
  const quiet = (line) => { if (!/^(INFO|WARNING): /.test(line)) console.error(line); };
  globalThis.Module = { print: quiet, printErr: quiet };
  const warn = console.warn; // "Failed to create default WebGPU device": Node has none
  console.warn = (...args) => { if (!String(args[0]).includes("WebGPU")) warn(...args); };
  try {
    await initLiteRt(wasmFolder);
  } finally {
    console.warn = warn;
    delete globalThis.importScripts;
    delete globalThis.Module;
  }
}

const text = process.argv[2];
if (text === undefined) {
  console.error('usage: node example.mjs "a sentence"');
  process.exit(2);
}
const site = JSON.parse(read("site.json"));
const entry = site.models[0];
const dir = new URL(entry.dir, here);
const manifest = JSON.parse(read("manifest.json", dir));
const pipeline = pipelineForConfig(JSON.parse(read("config.json", dir)));
const source = typeof entry.tokenizer === "string" ? entry.tokenizer : entry.tokenizer.source;
const target = typeof entry.tokenizer === "string" ? entry.tokenizer : entry.tokenizer.target;
const sourceTokenizer = await loadTokenizer(read(source, dir));
const targetTokenizer = target === source ? sourceTokenizer : await loadTokenizer(read(target, dir));
await initLiteRtNode(fileURLToPath(new URL(site.litert.wasm, here)));
const runtime = await createLiteRtRuntime({ model: read(entry.tflite, dir), manifest });
const { bos, eos } = manifest.special_ids;
const prepared = prepareSource(text, pipeline, sourceTokenizer, manifest.max_source_len, eos);
for (const warning of prepared.warnings) console.error(`warning: ${warning}`);
const { ids } = await generate(runtime, prepared.ids, { strategy: "greedy", bosId: bos, eosId: eos });
runtime.dispose?.();
console.log(`normalized: ${prepared.normalized}\nsource ids: ${JSON.stringify(prepared.ids)}\n` +
  `output ids: ${JSON.stringify(ids)}\noutput: ${finishOutput(ids, pipeline, targetTokenizer)}`);
'''

SWIFT = r'''// @MODEL@ on iOS: the greedy decode loop with this model's names and numbers.
// NEVER COMPILED OR RUN: a sketch for route (a), pod 'TensorFlowLiteSwift' (module TensorFlowLite).
import Foundation
import TensorFlowLite

// from manifest.json
let MODEL_FILE = "@MODEL@"
let PAD_ID: Int32 = @PAD@, BOS_ID: Int32 = @BOS@, EOS_ID: Int32 = @EOS@
let MAX_SOURCE_LEN = @S@ // S: encode's source_ids is [1, S] (int32)
let MAX_TARGET_LEN = @C@ // C: the cache capacity, the most steps an output takes
let VOCAB_SIZE = @V@ // logits: [1, V] (float32)
let HEADS = @H@, HEAD_DIM = @D@ // cache_*: [1, HEADS, C, HEAD_DIM]; cross_*: [1, HEADS, S, HEAD_DIM]
let ENCODE_OUTPUTS = [@ENCODE_OUTPUTS@] // source_mask [1, S], then the cross-attention K/V
let CACHE_INPUTS = [@CACHE_INPUTS@] // decode_step returns each as "new_" + name
// source buckets (encode_<L>/decode_step_<L>, same tensors with S = L): @BUCKETS@; this sketch always pads to S

func bytes<T>(_ values: [T]) -> Data { values.withUnsafeBufferPointer { Data(buffer: $0) } }

struct State { let cache: [String: Data]; let encoded: [String: Data] }

final class LiteRtRuntime {
  let maxSourceLen = MAX_SOURCE_LEN, maxTargetLen = MAX_TARGET_LEN
  private let interpreter: Interpreter
  private let encodeRunner: SignatureRunner, stepRunner: SignatureRunner

  init(modelPath: String, threads: Int = 2) throws {
    var options = Interpreter.Options()
    options.threadCount = threads
    interpreter = try Interpreter(modelPath: modelPath, options: options)
    encodeRunner = try interpreter.signatureRunner(with: "encode")
    stepRunner = try interpreter.signatureRunner(with: "decode_step")
  }

  func encode(_ sourceIds: [Int32]) throws -> State {
    var source = [Int32](repeating: PAD_ID, count: MAX_SOURCE_LEN) // the graph takes exactly S ids
    source.replaceSubrange(0..<sourceIds.count, with: sourceIds)
    try encodeRunner.invoke(with: ["source_ids": bytes(source)])
    var encoded: [String: Data] = [:]
    for name in ENCODE_OUTPUTS { encoded[name] = try encodeRunner.output(named: name).data }
    var cache: [String: Data] = [:] // zeros: [1, HEADS, C, HEAD_DIM] float32
    for name in CACHE_INPUTS { cache[name] = Data(count: 4 * HEADS * MAX_TARGET_LEN * HEAD_DIM) }
    return State(cache: cache, encoded: encoded)
  }

  func step(_ state: State, token: Int32, position: Int32) throws -> (logits: [Float32], state: State) {
    var inputs = state.encoded.merging(state.cache) { kept, _ in kept }
    inputs["tokens"] = bytes([token]) // int32 [1]
    inputs["position"] = bytes([position]) // int32 scalar: 4 bytes
    try stepRunner.invoke(with: inputs)
    var cache: [String: Data] = [:]
    for name in CACHE_INPUTS { cache[name] = try stepRunner.output(named: "new_" + name).data }
    let logits = try stepRunner.output(named: "logits").data.withUnsafeBytes { Array($0.bindMemory(to: Float32.self)) }
    return (logits, State(cache: cache, encoded: state.encoded)) // VOCAB_SIZE logits
  }
}

func argmax(_ logits: [Float32]) -> Int32 { // the first index on ties
  var best = 0
  for i in 1..<logits.count where logits[i] > logits[best] { best = i }
  return Int32(best)
}

/// The decode loop (the Kotlin library's decode/Generate.kt): greedy, or pass another `choose`.
func generate(_ runtime: LiteRtRuntime, _ sourceIds: [Int32], maxNewTokens: Int? = nil,
              choose: ([Float32]) -> Int32 = argmax, onToken: ((Int32, [Int32]) -> Void)? = nil,
              isCancelled: () -> Bool = { false }) throws -> (ids: [Int32], stop: String) {
  let limit = min(maxNewTokens ?? runtime.maxTargetLen, runtime.maxTargetLen)
  var state = try runtime.encode(sourceIds)
  var ids: [Int32] = []
  var stop = "length"
  var token = BOS_ID
  for position in 0..<limit {
    if isCancelled() { stop = "aborted"; break }
    let result = try runtime.step(state, token: token, position: Int32(position))
    state = result.state
    token = choose(result.logits)
    if token == EOS_ID { stop = "eos"; break }
    ids.append(token)
    onToken?(token, ids)
  }
  return (ids, stop)
}

/// golden/golden.json's first sentence, "@GOLDEN_TEXT@": its source ids, and the greedy ids this model gives.
func checkGolden(modelDir: URL) throws {
  let runtime = try LiteRtRuntime(modelPath: modelDir.appendingPathComponent(MODEL_FILE).path)
  let result = try generate(runtime, [@GOLDEN_SOURCE@])
  precondition(result.ids == [@GOLDEN_IDS@], "not the golden greedy ids: \(result.ids)")
}
'''
