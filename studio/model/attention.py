"""Multi-head scaled dot-product attention, usable on whole sequences or with a key/value cache.

`call` is the classic layer (W_Q, W_K, W_V -> split heads -> softmax(QK^T/sqrt(d_k) + mask*-1e9) V ->
concat -> W_O). For incremental decoding the pieces are exposed separately: `project_query`,
`project_key_value` (cross-attention K/V are projected once from the encoder output) and `attend`.
`write_cache` puts one step's K/V into a fixed-capacity cache at `position` with a one-hot blend: it has
static shapes and only elementwise ops, so it converts to TFLite builtins and ONNX without scatter ops.
"""

import keras
from keras import ops

from studio.model.masks import NEG_INF


class MultiHeadAttention(keras.layers.Layer):
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, **kwargs):
        super().__init__(**kwargs)
        self.d_model = d_model
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.query = keras.layers.Dense(d_model, name="query")
        self.key = keras.layers.Dense(d_model, name="key")
        self.value = keras.layers.Dense(d_model, name="value")
        self.output_dense = keras.layers.Dense(d_model, name="output")
        self.dropout = keras.layers.Dropout(dropout)

    def build(self, input_shape):
        for dense in (self.query, self.key, self.value, self.output_dense):
            dense.build((None, None, self.d_model))
        self.built = True

    def _split_heads(self, x):
        """[B, T, D] -> [B, heads, T, head_dim]"""
        x = ops.reshape(x, (-1, ops.shape(x)[1], self.num_heads, self.head_dim))
        return ops.transpose(x, (0, 2, 1, 3))

    def _merge_heads(self, x):
        """[B, heads, T, head_dim] -> [B, T, D]"""
        length = ops.shape(x)[2]
        x = ops.transpose(x, (0, 2, 1, 3))
        return ops.reshape(x, (-1, length, self.d_model))

    def project_query(self, x):
        return self._split_heads(self.query(x))

    def project_key_value(self, x):
        return self._split_heads(self.key(x)), self._split_heads(self.value(x))

    def attend(self, q, k, v, mask=None, training=False):
        """q [B,h,Tq,dk], k/v [B,h,Tk,dk], mask broadcastable to [B,h,Tq,Tk] -> ([B,Tq,D], weights)."""
        scores = ops.matmul(q, ops.swapaxes(k, -1, -2)) * (1.0 / float(self.head_dim) ** 0.5)
        if mask is not None:
            scores += ops.cast(mask, scores.dtype) * NEG_INF
        weights = ops.softmax(scores, axis=-1)
        context = ops.matmul(self.dropout(weights, training=training), v)
        return self.output_dense(self._merge_heads(context)), weights

    def call(self, query, key_value, mask=None, training=False):
        k, v = self.project_key_value(key_value)
        return self.attend(self.project_query(query), k, v, mask, training)

    @staticmethod
    def write_cache(cache, new, position, capacity: int):
        """cache [B,h,capacity,dk] with `new` [B,h,1,dk] written at slot `position` (a scalar, or one per row [B])."""
        slot = ops.one_hot(ops.reshape(position, (-1,)), capacity, dtype=cache.dtype)  # [1 or B, capacity]
        slot = ops.expand_dims(ops.expand_dims(slot, 1), -1)  # no reshape to `capacity`: it may be a tensor
        return cache * (1.0 - slot) + new * slot
