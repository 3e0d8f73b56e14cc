"""Hundreds of hostile inputs through the `generate` API and the CLI (chat and translate); the sweeps of
all of them through the CLI's stdin and the app's HTTP endpoints are in tests/system. Each gets a reply or a clear message; nothing
crashes, nothing leaks a traceback."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hostile import CLEAR_MESSAGES, INPUTS, hostile_files
from studio.cli import app as cli
from studio.text import normalize
from studio.serving import Limits
from studio.text.inputs import InputError, check_text



def test_there_are_at_least_300_hostile_inputs_in_every_category():
    categories = {category.split("-")[0] for category, _ in INPUTS}
    assert len(INPUTS) >= 300
    assert {"empty", "emoji", "control", "surrogates_and_odd_unicode", "right_to_left", "html_js", "markdown",
            "sql_and_shell", "long_words", "numbers", "long_text", "mixed"} <= categories


@pytest.fixture
def generator(tiny_generator):
    return tiny_generator


def test_generate_api_answers_every_hostile_input(generator):
    texts = [text for _, text in INPUTS]
    results = []
    for start in range(0, len(texts), 50):
        results += generator.generate(texts[start:start + 50])
    assert len(results) == len(texts)
    for (category, text), result in zip(INPUTS, results):
        assert isinstance(result.text, str), category
        if text.strip() and not normalize(text):  # nothing left to read: the reply says so
            assert any("no characters this model reads" in w for w in result.warnings), (category, text)


def test_streaming_answers_hostile_inputs_like_the_batch(generator):
    for _, text in INPUTS[::15]:
        streamed = list(generator.stream(text))[-1][0]
        assert streamed == generator.generate([text])[0].text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_any_text_gets_a_reply_or_a_clear_message(generator, tiny_bundle, text):
    try:
        check_text("chatbot", Limits(max_input_chars=200), text, generator.preprocessor.pipeline)
    except InputError as error:
        assert CLEAR_MESSAGES.search(str(error))
    assert isinstance(generator.generate([text])[0].text, str)


def test_cli_survives_invalid_utf8_on_stdin(tiny_bundle):
    result = CliRunner().invoke(cli, ["translate", "--bundle", str(tiny_bundle), "--backend", "tf"], input=b"\xff\xfe\xfd\n\xc3\x28\n")
    assert result.exit_code == 0 and len(result.stdout.split("\n")) == 3


def test_cli_translates_hostile_arguments(tiny_bundle):
    for category, text in INPUTS[::40]:
        if "\x00" in text or category == "long_text":
            continue  # an operating system cannot pass NUL in an argument
        result = CliRunner().invoke(cli, ["translate", "--bundle", str(tiny_bundle), "--backend", "tf", "--", text])
        assert "Traceback" not in result.output
        if text.strip():
            assert result.exit_code == 0, (category, result.output)
        else:  # a blank argument is refused, saying so (lines on stdin may be blank: they stay blank)
            assert result.exit_code == 1 and "the text is empty" in str(result.exception), (category, result.output)


def test_cli_file_translator_rejects_bad_files_by_name(tiny_bundle, tmp_path):
    from studio.errors import StudioError

    for name, content in hostile_files().items():
        if name in ("huge.txt", "too_many_lines.txt"):
            continue  # on the command line these are legitimate (slow) work; the server limits them
        path = tmp_path / name
        path.write_bytes(content)
        result = CliRunner().invoke(cli, ["translate", "--bundle", str(tiny_bundle), "--backend", "tf", "--file", str(path),
                                          "--out", str(tmp_path / f"{name}.en")])
        if result.exit_code == 0:  # the same lines, with the file's line breaks (a final one or not) and BOM
            written = (tmp_path / f"{name}.en").read_bytes()
            assert re.findall(rb"\r\n|\r|\n", written) == re.findall(rb"\r\n|\r|\n", content), name
            assert written.startswith(b"\xef\xbb\xbf") == content.startswith(b"\xef\xbb\xbf"), name
        else:
            # `studio` prints a StudioError as "error: <message>" without a traceback
            assert isinstance(result.exception, StudioError) and name in str(result.exception), (name, result)
