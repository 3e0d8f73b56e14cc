from studio.model.attention import MultiHeadAttention
from studio.model.masks import decoder_self_mask, look_ahead_mask, padding_mask
from studio.model.positional import positional_encoding
from studio.model.transformer import Transformer
from studio.model.ensemble import Ensemble, build_model

__all__ = ["Transformer", "Ensemble", "build_model", "MultiHeadAttention", "padding_mask", "look_ahead_mask",
           "decoder_self_mask", "positional_encoding"]
