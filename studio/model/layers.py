"""Encoder and decoder layers with selectable LayerNorm placement.

post-LN (the paper):          x = LayerNorm(x + Dropout(Sublayer(x)))
pre-LN (Tensor2Tensor, the translator tutorial): x = x + Dropout(Sublayer(LayerNorm(x)))

The decoder layer has separate self-attention and encoder-decoder attention blocks (one tutorial
reused a single block for both and swapped the masks).
"""

import keras
from keras import ops

from studio.model.attention import MultiHeadAttention
from studio.model.masks import cache_mask


def _swish(x):
    return x * ops.sigmoid(x)  # written out: elementwise builtins in TFLite, no custom-gradient ops in the trace


def _gelu_sigmoid(x):
    return x * ops.sigmoid(1.702 * x)  # Marian's "gelu" (CTranslate2's GELUSigmoid)


# the feed-forward's activation by `ModelConfig.activation`; relu stays the Dense layer's own, as it always was
ACTIVATIONS = {"relu": None, "swish": _swish, "gelu-sigmoid": _gelu_sigmoid}


class FeedForward(keras.layers.Layer):
    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", **kwargs):
        super().__init__(**kwargs)
        self.d_model = d_model
        self.activation = ACTIVATIONS[activation]
        self.inner = keras.layers.Dense(d_ff, activation="relu" if activation == "relu" else None, name="inner")
        self.outer = keras.layers.Dense(d_model, name="outer")

    def build(self, input_shape):
        self.inner.build((None, None, self.d_model))
        self.outer.build((None, None, self.inner.units))
        self.built = True

    def call(self, x):
        hidden = self.inner(x)
        return self.outer(self.activation(hidden) if self.activation else hidden)


class _Sublayers(keras.layers.Layer):
    """Shared residual + LayerNorm plumbing for encoder and decoder layers."""

    def __init__(self, norm: str, dropout: float, epsilon: float, count: int, **kwargs):
        super().__init__(**kwargs)
        self.pre_norm = norm == "pre"
        self.norms = [keras.layers.LayerNormalization(epsilon=epsilon, name=f"norm_{i}") for i in range(count)]
        self.drops = [keras.layers.Dropout(dropout) for _ in range(count)]

    def residual(self, index, x, sublayer, training):
        """Apply sublayer `index` (a function of the normalized or raw input) with its residual and norm."""
        norm, drop = self.norms[index], self.drops[index]
        if self.pre_norm:
            out, extra = sublayer(norm(x))
            return x + drop(out, training=training), extra
        out, extra = sublayer(x)
        return norm(x + drop(out, training=training)), extra


class EncoderLayer(_Sublayers):
    def __init__(self, d_model, num_heads, d_ff, dropout, norm, epsilon, activation="relu", **kwargs):
        super().__init__(norm, dropout, epsilon, count=2, **kwargs)
        self.d_model = d_model
        self.self_attention = MultiHeadAttention(d_model, num_heads, dropout, name="self_attention")
        self.ffn = FeedForward(d_model, d_ff, activation, name="ffn")

    def build(self, input_shape):
        for norm in self.norms:
            norm.build((None, None, self.d_model))
        self.self_attention.build(None)
        self.ffn.build(None)
        self.built = True

    def call(self, x, mask, training=False):
        x, weights = self.residual(0, x, lambda h: self.self_attention(h, h, mask, training=training), training)
        x, _ = self.residual(1, x, lambda h: (self.ffn(h), None), training)
        return x, weights


class DecoderLayer(_Sublayers):
    def __init__(self, d_model, num_heads, d_ff, dropout, norm, epsilon, activation="relu", **kwargs):
        super().__init__(norm, dropout, epsilon, count=3, **kwargs)
        self.d_model = d_model
        self.self_attention = MultiHeadAttention(d_model, num_heads, dropout, name="self_attention")
        self.cross_attention = MultiHeadAttention(d_model, num_heads, dropout, name="cross_attention")
        self.ffn = FeedForward(d_model, d_ff, activation, name="ffn")

    def build(self, input_shape):
        for norm in self.norms:
            norm.build((None, None, self.d_model))
        self.self_attention.build(None)
        self.cross_attention.build(None)
        self.ffn.build(None)
        self.built = True

    def call(self, x, encoder_output, self_mask, cross_mask, training=False):
        """Whole target sequence (teacher forcing). Returns x and both attention weight tensors."""
        x, self_weights = self.residual(
            0, x, lambda h: self.self_attention(h, h, self_mask, training=training), training)
        x, cross_weights = self.residual(
            1, x, lambda h: self.cross_attention(h, encoder_output, cross_mask, training=training), training)
        x, _ = self.residual(2, x, lambda h: (self.ffn(h), None), training)
        return x, self_weights, cross_weights

    def step(self, x, position, self_k, self_v, cross_k, cross_v, cross_mask):
        """One target position x [B,1,D] against a fixed-capacity self-attention cache [B,h,C,dk] and
        precomputed cross-attention K/V. Returns x and the updated cache."""
        capacity = ops.shape(self_k)[2]  # a tensor in graphs traced with a dynamic capacity
        updated = {}

        def cached_self_attention(h):
            k_new, v_new = self.self_attention.project_key_value(h)
            updated["k"] = MultiHeadAttention.write_cache(self_k, k_new, position, capacity)
            updated["v"] = MultiHeadAttention.write_cache(self_v, v_new, position, capacity)
            q = self.self_attention.project_query(h)
            return self.self_attention.attend(q, updated["k"], updated["v"], cache_mask(position, capacity))

        def cross_attention(h):
            q = self.cross_attention.project_query(h)
            return self.cross_attention.attend(q, cross_k, cross_v, cross_mask)

        x, _ = self.residual(0, x, cached_self_attention, training=False)
        x, _ = self.residual(1, x, cross_attention, training=False)
        x, _ = self.residual(2, x, lambda h: (self.ffn(h), None), training=False)
        return x, updated["k"], updated["v"]
