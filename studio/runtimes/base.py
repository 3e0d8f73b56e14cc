"""The runtime protocol: every backend implements `encode` and `step`; decode strategies live in
`studio.generate` and are written once for all backends."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Runtime(Protocol):
    name: str

    def encode(self, source_ids: np.ndarray) -> Any:
        """source ids [B,S] int32 (padded with pad_id) -> an opaque decoder state (cross K/V, empty cache)."""

    def step(self, state: Any, tokens: np.ndarray, position: int) -> tuple[np.ndarray, Any]:
        """tokens [B] at decoder position `position` -> (logits [B,V] float32, updated state)."""
