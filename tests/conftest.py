"""Session fixtures: generated corpora, one tiny bundle (trained once, without XLA), one exported copy of it
(every variant, exported once), and one app server on that copy. Tests that change or damage files work on
copies (`bundle_copy`, `exported_copy`).

The suite runs on every core (pytest-xdist): the tiny bundle and its export are built once per test run,
by whichever worker needs them first, and read by the others (`built_once`)."""

import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402
from helpers import TINY, built_once, generated_pairs  # noqa: E402

BUNDLE_FILES = shutil.ignore_patterns("exports", "checkpoints", "tensorboard", "best.npz")


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
def exported(tiny_bundle, tmp_path_factory):
    """(a copy of the tiny bundle with every backend exported and verified, its manifest). Never change it."""
    from exporters import export_bundle
    from studio.exports import read_manifest

    def export(target):
        shutil.copytree(tiny_bundle, target, ignore=BUNDLE_FILES)
        export_bundle(target, progress=lambda message: None)

    target = built_once(tmp_path_factory, "exported", export)
    return target, read_manifest(target / "exports")


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
