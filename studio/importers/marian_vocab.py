"""Marian's vocabulary and SentencePiece models as a bundle's tokenizers.

A Marian release segments text with `source.spm` / `target.spm` and numbers the pieces by a vocabulary file
(`*.vocab.yml`, `piece: id`, `</s>` 0 and `<unk>` 1; one shared vocabulary in most OPUS-MT models): a piece that
file lacks reads as `<unk>`. Here each `.spm` is rewritten so that a piece's index IS its id (`aligned_model`),
and the bundle's tokenizers are plain SentencePiece models that the web page and the Android library read as
they read the studio's own. The id space (`IdSpace`) is the vocabulary's ids, then:

- `<pad>` (sources are padded with it; never read) and a decoder start piece, both with a zero embedding row: Marian
  starts its decoder from an all-zero embedding (CTranslate2's converter: `start_from_zero_embedding`);
- the pieces a `.spm` can write that the vocabulary lacks, with `<unk>`'s embedding row: the segmentation stays
  the original's and the model reads those pieces exactly as Marian does, as `<unk>`.

The importer never lets the model write an id past the vocabulary (`IdSpace.added`: a logits bias far below any
real logit). A vocabulary piece one side's `.spm` never writes is an UNUSED piece of that side's model:
SentencePiece leaves it out of segmentation and still decodes it as its text.

Characters a `.spm` does not know come out of its segmentation as one piece per run of them, spelled as written,
which Marian then looks up in the vocabulary (`marian-vocab` counted such runs in the training data: a rare
character can have its own id). So a vocabulary piece that no `.spm` writes, made only of characters this one does
not know, is a USER_DEFINED piece of the rewritten model, and a run of unknown characters is one `<unk>` in both.
What differs: a run of unknown characters that is, as a whole, a piece of the other side's `.spm` (Marian: its id;
here: `<unk>`), or of which only a part is a USER_DEFINED piece (Marian: `<unk>`; here: that part's id).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.errors import StudioError

PAD = "<pad>"
START_NAMES = ("<s>", "<start>", "<decoder-start>")  # the first the vocabulary does not have names the start piece


def _unquote(key: str) -> str:
    """A YAML key as yaml-cpp writes Marian's vocabulary: plain, 'single-quoted' or "double-quoted" with escapes.
    Plain keys are kept as written (a YAML loader would turn `yes`, `null` or `1` into other things)."""
    import yaml  # deferred: only imports read YAML

    if len(key) >= 2 and key[0] == key[-1] == '"':
        return yaml.safe_load(key)
    if len(key) >= 2 and key[0] == key[-1] == "'":
        return key[1:-1].replace("''", "'")
    return key


def read_vocabulary(path: Path) -> list[str]:
    """The pieces of a Marian vocabulary file by id (index = id). Read line by line, not by a YAML loader, which
    loses entries whose keys it takes for booleans, numbers or null (CTranslate2's converter does the same)."""
    entries: dict[int, str] = {}
    key = None
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise StudioError(f"{path}: cannot read the vocabulary ({error})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if line.startswith("? "):  # a complex key: the value follows on the next line as ": id"
            key, value = line[2:], None
        elif key is not None and line.startswith(":"):
            value = line[1:]
        else:
            key, _, value = line.rpartition(":")
        if value is None:
            continue
        try:
            entries[int(value.strip())] = _unquote(key.strip())
        except ValueError:
            raise StudioError(f"{path}, line {number}: not a Marian vocabulary entry (`piece: id`): {line!r}") from None
        key = None
    if sorted(entries) != list(range(len(entries))):
        raise StudioError(f"{path}: the vocabulary's ids are not 0..{len(entries) - 1} without gaps")
    return [entries[i] for i in range(len(entries))]


@dataclass(frozen=True)
class IdSpace:
    """One vocabulary's ids and the pieces added after them (see the module's docstring)."""
    pieces: tuple[str, ...]  # index = id
    vocabulary_size: int  # ids below this are Marian's
    pad_id: int
    bos_id: int  # the decoder's start
    eos_id: int
    unk_id: int
    unknown_from: int  # from this id on: the pieces a `.spm` writes that the vocabulary lacks (Marian: `<unk>`)
    written: frozenset[str] = frozenset()  # the pieces the `.spm` models write

    @property
    def size(self) -> int:
        return len(self.pieces)

    @property
    def added(self) -> range:
        """The ids after the vocabulary's (padding, the decoder start, the pieces Marian reads as `<unk>`)."""
        return range(self.vocabulary_size, self.size)

    @property
    def unknown_pieces(self) -> range:
        return range(self.unknown_from, self.size)

    def marian_ids(self, ids) -> list[int]:
        """`ids` as Marian numbers them: a piece the vocabulary lacks is its `<unk>`."""
        extra = self.unknown_pieces
        return [self.unk_id if i in extra else int(i) for i in ids]


def _model(proto: bytes, name: str):
    from sentencepiece import sentencepiece_model_pb2  # deferred: the protobuf module of the installed sentencepiece

    model = sentencepiece_model_pb2.ModelProto()
    try:
        model.ParseFromString(proto)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise StudioError(f"{name} is not a SentencePiece model") from None
    if not model.pieces:
        raise StudioError(f"{name} is not a SentencePiece model (it has no pieces)")
    return model


def id_space(vocabulary: list[str], models: dict[str, bytes], pad_at: int = 0) -> IdSpace:
    """The id space of `vocabulary` read through the SentencePiece models `models` ({file name: bytes}: both sides'
    for a shared vocabulary, one side's otherwise). `pad_at`: `<pad>`'s id when past the vocabulary (source and
    target of separate vocabularies pad with one id); the ids between are UNUSED fillers."""
    for special in ("</s>", "<unk>"):
        if special not in vocabulary:
            raise StudioError(f"the vocabulary has no {special} (a Marian vocabulary starts with </s> 0, <unk> 1)")
    if "" in vocabulary:
        raise StudioError(f"the vocabulary has an empty piece (id {vocabulary.index('')})")
    pieces = list(vocabulary) + [f"<filler-{i}>" for i in range(len(vocabulary), pad_at)]
    known = set(pieces)
    if len(known) != len(pieces):
        raise StudioError("the vocabulary has a piece twice")
    if PAD not in known:
        pieces.append(PAD)
    start = next((name for name in START_NAMES if name not in known), None)
    if start is None:
        raise StudioError(f"the vocabulary has every name a decoder start piece could have ({', '.join(START_NAMES)})")
    pieces.append(start)
    unknown_from, written = len(pieces), set()
    for name, proto in models.items():
        written.update(_written(_model(proto, name)))
        pieces += sorted(piece for piece in _written(_model(proto, name)) if piece not in known)
        known.update(written)
    return IdSpace(tuple(pieces), len(vocabulary), pieces.index(PAD), pieces.index(start), vocabulary.index("</s>"),
                   vocabulary.index("<unk>"), unknown_from, frozenset(written))


def _written(model) -> list[str]:
    """The pieces a segmentation by `model` can write (NORMAL, USER_DEFINED and BYTE pieces)."""
    Piece = type(model.pieces[0])
    return [p.piece for p in model.pieces if p.type in (Piece.NORMAL, Piece.USER_DEFINED, Piece.BYTE)]


def aligned_model(proto: bytes, space: IdSpace, name: str = "the SentencePiece model") -> bytes:
    """The SentencePiece model `proto` rewritten so that piece i is `space.pieces[i]`: the original's type and
    score where it has the piece, an UNUSED piece where it does not; its normalization is kept."""
    model = _model(proto, name)
    Piece = type(model.pieces[0])
    original = {p.piece: (p.type, p.score) for p in model.pieces if p.type != Piece.UNKNOWN}
    forced = {space.unk_id: Piece.UNKNOWN, space.eos_id: Piece.CONTROL, space.pad_id: Piece.CONTROL,
              space.bos_id: Piece.CONTROL}
    known = {character for piece in _written(model) for character in piece}
    del model.pieces[:]
    for index, piece in enumerate(space.pieces):
        # a piece no .spm writes is in the vocabulary as a run of unknown characters was spelled in training
        unknown_run = index < space.vocabulary_size and piece not in space.written and not known.intersection(piece)
        kind, score = original.get(piece, (Piece.USER_DEFINED if unknown_run else Piece.UNUSED, 0.0))
        added = model.pieces.add()
        added.piece, added.type, added.score = piece, forced.get(index, kind), score
    spec = model.trainer_spec
    spec.unk_id, spec.bos_id, spec.eos_id, spec.pad_id = space.unk_id, space.bos_id, space.eos_id, space.pad_id
    spec.unk_piece, spec.bos_piece = space.pieces[space.unk_id], space.pieces[space.bos_id]
    spec.eos_piece, spec.pad_piece = space.pieces[space.eos_id], space.pieces[space.pad_id]
    spec.vocab_size = space.size
    return model.SerializeToString()


def marian_tokenizers(vocabularies: tuple[list[str], list[str]], source_spm: bytes, target_spm: bytes):
    """(TokenizerPair, source IdSpace, target IdSpace): the bundle's tokenizers for a Marian model with these
    source and target vocabularies (one shared space when they are the same)."""
    from studio.text import SentencePieceTokenizer, TokenizerPair

    source_vocabulary, target_vocabulary = vocabularies
    if source_vocabulary == target_vocabulary:
        source_space = target_space = id_space(source_vocabulary, {"source.spm": source_spm,
                                                                   "target.spm": target_spm})
    else:  # one padding id for both sides: after the longer vocabulary
        pad_at = max(len(source_vocabulary), len(target_vocabulary))
        source_space = id_space(source_vocabulary, {"source.spm": source_spm}, pad_at)
        target_space = id_space(target_vocabulary, {"target.spm": target_spm}, pad_at)
    try:
        source = SentencePieceTokenizer(aligned_model(source_spm, source_space, "source.spm"))
        target = SentencePieceTokenizer(aligned_model(target_spm, target_space, "target.spm"))
    except (RuntimeError, ValueError) as error:  # sentencepiece refused the rewritten model
        raise StudioError(f"the SentencePiece models cannot take the vocabulary's ids ({error})") from None
    return TokenizerPair(source, target), source_space, target_space
