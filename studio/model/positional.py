"""Sinusoidal positional encoding: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...).
The table is sized by the maximum sequence length (one tutorial sized it by the vocabulary: a bug).
Marian (and Hugging Face's MarianMT) lay the same sinusoids out as two halves, [sin(...) for every i | cos(...) for
every i]: `layout="halves"`, which an imported Marian model needs (`ModelConfig.positional`)."""

import numpy as np


def positional_encoding(max_len: int, d_model: int, layout: str = "interleaved") -> np.ndarray:
    positions = np.arange(max_len, dtype=np.float64)[:, np.newaxis]
    dims = np.arange(d_model, dtype=np.float64)[np.newaxis, :]
    angles = positions / np.power(10000.0, (2 * (dims // 2)) / d_model)
    table = np.zeros((max_len, d_model), dtype=np.float64)
    if layout == "halves":
        half = d_model // 2
        table[:, :half] = np.sin(angles[:, 0::2])
        table[:, half:] = np.cos(angles[:, 1::2])
    else:
        table[:, 0::2] = np.sin(angles[:, 0::2])
        table[:, 1::2] = np.cos(angles[:, 1::2])
    return table.astype(np.float32)
