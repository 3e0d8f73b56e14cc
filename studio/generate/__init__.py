"""Decode strategies, written once over the runtime protocol."""

from studio.generate.greedy import greedy_decode, pad_batch

__all__ = ["greedy_decode", "pad_batch"]
