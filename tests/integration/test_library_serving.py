"""The library's choice is the model every command and tab loads when none is named."""

import shutil

from typer.testing import CliRunner

from studio import library
from studio.cli import app
from studio.serving import ServedModel


def test_a_chosen_model_is_what_chat_loads_without_a_bundle(tiny_bundle, tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    target = library.models_dir() / "tiny helper"
    shutil.copytree(tiny_bundle, target, ignore=shutil.ignore_patterns("exports", "checkpoints", "tensorboard"))
    library.choose("tiny helper")
    assert ServedModel.shared("chatbot").bundle.path == target
    reply = CliRunner().invoke(app, ["chat", "--backend", "tf", "--reply", "generate"], input="나는 커피를 좋아해?\n")
    assert reply.exit_code == 0, reply.output
    assert reply.stdout.strip() == ServedModel.shared("chatbot", target).generator("tf")("나는 커피를 좋아해?")
