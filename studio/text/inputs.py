"""What a model can take: the input checks every surface applies (the app's tabs, the LibreTranslate API, MCP,
and the export packages' runtime, `studio.packaged`), a pure function of (task, limit, text)."""

from __future__ import annotations

from studio.errors import StudioError
from studio.tasks import task_named


class InputError(StudioError):
    """The user's input cannot be processed; the message says why, in plain words."""


def check_text(task: str, limits, text, pipeline=None) -> str:
    """`text` if the model can take it, else an InputError saying why. `limits.max_input_chars`: the longest
    text taken; `pipeline`: the bundle's text pipeline, to refuse input it would reduce to nothing."""
    if not isinstance(text, str):
        raise InputError("Please send text.")
    wording = task_named(task)
    if not text.strip():
        raise InputError(wording.empty_input)
    if len(text) > limits.max_input_chars:
        raise InputError(f"That is {len(text):,} characters; the limit is {limits.max_input_chars:,}. "
                         f"Please shorten it{wording.long_input_hint}")
    if pipeline is not None and not pipeline.source(text):
        if pipeline.name == "tutorial":
            raise InputError("That text has nothing the model can read: it understands Korean, Latin letters, "
                             "digits and punctuation (emoji, symbols and other scripts are skipped).")
        raise InputError("That text has only invisible characters (control or zero-width characters): "
                         "there is nothing to read.")
    return text
