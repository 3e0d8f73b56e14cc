"""TensorFlow runtimes over the Keras model.

- `TFCachedRuntime`: the very functions the exporters convert (`signatures.DecoderModule`: `encode` once,
  then one `decode_step` per token against the fixed-capacity self-attention cache), run by TensorFlow,
  with the same state layout as the exported graphs' runtimes (tensors by their exported names).
- `TFNaiveRuntime`: the tutorials' loop, kept as the baseline every speed figure is compared with: each
  step re-runs the whole model on the source and the growing output prefix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import tensorflow as tf

from studio.runtimes.graph_state import GraphState, pad_source
from studio.runtimes.signatures import DecoderModule, shared_module
from studio.variants import input_names


class TFCachedRuntime:
    name = "tf"
    has_rows = True

    @classmethod
    def load(cls, bundle, variant, paths=(), model=None, threads: int | None = None):
        """`studio.runtimes.load_runtime`'s constructor: over `model`, or the bundle's own, traced once per
        process for its weights (`signatures.shared_module`)."""
        return cls(model) if model is not None else cls(module=shared_module(bundle))

    def __init__(self, model=None, module: DecoderModule | None = None):
        """Over `model` (traced now) or an existing `module` (any batch)."""
        self.module = module if module is not None else DecoderModule(model)
        self.model = self.module.model
        self.config = self.model.config
        step_inputs = input_names(self.config.cache_depth)["decode_step"]
        self._cache_names = [n for n in step_inputs if n.startswith("cache_")]
        self._cross_names = [n for n in step_inputs if n.startswith("cross_")]
        self._graphs: dict = {}

    def graph(self, name: str):
        """The traced graph of the module's `name` (encode, decode_step, decode_rows), traced on first use. It is
        called as it is: a tf.function's call first matches its arguments to the signature in Python, ~0.4 ms
        a call here, a tenth of the shipped translator's decode step."""
        graph = self._graphs.get(name)
        if graph is None:
            graph = self._graphs[name] = getattr(self.module, name).get_concrete_function()
        return graph

    def encode(self, source_ids: np.ndarray) -> GraphState:
        c = self.config
        source = pad_source(source_ids, c.max_source_len, c.pad_id)
        outputs = self.graph("encode")(tf.constant(source))
        shape = (source.shape[0], c.num_heads, c.max_target_len, c.head_dim)
        cache = {name: tf.zeros(shape, tf.float32) for name in self._cache_names}
        return GraphState(cache, {name: outputs[name] for name in self._cross_names}, outputs["source_mask"])

    def step(self, state: GraphState, tokens: np.ndarray, position: int):
        return self._step(self.graph("decode_step"), state, tokens, position)

    def step_rows(self, state: GraphState, tokens: np.ndarray, positions: np.ndarray):
        return self._step(self.graph("decode_rows"), state, tokens, np.asarray(positions, dtype=np.int32))

    def _step(self, function, state: GraphState, tokens, position):
        """Run decode_step (a scalar position) or decode_rows (one per row)."""
        outputs = function(tf.constant(np.asarray(tokens, dtype=np.int32)), tf.constant(position, tf.int32),
                           *[state.cache[n] for n in self._cache_names],
                           *[state.cross[n] for n in self._cross_names], state.source_mask)
        cache = {name: outputs[f"new_{name}"] for name in self._cache_names}
        return outputs["logits"].numpy(), GraphState(cache, state.cross, state.source_mask)

    def join(self, state: GraphState, other: GraphState) -> GraphState:
        """As `GraphState.join`: sources padded to different lengths are padded to the longer one."""
        length = max(state.source_mask.shape[1], other.source_mask.shape[1])
        both = lambda mine, theirs: {name: tf.concat([t, theirs[name]], 0) for name, t in mine.items()}  # noqa: E731
        cross = lambda g: {name: _pad_axis(t, 2, length) for name, t in g.cross.items()}  # noqa: E731
        return GraphState(both(state.cache, other.cache), both(cross(state), cross(other)),
                          tf.concat([_pad_axis(state.source_mask, 1, length, 1.0),
                                     _pad_axis(other.source_mask, 1, length, 1.0)], 0))

    def reorder(self, state: GraphState, indices: np.ndarray) -> GraphState:
        indices = tf.constant(np.asarray(indices, dtype=np.int32))
        return GraphState({name: tf.gather(t, indices) for name, t in state.cache.items()}, state.cross,
                          state.source_mask)

    def select(self, state: GraphState, rows: np.ndarray) -> GraphState:
        rows = tf.constant(np.asarray(rows, dtype=np.int32))
        take = lambda tensors: {name: tf.gather(t, rows) for name, t in tensors.items()}  # noqa: E731
        return GraphState(take(state.cache), take(state.cross), tf.gather(state.source_mask, rows))


@dataclass
class NaiveState:
    source_ids: tf.Tensor
    prefix: np.ndarray  # [B, position]


class TFNaiveRuntime:
    name = "tf-naive"

    @classmethod
    def load(cls, bundle, variant, paths=(), model=None, threads: int | None = None):
        return cls(model if model is not None else shared_module(bundle).model)

    def __init__(self, model):
        self.model = model

        @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32), tf.TensorSpec([None, None], tf.int32)])
        def last_logits(source_ids, prefix):
            return model((source_ids, prefix), training=False)[:, -1, :]

        self._last_logits = last_logits

    def encode(self, source_ids: np.ndarray) -> NaiveState:
        source_ids = np.asarray(source_ids, dtype=np.int32)
        return NaiveState(tf.constant(source_ids), np.zeros((source_ids.shape[0], 0), np.int32))

    def step(self, state: NaiveState, tokens: np.ndarray, position: int):
        prefix = np.concatenate([state.prefix, np.asarray(tokens, np.int32).reshape(-1, 1)], axis=1)
        logits = self._last_logits(state.source_ids, tf.constant(prefix))
        return logits.numpy(), NaiveState(state.source_ids, prefix)

    def reorder(self, state: NaiveState, indices: np.ndarray) -> NaiveState:
        """Rows stay within their source's group (see `Runtime.reorder`): only the prefixes move."""
        return NaiveState(state.source_ids, state.prefix[np.asarray(indices, dtype=np.int64)])

    def select(self, state: NaiveState, rows: np.ndarray) -> NaiveState:
        rows = np.asarray(rows, dtype=np.int64)
        return NaiveState(tf.gather(state.source_ids, rows), state.prefix[rows])


def _pad_axis(tensor, axis: int, length: int, value: float = 0.0):
    missing = length - tensor.shape[axis]
    if missing <= 0:
        return tensor
    widths = [[0, 0]] * len(tensor.shape)
    widths[axis] = [0, missing]
    return tf.pad(tensor, widths, constant_values=value)
