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

    @property
    def capacity(self) -> int:
        return next(iter(self.cache.values())).shape[2]

    def with_capacity(self, needed: int, limit: int) -> "GraphState":
        """This state with room for `needed` cache positions (a graph with a dynamic capacity): the cache grows
        by CACHE_STEP slots at a time, never beyond `limit` (the model's max_target_len)."""
        if needed <= self.capacity:
            return self
        slots = min(limit, -(-needed // CACHE_STEP) * CACHE_STEP)
        return GraphState({name: _pad_axis(a, 2, slots) for name, a in self.cache.items()}, self.cross,
                          self.source_mask, self.filled)

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
        """These rows, then `other`'s. Sources padded to different lengths are padded to the longer one (zero
        cross-attention K/V at positions the mask, 1 at padding, hides), caches to the larger capacity."""
        length = max(self.source_mask.shape[1], other.source_mask.shape[1])

        def both(mine: dict, theirs: dict) -> dict:
            return {name: np.concatenate([_pad_axis(a, 2, length), _pad_axis(theirs[name], 2, length)])
                    for name, a in mine.items()}

        def cache(mine: dict, theirs: dict) -> dict:
            slots = max(self.capacity, other.capacity)
            return {name: np.concatenate([_pad_axis(a, 2, slots), _pad_axis(theirs[name], 2, slots)])
                    for name, a in mine.items()}

        mask = np.concatenate([_pad_axis(self.source_mask, 1, length, 1.0),
                               _pad_axis(other.source_mask, 1, length, 1.0)])
        return GraphState(cache(self.cache, other.cache), both(self.cross, other.cross), mask,
                          max(self.filled, other.filled))


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


def _pad_axis(array: np.ndarray, axis: int, length: int, value: float = 0.0) -> np.ndarray:
    missing = length - array.shape[axis]
    if missing <= 0:
        return array
    widths = [(0, 0)] * array.ndim
    widths[axis] = (0, missing)
    return np.pad(array, widths, constant_values=value)


SOURCE_STEP = 16  # sources are padded to a multiple of this: few distinct shapes, little wasted work
CACHE_STEP = 16  # a dynamic cache grows by this many slots: few distinct shapes, little wasted work


def source_length(tokens: int, limit: int, static: bool = False) -> int:
    """The length a batch whose longest source has `tokens` tokens is padded to: `limit` (the model's
    max_source_len) for graphs traced with a static source length, else `tokens` rounded up to a multiple of
    SOURCE_STEP, at most `limit`."""
    if static:
        return limit
    return min(limit, max(SOURCE_STEP, -(-tokens // SOURCE_STEP) * SOURCE_STEP))


SOURCE_BUCKETS = 2  # each bucket's signatures add ~0.6 MB to the translator's int8 graph (its quantization scales)


def source_buckets(limit: int | None) -> list[int]:
    """The shorter source lengths a static graph also takes (its own is `limit`): the two largest of 16, 32, 64...
    below it (the translator's 128: 32 and 64; the chatbot's 40: 16 and 32). A runtime pads a source to the
    smallest that holds it, so the encoder's cost follows the input there too."""
    if not limit:
        return []
    lengths, length = [], SOURCE_STEP
    while length < limit:
        lengths.append(length)
        length *= 2
    return lengths[-SOURCE_BUCKETS:]


def pad_source(source_ids: np.ndarray, limit: int, pad_id: int = 0, static: bool = False) -> np.ndarray:
    """Sources [B, s] padded with `pad_id` to `source_length(s, limit, static)` tokens."""
    source_ids = np.asarray(source_ids, dtype=np.int32)
    if source_ids.shape[1] > limit:
        raise ValueError(f"source has {source_ids.shape[1]} tokens; the exported graph takes at most {limit}")
    length = source_length(source_ids.shape[1], limit, static)
    padded = np.full((source_ids.shape[0], length), pad_id, dtype=np.int32)
    padded[:, : source_ids.shape[1]] = source_ids
    return padded


def empty_cache(config, batch: int, static: bool = True) -> dict[str, np.ndarray]:
    """Zero caches: of the model's full capacity for graphs traced with a static one, else of CACHE_STEP slots
    (`GraphState.with_capacity` grows them)."""
    slots = config.max_target_len if static else min(CACHE_STEP, config.max_target_len)
    shape = (batch, config.num_heads, slots, config.head_dim)
    return {f"cache_{kv}_{i}": np.zeros(shape, np.float32) for i in range(config.cache_depth) for kv in ("k", "v")}
