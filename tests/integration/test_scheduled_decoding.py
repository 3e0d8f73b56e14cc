"""Continuous batching on the real graphs (`decode_rows`): many callers' streams, decoded together with rows
joining and leaving at their own positions, each give exactly the output they give alone, on every backend
that batches."""

import threading

import pytest

from studio.bundle import load_bundle
from studio.generate import DecodeOptions
from studio.serving import ServedModel

PROMPTS = ["나는 커피를 좋아해?", "너는 영화를 봤어?", "그는 책을 샀어?", "우리는 여행을 원해?", "엄마는 음악을 싫어해?",
           "동생은 운동을 했어?", "친구는 사과를 원해?", "너는 커피를 샀어?"]


@pytest.mark.parametrize("backend", ["tf", "tflite", "onnx"])
def test_concurrent_streams_in_one_batch_equal_each_alone(exported, backend):
    bundle = load_bundle(exported[0])
    served = ServedModel(bundle, build_missing=False, progress=lambda _: None, max_batch=4)
    generator = served.generator(backend)
    assert generator.scheduler is not None
    sampled = DecodeOptions("sample", seed=7, temperature=1.5, max_new_tokens=9)
    jobs = [(prompt, None) for prompt in PROMPTS] + [(prompt, sampled) for prompt in PROMPTS[:3]]
    scheduler, generator.scheduler = generator.scheduler, None
    alone = [list(generator.stream(prompt, options))[-1][0] for prompt, options in jobs]
    generator.scheduler = scheduler
    outputs, streamed = {}, {}

    def work(index):
        prompt, options = jobs[index]
        texts = [text for text, _, _ in generator.stream(prompt, options)]
        outputs[index], streamed[index] = texts[-1], texts

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [outputs[i] for i in range(len(jobs))] == alone
    assert all(len(streamed[i]) >= 1 for i in streamed)
    assert scheduler.jobs == len(jobs) and scheduler.rows > scheduler.steps  # all scheduled, some together
    served.close()
    assert not scheduler._thread.is_alive()



def test_a_slow_reader_of_the_stream_is_not_counted_as_the_models_time(exported):
    """The Chat tab draws every token before it takes the next: that time is the page's, not the model's."""
    import time

    served = ServedModel(load_bundle(exported[0]), build_missing=False, progress=lambda _: None, max_batch=4)
    generator = served.generator("tflite")
    options = DecodeOptions("sample", seed=7, temperature=1.5, max_new_tokens=6)  # a reply of several tokens
    scheduler = generator.scheduler
    for generator.scheduler in (scheduler, None):  # in the running batch, and decoded alone
        slept = 0.0
        for _, latency, _ in generator.stream(PROMPTS[0], options):
            time.sleep(0.2)
            slept += 0.2
        assert latency.tokens >= 3 and latency.total_ms < 0.5 * slept * 1000, (generator.scheduler, latency, slept)
    generator.scheduler = scheduler
    served.close()
