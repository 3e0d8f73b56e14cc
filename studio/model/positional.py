"""Sinusoidal positional encoding: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...).
The table is sized by the maximum sequence length (one tutorial sized it by the vocabulary: a bug)."""

import numpy as np


def positional_encoding(max_len: int, d_model: int) -> np.ndarray:
    positions = np.arange(max_len, dtype=np.float64)[:, np.newaxis]
    dims = np.arange(d_model, dtype=np.float64)[np.newaxis, :]
    angles = positions / np.power(10000.0, (2 * (dims // 2)) / d_model)
    table = np.zeros((max_len, d_model), dtype=np.float64)
    table[:, 0::2] = np.sin(angles[:, 0::2])
    table[:, 1::2] = np.cos(angles[:, 1::2])
    return table.astype(np.float32)
