"""The reply ranker as a Keras model, for training: a cross-encoder over `<s> question </s> candidate </s>`
built from the project's encoder layers, mean-pooled, with a two-layer scoring head. Its arithmetic is the
NumPy forward pass of `studio.text.ranking` (a test holds them to the same scores), and its variables are named
so that a chatbot generator's encoder (`member_0/encoder_0/...` or `encoder_0/...`) initialises it. (It lives
beside its trainer, not in `studio.model`: every file there is part of the exported graphs' code identity,
`studio.variants.GRAPH_CODE`, and a ranker is no part of them.)"""

from __future__ import annotations

import keras
import numpy as np
from keras import ops

from studio.model.layers import EncoderLayer
from studio.model.masks import padding_mask
from studio.model.positional import positional_encoding
from studio.text.ranking import RankerConfig


class PairRanker(keras.Model):
    def __init__(self, config: RankerConfig, name: str = "ranker", **kwargs):
        super().__init__(name=name, **kwargs)
        self.config = config
        c = config
        self.embedding = keras.layers.Embedding(c.vocab_size, c.d_model, name="source_embedding")
        self.segment_embedding = keras.layers.Embedding(2, c.d_model, embeddings_initializer="zeros",
                                                        name="segment_embedding")
        self.positional_table = positional_encoding(c.max_len + 8, c.d_model)
        self.encoder_layers = [EncoderLayer(c.d_model, c.num_heads, c.d_ff, 0.0, "post", c.epsilon,
                                            name=f"encoder_{i}") for i in range(c.num_layers)]
        self.head_hidden = keras.layers.Dense(c.head_units, activation="tanh", name="head_hidden")
        self.head_score = keras.layers.Dense(1, name="head_score")

    def call(self, inputs, training=False):
        """(ids [B,T], segments [B,T]) -> scores [B]."""
        ids, segments = inputs
        mask = padding_mask(ids, self.config.pad_id)
        length = ops.shape(ids)[1]
        x = self.embedding(ids) * (float(self.config.d_model) ** 0.5)
        x += ops.expand_dims(ops.convert_to_tensor(self.positional_table)[:length], 0)
        x += self.segment_embedding(segments)
        for layer in self.encoder_layers:
            x, _ = layer(x, mask, training=training)
        keep = ops.cast(ops.not_equal(ids, self.config.pad_id), x.dtype)
        pooled = ops.sum(x * ops.expand_dims(keep, -1), axis=1) / ops.maximum(
            ops.sum(keep, axis=1, keepdims=True), 1.0)
        return ops.squeeze(self.head_score(self.head_hidden(pooled)), -1)

    def build_weights(self) -> "PairRanker":
        dummy = np.ones((1, 4), dtype=np.int32)
        self((dummy, np.zeros_like(dummy)), training=False)
        return self


def generator_arrays(ranker: PairRanker, generator: dict[str, np.ndarray], member: int = 0) -> dict[str, np.ndarray]:
    """The ranker's variables (by path) that a chatbot generator's weights hold: its source embedding and its
    encoder layers (of ensemble member `member` where the generator is an ensemble)."""
    prefix = f"member_{member}/" if any(name.startswith("member_") for name in generator) else ""
    found = {}
    for variable in ranker.weights:
        inner = variable.path.split("/", 1)[1]
        source = prefix + inner
        if source in generator and tuple(generator[source].shape) == tuple(variable.shape):
            found[variable.path] = generator[source]
    return found
