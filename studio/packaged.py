"""The model of an export package, decoded as the app decodes it: `PackagedModel(folder)` reads a package's
manifest, config, tokenizer and graph(s), and `translate(text)` / `reply(text)` give what `studio translate` /
`studio chat` give on that graph — the task's default decoding, the input checks, and for the translator sentence
splitting, term protection and the decode guards — because they run the same code (`studio.translation`,
`studio.inference`). The python package carries this module and what it imports, nothing that needs TensorFlow
(`exporters.portable`), and its golden data records the outputs of this class (`exporters.golden`)."""

from __future__ import annotations

import json
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

from studio.config import BundleConfig
from studio.inference import TextGenerator
from studio.runtimes.onnx_runtime import ONNXRuntime
from studio.runtimes.tflite_runtime import TFLiteRuntime
from studio.tasks import CHATBOT, TRANSLATOR, task_named
from studio.text.inputs import check_text
from studio.text.pipelines import unicode_difference
from studio.text.preprocess import Preprocessor
from studio.text.protect import Glossary, protector_for
from studio.text.tokenizers import SentencePieceTokenizer, TokenizerPair
from studio.translation import translate


@dataclass(frozen=True)
class NoLengthLimit:
    """A library takes text of any length (the app's server has its own limit): long text is split."""
    max_input_chars: int = sys.maxsize


class PackagedModel:
    """A package folder's model: the translator's `translate(text, glossary)` or the chatbot's `reply(text)`.
    InputError (a StudioError) says why a text cannot be taken (empty, only invisible characters). One instance
    may serve several threads (its runtime keeps a pool of interpreters or one ONNX session)."""

    def __init__(self, folder: str | Path, threads: int | None = None):
        self.folder = Path(folder)
        self.manifest = json.loads((self.folder / "manifest.json").read_text(encoding="utf-8"))
        config = BundleConfig.load(self.folder / self.manifest["text_pipeline"]["config"])
        runtime = self._runtime(config, threads)
        self.generator = TextGenerator(Preprocessor(config, self._tokenizers()), runtime)
        self.task = task_named(config.task.task)
        if unicode_difference():
            warnings.warn(unicode_difference(), stacklevel=2)

    def _tokenizers(self) -> TokenizerPair:
        sides = [self.folder / self.manifest["tokenizer"][side] for side in ("source", "target")]
        source, target = (SentencePieceTokenizer.load(path.parent, path.name.removesuffix(".spm.model"))
                          for path in sides)
        return TokenizerPair(source, target)

    def _runtime(self, config: BundleConfig, threads: int | None):
        package = self.manifest["package"]
        model = self.folder / package["model"]
        if "decode_step" in package:
            return ONNXRuntime(model, self.folder / package["decode_step"], config.model, threads=threads)
        return TFLiteRuntime(model, config.model, threads=threads)

    def __call__(self, text: str) -> str:
        return self.translate(text) if self.task.name == TRANSLATOR.name else self.reply(text)

    def translate(self, text: str, glossary: Glossary | str | None = None, protect: bool = True) -> str:
        """The English of `text` (one line of output per line of it), as the Translate tab gives it: the
        translator's default decoding, with `glossary` (a Glossary, or its text: `삼성 = Samsung` per line) and,
        with `protect`, numbers, amounts, dates, URLs and Latin names protected."""
        self._check(text, TRANSLATOR.name)
        if isinstance(glossary, str):
            glossary = Glossary.parse(glossary)
        protector = protector_for(glossary or Glossary(), protect)
        return translate(self.generator, text.split("\n"), self.task.default_options(), protector=protector).text

    def reply(self, text: str) -> str:
        """The chatbot's reply to `text`, as `studio chat` gives it (its default decoding)."""
        self._check(text, CHATBOT.name)
        return self.generator.generate([text], options=self.task.default_options())[0].text

    def _check(self, text: str, task: str) -> None:
        if self.task.name != task:
            raise TypeError(f"this package's model is a {self.task.name}, not a {task}")
        check_text(task, NoLengthLimit(), text, self.generator.preprocessor.pipeline)
