"""Every hostile input as a line of `studio chat` / `studio translate`'s stdin: one reply line per input line,
in order, nothing crashes, nothing leaks a traceback."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from hostile import INPUTS
from studio.cli import app as cli


def _one_line(text: str) -> str:
    """A hostile input as one line of a pipe (a line cannot contain a line break)."""
    return re.sub(r"[\r\n]", " ", text)


@pytest.mark.parametrize("command", ["chat", "translate"])
def test_cli_answers_every_hostile_line_on_stdin(exported, command):
    lines = [_one_line(text) for _, text in INPUTS]
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")  # lone surrogates arrive as invalid UTF-8
    # greedy on TFLite, the quickest backend, for both: the translator's default beam search gets every hostile
    # input through HTTP (test_hostile_http), and the inputs' hostility is in the text, which every strategy
    # and backend reads the same way
    result = CliRunner().invoke(cli, [command, "--bundle", str(exported[0]), "--beam", "1", "--backend", "tflite"],
                                input=data)
    assert result.exit_code == 0, result.output[-2000:]
    assert "Traceback" not in result.output
    assert len(result.stdout.split("\n")) - 1 == len(lines)  # one output line per input line, in order
    for line, reply in zip(lines, result.stdout.split("\n")):
        if not line.strip():
            assert reply == ""
