"""Several Transformers of one architecture and vocabulary, trained apart (other seeds), as one model: at every
step the next-token log-probabilities of the members are averaged (a log-linear ensemble). It answers the same
calls as `Transformer`, so training's evaluation, the cached and naive runtimes and the exporters treat it as
one model: its encoder output is the members' side by side, and a decode step carries every member's caches,
member after member (`ModelConfig.cache_depth` of them). Its logits are the mean log-probabilities."""

from __future__ import annotations

import dataclasses

import keras
import numpy as np
from keras import ops

from studio.config import ModelConfig
from studio.errors import StudioError
from studio.model.transformer import Transformer


def refuse_training(config: ModelConfig, weights: dict | None = None) -> None:
    """Training (and warm-starting from) takes one model: an ensemble's members are trained apart."""
    if config.members != 1 or any(name.startswith("member_") for name in weights or {}):
        raise StudioError("an ensemble is neither trained nor warm-started from as one: train its members apart "
                          "(each with its own train.seed) and combine their bundles with `studio ensemble`")


def member_config(config: ModelConfig) -> ModelConfig:
    return dataclasses.replace(config, members=1)


class Ensemble(keras.Model):
    def __init__(self, config: ModelConfig, name: str = "ensemble", **kwargs):
        super().__init__(name=name, **kwargs)
        config.validate()
        self.config = config
        self.members = [Transformer(member_config(config), name=f"member_{i}") for i in range(config.members)]

    @property
    def positional_table(self):
        return self.members[0].positional_table  # the same sinusoids in every member

    def _split(self, values: list) -> list[list]:
        """Per-layer values of all members (member after member) -> one list per member."""
        depth = self.config.decoder_depth
        return [values[i * depth:(i + 1) * depth] for i in range(len(self.members))]

    @staticmethod
    def _mean_log_probabilities(logits: list):
        return ops.mean(ops.stack([ops.log_softmax(x, axis=-1) for x in logits]), axis=0)

    def encode(self, source_ids, training=False, return_attention=False):
        """source ids [B,S] -> (the members' encoder outputs side by side [B,S,members*D], padding mask
        [, the first member's attention weights])."""
        encoded = [member.encode(source_ids, training=training, return_attention=return_attention)
                   for member in self.members]
        output = ops.concatenate([e[0] for e in encoded], axis=-1)
        return (output, *encoded[0][1:])

    def _outputs(self, encoder_output):
        return ops.split(encoder_output, len(self.members), axis=-1)

    def decode(self, target_in, encoder_output, source_mask, training=False, return_attention=False):
        decoded = [member.decode(target_in, output, source_mask, training=training, return_attention=return_attention)
                   for member, output in zip(self.members, self._outputs(encoder_output))]
        if not return_attention:
            return self._mean_log_probabilities(decoded)
        return (self._mean_log_probabilities([d[0] for d in decoded]), *decoded[0][1:])

    def call(self, inputs, training=False):
        source_ids, target_in = inputs
        encoder_output, source_mask = self.encode(source_ids, training=training)
        return self.decode(target_in, encoder_output, source_mask, training=training)

    def attention_maps(self, source_ids, target_in):
        """The first member's attention weights (each member attends in its own way)."""
        return self.members[0].attention_maps(source_ids, target_in)

    def cross_key_values(self, encoder_output):
        return [kv for member, output in zip(self.members, self._outputs(encoder_output))
                for kv in member.cross_key_values(output)]

    def empty_cache(self, batch_size):
        return [kv for member in self.members for kv in member.empty_cache(batch_size)]

    def decode_step(self, tokens, position, cache, cross_kv, source_mask):
        logits, new_cache = [], []
        for member, member_cache, member_cross in zip(self.members, self._split(cache), self._split(cross_kv)):
            member_logits, member_new_cache = member.decode_step(tokens, position, member_cache, member_cross,
                                                                 source_mask)
            logits.append(member_logits)
            new_cache += member_new_cache
        return self._mean_log_probabilities(logits), new_cache

    def build(self, input_shape):
        """As `Transformer.build`: the members create their variables on the first call."""

    def build_weights(self):
        """Each member builds its own variables, named after it ("member_0/encoder_0/…"): built through the
        ensemble's calls they would all be named alike ("ensemble/encoder_0/…")."""
        for member in self.members:
            member.build_weights()
        self.built = True
        return self

    def parameter_count(self) -> int:
        return int(sum(np.prod(v.shape) for v in self.weights))


def build_model(config: ModelConfig):
    """The model `config` describes: one Transformer, or an ensemble of `config.members` of them."""
    return Ensemble(config) if config.members > 1 else Transformer(config)
