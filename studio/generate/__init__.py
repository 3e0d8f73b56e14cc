"""Decoding over the runtime protocol (`encode`, `step`, `reorder`): one loop (`loop.py`), the strategies
that choose tokens (`strategies.py`), and the options users set (`options.py`)."""

from studio.generate.loop import DecodeSpec, decode, decode_steps, pad_batch
from studio.generate.options import DecodeOptions
from studio.generate.strategies import Beam, Forced, TokenByToken, argmax, sampler, strategy_for, streams_tokens

__all__ = ["DecodeOptions", "DecodeSpec", "decode", "decode_steps", "pad_batch", "strategy_for", "streams_tokens",
           "TokenByToken", "Beam", "Forced", "sampler", "argmax"]
