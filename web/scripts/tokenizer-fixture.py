"""Writes web/test/tokenizer-cases.json: the target tokenizer of a tiny imported Marian model (its SentencePiece
model as `studio import` rewrites it: studio/importers/marian_vocab.py numbers its pieces as Marian's vocabulary
does, </s> 0 and <unk> 1, with <pad> and the decoder start after the vocabulary), Python's special ids, encodings
and decodings of it (studio/text/tokenizers.py), which web/src/tokenizer.js must give alike
(web/test/tokenizer.test.mjs checks it), and a copy of the model without a <pad> piece, which both refuse. Rerun it
after changing either, and port the change:

    .venv/bin/python web/scripts/tokenizer-fixture.py

tests/unit/test_web_fixtures.py fails while the committed file is not what this writes.
"""

import base64
import collections
import io
import json
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "test" / "tokenizer-cases.json"

SENTENCES = [f"{subject} {verb} the {thing} {when}." for subject in ("I", "You", "We", "My friend", "Mom")
             for verb in ("like", "bought", "saw", "wanted") for thing in ("apples", "books", "movies", "coffee")
             for when in ("today", "yesterday", "again")]
TEXTS = ["I like the apples today.", "Mom saw the movies again!", "We bought coffee, 3 times.", "zebra",
         "A 鑫 and a 😊 walk in.", "  spaced   out  ", ""]
VOCABULARY_ONLY = "▁zebra"  # in the vocabulary, never written by the .spm: an UNUSED piece of the rewritten model
DROPPED = 2  # the rarest pieces the vocabulary leaves out: the model writes them, as pieces Marian reads as <unk>


def train(sentences: list[str]) -> bytes:
    """A SentencePiece model as OPUS-MT trains them (<unk> 0, <s> 1, </s> 2), without a normalization table
    (identity): a small file."""
    import sentencepiece as spm

    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=buffer, vocab_size=60,
                                   model_type="unigram", character_coverage=1.0, hard_vocab_limit=False,
                                   normalization_rule_name="identity", minloglevel=2, num_threads=1)
    return buffer.getvalue()


def vocabulary(model: bytes, sentences: list[str]) -> list[str]:
    """A vocabulary as `marian-vocab` makes one: </s>, <unk>, then the pieces of the segmented text by frequency."""
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_proto=model)
    counts = collections.Counter(piece for text in sentences for piece in processor.encode(text, out_type=str))
    ranked = [piece for piece, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    return ["</s>", "<unk>", *ranked[:-DROPPED], VOCABULARY_ONLY]


def without_pad(model: bytes) -> bytes:
    """The model with its <pad> piece a normal piece: it has no padding id."""
    from sentencepiece import sentencepiece_model_pb2

    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model)
    proto.pieces[proto.trainer_spec.pad_id].type = proto.pieces[0].NORMAL
    return proto.SerializeToString()


def refusal(model: bytes) -> str:
    """What Python says of a tokenizer it refuses."""
    from studio.text import SentencePieceTokenizer

    try:
        SentencePieceTokenizer(model)
    except ValueError as error:
        return str(error)
    raise AssertionError("the model was not refused")


def cases() -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from studio.importers.marian_vocab import aligned_model, id_space
    from studio.text import SentencePieceTokenizer

    spm_model = train(SENTENCES)
    space = id_space(vocabulary(spm_model, SENTENCES), {"target.spm": spm_model})
    model = aligned_model(spm_model, space, "target.spm")
    tokenizer = SentencePieceTokenizer(model)
    encoded = [tokenizer.encode(text) for text in TEXTS]
    specials = {"pad": tokenizer.pad_id, "bos": tokenizer.bos_id, "eos": tokenizer.eos_id, "unk": tokenizer.unk_id}
    unknown = list(space.unknown_pieces)  # pieces the vocabulary lacks, written by the model
    sequences = [ids for ids in encoded if ids] + [
        [specials["bos"], *encoded[0], specials["unk"], specials["pad"], *encoded[1]],
        [*encoded[2], specials["eos"], *encoded[0]], [specials["unk"], *unknown, specials["pad"]],
        [specials["eos"]], []]
    return {
        "format": "transformer-studio-web-tokenizer/1",
        "written_by": "web/scripts/tokenizer-fixture.py",
        "model": base64.b64encode(model).decode(),
        "without_pad": base64.b64encode(without_pad(model)).decode(),
        "without_pad_error": refusal(without_pad(model)),
        "special_ids": specials,
        "vocab_size": tokenizer.vocab_size,
        "encode": [{"text": text, "ids": ids} for text, ids in zip(TEXTS, encoded)],
        "decode": [{"ids": ids, "text": tokenizer.decode(ids)} for ids in sequences],
    }


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(cases(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")
