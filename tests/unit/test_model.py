import numpy as np
import pytest
import tensorflow as tf

from studio.config import ModelConfig
from studio.model import Transformer, decoder_self_mask, look_ahead_mask, padding_mask, positional_encoding


def tiny_config(**changes):
    values = dict(src_vocab_size=50, tgt_vocab_size=50, num_layers=2, d_model=32, num_heads=4, d_ff=64,
                  max_source_len=12, max_target_len=10, dropout=0.1)
    values.update(changes)
    return ModelConfig(**values)


def random_batch(seed=0, vocab=50):
    rng = np.random.default_rng(seed)
    source = rng.integers(4, vocab, (3, 7)).astype(np.int32)
    source[1, 4:] = 0  # padded row
    target = rng.integers(4, vocab, (3, 8)).astype(np.int32)
    target[:, 0] = 1
    return source, target


def test_padding_mask_marks_pad_positions_with_broadcastable_shape():
    mask = padding_mask(tf.constant([[5, 6, 0, 0]]))
    assert mask.shape == (1, 1, 1, 4)
    assert mask.numpy().ravel().tolist() == [0, 0, 1, 1]


def test_look_ahead_mask_blocks_future_positions():
    mask = look_ahead_mask(3).numpy()
    assert mask.tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 0]]


def test_decoder_mask_combines_look_ahead_and_target_padding():
    mask = decoder_self_mask(tf.constant([[1, 7, 0]])).numpy()[0, 0]
    assert mask.tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 1]]


def test_positional_encoding_matches_the_paper_formula():
    table = positional_encoding(50, 128)
    assert table.shape == (50, 128)  # sized by length, not vocabulary
    assert np.allclose(table[0, 0::2], 0) and np.allclose(table[0, 1::2], 1)
    pos, i = 7, 5
    assert table[pos, 2 * i] == pytest.approx(np.sin(pos / 10000 ** (2 * i / 128)), abs=1e-6)
    assert table[pos, 2 * i + 1] == pytest.approx(np.cos(pos / 10000 ** (2 * i / 128)), abs=1e-6)


def test_positional_encoding_in_halves_is_marians_sin_then_cos_layout():
    table = positional_encoding(50, 128, "halves")
    interleaved = positional_encoding(50, 128)
    np.testing.assert_array_equal(table[:, :64], interleaved[:, 0::2])
    np.testing.assert_array_equal(table[:, 64:], interleaved[:, 1::2])
    pos, i = 7, 5
    assert table[pos, i] == pytest.approx(np.sin(pos / 10000 ** (2 * i / 128)), abs=1e-6)
    assert table[pos, 64 + i] == pytest.approx(np.cos(pos / 10000 ** (2 * i / 128)), abs=1e-6)


MARIAN_OPTIONS = dict(activation="swish", positional="halves", logits_bias=True)


def assert_cached_steps_give_the_full_decoders_logits(model):
    """Decoding a random batch one cached step at a time gives, at each position, the full decoder's logits."""
    source, target = random_batch()
    encoder_output, mask = model.encode(source)
    full = model.decode(target, encoder_output, mask).numpy()
    cache, cross = model.empty_cache(3), model.cross_key_values(encoder_output)
    for position in range(target.shape[1]):
        logits, cache = model.decode_step(target[:, position], tf.constant(position), cache, cross, mask)
        np.testing.assert_allclose(logits.numpy(), full[:, position], atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("options", [MARIAN_OPTIONS, dict(activation="gelu-sigmoid", scale_embeddings=False)],
                         ids=["marian", "gelu-unscaled"])
def test_cached_step_decoding_equals_full_decoder_with_imported_models_options(options):
    model = Transformer(tiny_config(norm="pre", **options)).build_weights()
    if model.logits_bias is not None:
        model.logits_bias.assign(np.random.default_rng(1).normal(size=50).astype(np.float32))
    assert_cached_steps_give_the_full_decoders_logits(model)


def test_each_imported_models_option_changes_what_the_model_computes():
    source, target = random_batch()
    plain = Transformer(tiny_config()).build_weights()
    arrays = {w.path: w.numpy() for w in plain.weights}
    reference = plain((source, target)).numpy()
    for option in ({"activation": "swish"}, {"positional": "halves"}, {"scale_embeddings": False},
                   {"logits_bias": True}):
        model = Transformer(tiny_config(**option)).build_weights()
        for weight in model.weights:
            weight.assign(arrays.get(weight.path, np.full(weight.shape, 0.5, np.float32)))
        assert not np.allclose(model((source, target)).numpy(), reference, atol=1e-4), option


def test_a_tied_output_with_a_logits_bias_adds_it_to_every_step():
    model = Transformer(tiny_config(logits_bias=True)).build_weights()
    source, target = random_batch()
    before = model((source, target)).numpy()
    bias = np.arange(50, dtype=np.float32)
    model.logits_bias.assign(bias)
    np.testing.assert_allclose(model((source, target)).numpy(), before + bias, atol=1e-4)


@pytest.mark.parametrize("changes,message", [
    ({"activation": "gelu"}, "activation must be one of relu, swish, gelu-sigmoid"),
    ({"positional": "learned"}, "positional must be one of interleaved, halves"),
    ({"logits_bias": True, "tie_output": False, "share_embeddings": False}, "logits_bias is for a tied output"),
    ({"bos_id": 50}, r"bos_id \(50\) must be a target id below tgt_vocab_size \(50\)"),
    ({"bos_id": 0}, "bos_id and pad_id must differ"),
    ({"pad_id": 55, "tgt_vocab_size": 60, "share_embeddings": False}, "pad_id .* must also be a source id"),
])
def test_options_an_architecture_cannot_have_are_refused_by_name(changes, message):
    with pytest.raises(ValueError, match=message):
        tiny_config(**changes).validate()


def test_a_config_written_before_the_imported_models_options_loads_as_the_same_model():
    from studio.config import BundleConfig

    old = BundleConfig().to_dict()
    for name in ("activation", "positional", "scale_embeddings", "logits_bias"):
        del old["model"][name]
    assert BundleConfig.from_dict(old).model == ModelConfig()


@pytest.mark.parametrize("norm,decoder_layers", [("post", 0), ("pre", 0), ("pre", 1)])
@pytest.mark.parametrize("shared", [True, False])
def test_cached_step_decoding_equals_full_decoder_on_the_prefix(norm, decoder_layers, shared):
    config = tiny_config(norm=norm, share_embeddings=shared, tie_output=shared,
                         tgt_vocab_size=50 if shared else 60, num_decoder_layers=decoder_layers)
    model = Transformer(config).build_weights()
    assert_cached_steps_give_the_full_decoders_logits(model)


def test_padding_does_not_change_the_output():
    model = Transformer(tiny_config()).build_weights()
    source, target = random_batch()
    padded_source = np.pad(source, [(0, 0), (0, 3)])
    plain = model((source, target)).numpy()
    padded = model((padded_source, target)).numpy()
    np.testing.assert_allclose(plain, padded, atol=1e-5)


def test_future_target_tokens_do_not_affect_earlier_logits():
    model = Transformer(tiny_config()).build_weights()
    source, target = random_batch()
    changed = target.copy()
    changed[:, 5:] = 9
    np.testing.assert_allclose(model((source, target)).numpy()[:, :5], model((source, changed)).numpy()[:, :5],
                               atol=1e-5)


def test_attention_maps_have_one_map_per_layer_and_head():
    model = Transformer(tiny_config()).build_weights()
    source, target = random_batch()
    maps = model.attention_maps(source, target)
    assert [m.shape for m in maps["encoder_self"]] == [(3, 4, 7, 7)] * 2
    assert [m.shape for m in maps["decoder_self"]] == [(3, 4, 8, 8)] * 2
    assert [m.shape for m in maps["decoder_cross"]] == [(3, 4, 8, 7)] * 2
    cross = maps["decoder_cross"][0].numpy()
    np.testing.assert_allclose(cross.sum(-1), 1.0, atol=1e-5)
    assert cross[1, :, :, 4:].max() < 1e-6  # no attention to the padded source positions


def test_shared_embeddings_and_tied_output_use_one_matrix():
    shared = Transformer(tiny_config(share_embeddings=True, tie_output=True)).build_weights()
    separate = Transformer(tiny_config(share_embeddings=False, tie_output=False)).build_weights()
    assert sum("embedding" in w.path for w in shared.weights) == 1
    assert shared.parameter_count() < separate.parameter_count()


def test_invalid_head_count_is_rejected():
    with pytest.raises(ValueError, match="divisible"):
        Transformer(tiny_config(num_heads=5))


def test_a_deep_encoder_with_a_shallow_decoder_has_its_own_layer_counts():
    model = Transformer(tiny_config(num_layers=3, num_decoder_layers=1)).build_weights()
    assert len(model.encoder_layers) == 3 and len(model.decoder_layers) == 1
    assert len(model.empty_cache(2)) == 1 and model.config.decoder_depth == 1


def test_an_ensemble_steps_as_it_decodes_whole_and_averages_its_members_log_probabilities():
    from studio.model import Ensemble, build_model

    ensemble = build_model(tiny_config(members=2, num_decoder_layers=1, dropout=0.0)).build_weights()
    assert isinstance(ensemble, Ensemble) and len({v.path for v in ensemble.weights}) == len(ensemble.weights)
    source, target = random_batch(3)
    whole = np.asarray(ensemble((source, target)))
    members = [tf.nn.log_softmax(member((source, target))).numpy() for member in ensemble.members]
    assert np.allclose(whole, np.mean(members, axis=0), atol=1e-5)
    encoder_output, mask = ensemble.encode(source)
    cross, cache = ensemble.cross_key_values(encoder_output), ensemble.empty_cache(len(source))
    assert len(cross) == len(cache) == ensemble.config.cache_depth == 2
    for position in range(target.shape[1]):
        logits, cache = ensemble.decode_step(target[:, position], np.int32(position), cache, cross, mask)
        assert np.allclose(np.asarray(logits), whole[:, position], atol=1e-4)


def test_an_ensemble_of_a_model_with_itself_answers_as_the_model():
    from studio.model import build_model

    single = Transformer(tiny_config(dropout=0.0)).build_weights()
    ensemble = build_model(tiny_config(dropout=0.0, members=2)).build_weights()
    for member in ensemble.members:
        for target, value in zip(member.weights, single.weights):
            target.assign(value)
    source, target = random_batch(5)
    assert np.allclose(np.asarray(ensemble((source, target))), tf.nn.log_softmax(single((source, target))).numpy(),
                       atol=1e-5)
    with pytest.raises(ValueError, match="not an ensemble of 2"):
        Transformer(tiny_config(members=2))
