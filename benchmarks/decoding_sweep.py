"""Choose the translator's decoding defaults on the dev sets: every strategy decodes every tuning set the way
`studio translate --file` does (sentences and pieces that fit, automatic term protection on), in one run, and
the table prints cased chrF/BLEU per set, their mean, and seconds (with the ratio to greedy's time).

    python benchmarks/decoding_sweep.py --backend tflite greedy beam2 beam4 beam4:lp0.6 beam4:lp1.4 greedy:nr3

A strategy is `greedy` or `beamN`, optionally with `:lpX` (length penalty X) and `:nrN` (no repeated n-grams
of size N). park_test is never used here: choices are tuned on the dev sets.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from studio.data import read_pairs  # noqa: E402
from studio.data.sources import EVAL_SETS, TUNING_SETS, find_file  # noqa: E402
from studio.evaluate import evaluate  # noqa: E402
from studio.generate import DecodeOptions  # noqa: E402
from studio.serving import ServedModel  # noqa: E402
from studio.text.protect import Glossary, protector_for  # noqa: E402

SPEC = re.compile(r"^(greedy|beam(\d+))((?::lp[0-9.]+)|(?::nr\d+))*$")


def options_for(spec: str) -> DecodeOptions:
    if not SPEC.match(spec):
        sys.exit(f"cannot read strategy {spec!r}: greedy or beamN, then optionally :lpX and :nrN")
    name, *extras = spec.split(":")
    settings = {extra[:2]: extra[2:] for extra in extras}
    beam = int(name[4:]) if name.startswith("beam") else 1
    return DecodeOptions("beam" if beam > 1 else "greedy", beam_size=max(beam, 1),
                         length_penalty=float(settings.get("lp", 1.0)),
                         no_repeat_ngram_size=int(settings.get("nr", 0))).validate()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("strategies", nargs="+")
    parser.add_argument("--bundle", default=None, help="[default: the shipped translator]")
    parser.add_argument("--backend", default="tflite")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--limit", type=int, default=0, help="first N pairs of each set (0: all)")
    parser.add_argument("--json", default=None, help="write the rows here")
    args = parser.parse_args()

    strategies = {spec: options_for(spec) for spec in args.strategies}
    generator = ServedModel.shared("translator", args.bundle, build_missing=True, progress=print).generator(args.backend)
    protector = protector_for(Glossary(), True)  # the product's default: automatic protection on
    sets = {}
    for name in TUNING_SETS:
        path = find_file(EVAL_SETS[name], args.data_dir)
        if path is None:
            sys.exit(f"{name} not found (pass --data-dir)")
        pairs = [p for p in read_pairs(path) if p.source.strip()]
        sets[name] = pairs[: args.limit] if args.limit else pairs

    rows = {spec: {"strategy": spec, "seconds": 0.0} for spec in strategies}
    for name, pairs in sets.items():
        for result in evaluate(generator, pairs, strategies, protector=protector):
            row = rows[result.name]
            row[name] = {"chrf": round(result.chrf, 2), "bleu": round(result.bleu, 2), "pairs": len(pairs)}
            row["seconds"] += result.seconds
        print(f"{name}: done", flush=True)
    greedy_seconds = rows[args.strategies[0]]["seconds"]
    table = Table(title=f"decoding on {args.backend}: cased chrF / BLEU (sacrebleu), dev sets only")
    for column in ("strategy", *sets, "mean chrF", "seconds", f"× {args.strategies[0]}"):
        table.add_column(column)
    for row in rows.values():
        row["mean_chrf"] = round(sum(row[name]["chrf"] for name in sets) / len(sets), 2)
        table.add_row(row["strategy"], *(f"{row[n]['chrf']:.2f} / {row[n]['bleu']:.2f}" for n in sets),
                      f"{row['mean_chrf']:.2f}", f"{row['seconds']:.0f}", f"{row['seconds'] / greedy_seconds:.1f}")
    Console(width=160).print(table)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"backend": args.backend, "bundle": str(generator.bundle.path), "rows": list(rows.values())},
                      out, indent=1)


if __name__ == "__main__":
    main()
