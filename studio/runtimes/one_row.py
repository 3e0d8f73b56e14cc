"""A batch-1 graph decoded as a port on a phone decodes it. The batch-1 graphs (`model.b1*.tflite`: the web page,
phones) keep every shape static, so they cannot run a text's sentences or a beam's hypotheses as one batch, as the
app does on its other graphs: `OneRowAtATime` encodes each source alone (padded to the shortest bucket that holds
it) and steps each row alone. The python package runs its batch-1 graph so, and the golden data of every package of
one (`exporters.app_golden`) is what this gives: the outputs a phone's port must match."""

from __future__ import annotations

import numpy as np


class OneRowAtATime:
    """A runtime (`studio.runtimes.base.Runtime`) over a batch-1 graph's runtime. A state is the list of its rows'
    states; reordering or selecting rows picks from that list."""

    def __init__(self, runtime):
        self.runtime, self.name, self.config = runtime, runtime.name, runtime.config

    def encode(self, source_ids: np.ndarray) -> list:
        pad = self.config.pad_id
        states = []
        for row in np.asarray(source_ids):
            used = np.flatnonzero(row != pad)  # a source ends in </s>: what follows is the batch's padding
            states.append(self.runtime.encode(row[None, : int(used[-1]) + 1 if used.size else 1]))
        return states

    def step(self, state: list, tokens: np.ndarray, position: int) -> tuple[np.ndarray, list]:
        tokens = np.asarray(tokens)
        results = [self.runtime.step(row, tokens[i : i + 1], position) for i, row in enumerate(state)]
        return np.concatenate([logits for logits, _ in results]), [row for _, row in results]

    def reorder(self, state: list, indices) -> list:
        return [state[int(i)] for i in indices]  # a row's state is never changed in place: rows may share one

    def select(self, state: list, rows) -> list:
        return [state[int(i)] for i in rows]
