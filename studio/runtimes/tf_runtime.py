"""TensorFlow runtimes over the Keras model.

- `TFCachedRuntime`: `encode` once (cross-attention K/V precomputed), then one `decode_step` per token
  against the fixed-capacity self-attention cache — the same functions the exporters trace.
- `TFNaiveRuntime`: the tutorials' loop, kept as the baseline every speed figure is compared with: each
  step re-runs the whole model on the source and the growing output prefix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import tensorflow as tf


@dataclass
class CachedState:
    cache: list  # 2*L tensors [B,h,C,dk]: k0, v0, k1, v1, ...
    cross: list  # 2*L tensors [B,h,S,dk]
    source_mask: tf.Tensor  # [B,1,1,S]


class TFCachedRuntime:
    name = "tf"

    def __init__(self, model):
        self.model = model
        config = model.config
        layers = config.decoder_depth
        cache_spec = tf.TensorSpec([None, config.num_heads, config.max_target_len, config.head_dim], tf.float32)
        cross_spec = tf.TensorSpec([None, config.num_heads, None, config.head_dim], tf.float32)

        @tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
        def encode(source_ids):
            encoder_output, mask = model.encode(source_ids)
            cross = [t for kv in model.cross_key_values(encoder_output) for t in kv]
            return cross, mask

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32),
                                      [cache_spec] * (2 * layers), [cross_spec] * (2 * layers),
                                      tf.TensorSpec([None, 1, 1, None], tf.float32)])
        def step(tokens, position, cache, cross, source_mask):
            pairs = lambda flat: [(flat[2 * i], flat[2 * i + 1]) for i in range(layers)]  # noqa: E731
            logits, new_cache = model.decode_step(tokens, position, pairs(cache), pairs(cross), source_mask)
            return logits, [t for kv in new_cache for t in kv]

        self._encode, self._step = encode, step

    def encode(self, source_ids: np.ndarray) -> CachedState:
        source_ids = tf.constant(np.asarray(source_ids, dtype=np.int32))
        cross, mask = self._encode(source_ids)
        cache = [t for kv in self.model.empty_cache(int(source_ids.shape[0])) for t in kv]
        return CachedState(cache, list(cross), mask)

    def step(self, state: CachedState, tokens: np.ndarray, position: int):
        logits, cache = self._step(tf.constant(np.asarray(tokens, dtype=np.int32)), tf.constant(position, tf.int32),
                                   state.cache, state.cross, state.source_mask)
        return logits.numpy(), CachedState(list(cache), state.cross, state.source_mask)

    def reorder(self, state: CachedState, indices: np.ndarray) -> CachedState:
        """Select/reorder batch rows (beam search)."""
        indices = tf.constant(np.asarray(indices, dtype=np.int32))
        take = lambda tensors: [tf.gather(t, indices) for t in tensors]  # noqa: E731
        return CachedState(take(state.cache), take(state.cross), tf.gather(state.source_mask, indices))


@dataclass
class NaiveState:
    source_ids: tf.Tensor
    prefix: np.ndarray  # [B, position]


class TFNaiveRuntime:
    name = "tf-naive"

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
        indices = np.asarray(indices, dtype=np.int32)
        return NaiveState(tf.gather(state.source_ids, indices), state.prefix[indices])
