"""The licence files every export package carries, so that what travels with a model keeps its terms:

    MODEL_CARD.md             the bundle's card: the data the weights were trained on and the terms of each source
    LICENSE.md                the model's terms first (the non-commercial notice where its card has one), then the
                              package's own code (MIT)
    THIRD_PARTY_NOTICES.md    each third-party component: in the package (with its licence's full text) or needed
                              beside it (pinned, as tested), and the platform it was tested on

The licence texts are kept in `exporters/licence_texts/` (Apache-2.0 and MIT from their publishers' standard text,
Unicode-3.0 for the Unicode 14 tables the web page and the ios package carry, ChatbotData-MIT.txt as songys/Chatbot_data
words it: a chatbot package's stored replies are that data's questions and answers)."""

from __future__ import annotations

import json
import platform
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

TEXTS = Path(__file__).resolve().parent / "licence_texts"
NON_COMMERCIAL = re.compile(r"non-commercial", re.IGNORECASE)
UNICODE_14 = "Unicode Character Database 14.0"
# the shipped chatbot's data: songys/Chatbot_data (its LICENSE of 2018-08-03, unchanged at 4cf20d1 of 2023-03-30)
CHATBOT_DATA = re.compile(r"songys/Chatbot_data|ChatbotData", re.IGNORECASE)


@dataclass(frozen=True)
class Component:
    name: str
    version: str
    licence: str  # its SPDX identifier
    included: bool  # in the package (its licence text travels with it), or installed by the developer beside it
    what: str  # what it does in the package
    text: str | None = None  # its licence's words in licence_texts/ when they are its own (default: <licence>.txt)

    @property
    def text_file(self) -> str:
        return self.text or f"{self.licence}.txt"


def installed_version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed here"


def python_components(runtime: str) -> list[Component]:
    """What example.py needs beside the package: the runtime, sentencepiece and numpy, at the versions tested here."""
    engine = (Component("onnxruntime", installed_version("onnxruntime"), "MIT", False, "runs the .onnx graphs")
              if runtime == "ONNX Runtime" else
              Component("ai-edge-litert", installed_version("ai-edge-litert"), "Apache-2.0", False,
                        "runs the .tflite graph (LiteRT)"))
    return [engine,
            Component("sentencepiece", installed_version("sentencepiece"), "Apache-2.0", False, "the tokenizer"),
            Component("numpy", installed_version("numpy"), "BSD-3-Clause", False, "arrays")]


def web_components(node_modules: Path) -> list[Component]:
    """The npm packages whose files the site copies (web/site-files.json), read from their package.json."""
    found = [("@litertjs/core", "LiteRT.js: runs the .tflite graph in WebAssembly"),
             ("@litertjs/wasm-utils", "LiteRT.js's WebAssembly loader"),
             ("@sctg/sentencepiece-js", "SentencePiece compiled to WebAssembly: the tokenizer")]
    components = []
    for name, what in found:
        described = json.loads((node_modules / name / "package.json").read_text(encoding="utf-8"))
        components.append(Component(name, described["version"], described["license"], True, what))
    components.append(Component(UNICODE_14, "14.0.0", "Unicode-3.0", True,
                                "src/unicode14.js: which code points Unicode 14.0 leaves unassigned, and which "
                                "it reads as cased and case-ignorable"))
    return components


def replies_components(card: str | None, stored: str) -> list[Component]:
    """The data a chatbot package's stored replies (`stored`: the portable index's path) are made of, when its
    card names it: ChatbotData's questions and answers, MIT."""
    if not (card and CHATBOT_DATA.search(card)):
        return []
    return [Component("ChatbotData (songys/Chatbot_data)", "1.0", "MIT", True,
                      f"`{stored}`: its questions and answers as written, the chatbot's stored replies",
                      "ChatbotData-MIT.txt")]


def tested_on(target: str) -> str:
    """Where this package's code was run: this machine, by the project's tests."""
    machine = f"{platform.system()} {platform.machine()}"
    if target == "web":
        return f"{machine}: the project's tests run this site's modules in Node.js 20 and the page in Chromium"
    if target == "ios":
        return (f"{machine} with Python {platform.python_version()}, by the exporter (the graph and the golden "
                f"data); nothing in Swift was compiled or run")
    return f"{machine} with Python {platform.python_version()}"


def licence_files(card: str | None, target: str, components: list[Component], stored: str | None = None
                  ) -> dict[str, bytes]:
    """{path in the package: content} of the licence files, for a bundle whose MODEL_CARD.md reads `card`;
    `stored`: the path of a chatbot's stored replies (training data as written), when the package has them."""
    files = {"LICENSE.md": _licence(card, target, stored).encode("utf-8"),
             "THIRD_PARTY_NOTICES.md": _notices(components, tested_on(target)).encode("utf-8")}
    if card is not None:
        files["MODEL_CARD.md"] = card.encode("utf-8")
    return files


def non_commercial(card: str | None) -> bool:
    return bool(card and NON_COMMERCIAL.search(card))


def _licence(card: str | None, target: str, stored: str | None = None) -> str:
    if non_commercial(card):
        model = ("**Non-commercial use only.** The model's weights were trained partly on data licensed for "
                 "non-commercial use only (MODEL_CARD.md names each source and its terms): do not use this "
                 "package, or an app built with it, commercially.")
    elif card is not None:
        model = ("The model's weights were trained on the data MODEL_CARD.md lists; each source's terms are "
                 "named there. Check them before you ship an app with this model.")
    else:
        model = ("This bundle has no model card: whoever trained it knows the terms of its training data; ask "
                 "them before you ship an app with this model.")
    code = (TEXTS / "MIT.txt").read_text(encoding="utf-8")
    data = "" if stored is None else f"## The stored replies\n\n{_stored_terms(card, stored)}\n\n"
    return (f"# Licence\n\n## The model\n\n{model}\n\n{data}## The code of this {target} package\n\n"
            f"The package's own code and text (README.md, the examples, manifest.json) are under the MIT "
            f"licence:\n\n```\n{code.rstrip()}\n```\n\nThird-party components: THIRD_PARTY_NOTICES.md.\n")


def _stored_terms(card: str | None, stored: str) -> str:
    held = (f"`{stored}` holds the chatbot's training pairs as they were written — every question and its answer — "
            "which the chatbot replies with (the answer of the question most like a message).")
    if card and CHATBOT_DATA.search(card):
        return (f"{held} They are ChatbotData's (songys/Chatbot_data, © 2018) and travel with the package under its MIT "
                "licence, whose full text is in THIRD_PARTY_NOTICES.md.")
    return (f"{held} They are the training data itself, under its own terms (MODEL_CARD.md names it): ship them only "
            "if that data may be passed on (without these files and the manifest's `replies`, the chatbot replies with "
            "the model alone).")


def _notices(components: list[Component], where: str) -> str:
    rows = [f"| {c.name} | {c.version} | {c.licence} | {'in this package' if c.included else 'install it'} "
            f"| {c.what} |" for c in components]
    lines = ["# Third-party notices", "",
             f"Tested on {where}.", "",
             "| component | version | licence | where | what it does |", "| --- | --- | --- | --- | --- |", *rows]
    if not components:
        lines = lines[:4] + ["Nothing third-party is in this package; the runtime its README names is installed "
                             "by the app's build."]
    for licence, text_file in sorted({(c.licence, c.text_file) for c in components if c.included}):
        text = (TEXTS / text_file).read_text(encoding="utf-8").strip()
        names = ", ".join(c.name for c in components if c.included and c.text_file == text_file)
        lines += ["", f"## {licence} ({names})", "", "```", text, "```"]
    return "\n".join(lines) + "\n"
