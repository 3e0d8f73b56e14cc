"""Write the data of a chatbot's *backward* model, p(question | answer), for reranking candidate replies by mutual
information (Li et al. 2016): the forward bundle's own train/dev split of ChatbotData, each pair turned round, so
the backward model never trains on a question the forward model held out.

    python scripts/chatbot_backward_data.py assets/chatbot ../shared/data/chatbot/ChatbotData.csv OUT_DIR
    studio train chatbot --data OUT_DIR/train.tsv --dev OUT_DIR/dev.tsv --tokenizer assets/chatbot/tokenizer \
        --out ~/studio-runs/chat-backward --max-steps 15000
"""

from __future__ import annotations

import argparse
from pathlib import Path

from studio.config import BundleConfig
from studio.data import clean_pairs, read_pairs, split_train_dev
from studio.text.pipelines import pipeline_for


def write_pairs(path: Path, pairs) -> None:
    path.write_text("".join(f"{p.target}\t{p.source}\n" for p in pairs), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path, help="the forward chatbot bundle whose split is kept")
    parser.add_argument("csv", type=Path, help="ChatbotData.csv")
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    config = BundleConfig.load(args.bundle / "config.json")
    pairs = clean_pairs(read_pairs(args.csv), pipeline_for(config.task))
    train, dev = split_train_dev(pairs, config.train.dev_fraction, config.train.split_seed, config.train.dev_split)
    args.out.mkdir(parents=True, exist_ok=True)
    write_pairs(args.out / "train.tsv", train)
    write_pairs(args.out / "dev.tsv", dev)
    print(f"{len(train):,} train / {len(dev):,} dev pairs, answer -> question, in {args.out}")


if __name__ == "__main__":
    main()
