"""The model of an export package, decoded as the app decodes it: `PackagedModel(folder)` reads a package's
manifest, config, tokenizer and graph(s), and `translate(text)` / `reply(text)` give what `studio translate` /
`studio chat` give on that graph — the task's default decoding, the input checks, and for the translator sentence
splitting, term protection and the decode guards — because they run the same code (`studio.translation`,
`studio.inference`). A chatbot package with stored replies (its manifest's `replies`: the portable index) replies as
`studio chat` does by default, with the answer of the training question most like the message, and with the model's
own words when none is alike or when asked to (`studio.replies`). The python package carries this module and what it
imports, nothing that needs TensorFlow (`exporters.portable`), and its golden data records the outputs of this class
(`exporters.app_golden`)."""

from __future__ import annotations

import errno
import json
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.config import BundleConfig
from studio.errors import BundleError
from studio.inference import TextGenerator
from studio.replies import GENERATE, StoredReply, check_mode, load_portable, stored_reply
from studio.runtimes.one_row import OneRowAtATime
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
    may serve several threads (its runtime keeps a pool of interpreters or one ONNX session).

    `reply_mode`: how a chatbot's replies come by default (`Task.reply_modes`, `studio.replies.MODES`): its first
    (a stored reply, the model's when none is alike) unless another is named; `replies` is the stored replies'
    index, None when the package has none."""

    def __init__(self, folder: str | Path, threads: int | None = None, reply_mode: str | None = None):
        self.folder = Path(folder)
        try:
            self.manifest = json.loads((self.folder / "manifest.json").read_text(encoding="utf-8"))
            config = BundleConfig.load(self.folder / self.manifest["text_pipeline"]["config"])
            self.task = task_named(config.task.task)
            tokenizers = self._tokenizers(self.manifest["vocab_size"])
            runtime = self._runtime(config, threads)
            section = self.manifest.get("replies")
            self.replies = load_portable(self.folder, section) if section and self.task.reply_modes else None
        except FileNotFoundError as error:
            raise BundleError(error.filename, f"is missing: {self.folder} is not a whole model package "
                              "(`studio export BUNDLE --zip PACKAGE.zip` writes one)") from error
        except (OSError, ValueError, KeyError, TypeError) as error:  # JSON, config, replies not the exporters'
            raise BundleError(self.folder, f"not a model package that can be opened ({type(error).__name__}: "
                              f"{error})") from error
        self.generator = TextGenerator(Preprocessor(config, tokenizers), runtime)
        if unicode_difference():
            warnings.warn(unicode_difference(), stacklevel=2)
        self.reply_mode = reply_mode or (self.task.reply_modes[0] if self.task.reply_modes else GENERATE)
        if self.task.reply_modes:
            check_mode(self.reply_mode, self.task.reply_modes)  # an unknown mode is refused now, naming the choices

    def _tokenizers(self, vocabulary: int) -> TokenizerPair:
        """The source and target tokenizers; BundleError for a damaged one or a target of another vocabulary."""
        sides = [self.folder / self.manifest["tokenizer"][side] for side in ("source", "target")]
        try:
            source, target = (SentencePieceTokenizer.load(path.parent, path.name.removesuffix(".spm.model"))
                              for path in sides)
        except RuntimeError as error:  # sentencepiece's word for a file that is not a model
            raise BundleError(self.folder, f"a tokenizer is damaged ({error})") from error
        if target.vocab_size != vocabulary:
            raise BundleError(sides[1], f"has {target.vocab_size} pieces and the model's graphs {vocabulary} "
                              "(manifest.json): they are not one model's files")
        return TokenizerPair(source, target)

    def _runtime(self, config: BundleConfig, threads: int | None):
        """The graphs' runtime, checked to run one step with this manifest's shapes (another model's graphs would
        fail only at the first text, in the runtime's own words)."""
        package = self.manifest["package"]
        graphs = [self.folder / package[name] for name in ("model", "decode_step") if name in package]
        for path in graphs:
            if not path.is_file():
                raise FileNotFoundError(errno.ENOENT, "no such file", str(path))
        try:
            if len(graphs) == 2:
                runtime = ONNXRuntime(*graphs, config.model, threads=threads)
            else:
                runtime = TFLiteRuntime(graphs[0], config.model, threads=threads)
                runtime = OneRowAtATime(runtime) if package.get("batch_1") else runtime  # static shapes: no batches
            logits, _ = runtime.step(runtime.encode(np.array([[config.model.eos_id]], np.int32)),
                                     np.array([config.model.bos_id], np.int32), 0)
        except BundleError:
            raise
        except Exception as error:  # noqa: BLE001 - ONNX Runtime's and LiteRT's errors have no common base
            raise BundleError(graphs[0], f"its graphs do not run with this package's config.json and manifest.json: "
                              f"they are not one model's files ({type(error).__name__})") from error
        if np.shape(logits)[-1] != self.manifest["vocab_size"]:
            raise BundleError(graphs[0], f"writes {np.shape(logits)[-1]} logits and the manifest's vocabulary has "
                              f"{self.manifest['vocab_size']}: they are not one model's files")
        return runtime

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

    def reply(self, text: str, mode: str | None = None) -> str:
        """The chatbot's reply to `text`, as `studio chat --reply MODE` gives it: with `mode` (default: this
        instance's `reply_mode`) "retrieve", the stored reply when one is alike; else the model's, with its default
        decoding."""
        self._check(text, CHATBOT.name)
        found, _ = self.stored_reply(text, mode)
        if found is not None:
            return found.text
        return self.generator.generate([text], options=self.task.default_options())[0].text

    def stored_reply(self, text: str, mode: str | None = None) -> tuple[StoredReply | None, str]:
        """(the stored reply to `text`, "") when `mode` asks for one and one is alike, else (None, why the model
        writes it: "" when the mode asked for the model), as `studio.replies.stored_reply`; InputError for a mode
        the chatbot has not."""
        return stored_reply(self.replies, text, mode or self.reply_mode, self.task.reply_modes)

    def _check(self, text: str, task: str) -> None:
        if self.task.name != task:
            raise TypeError(f"this package's model is a {self.task.name}, not a {task}")
        check_text(task, NoLengthLimit(), text, self.generator.preprocessor.pipeline)
