"""A chat reply's latency, stored against written by the model, side by side in one run:

    python benchmarks/chat_replies.py [--bundle assets/chatbot] [--backend tflite] [--rounds 5]

For each of the chatbot's sample messages (`Task.samples`), in rounds that alternate the two: the time to the
whole stored reply (`studio.replies.find_reply` on the bundle's `replies.npz`), and the model's first token and
whole reply on the backend with the task's default decoding (`TextGenerator.stream`, as the Chat tab streams it).
Also the one-time costs: reading the index, and loading the backend's generator. Medians in milliseconds, then
the ratio of the stored reply's time to the model's first token.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from studio.bundle import load_bundle  # noqa: E402
from studio.inference import TextGenerator  # noqa: E402
from studio.replies import find_reply  # noqa: E402
from studio.tasks import task_named  # noqa: E402


def timed_model(generator, message: str, options) -> tuple[float, float]:
    """(first token ms, whole reply ms) of one streamed reply."""
    started, first = time.perf_counter(), None
    for _ in generator.stream(message, options):
        first = first if first is not None else (time.perf_counter() - started) * 1000
    return first, (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=PROJECT / "assets" / "chatbot")
    parser.add_argument("--backend", default="tflite")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    bundle = load_bundle(args.bundle)
    task = task_named(bundle.config.task.task)
    started = time.perf_counter()
    index = bundle.replies
    index_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    generator = TextGenerator.open(bundle, args.backend)
    load_ms = (time.perf_counter() - started) * 1000
    options = task.default_options()
    timed_model(generator, task.samples[0], options)  # warm-up
    stored, first, whole = [], [], []
    for _ in range(args.rounds):
        for message in task.samples:
            started = time.perf_counter()
            find_reply(index, message)
            stored.append((time.perf_counter() - started) * 1000)
            first_ms, whole_ms = timed_model(generator, message, options)
            first.append(first_ms)
            whole.append(whole_ms)
    print(f"{bundle.path.name}: {len(index.questions):,} stored replies; {len(task.samples)} messages x "
          f"{args.rounds} rounds; medians")
    print(f"  once: read replies.npz {index_ms:.0f} ms; load the {args.backend} generator {load_ms:.0f} ms")
    print(f"  stored reply (whole)            {statistics.median(stored):8.2f} ms")
    print(f"  {args.backend} first token ({options.strategy})  {statistics.median(first):8.2f} ms")
    print(f"  {args.backend} whole reply              {statistics.median(whole):8.2f} ms")
    print(f"  stored reply / model's first token: {statistics.median(stored) / statistics.median(first):.3f}x")


if __name__ == "__main__":
    main()
