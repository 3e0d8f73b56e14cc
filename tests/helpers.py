"""Helpers shared by test modules (test modules never import each other or the conftest)."""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
from contextlib import contextmanager
from pathlib import Path

SUBJECTS = ["나는", "너는", "그는", "우리는", "친구는", "엄마는", "동생은"]
OBJECTS = ["사과를", "책을", "영화를", "커피를", "음악을", "운동을", "여행을"]
VERBS = ["좋아해", "싫어해", "샀어", "봤어", "원해", "했어"]
ENGLISH = {"나는": "i", "너는": "you", "그는": "he", "우리는": "we", "친구는": "my friend", "엄마는": "mom",
           "동생은": "my brother", "사과를": "apples", "책을": "books", "영화를": "movies", "커피를": "coffee",
           "음악을": "music", "운동을": "exercise", "여행을": "travel", "좋아해": "likes", "싫어해": "hates",
           "샀어": "bought", "봤어": "saw", "원해": "wants", "했어": "did"}

# the tiny model every integration test uses; XLA is off: compiling costs more than it saves at this size;
# dropout 0.1 keeps the tiny model the tests were written against (with the chatbot preset's 0.0 its beam
# search's alternatives to a test input are all empty)
TINY = {"model.d_model": 32, "model.num_heads": 4, "model.d_ff": 64, "model.num_layers": 2, "model.num_decoder_layers": 1,
        "model.dropout": 0.1,
        "model.max_source_len": 16, "model.max_target_len": 16, "tokenizer.vocab_size": 300,
        "train.epochs": 2, "train.warmup_steps": 10, "train.batch_size": 8, "train.dev_fraction": 0.2,
        "train.jit_compile": False}
NO_XLA = ["--set", "train.jit_compile=false"]  # the same, for `studio train` command lines


def generated_pairs(count=40, seed=0):
    """Tiny Korean chat pairs and a matching English translation of each question."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        s, o, v = rng.choice(SUBJECTS), rng.choice(OBJECTS), rng.choice(VERBS)
        rows.append((f"{s} {o} {v}?", f"{o} {v}? 정말요!", f"{ENGLISH[s]} {ENGLISH[v]} {ENGLISH[o]} ?"))
    return rows


def app_client(url: str, **options):
    """A gradio_client `Client` of an app served on this computer (`options`: e.g. `auth`). Plain HTTP on loopback has
    no certificate to check: with verification on, httpx reads the CA bundle again for each of the client's
    requests (~23 ms of CPU each: ~25 s over the suite)."""
    from gradio_client import Client

    assert url.startswith("http://"), url  # never an https server: its certificate would go unchecked
    return Client(url, verbose=False, ssl_verify=False, **options)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


FAULTS = ("delete", "truncate", "overwrite")


def damage(path: Path, fault: str) -> None:
    if fault == "delete":
        path.unlink()
    elif fault == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:  # overwrite a stretch in the middle with bytes that are neither valid UTF-8 nor the original
        data = bytearray(path.read_bytes())
        middle = len(data) // 2
        data[middle: middle + 16] = b"\xff\x00\xfe garbage \x00\xff\xfe"[:16]
        path.write_bytes(bytes(data))


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SAMPLED = {"strategy": "sample", "seed": 1}  # the tiny model's greedy reply is empty; a seeded sample is not


def refused(capsys, monkeypatch, *args) -> str:
    """What `studio ARGS` says when it refuses: one line (after any progress), exit status 1, no traceback."""
    import pytest

    from studio.cli import main

    monkeypatch.setattr("sys.argv", ["studio", *map(str, args)])
    with pytest.raises(SystemExit) as exit_status:
        main()
    err = capsys.readouterr().err
    assert exit_status.value.code == 1 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines[-1].startswith("error: ") and sum("error" in line for line in lines) == 1, err
    return lines[-1]


@contextmanager
def chromium():
    """Debian's headless chromium through Playwright (never a browser Playwright downloads); the test is
    skipped, saying why, when either is missing."""
    import pytest

    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def own_data_folder(folder: Path):
    """`STUDIO_DATA_DIR` (the library, the jobs) set to `folder` while the block runs: read at each call, so a server
    launched inside, and its training jobs, use it; put back as it was afterwards."""
    before = os.environ.get("STUDIO_DATA_DIR")
    os.environ["STUDIO_DATA_DIR"] = str(folder)
    try:
        yield folder
    finally:
        if before is None:
            os.environ.pop("STUDIO_DATA_DIR", None)
        else:
            os.environ["STUDIO_DATA_DIR"] = before


@contextmanager
def page_at(url: str, height: int = 1400):
    """A page of a headless chromium of its own, 1280 pixels wide, opened at `url`, for a module's tests."""
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": height})
        page = context.new_page()
        page.goto(url)
        try:
            yield page
        finally:
            context.close()


class OwnContexts:
    """A browser (one launched for a module: `module_browser`) as one test uses it, in a `with` block: each
    `new_page` and `new_context` opens a context of its own (a fresh profile: no cookies, storage or service workers
    of another test's), all closed when the block ends."""

    def __init__(self, browser):
        self.browser, self.contexts = browser, []

    def __enter__(self):
        return self

    def __exit__(self, *_):
        for context in self.contexts:
            context.close()

    def new_context(self, **options):
        self.contexts.append(self.browser.new_context(**options))
        return self.contexts[-1]

    def new_page(self, **options):
        return self.new_context(**options).new_page()


def ui_settings(**changes):
    """The Chat tab's Decoding accordion's settings, by name: its defaults with `changes`."""
    import gradio as gr

    from studio.tasks import CHATBOT
    from studio.ui.decoding import DecodingControls

    with gr.Blocks():
        controls = DecodingControls("probe", defaults=CHATBOT.default_decoding)
    return {name: component.value for name, component in controls.components.items()} | changes


def built_once(tmp_path_factory, name: str, build) -> Path:
    """The folder `name`, built by `build(folder)` once per test run: under pytest-xdist the workers share
    one base folder, and a lock makes the others wait for the first worker's build and reuse it."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    folder, done = base / "shared" / name, base / "shared" / f"{name}.done"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed half-way is not reused
            build(folder)
            done.touch()
    return folder


def translate_lines(generator, lines, options=None, batch_size=32, on_progress=None, scores=None, protector=None,
                    report=None, stop=None, say_kept=True, line_warnings=None):
    """`studio.translation.translate` as (outputs, warnings), its other results appended to the lists given:
    the shape these tests were first written against, so their assertions read as they did."""
    from studio.translation import translate

    result = translate(generator, lines, options, batch_size=batch_size, on_progress=on_progress,
                       scores=scores is not None, protector=protector, stop=stop, say_kept=say_kept)
    for given, found in ((scores, result.confidences), (report, result.report), (line_warnings, result.line_warnings)):
        if given is not None:
            given += found
    return result.lines, result.warnings


def translate_alternatives(generator, text, n, options=None, protector=None, report=None):
    """`studio.translation.n_best` as (choices, warnings), with `report` appended to, as `translate_lines`."""
    from studio.translation import n_best

    found = n_best(generator, text, n, options, protector)
    if report is not None:
        report += found.report
    return found.choices, found.warnings


def translate_document(generator, document, options=None, batch_size=32, on_progress=None, protector=None,
                       report=None, stop=None):
    """`studio.translation.translate_document` as (bytes, warnings), with `report` appended to."""
    from studio.translation import translate_document as translated

    result = translated(generator, document, options, batch_size, on_progress, protector, stop)
    if report is not None:
        report += result.report
    return result.document, result.warnings


def tmpfs(where: Path, options: str):
    """Mount a real tmpfs at `where` for one test (skipped where mounting is not permitted): a generator for
    fixtures (`yield from tmpfs(...)`), unmounted when the fixture ends."""
    import pytest

    where.mkdir(parents=True, exist_ok=True)
    mounted = os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                                                   capture_output=True).returncode == 0
    if not mounted:
        pytest.skip("needs permission to mount a tmpfs (root in a container or VM)")
    yield where
    subprocess.run(["umount", str(where)], capture_output=True)
