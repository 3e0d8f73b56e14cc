"""Decoder state of the cached runtimes (TF, TFLite, ONNX): tensors by their exported names."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class GraphState:
    cache: dict[str, np.ndarray]  # cache_k_<i>, cache_v_<i>: [B, heads, capacity, head_dim]
    cross: dict[str, np.ndarray]  # cross_k_<i>, cross_v_<i>: [B, heads, S, head_dim]
    source_mask: np.ndarray  # [B, S]
    filled: int = 0  # cache positions written so far; the rest are zeros in every row

    def reorder(self, indices) -> "GraphState":
        """Select cache rows (NumPy arrays). Rows stay within their source's group (see `Runtime.reorder`),
        so the cross-attention K/V and source mask stay as they are. Only the written positions are copied
        (the rest are zeros in every row): a few of the cache's capacity early in a sentence."""
        indices = np.asarray(indices, dtype=np.int64)
        return GraphState({name: _take_prefix(a, indices, self.filled) for name, a in self.cache.items()},
                          self.cross, self.source_mask, self.filled)

    def select(self, rows) -> "GraphState":
        """Keep only `rows` of everything (sources that ended leave the batch)."""
        rows = np.asarray(rows, dtype=np.int64)
        cache = {name: _take_prefix(a, rows, self.filled) for name, a in self.cache.items()}
        cross = {name: a[rows] for name, a in self.cross.items()}
        return GraphState(cache, cross, self.source_mask[rows], self.filled)

    def join(self, other: "GraphState") -> "GraphState":
        """These rows, then `other`'s."""
        def both(mine: dict, theirs: dict) -> dict:
            return {name: np.concatenate([a, theirs[name]]) for name, a in mine.items()}

        return GraphState(both(self.cache, other.cache), both(self.cross, other.cross),
                          np.concatenate([self.source_mask, other.source_mask]), max(self.filled, other.filled))


class NumpyStateMethods:
    """`Runtime.reorder`/`select`/`join` for the runtimes whose state holds NumPy arrays (TFLite, ONNX)."""

    def join(self, state: GraphState, other: GraphState) -> GraphState:
        return state.join(other)

    def reorder(self, state: GraphState, indices) -> GraphState:
        return state.reorder(indices)

    def select(self, state: GraphState, rows) -> GraphState:
        return state.select(rows)


def _take_prefix(cache: np.ndarray, rows: np.ndarray, filled: int) -> np.ndarray:
    taken = np.zeros((len(rows), *cache.shape[1:]), cache.dtype)  # fresh zero pages cost nothing until read
    taken[:, :, :filled] = cache[rows, :, :filled]
    return taken


def pad_source(source_ids: np.ndarray, length: int, pad_id: int = 0) -> np.ndarray:
    """Exported graphs take sources of exactly `length` tokens (the model's max_source_len)."""
    source_ids = np.asarray(source_ids, dtype=np.int32)
    if source_ids.shape[1] > length:
        raise ValueError(f"source has {source_ids.shape[1]} tokens; the exported graph takes at most {length}")
    padded = np.full((source_ids.shape[0], length), pad_id, dtype=np.int32)
    padded[:, : source_ids.shape[1]] = source_ids
    return padded


def empty_cache(config, batch: int) -> dict[str, np.ndarray]:
    shape = (batch, config.num_heads, config.max_target_len, config.head_dim)
    return {f"cache_{kv}_{i}": np.zeros(shape, np.float32) for i in range(config.cache_depth) for kv in ("k", "v")}
