"""The runtime protocol: every backend implements `encode`, `step`, `reorder` and `select`; the decode loop and its
strategies live in `studio.generate` and are written once for all backends. The cached backends (TF, TFLite,
ONNX) also implement `step_rows` and `join`, with which `studio.scheduler` decodes the requests of many users
together, each row at its own position (continuous batching).

Each runtime class is named by its format's row in `studio.variants.MODEL_FORMATS` (or by a variant's own
`runtime`) and made by `studio.runtimes.load_runtime` with its classmethod
`load(bundle, variant, paths, model=None, threads=None)`, `paths` being the variant's exported files in order."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Runtime(Protocol):
    name: str

    def encode(self, source_ids: np.ndarray) -> Any:
        """source ids [B,S] int32 (padded with pad_id) -> an opaque decoder state (cross K/V, empty cache)."""

    def step(self, state: Any, tokens: np.ndarray, position: int) -> tuple[np.ndarray, Any]:
        """tokens [B] at decoder position `position` -> (logits [B,V] float32, updated state)."""

    def reorder(self, state: Any, indices: np.ndarray) -> Any:
        """Keep the decoder-state rows `indices` (beam search). Each index stays within its row's group of
        rows decoding one source, so only the self-attention cache moves: cross-attention K/V and the
        source mask are the same across a group and are left as they are."""

    def select(self, state: Any, rows: np.ndarray) -> Any:
        """Keep only the decoder-state rows `rows` (whole sources' groups, in order): the decode loop drops
        the rows of sources that have ended. Everything row-wise moves: cache, cross-attention K/V, mask."""


class RowsRuntime(Runtime, Protocol):
    has_rows: bool  # False for graphs exported without decode_rows (the batch-1 graphs of phones and the web)

    def step_rows(self, state: Any, tokens: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, Any]:
        """As `step`, with one position per row [B]: each row reads and writes its own cache slots."""

    def join(self, state: Any, other: Any) -> Any:
        """The rows of `state`, then those of `other` (sources that start decoding join a running batch)."""


def steps_rows(runtime) -> bool:
    """Whether `runtime` can decode rows at different positions together (`RowsRuntime` with the graphs for it)."""
    return bool(getattr(runtime, "has_rows", False))
