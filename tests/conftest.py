"""Session fixtures: generated corpora, one tiny bundle (trained once, without XLA) and its TF generator (one
per worker), one exported copy of it (every variant, exported once), and one app server on that copy. Tests
that change or damage files work on copies (`bundle_copy`, `exported_copy`).

The suite runs on every core (pytest-xdist): the tiny bundle is built once per test run, by whichever worker
needs it first, and read by the others (`built_once`). Tests are handed out one by one (`--dist loadgroup`),
except those that share a costly fixture, which run on one worker: the integration tests on the exported
bundle (they export or damage exports: no worker waits for an export another is building, and the exporters'
traced graphs are reused; the system tests only read it and spread over the workers), and the tests of a module
that share a module-scoped fixture (built once, not on each worker). The unit tests are handed out last.
`_handed_out_order` sets that order; pytest-xdist keeps it (`--no-loadscope-reorder`)."""

import collections
import os
import shutil
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# XLA (the trainer test that keeps jit_compile, the JAX trainer's subprocess) compiles the tiny models' code
# without LLVM's optimizations: they run a few steps, and optimizing cost most of their compile time (JAX's
# train step: 7.3 s -> 2.0 s); what the programs compute is unchanged
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")
# the model library's per-user folder (`studio.library`): the tests never read or change the user's own choices
os.environ["STUDIO_DATA_DIR"] = tempfile.mkdtemp(prefix="studio-test-data-")

import pytest  # noqa: E402
from helpers import TINY, built_once, generated_pairs  # noqa: E402

BUNDLE_FILES = shutil.ignore_patterns("exports", "checkpoints", "tensorboard", "best.npz")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        fixtures = item._fixtureinfo.name2fixturedefs
        if "exported" in fixtures and item.path.parent.name == "integration":
            item.add_marker(pytest.mark.xdist_group("exported"))
        elif any(d.scope == "module" for defs in fixtures.values() for d in defs):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items.sort(key=_handed_out_order(items))


def _handed_out_order(items):
    """The order pytest-xdist hands the tests out in (`--no-loadscope-reorder`): first the "exported" group, whose
    first test builds the shared tiny bundle and its exports while the other workers would wait for them, then the
    tests marked `early` (minutes each: started last, the run would end on them alone), then the
    groups that need neither (the other workers start on those), then the other groups, the larger first; then
    single tests, and the many quick unit tests last: the workers end on them together, not one on a 5-second
    training test while the other has finished."""
    def scope(item):
        return next((mark.args[0] for mark in item.iter_markers("xdist_group")), None)

    sizes = collections.Counter(scope(item) for item in items)
    apart = {scope(item) for item in items if scope(item) and "tiny_bundle" not in item.fixturenames}
    apart -= {scope(item) for item in items if "tiny_bundle" in item.fixturenames}

    def key(item):
        group = scope(item)
        if item.get_closest_marker("early"):
            return (0, 0)
        if group is None:
            return (3 + (item.path.parent.name == "unit"), 0)
        return (0 if group == "exported" else 1 if group in apart else 2, -sizes[group])
    return key  # a stable sort: ties keep the collection's order


@pytest.fixture
def eager_train_steps(request, monkeypatch):
    """The trainer's steps run eagerly: tracing them into graphs costs ~2.5 s per batch shape here, more than
    the few steps a test takes. For tests of the training loop and the commands around it; those marked
    `graph` keep the graphs (XLA, the mirrored strategy, many steps), as do the shared tiny bundle's training.
    Decoding (the samples and dev chrF at each epoch's end) stays traced: eagerly, its many small steps cost more."""
    if request.node.get_closest_marker("graph"):
        return
    from studio.train.trainer import Trainer

    traced = Trainer._compile_steps

    def eager(self):
        traced(self)
        self._train_step = self._train_step.python_function
        self._eval_step = self._eval_step.python_function

    monkeypatch.setattr(Trainer, "_compile_steps", eager)


@pytest.fixture(scope="session")
def chat_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "ChatbotData.csv"
    lines = ["Q,A,label"] + [f"{q},{a},0" for q, a, _ in generated_pairs()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def koen_tsv(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "pairs.tsv"
    path.write_text("".join(f"{q}\t{e}\n" for q, _, e in generated_pairs()), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def tiny_bundle(tmp_path_factory, chat_csv):
    """A chatbot bundle trained for two tiny epochs on the generated corpus. Never change its files."""
    from rich.console import Console

    from studio.train.run import train_task

    def train(out):
        # the tutorial pipeline, which the app must still serve (the translator's is the tiny translators')
        train_task("chatbot", out, data_files=[chat_csv], overrides={**TINY, "task.text_pipeline": "tutorial"},
                   console=Console(quiet=True))

    return built_once(tmp_path_factory, "chat", train)


@pytest.fixture(scope="session")
def tiny_generator(tiny_bundle):
    """The tiny bundle's TF generator, loaded and traced once per worker: the very one `studio chat` or
    `studio translate --bundle TINY --backend tf` get in this process (`ServedModel.shared`). Never change it."""
    from studio.serving import ServedModel

    return ServedModel.shared("chatbot", tiny_bundle).generator("tf")


@pytest.fixture(scope="session")
def exported(tiny_bundle, tmp_path_factory):
    """(a copy of the tiny bundle with every backend exported and verified, its manifest). Never change it.
    Exported by `studio export BUNDLE` itself, whose output `exported_output` keeps for the tests of that command."""
    from typer.testing import CliRunner

    from studio.cli import app
    from studio.variants import read_manifest

    def export(target):
        shutil.copytree(tiny_bundle, target, ignore=BUNDLE_FILES)
        result = CliRunner().invoke(app, ["export", str(target)])
        assert result.exit_code == 0, result.output
        (target.parent / "exported.output.txt").write_text(result.output, encoding="utf-8")

    target = built_once(tmp_path_factory, "exported", export)
    return target, read_manifest(target / "exports")


@pytest.fixture(scope="session")
def exported_output(exported):
    """What `studio export` printed while it built the `exported` bundle."""
    return (exported[0].parent / "exported.output.txt").read_text(encoding="utf-8")


@pytest.fixture
def bundle_copy(tiny_bundle, tmp_path):
    """A private copy of the tiny bundle's shipped files, for tests that change or damage them."""
    target = tmp_path / "bundle"
    shutil.copytree(tiny_bundle, target, ignore=BUNDLE_FILES)
    return target


@pytest.fixture
def exported_copy(exported, tmp_path):
    """A private copy of the exported bundle, exports included."""
    target = tmp_path / "chat"
    shutil.copytree(exported[0], target)
    return target


@pytest.fixture(scope="session")
def app_url(exported):
    """The app (`studio launch`) on the exported tiny bundle, both tabs, TF backend by default, inputs up to
    200 characters: one server for every system test that only makes requests."""
    from helpers import free_port

    from studio.ui.app import launch

    app = launch(exported[0], exported[0], port=free_port(), backend="tf", max_input_chars=200,
                 prevent_thread_lock=True, progress=lambda _: None)
    yield app.local_url
    app.close()


@pytest.fixture(scope="module")
def module_browser():
    """One headless chromium for a module's tests (a launch is ~1.2 CPU-seconds here); each test opens contexts of
    its own with `helpers.OwnContexts`. Not one per worker: a started sync Playwright keeps an event loop running in
    the thread, and a later test's `asyncio.run` would fail."""
    from helpers import chromium

    with chromium() as browser:
        yield browser
