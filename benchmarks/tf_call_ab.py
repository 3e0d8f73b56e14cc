"""A/B of the TF backend's two ways to call its traced graphs: through the tf.function (which first matches its
arguments to the input signature in Python) or the traced graph itself (`TFCachedRuntime.graph`). Decodes the same
inputs greedily both ways, interleaved in one run (these machines are noisy: only the ratio means something), and
checks that both give the same tokens.

    python benchmarks/tf_call_ab.py BUNDLE [--rounds 4]
"""

import argparse
import time

from studio.bundle import load_bundle
from studio.generate import DecodeSpec, TokenByToken, decode
from studio.runtimes.signatures import shared_module
from studio.runtimes.tf_runtime import TFCachedRuntime
from studio.tasks import task_named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()

    bundle = load_bundle(args.bundle)
    sources = [bundle.preprocessor.encode(p)[0] for p in task_named(bundle.config.task.task).prompts]
    spec = DecodeSpec.for_model(bundle.config.model)
    graphs = TFCachedRuntime(module=shared_module(bundle))
    functions = TFCachedRuntime(module=shared_module(bundle))
    functions.graph = lambda name: getattr(functions.module, name)  # the tf.function, as before
    outputs = {}
    for runtime in (graphs, functions):  # warm-up: tracing
        outputs[runtime is graphs] = [decode(runtime, [s], spec, TokenByToken())[0] for s in sources]
    seconds = {True: 0.0, False: 0.0}
    for round_ in range(args.rounds):
        for runtime in ((graphs, functions) if round_ % 2 == 0 else (functions, graphs)):
            started = time.process_time()
            for source in sources:
                decode(runtime, [source], spec, TokenByToken())
            seconds[runtime is graphs] += time.process_time() - started
    print(f"{len(sources)} inputs x {args.rounds} rounds, greedy, CPU seconds: through the tf.function "
          f"{seconds[False]:.2f}, the traced graph {seconds[True]:.2f}, ratio {seconds[False] / seconds[True]:.2f}; "
          f"tokens {'the same' if outputs[True] == outputs[False] else 'DIFFER'}")


if __name__ == "__main__":
    main()
