"""The exported graphs' decoder state between calls: sources padded only as far as needed, caches that grow."""

import numpy as np
import pytest

from studio.runtimes.graph_state import CACHE_STEP, SOURCE_STEP, GraphState, pad_source, source_length


def state(rows: int, source: int, capacity: int, filled: int = 0, seed: int = 0) -> GraphState:
    rng = np.random.default_rng(seed)
    cache = {f"cache_{kv}_0": np.zeros((rows, 2, capacity, 3), np.float32) for kv in "kv"}
    for array in cache.values():
        array[:, :, :filled] = rng.normal(size=(rows, 2, filled, 3))
    cross = {f"cross_{kv}_0": rng.normal(size=(rows, 2, source, 3)).astype(np.float32) for kv in "kv"}
    mask = np.zeros((rows, source), np.float32)
    mask[:, source // 2:] = 1.0
    return GraphState(cache, cross, mask, filled)


@pytest.mark.parametrize("tokens, static, expected", [
    (1, False, SOURCE_STEP), (SOURCE_STEP, False, SOURCE_STEP), (SOURCE_STEP + 1, False, 2 * SOURCE_STEP),
    (120, False, 128), (128, False, 128), (5, True, 128)])
def test_sources_are_padded_to_a_multiple_of_the_step_or_to_the_limit_of_a_static_graph(tokens, static, expected):
    assert source_length(tokens, 128, static) == expected
    padded = pad_source(np.arange(1, tokens + 1, dtype=np.int32)[None], 128, pad_id=0, static=static)
    assert padded.shape == (1, expected)
    assert padded[0, :tokens].tolist() == list(range(1, tokens + 1)) and not padded[0, tokens:].any()


def test_a_source_longer_than_the_graph_takes_is_refused():
    with pytest.raises(ValueError, match="at most 16"):
        pad_source(np.ones((1, 17), np.int32), 16)


def test_joining_sources_of_different_lengths_pads_the_shorter_with_hidden_positions():
    short, long = state(2, 16, CACHE_STEP, filled=3), state(1, 48, 2 * CACHE_STEP, filled=20, seed=1)
    joined = short.join(long)
    assert joined.source_mask.shape == (3, 48) and joined.capacity == 2 * CACHE_STEP and joined.filled == 20
    # the short rows keep their values, and the padding is hidden: mask 1, zero keys and values
    assert np.array_equal(joined.source_mask[:2, :16], short.source_mask)
    assert (joined.source_mask[:2, 16:] == 1.0).all()
    for name, array in joined.cross.items():
        assert np.array_equal(array[:2, :, :16], short.cross[name]) and not array[:2, :, 16:].any()
        assert np.array_equal(array[2:], long.cross[name])
    for name, array in joined.cache.items():
        assert np.array_equal(array[:2, :, :CACHE_STEP], short.cache[name]) and not array[:2, :, CACHE_STEP:].any()
        assert np.array_equal(array[2:], long.cache[name])


def test_a_cache_grows_by_steps_up_to_the_models_capacity_keeping_what_was_written():
    small = state(2, 16, CACHE_STEP, filled=CACHE_STEP)
    assert small.with_capacity(CACHE_STEP, 40) is small  # room enough: nothing copied
    grown = small.with_capacity(CACHE_STEP + 1, 40)
    assert grown.capacity == 2 * CACHE_STEP and grown.filled == CACHE_STEP
    for name, array in grown.cache.items():
        assert np.array_equal(array[:, :, :CACHE_STEP], small.cache[name]) and not array[:, :, CACHE_STEP:].any()
    assert grown.with_capacity(39, 40).capacity == 40  # never past the model's max_target_len
    assert grown.cross is small.cross and grown.source_mask is small.source_mask


def test_beam_reordering_and_selection_keep_the_padded_shapes():
    joined = state(2, 16, CACHE_STEP, filled=2).join(state(2, 32, CACHE_STEP, filled=2, seed=1))
    reordered = joined.reorder([1, 1, 3, 2])
    assert reordered.source_mask.shape == (4, 32) and reordered.capacity == CACHE_STEP
    assert np.array_equal(reordered.cache["cache_k_0"][0], joined.cache["cache_k_0"][1])
    selected = joined.select([3])
    assert selected.source_mask.shape == (1, 32)
    assert np.array_equal(selected.cross["cross_v_0"][0], joined.cross["cross_v_0"][3])
