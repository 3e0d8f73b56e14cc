"""Start a model from another bundle's weights when the tokenizer changes (e.g. the tutorial pipeline's
lower-cased vocabulary -> the translator pipeline's cased one).

Every weight but the embedding is copied as is (same architecture). Each new piece's embedding is the old
one of the same piece when the old vocabulary has it, otherwise the mean of the old embeddings of the old
tokenization of its lower-cased text (`▁Obama` starts from `▁obama`), otherwise small random values. With
tied embeddings this also gives the output layer a case-insensitive head start.
"""

from __future__ import annotations

import numpy as np

from studio.weights import EMBEDDINGS


def _new_embedding(old_matrix: np.ndarray, old_tokenizer, new_tokenizer, rng) -> tuple[np.ndarray, dict]:
    old_ids = {old_tokenizer.id_to_piece(i): i for i in range(old_tokenizer.vocab_size)}
    scale = float(old_matrix.std())
    matrix = np.empty((new_tokenizer.vocab_size, old_matrix.shape[1]), np.float32)
    counts = {"same piece": 0, "from lower-cased text": 0, "random": 0}
    for i in range(new_tokenizer.vocab_size):
        piece = new_tokenizer.id_to_piece(i)
        if piece in old_ids:
            matrix[i] = old_matrix[old_ids[piece]]
            counts["same piece"] += 1
            continue
        text = piece.replace("\u2581", " ").lower()
        ids = [j for j in old_tokenizer.encode(text) if j > 3] if text.strip() and not piece.startswith("<") else []
        if ids:
            matrix[i] = old_matrix[ids].mean(axis=0)
            counts["from lower-cased text"] += 1
        else:
            matrix[i] = rng.normal(0.0, scale, old_matrix.shape[1])
            counts["random"] += 1
    return matrix, counts


def transplant(old_bundle, new_tokenizers, seed: int = 0) -> tuple[dict[str, np.ndarray], dict]:
    """The old bundle's weights with embeddings re-indexed for `new_tokenizers`; and what was done."""
    rng = np.random.default_rng(seed)
    arrays, report = {}, {}
    for name, value in old_bundle.weights.items():
        if not name.endswith(EMBEDDINGS):
            arrays[name] = value
            continue
        side = "source" if "source_embedding" in name else "target"
        old_tokenizer = getattr(old_bundle.tokenizers, side)
        arrays[name], report[name] = _new_embedding(value.astype(np.float32), old_tokenizer,
                                                    getattr(new_tokenizers, side), rng)
    return arrays, report
