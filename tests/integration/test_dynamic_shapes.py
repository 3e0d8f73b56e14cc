"""The graphs of any batch size take sources of any length and caches of any capacity (export format 3): the
runtimes pad a batch's sources only to a multiple of 16 and grow the cache by 16 slots as outputs grow. On a
model whose limits are past those steps (48 source tokens, 40 target tokens), TFLite and ONNX must still give
TensorFlow's logits and outputs, batched or alone, with rows of different lengths joining one batch. The batch-1
graphs keep static shapes (LiteRT.js needs them) and hold a pair of signatures per shorter source length."""

import numpy as np
import pytest
from helpers import built_once

from studio.bundle import load_bundle, save_bundle
from studio.generate import DecodeSpec, TokenByToken, decode, decode_steps
from studio.runtimes import load_runtime
from studio.runtimes.graph_state import CACHE_STEP, SOURCE_STEP
from studio.scheduler import Scheduler
from studio.variants import export_dir_for, read_manifest

SOURCE_LIMIT, TARGET_LIMIT = 48, 40
LENGTHS = (3, SOURCE_STEP + 4, 2 * SOURCE_STEP + 9)  # three different paddings: 16, 32, 48


@pytest.fixture(scope="module")
def long_bundle(tiny_bundle, tmp_path_factory):
    """The tiny bundle's weights with room for 48 source and 40 target tokens, exported to TFLite (any batch and
    batch 1) and ONNX."""
    from dataclasses import replace

    from exporters import export_bundle

    def build(target):
        bundle = load_bundle(tiny_bundle)
        model = replace(bundle.config.model, max_source_len=SOURCE_LIMIT, max_target_len=TARGET_LIMIT)
        save_bundle(target, replace(bundle.config, model=model), bundle.tokenizers, bundle.build_model())
        export_bundle(target, backends=["tflite", "onnx", "tflite-b1"], verify=False, golden=False,
                      progress=lambda _: None)

    return load_bundle(built_once(tmp_path_factory, "long-limits", build))


def sources(count=len(LENGTHS)):
    rng = np.random.default_rng(7)
    return [[*rng.integers(4, 200, size=n - 1).tolist(), 2] for n in LENGTHS[:count]]


def forced(config, tokens=TARGET_LIMIT - 2):
    """A spec that decodes exactly `tokens` tokens: the cache grows past two steps."""
    return DecodeSpec(config.bos_id, config.eos_id, tokens, config.pad_id, min_new_tokens=tokens)


@pytest.mark.parametrize("backend", ["tflite", "onnx"])
def test_sources_of_any_length_and_a_growing_cache_give_tensorflows_logits(long_bundle, backend):
    config = long_bundle.config.model
    reference, runtime = load_runtime(long_bundle, "tf"), load_runtime(long_bundle, backend)
    assert not runtime.static_source and not runtime.static_cache
    state = runtime.encode(np.array([sources()[0]], np.int32))
    assert state.source_mask.shape == (1, SOURCE_STEP) and state.capacity == CACHE_STEP
    batch = sources()
    expected = list(decode_steps(reference, batch, forced(config), TokenByToken()))
    got = list(decode_steps(runtime, batch, forced(config), TokenByToken()))
    assert len(got) == len(expected) == TARGET_LIMIT - 2
    assert max(float(np.abs(a - b).max()) for a, b in zip(got, expected)) <= 1e-4


@pytest.mark.parametrize("backend", ["tflite", "onnx"])
def test_sources_batched_together_decode_as_each_does_alone(long_bundle, backend):
    config = long_bundle.config.model
    runtime = load_runtime(long_bundle, backend)
    batched = decode(runtime, sources(), forced(config), TokenByToken())
    alone = [decode(runtime, [source], forced(config), TokenByToken())[0] for source in sources()]
    assert batched == alone


def test_requests_of_different_lengths_join_a_running_batch_and_answer_as_alone(long_bundle):
    config = long_bundle.config.model
    runtime = load_runtime(long_bundle, "tflite")
    spec = forced(config, 30)
    alone = [decode(runtime, [source], spec, TokenByToken())[0] for source in sources()]
    scheduler = Scheduler(runtime, max_batch=4)
    try:
        # the shortest first: the longer sources join it with more source positions and a grown cache
        jobs = [scheduler.submit(source, spec, TokenByToken) for source in sources()]
        assert [job.future.result(timeout=60) for job in jobs] == alone
    finally:
        scheduler.close()


def test_batch_1_graphs_encode_a_source_at_the_shortest_bucket_that_holds_it(long_bundle):
    config = long_bundle.config.model
    manifest = read_manifest(export_dir_for(long_bundle.path))
    assert manifest["batch_1_graph_shapes"] == {"batch": 1, "source_len": SOURCE_LIMIT, "cache_len": TARGET_LIMIT,
                                                "source_buckets": [16, 32]}
    reference, runtime = load_runtime(long_bundle, "tf"), load_runtime(long_bundle, "tflite-b1")
    assert runtime.static_source and runtime.static_cache and runtime.buckets == [16, 32]
    for source, padded in zip(sources(), (16, 32, SOURCE_LIMIT)):
        assert runtime.encode(np.array([source], np.int32)).source_mask.shape == (1, padded)
        expected = list(decode_steps(reference, [source], forced(config), TokenByToken()))
        got = list(decode_steps(runtime, [source], forced(config), TokenByToken()))
        assert max(float(np.abs(a - b).max()) for a, b in zip(got, expected)) <= 1e-4, padded
