"""--init-from with a new tokenizer: layers copied, embeddings re-indexed piece by piece."""

from types import SimpleNamespace

import numpy as np

from studio.text import SentencePieceTokenizer, TokenizerPair
from studio.train.transplant import transplant

CASED = ["Obama met the Prime Minister in Seoul.", "The President said: \"Yes.\"", "Seoul is a big city.",
         "오바마는 서울에서 총리를 만났다.", "대통령은 \"네\"라고 말했다.", "서울은 큰 도시다."] * 5


def test_embeddings_are_reindexed_and_other_weights_copied():
    old = SentencePieceTokenizer.train([s.lower() for s in CASED], vocab_size=330)
    new = SentencePieceTokenizer.train(CASED, vocab_size=340)
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(old.vocab_size, 8)).astype(np.float32)
    layer = rng.normal(size=(8, 8)).astype(np.float32)
    bundle = SimpleNamespace(weights={"transformer/source_embedding/embeddings": matrix,
                                      "transformer/encoder_0/self_attention/query/kernel": layer},
                             tokenizers=TokenizerPair(old, old))
    arrays, report = transplant(bundle, TokenizerPair(new, new))
    assert arrays["transformer/encoder_0/self_attention/query/kernel"] is layer
    embedding = arrays["transformer/source_embedding/embeddings"]
    assert embedding.shape == (new.vocab_size, 8)
    old_ids = {old.id_to_piece(i): i for i in range(old.vocab_size)}
    for i in range(new.vocab_size):
        piece = new.id_to_piece(i)
        if piece in old_ids:
            np.testing.assert_array_equal(embedding[i], matrix[old_ids[piece]])
    cased_only = [i for i in range(new.vocab_size) if new.id_to_piece(i) not in old_ids
                  and not new.id_to_piece(i).startswith("<") and any(c.isupper() for c in new.id_to_piece(i))]
    assert cased_only, "the cased vocabulary should have pieces the lower-cased one lacks"
    i = cased_only[0]
    pieces = [j for j in old.encode(new.id_to_piece(i).replace("\u2581", " ").lower()) if j > 3]
    np.testing.assert_allclose(embedding[i], matrix[pieces].mean(axis=0), rtol=1e-6)
    counts = report["transformer/source_embedding/embeddings"]
    assert sum(counts.values()) == new.vocab_size and counts["from lower-cased text"] >= len(cased_only)
