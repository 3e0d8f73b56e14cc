"""An OPUS-MT-shaped model imported and run on every backend beside CTranslate2, in one run (issue 57):

    python benchmarks/real_shaped_import.py [--work ~/studio-runs/real-shaped] [--vocab 32000] [--tokens 32]

A Marian release with random weights in transformer-base's shape (6 + 6 layers, d_model 512, 8 heads, ffn 2048,
a shared --vocab vocabulary, tied embeddings; ~75 M parameters at 32k), written as Marian writes one
(`tests/marian_fixture.py`), is imported with `studio import` and exported (`studio export`: TFLite fp32 and
dynamic-int8, ONNX fp32 and int8) in child processes whose time and peak memory are measured; CTranslate2's own
converter makes its fp32 and int8 models of the same release. Then every runtime decodes the same sources greedily
for exactly --tokens tokens (the random model's </s> is pushed down so no output ends early), one thread each,
in rounds that alternate the runtimes: the medians of the first token (encode + first step) and of the time per
later token, and each one's ratio to CTranslate2 int8's. Sizes of every variant's files.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

PROJECT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(PROJECT), str(PROJECT / "tests")]

import marian_fixture as fixture  # noqa: E402

SHAPES = {"base": fixture.Variant("transformer-base, tied", enc_depth=6, dec_depth=6, d_model=512, heads=8,
                                  d_ff=2048, activation="swish", eos_bias=-30.0)}
SHAPES["smoke"] = dataclasses.replace(SHAPES["base"], enc_depth=1, dec_depth=1, d_model=64, heads=4, d_ff=128)
BACKENDS = ("tflite", "tflite-int8", "onnx", "onnx-int8")


def write_release(folder: Path, vocab: int, shape) -> Path:
    """The fixture's release with its vocabulary filled up to `vocab` pieces (pieces no .spm makes: they only
    size the embedding and the output layer, as a real 32k vocabulary does)."""
    import yaml

    folder.mkdir(parents=True, exist_ok=True)
    korean, english = fixture.sentences(seed=1)
    source_spm, target_spm = fixture.train_spm(korean + english, 400), fixture.train_spm(english, 400)
    pieces = fixture.vocabulary(source_spm, target_spm, korean, english)
    pieces += [f"▁filler{i}" for i in range(vocab - len(pieces))]
    (folder / "source.spm").write_bytes(source_spm)
    (folder / "target.spm").write_bytes(target_spm)
    fixture.write_vocabulary(folder / fixture.VOCABULARY_FILE, pieces)
    arrays = fixture.weights(shape, len(pieces), seed=1)
    np.savez(folder / fixture.MODEL_FILE, **arrays,
             **{"special:model.yml": fixture.model_yml(shape.options(len(pieces)))})
    decoder = {"models": [fixture.MODEL_FILE], "vocabs": [fixture.VOCABULARY_FILE] * 2, "beam-size": 6,
               "normalize": 0.6, "relative-paths": True}
    (folder / "decoder.yml").write_text(yaml.safe_dump(decoder, sort_keys=False), encoding="utf-8")
    (folder / "README.md").write_text(fixture.README, encoding="utf-8")
    (folder / "LICENSE").write_text(fixture.LICENSE, encoding="utf-8")
    return folder


def measured(command: list[str]) -> tuple[float, float]:
    """(seconds, peak resident GiB) of a child process."""
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child so far
    return time.perf_counter() - started, peak_kib / 2**20


def ctranslate2_models(release: Path, work: Path) -> dict[str, Path]:
    from ctranslate2.converters import OpusMTConverter

    made = {}
    for quantization in ("float32", "int8"):
        out = work / f"ct2-{quantization}"
        if not out.is_dir():
            OpusMTConverter(str(release)).convert(str(out), quantization=quantization)
        made[f"ctranslate2-{quantization}"] = out
    return made


def ours(bundle: Path, backend: str, tokens: int):
    """A timer of one source on our `backend`: (first token ms, ms per later token)."""
    from studio.generate import DecodeOptions, DecodeSpec, decode_steps, strategy_for
    from studio.inference import TextGenerator

    generator = TextGenerator.from_path(bundle, backend, threads=1)
    options = DecodeOptions(max_new_tokens=tokens)

    def run(source: list[int]) -> tuple[float, float]:
        stamps, started = [], time.perf_counter()
        spec = DecodeSpec.for_model(generator.config.model, tokens)
        for _ in decode_steps(generator.runtime, [source], spec, strategy_for(options)):
            stamps.append(time.perf_counter())
        return (stamps[0] - started) * 1000, (stamps[-1] - stamps[0]) * 1000 / max(1, len(stamps) - 1)

    return run, generator.tokenizers.source


def theirs(model: Path, tokens: int, source_tokenizer):
    import ctranslate2

    translator = ctranslate2.Translator(str(model), device="cpu", intra_threads=1, inter_threads=1)

    def timed(pieces, length: int) -> float:
        started = time.perf_counter()
        translator.translate_batch([pieces], beam_size=1, max_decoding_length=length, min_decoding_length=length)
        return (time.perf_counter() - started) * 1000

    def run(source: list[int]) -> tuple[float, float]:
        """Its tokens come at once: the first token is a one-token translation's time, a later token's the
        difference to a --tokens one's, per token."""
        pieces = [source_tokenizer.id_to_piece(i) for i in source[:-1]]  # CTranslate2 adds </s> itself
        first = timed(pieces, 1)
        return first, (timed(pieces, tokens) - first) / max(1, tokens - 1)

    return run


def sizes(folder: Path) -> str:
    return ", ".join(f"{p.name} {p.stat().st_size / 2**20:.0f} MiB" for p in sorted(folder.iterdir())
                     if p.suffix in (".tflite", ".onnx", ".bin", ".npz") and p.stat().st_size > 2**20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path.home() / "studio-runs" / "real-shaped")
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="base", help="smoke: a tiny model, to try the "
                        "script in a minute")
    args = parser.parse_args()
    release, bundle = args.work / "release", args.work / "bundle"
    if not release.is_dir():
        write_release(release, args.vocab, SHAPES[args.shape])
    studio = [sys.executable, "-m", "studio.cli"]
    if not bundle.is_dir():
        print("import: %.1f s, peak %.2f GiB" % measured([*studio, "import", str(release), "--out", str(bundle)]))
    print("export: %.1f s, peak %.2f GiB" % measured([*studio, "export", str(bundle), "--quantize", "all",
                                                        "--onnx-quantize", "all", "--no-verify"]))
    runners, tokenizer = {}, None
    for backend in BACKENDS:
        runners[backend], tokenizer = ours(bundle, backend, args.tokens)
    for name, model in ctranslate2_models(release, args.work).items():
        runners[name] = theirs(model, args.tokens, tokenizer)
    korean, _ = fixture.sentences(count=8, seed=7)
    sources = [tokenizer.encode(text)[:60] + [tokenizer.eos_id] for text in korean]
    firsts, steps = {name: [] for name in runners}, {name: [] for name in runners}
    for _ in range(args.rounds):
        for source in sources:
            for name, run in runners.items():
                first, step = run(source)
                firsts[name].append(first)
                steps[name].append(step)
    parameters = sum(a.size for a in np.load(release / fixture.MODEL_FILE).values() if a.dtype == np.float32)
    print(f"{parameters / 1e6:.1f} M parameters, vocabulary {args.vocab:,}; {len(sources)} sources x "
          f"{args.rounds} rounds, {args.tokens} tokens each, one thread; medians")
    base = statistics.median(steps["ctranslate2-int8"])
    for name in runners:
        step = statistics.median(steps[name])
        print(f"  {name:18} first token {statistics.median(firsts[name]):8.1f} ms   {step:7.2f} ms/token   "
              f"{step / base:5.2f}x CTranslate2 int8's")
    from studio.variants import export_dir_for
    print("sizes:", sizes(export_dir_for(bundle)), "|", *(f"{p.name}: {sizes(p)}" for p in
                                                          sorted(args.work.glob("ct2-*"))))


if __name__ == "__main__":
    main()
