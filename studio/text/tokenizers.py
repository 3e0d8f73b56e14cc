"""Tokenizers behind one interface.

- `SentencePieceTokenizer` (default): trained per task, special ids `<pad>`=0 `<s>`=1 `</s>`=2 `<unk>`=3; a model
  imported with its own vocabulary (`studio.importers`) has its own special ids, read from the model file.
- `SubwordTokenizer`: tfds `SubwordTextEncoder`, the chatbot tutorials' choice. It reserves id 0 for
  padding and has no unknown token (it falls back to bytes); as in the tutorials, start and end tokens
  are appended after its vocabulary (`vocab_size` and `vocab_size + 1`).

Both save into a directory (inside a model bundle) and load back from it.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol


class Tokenizer(Protocol):
    kind: str
    pad_id: int
    bos_id: int
    eos_id: int
    unk_id: int | None

    @property
    def vocab_size(self) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: Sequence[int]) -> str: ...

    def id_to_piece(self, token_id: int) -> str: ...

    def save(self, directory: Path, name: str) -> list[str]: ...


BACK_TRANSLATION_TAG = "<bt>"  # first source piece of a back-translated (synthetic) training pair


def _encodable(text: str) -> str:
    """Lone surrogates (from undecodable file names or broken clients) cannot cross into C++; make them U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)


def _strip_specials(ids: Sequence[int], tokenizer: Tokenizer) -> list[int]:
    """Cut at the first end token and drop padding/start tokens."""
    out = []
    for token_id in ids:
        token_id = int(token_id)
        if token_id == tokenizer.eos_id:
            break
        if token_id in (tokenizer.pad_id, tokenizer.bos_id):
            continue
        out.append(token_id)
    return out


class SentencePieceTokenizer:
    kind = "sentencepiece"
    file_suffix = ".spm.model"
    pad_id, bos_id, eos_id, unk_id = 0, 1, 2, 3  # those `train` gives; a loaded model's are its own

    def __init__(self, model_proto: bytes):
        import sentencepiece as spm  # deferred: only SentencePiece bundles need it

        self._proto = model_proto
        self._sp = spm.SentencePieceProcessor(model_proto=model_proto)
        specials = (self._sp.pad_id(), self._sp.bos_id(), self._sp.eos_id(), self._sp.unk_id())
        if min(specials) < 0 or len(set(specials)) != 4:
            raise ValueError(f"SentencePiece model has special ids (pad, bos, eos, unk) {specials}: each must be "
                             "defined and distinct")
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = specials

    @classmethod
    def train(cls, sentences: Iterable[str], vocab_size: int, model_type: str = "unigram",
              character_coverage: float = 0.9995, byte_fallback: bool = True,
              seed_sentences: int = 2_000_000, user_symbols: Sequence[str] = ()) -> "SentencePieceTokenizer":
        """`byte_fallback` spells characters outside the vocabulary as UTF-8 byte pieces, so any text
        round-trips instead of turning into `<unk>` (it reserves 256 ids). `user_symbols` are pieces kept
        whole, e.g. the `<bt>` tag that marks back-translated sources in training."""
        import sentencepiece as spm  # deferred: only SentencePiece bundles need it

        sentences = [s for s in sentences if s.strip()]
        if not sentences:
            raise ValueError("cannot train a tokenizer on an empty corpus")
        if byte_fallback:  # the 256 byte pieces and every seen character must fit in the vocabulary
            vocab_size = max(vocab_size, 256 + 4 + len(user_symbols) + len(set("".join(sentences))) + 8)
        buffer = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences), model_writer=buffer, vocab_size=vocab_size,
            model_type=model_type, character_coverage=character_coverage,
            pad_id=0, bos_id=1, eos_id=2, unk_id=3,
            pad_piece="<pad>", bos_piece="<s>", eos_piece="</s>", unk_piece="<unk>",
            hard_vocab_limit=False,  # tiny corpora cannot fill a large vocabulary; take what they give
            byte_fallback=byte_fallback, user_defined_symbols=list(user_symbols),
            input_sentence_size=seed_sentences, shuffle_input_sentence=True,
            minloglevel=2, num_threads=2,
        )
        return cls(buffer.getvalue())

    @property
    def vocab_size(self) -> int:
        return self._sp.get_piece_size()

    def encode(self, text: str) -> list[int]:
        return list(self._sp.encode(_encodable(text), out_type=int))

    def encode_sampled(self, text: str, alpha: float) -> list[int]:
        """One segmentation drawn from the unigram model (subword regularization, Kudo 2018): the same text,
        different pieces each time, so training sees many segmentations; inference uses `encode`."""
        return list(self._sp.encode(_encodable(text), out_type=int, enable_sampling=True, alpha=alpha,
                                    nbest_size=-1))

    def encode_many(self, texts: Sequence[str], sampling_alpha: float = 0.0, threads: int = 1) -> list[list[int]]:
        """`encode` (or `encode_sampled`) of many texts at once, on `threads` C++ threads."""
        options = dict(enable_sampling=True, alpha=sampling_alpha, nbest_size=-1) if sampling_alpha else {}
        return self._sp.encode([_encodable(t) for t in texts], out_type=int, num_threads=threads, **options)

    def decode(self, ids: Sequence[int]) -> str:
        # <unk> would render as " ⁇ ", and byte pieces that do not form valid UTF-8 as U+FFFD;
        # a reply or translation is better off without either
        text = self._sp.decode([i for i in _strip_specials(ids, self) if i != self.unk_id])
        return text.replace("\ufffd", "")

    def decode_plain(self, ids: Sequence[int]) -> str:
        """SentencePiece's own decoding of `ids` without `<s>`, `</s>` and `<pad>` (`<unk>` shows as " ⁇ ")."""
        return self._sp.decode(_strip_specials(ids, self))

    def id_to_piece(self, token_id: int) -> str:
        return self._sp.id_to_piece(int(token_id))

    def save(self, directory: Path, name: str) -> list[str]:
        filename = f"{name}{self.file_suffix}"
        (Path(directory) / filename).write_bytes(self._proto)
        return [filename]

    @classmethod
    def load(cls, directory: Path, name: str) -> "SentencePieceTokenizer":
        return cls((Path(directory) / f"{name}{cls.file_suffix}").read_bytes())


def _tensorflow_datasets():
    """tensorflow_datasets, whose import loads TensorFlow: quietly (chat and translate no longer import it first)."""
    from studio.quiet_tf import import_tensorflow_quietly  # deferred: the legacy tokenizer needs TensorFlow

    import_tensorflow_quietly()
    import tensorflow_datasets  # deferred: tensorflow_datasets imports TensorFlow

    return tensorflow_datasets


class SubwordTokenizer:
    kind = "subword"
    file_suffix = ".subwords"
    pad_id = 0
    unk_id = None

    def __init__(self, encoder):
        self._encoder = encoder
        self.bos_id = encoder.vocab_size
        self.eos_id = encoder.vocab_size + 1

    @classmethod
    def train(cls, sentences: Iterable[str], vocab_size: int, **_ignored) -> "SubwordTokenizer":
        tfds = _tensorflow_datasets()

        sentences = [s for s in sentences if s.strip()]
        if not sentences:
            raise ValueError("cannot train a tokenizer on an empty corpus")
        encoder = tfds.deprecated.text.SubwordTextEncoder.build_from_corpus(sentences, target_vocab_size=vocab_size)
        return cls(encoder)

    @property
    def vocab_size(self) -> int:
        return self._encoder.vocab_size + 2  # + start and end tokens

    def encode(self, text: str) -> list[int]:
        return list(self._encoder.encode(_encodable(text)))

    def decode(self, ids: Sequence[int]) -> str:
        return self._encoder.decode(_strip_specials(ids, self))

    decode_plain = decode

    def id_to_piece(self, token_id: int) -> str:
        token_id = int(token_id)
        if token_id == self.bos_id:
            return "<s>"
        if token_id == self.eos_id:
            return "</s>"
        if token_id == self.pad_id:
            return "<pad>"
        return self._encoder.decode([token_id])

    def save(self, directory: Path, name: str) -> list[str]:
        self._encoder.save_to_file(str(Path(directory) / name))
        return [f"{name}{self.file_suffix}"]

    @classmethod
    def load(cls, directory: Path, name: str) -> "SubwordTokenizer":
        tfds = _tensorflow_datasets()

        return cls(tfds.deprecated.text.SubwordTextEncoder.load_from_file(str(Path(directory) / name)))


TOKENIZER_KINDS = {"sentencepiece": SentencePieceTokenizer, "subword": SubwordTokenizer}


def train_tokenizer(kind: str, sentences: Iterable[str], vocab_size: int, **options) -> Tokenizer:
    try:
        tokenizer_class = TOKENIZER_KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown tokenizer kind {kind!r}; choose one of {sorted(TOKENIZER_KINDS)}") from None
    return tokenizer_class.train(sentences, vocab_size, **options)


class TokenizerPair:
    """Source and target tokenizers; with a shared vocabulary both are the same object."""

    def __init__(self, source: Tokenizer, target: Tokenizer):
        self.source = source
        self.target = target

    @property
    def shared(self) -> bool:
        return self.source is self.target

    def model_files(self) -> dict[str, str]:
        """{"source": file, "target": file}: the names `save` gives the two models in the tokenizer folder."""
        names = ("shared", "shared") if self.shared else ("source", "target")
        return {side: f"{name}{tokenizer.file_suffix}"
                for side, name, tokenizer in zip(("source", "target"), names, (self.source, self.target))}

    def save(self, directory: Path) -> list[str]:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        if self.shared:
            files = self.source.save(directory, "shared")
            layout = {"kind": self.source.kind, "shared": True}
        else:
            files = self.source.save(directory, "source") + self.target.save(directory, "target")
            layout = {"kind": self.source.kind, "shared": False}
        (directory / "tokenizer.json").write_text(json.dumps(layout) + "\n", encoding="utf-8")
        return files + ["tokenizer.json"]

    @classmethod
    def load(cls, directory: Path) -> "TokenizerPair":
        directory = Path(directory)
        layout = json.loads((directory / "tokenizer.json").read_text(encoding="utf-8"))
        tokenizer_class = TOKENIZER_KINDS[layout["kind"]]
        if layout["shared"]:
            shared = tokenizer_class.load(directory, "shared")
            return cls(shared, shared)
        return cls(tokenizer_class.load(directory, "source"), tokenizer_class.load(directory, "target"))
