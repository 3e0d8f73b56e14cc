"""A static web site that runs bundles entirely in the visitor's browser (`studio web SITE`).

The site is what `web/site-files.json` lists — the `web/` package's page (`web/site/`), its modules
(`web/src/`) and the WASM runtimes copied out of `web/node_modules` (nothing is fetched from a CDN at run
time) — and per bundle a folder with its batch-1 `.tflite` graph, tokenizer model, config, manifest and
golden data, and a chatbot's stored replies (`exporters.replies`: `replies.json` and `replies.bin`). `site.json`
lists the models; any static file server can serve the folder."""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from exporters import ensure_exported, write_golden_data
from exporters.replies import replies_files
from studio.replies import PORTABLE_FILES
from studio import paths
from studio.bundle import load_bundle
from studio.errors import StudioError
from studio.files import atomic_write_bytes, sha256_of
from studio.tasks import language_pair, task_named
from studio.variants import VARIANTS

def _web_dir() -> Path:
    """The web package: a source checkout's `web/`, else the copy installed with the wheel (`studio_web`)."""
    checkout = Path(__file__).resolve().parent.parent / "web"
    if (checkout / "package.json").is_file():
        return checkout
    spec = importlib.util.find_spec("studio_web")
    if spec is not None and spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return checkout


WEB_DIR = _web_dir()
DEFAULT_VARIANT = "tflite-b1-float16"  # static shapes (LiteRT.js needs them); half the fp32 size
CHATBOT_TITLE = "Chatbot (Korean)"  # a translator's tab is titled by its language pair: "Korean → English"


def page_decoding(task: str) -> dict:
    """The task's default decoding (studio/tasks.py) under the page's option names: beam_size -> beamSize."""
    return {re.sub(r"_(\w)", lambda m: m[1].upper(), key): value
            for key, value in task_named(task).default_decoding.items()}


def modules_home() -> Path:
    """The folder whose `node_modules` the site copies LiteRT.js and SentencePiece from: the web package's own, or
    (when the package is installed somewhere this user cannot write) a copy of its lock file in the user cache."""
    if os.access(WEB_DIR, os.W_OK):
        return WEB_DIR
    home = paths.cache_dir() / "web" / sha256_of(WEB_DIR / "package-lock.json")[:16]
    home.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        if not (home / name).is_file():
            shutil.copyfile(WEB_DIR / name, home / name)
    return home


def check_web_prerequisites() -> None:
    """Refuse at once, with what fixes it, what would stop `build_site` after an export: no web package, or no
    npm while its JavaScript dependencies are not installed yet."""
    if not (WEB_DIR / "package.json").is_file():
        raise StudioError(f"{WEB_DIR}: the web package is missing from this installation; reinstall it with "
                          "`pip install --force-reinstall transformer-studio` (or `pip install .` in a checkout)")
    if not _installed(modules_home()) and shutil.which("npm") is None:
        raise StudioError(NPM_NEEDED)


NPM_NEEDED = ("the web page needs Node.js 20+ and npm once, to fetch LiteRT.js, ONNX Runtime Web and SentencePiece "
              "into the site (Debian/Ubuntu: apt-get install nodejs npm; otherwise https://nodejs.org)")


def _installed(home: Path) -> bool:
    installed, lock = home / "node_modules" / ".package-lock.json", home / "package-lock.json"
    return installed.is_file() and installed.stat().st_mtime >= lock.stat().st_mtime


def ensure_web_packages(progress=print) -> Path:
    """`node_modules` as `package-lock.json` pins it (`npm ci` when missing or older than the lock), in
    `modules_home()`; returns that folder."""
    check_web_prerequisites()
    home = modules_home()
    if _installed(home):
        return home
    # two processes (two `studio web`, parallel tests) must not run `npm ci` in one folder at once: the second
    # waits for the first, then finds node_modules current
    with open(home / ".npm-ci.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if _installed(home):
            return home
        _npm_ci(home, progress)
    return home


def _npm_ci(home: Path, progress) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise StudioError(NPM_NEEDED)
    progress("Installing the web package's JavaScript dependencies (npm ci)...")
    result = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=home,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise StudioError(f"npm ci in {home} failed:\n{(result.stderr or result.stdout)[-2000:]}")


# LiteRT.js stopped ("Aborted()") loading a 116 MiB float16 graph (a 60.6 M-parameter imported model) and ran its
# 78 MiB int8 one (docs/import.md); the shipped models' float16 graphs are 12-15 MiB
LARGE_FLOAT_GRAPH = 64 * 2**20


def _warn_if_too_large(graph: Path, progress) -> None:
    if "int8" not in graph.name and graph.stat().st_size > LARGE_FLOAT_GRAPH:
        progress(f"Warning: {graph.name} is {graph.stat().st_size / 2**20:.0f} MiB; browsers' LiteRT.js stopped "
                 "loading a float graph of 116 MiB: --variant tflite-b1-int8 is smaller and loads")


def build_site(bundle_paths, site: Path, variant: str = DEFAULT_VARIANT, progress=print) -> dict:
    """Write the site for `bundle_paths` (one tab each) into `site`; returns site.json's content."""
    static = [name for name, v in VARIANTS.items() if v.format == "tflite" and v.batch == 1]
    if variant not in static:
        raise StudioError(f"--variant {variant}: the page needs a .tflite with static shapes; choose one of "
                          f"{', '.join(static)}")
    home = ensure_web_packages(progress)
    site = Path(site)
    try:
        site.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StudioError(f"{site}: cannot write the site here ({error.strerror or error})") from None
    for entry in json.loads((WEB_DIR / "site-files.json").read_text(encoding="utf-8"))["files"]:
        target = site / entry["to"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile((home if entry["from"].startswith("node_modules/") else WEB_DIR) / entry["from"], target)
    models = []
    for path in bundle_paths:
        bundle = load_bundle(Path(path))
        if bundle.config.tokenizer.kind != "sentencepiece":
            raise StudioError(f"{bundle.path}: the web page needs a SentencePiece tokenizer "
                              f"(this bundle uses {bundle.config.tokenizer.kind})")
        export_dir = ensure_exported(bundle, ["tflite", variant], progress=progress)  # golden/ is made with fp32
        write_golden_data(bundle, export_dir, progress)  # with the page's graph among its files
        name = bundle.config.task.task
        folder = site / name
        tflite = VARIANTS[variant].files[0]
        _warn_if_too_large(export_dir / tflite, progress)
        for relative in (tflite, "manifest.json", "golden/golden.json", "golden/step0_logits.f32"):
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(export_dir / relative, folder / relative)
        for relative in ("config.json", *(f"tokenizer/{f}" for f in bundle.tokenizers.model_files().values())):
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(bundle.path / relative, folder / relative)
        stored = replies_files(bundle)
        for relative in PORTABLE_FILES.values():  # a folder built before for another bundle keeps none of its own
            (folder / relative).unlink(missing_ok=True)
        for relative, content in stored.items():
            atomic_write_bytes(folder / relative, content)
        title = language_pair(bundle.config.task).title if task_named(name).translates else CHATBOT_TITLE
        models.append({"name": name, "title": title, "dir": f"{name}/", "tflite": tflite,
                       "tokenizer": {side: f"tokenizer/{f}" for side, f in bundle.tokenizers.model_files().items()},
                       "golden": "golden/golden.json", "decoding": page_decoding(name),
                       **({"replies": dict(PORTABLE_FILES)} if stored else {})})
    manifest = {"format": "transformer-studio-site/1", "title": "Transformer Studio",
                "litert": {"wasm": "vendor/litertjs/wasm/", "accelerator": "wasm"}, "models": models}
    atomic_write_bytes(site / "site.json", (json.dumps(manifest, indent=1) + "\n").encode("utf-8"))
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    progress(f"Wrote the site to {site} ({size / 2**20:.1f} MB): serve it with any static file server, e.g. "
             f"python -m http.server --bind 127.0.0.1 --directory {site}")
    return manifest

