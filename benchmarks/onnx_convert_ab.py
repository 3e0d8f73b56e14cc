"""A/B of tf2onnx's optimizer with and without its safety copies: by default it deep-copies the whole graph before
each optimizer pass (to keep the graph when a pass fails); `TF2ONNX_CATCH_ERRORS=FALSE` turns the copies off,
which `exporters.onnx.convert` does. Converts a bundle's three graphs both ways, interleaved in one run (these
machines are noisy: only the ratio means something), and checks that both ways give the same graphs: the same
operators and the same weights (node and dimension names carry a process-wide counter, so the files' bytes differ
from one conversion to the next either way).

    python benchmarks/onnx_convert_ab.py BUNDLE [--rounds 2]
"""

import argparse
import hashlib
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

SIGNATURES = ("encode", "decode_step", "decode_rows")


def convert_all(module, out: Path, tag: str, copies: bool) -> float:
    import tf2onnx

    from exporters.onnx import OPSET

    if copies:
        os.environ.pop("TF2ONNX_CATCH_ERRORS", None)
    else:
        os.environ["TF2ONNX_CATCH_ERRORS"] = "FALSE"
    started = time.perf_counter()
    for name in SIGNATURES:
        function = getattr(module, name)
        tf2onnx.convert.from_function(function, input_signature=function.input_signature, opset=OPSET,
                                      output_path=str(out / f"{tag}.{name}.onnx"))
    return time.perf_counter() - started


def graph_summary(path: Path) -> tuple:
    """(operator counts, sorted weight digests, input ranks): what the conversion decided, without names."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = sorted(hashlib.sha256(numpy_helper.to_array(t).tobytes()).hexdigest() for t in graph.initializer)
    ranks = [(i.name, len(i.type.tensor_type.shape.dim)) for i in graph.input]
    return Counter(node.op_type for node in graph.node), weights, ranks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    import tf2onnx

    from studio.bundle import load_bundle
    from studio.runtimes.signatures import DecoderModule

    tf2onnx.logging.set_level(tf2onnx.logging.ERROR)
    module = DecoderModule(load_bundle(args.bundle).build_model(), None)
    out = Path(tempfile.mkdtemp(prefix="onnx-ab-"))
    convert_all(module, out, "warm-up", copies=False)  # tf2onnx's imports and first-use costs
    for round_ in range(args.rounds):
        order = (True, False) if round_ % 2 == 0 else (False, True)
        seconds = {copies: convert_all(module, out, f"{round_}-{copies}", copies) for copies in order}
        same = all(graph_summary(out / f"{round_}-{True}.{name}.onnx")
                   == graph_summary(out / f"{round_}-{False}.{name}.onnx") for name in SIGNATURES)
        print(f"round {round_ + 1}: with copies {seconds[True]:.2f} s, without {seconds[False]:.2f} s, "
              f"ratio {seconds[True] / seconds[False]:.2f}; graphs {'the same' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
