"""Marian's vocabulary and SentencePiece models become the bundle's own SentencePiece tokenizers
(`studio.importers.marian_vocab`), numbering every piece as Marian does."""

import pytest
import sentencepiece as spm
from hostile import hostile_inputs
from marian_fixture import DROPPED, RARE_CHARACTER, VOCABULARY_FILE, VOCABULARY_ONLY, sentences, write_release

from studio.errors import StudioError
from studio.importers.marian_vocab import marian_tokenizers, read_vocabulary
from studio.text import SentencePieceTokenizer, TokenizerPair
from studio.text.tokenizers import _encodable


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    folder = write_release(tmp_path_factory.mktemp("marian") / "release")
    vocabulary = read_vocabulary(folder / VOCABULARY_FILE)
    pair, source_space, target_space = marian_tokenizers((vocabulary, vocabulary), (folder / "source.spm").read_bytes(),
                                                         (folder / "target.spm").read_bytes())
    return folder, vocabulary, pair, source_space


def marian_ids(folder, side, vocabulary, text):
    """What Marian reads: the release's own .spm segments, the vocabulary numbers (a piece it lacks: <unk>)."""
    pieces = spm.SentencePieceProcessor(model_file=str(folder / f"{side}.spm")).encode(text, out_type=str)
    index = {piece: i for i, piece in enumerate(vocabulary)}
    return [index.get(piece, index["<unk>"]) for piece in pieces]


def test_a_marian_vocabulary_file_reads_every_piece_at_its_id_as_ctranslate2_reads_it(tmp_path):
    from ctranslate2.converters.marian import load_vocab

    path = tmp_path / "vocab.yml"
    path.write_text('"</s>": 0\n"<unk>": 1\n▁the: 2\n"\\"": 3\n":": 4\nyes: 5\nnull: 6\n"1": 7\n'
                    "'it''s': 8\n? ▁long\n: 9\n\n\"▁a:b\": 10\n한국: 11\n", encoding="utf-8")
    expected = ["</s>", "<unk>", "▁the", '"', ":", "yes", "null", "1", "it's", "▁long", "▁a:b", "한국"]
    assert read_vocabulary(path) == expected == load_vocab(str(path))


def test_rewritten_sentencepiece_models_number_pieces_as_marians_vocabulary_does_on_varied_text(release):
    folder, vocabulary, pair, space = release
    korean, english = sentences(20, seed=7)
    unknown = ["", "鑫 and 鑫 😀 zebra", "你好世界 Привет 😀😀", "Ünïcode ok!"]
    texts = {"source": [*korean, *english, *unknown, *(text for _, text in hostile_inputs())],
             "target": [*english, *unknown]}
    unknown_seen = 0
    for side, tokenizer in (("source", pair.source), ("target", pair.target)):
        for text in texts[side]:
            ours = tokenizer.encode(text)
            assert space.marian_ids(ours) == marian_ids(folder, side, vocabulary, _encodable(text)), (side, text)
            unknown_seen += sum(i in space.unknown_pieces for i in ours)
    assert unknown_seen  # pieces the vocabulary lacks were met, and read as <unk>
    assert vocabulary.index(RARE_CHARACTER) in pair.source.encode("鑫")  # a rare character with its own id


def test_the_rewritten_models_have_marians_special_ids_and_load_back_as_a_plain_tokenizer_pair(release, tmp_path):
    _, vocabulary, pair, space = release
    V = len(vocabulary)
    assert space.size >= V + 2 + DROPPED  # <pad>, the decoder start, the spm pieces the vocabulary lacks
    files = pair.save(tmp_path / "tokenizer")
    assert sorted(files) == ["source.spm.model", "target.spm.model", "tokenizer.json"]
    loaded = TokenizerPair.load(tmp_path / "tokenizer")
    for tokenizer in (loaded.source, loaded.target):
        assert (tokenizer.eos_id, tokenizer.unk_id, tokenizer.pad_id, tokenizer.bos_id) == (0, 1, V, V + 1)
        assert tokenizer.vocab_size == space.size
        assert [tokenizer.id_to_piece(i) for i in range(V)] == vocabulary
    plain = spm.SentencePieceProcessor(model_file=str(tmp_path / "tokenizer" / "target.spm.model"))
    assert plain.encode("Mom likes apples ?") == loaded.target.encode("Mom likes apples ?") != []


def test_a_vocabulary_piece_that_a_side_never_writes_is_still_decoded_as_its_text(release):
    _, vocabulary, pair, _ = release
    zebra = vocabulary.index(VOCABULARY_ONLY)
    assert zebra not in pair.target.encode("zebra zebra")  # never written by segmentation
    assert pair.target.decode([zebra, vocabulary.index("ok"), 0]) == "zebraok"


def test_a_vocabulary_without_marians_special_pieces_is_refused_by_name(release, tmp_path):
    folder, vocabulary, _, _ = release
    models = ((folder / "source.spm").read_bytes(), (folder / "target.spm").read_bytes())
    with pytest.raises(StudioError, match="the vocabulary has no </s>"):
        marian_tokenizers((vocabulary[1:], vocabulary[1:]), *models)
    with pytest.raises(StudioError, match="source.spm is not a SentencePiece model"):
        marian_tokenizers((vocabulary, vocabulary), b"not a model", models[1])
    gappy = tmp_path / "gappy.yml"
    gappy.write_text('"</s>": 0\n"<unk>": 1\nx: 3\n', encoding="utf-8")
    with pytest.raises(StudioError, match="ids are not 0..2 without gaps"):
        read_vocabulary(gappy)


def test_a_sentencepiece_model_without_a_padding_piece_is_refused_as_a_bundle_tokenizer(release):
    folder = release[0]
    with pytest.raises(ValueError, match=r"special ids \(pad, bos, eos, unk\) \(-1, 1, 2, 0\)"):
        SentencePieceTokenizer((folder / "source.spm").read_bytes())
