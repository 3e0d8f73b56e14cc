"""Train the chatbot's reply ranker on the shipped chatbot's training split of ChatbotData (resumable):

    python scripts/train_chatbot_ranker.py --out ~/studio-runs/ranker/R1 [--epochs 3] [--max-minutes 40]

The encoder and embedding start from the chatbot bundle's generator (member 0 of an ensemble); the run's own
folder holds checkpoints, `epoch-N/` ranker files after each epoch and the final ranker files.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from studio.bundle import load_bundle  # noqa: E402
from studio.data.sources import chatbot_split  # noqa: E402
from studio.text.ranking import RankerConfig  # noqa: E402
from studio.train.ranker import RankerTraining, train_ranker, train_side_ranker  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--bundle", type=Path, default=PROJECT / "assets" / "chatbot")
    parser.add_argument("--data-dir", type=Path, default=PROJECT.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, default=0, help="train on the first N pairs only (a smoke test)")
    parser.add_argument("--kind", choices=("pair", "sides"), default="sides",
                        help="pair: a cross-encoder fine-tuned whole; sides: the encoder frozen, a head learns")
    for f in fields(RankerTraining):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    args = parser.parse_args()
    settings = RankerTraining(**{f.name: getattr(args, f.name) for f in fields(RankerTraining)})
    bundle = load_bundle(args.bundle)
    train, dev = chatbot_split(args.data_dir, bundle.config)
    print(f"split: {len(train):,} training pairs, {len(dev)} held out", flush=True)
    if args.limit:
        train = train[: args.limit]
    model = bundle.config.model
    config = RankerConfig(vocab_size=model.src_vocab_size, d_model=model.d_model, num_heads=model.num_heads,
                          d_ff=model.d_ff, num_layers=model.num_layers, epsilon=model.layer_norm_epsilon,
                          text_pipeline=bundle.config.task.text_pipeline)
    started = time.monotonic()
    trainer = train_side_ranker if args.kind == "sides" else train_ranker
    trainer(train, args.out, config, bundle.tokenizers, settings, bundle.weights,
            log=lambda line: print(f"[{time.monotonic() - started:7.0f}s] {line}", flush=True))


if __name__ == "__main__":
    main()
