"""Retrieval baseline and retrieve-and-refine data for the chatbot (issue 41; docs/chatbot-training.md).

The split is the shipped chatbot's: its dev side is `chatbot_dev_pairs(None, config)` with the shipped bundle's
config (566 held-out questions), its training side every other ChatbotData pair, deduplicated the same way.
Run with the environment's Python from the project root:

    # 1. a TF-IDF baseline (nearest training question -> its answer) per analyzer, scored as `studio eval chatbot`
    .venv/bin/python scripts/chatbot_refine_data.py baseline --out ~/studio-runs/rr-data/baseline.json
    # 2. the index and the retrieve-and-refine data: train.csv (training side only: `question | answer of the
    #    nearest other training question` -> answer) and dev.csv (held-out question | retrieved answer -> answer)
    .venv/bin/python scripts/chatbot_refine_data.py build --out ~/studio-runs/rr-data
    # 3. train on train.csv (the trainer's own dev split is then a slice of the training side), from a snapshot of
    #    studio/ when the work tree is being edited (docs/chatbot-training.md has the exact command), e.g.
    #    studio train chatbot --data ~/studio-runs/rr-data/train.csv --out ~/studio-runs/rr1 \
    #        --max-steps 15000 --max-minutes 135 --set model.max_source_len=48
    # 4. score a refine bundle on the real held-out split (greedy, TF), beside the retrieved answers themselves
    .venv/bin/python scripts/chatbot_refine_data.py eval --bundle ~/studio-runs/rr1 --data ~/studio-runs/rr-data
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.append(str(PROJECT))  # a PYTHONPATH snapshot of studio/ (see the docs) comes first

from studio.text.retrieval import ANALYZERS, RetrievalIndex  # noqa: E402

SEPARATOR = "|"  # in no ChatbotData question or answer; survives the translator pipeline; one piece `▁|`
SHIPPED = PROJECT / "assets" / "chatbot"


def refine_source(question: str, *retrieved: str, separator: str = SEPARATOR) -> str:
    """The refine model's input: the question and each retrieved answer, the separator between them."""
    return f" {separator} ".join([question.strip(), *(answer.strip() for answer in retrieved)])


def distinct_answers(index: RetrievalIndex, rows, top: int) -> list[str]:
    """The answers of the best `rows` ((row, cosine), best first), the same answer once, at most `top`."""
    return list(dict.fromkeys(index.answers[row] for row, _ in rows))[:top]


def shipped_split(data_dir=None, bundle: Path = SHIPPED):
    """(train pairs, dev pairs, config) of the bundle's split of ChatbotData, raw as written, each pair once
    (`studio.data.sources.chatbot_split`: what `studio eval chatbot` scores and its retrieval baseline indexes)."""
    from studio.config import BundleConfig
    from studio.data.sources import chatbot_split

    config = BundleConfig.load(Path(bundle) / "config.json")
    train, dev = chatbot_split(data_dir, config)
    return train, dev, config


def build_index(train, analyzer: str) -> RetrievalIndex:
    return RetrievalIndex.build([p.source for p in train], [p.target for p in train], analyzer)


def retrieved_for_dev(index: RetrievalIndex, dev) -> list[int]:
    return [index.query(p.source, 1)[0][0] for p in dev]


def score_row(name: str, dev, hypotheses: list[str], seconds: float = 0.0) -> dict:
    from studio.evaluate import score

    result = score(dev, hypotheses, name, seconds)
    return {"name": name, "chrf": round(result.chrf, 2), "bleu": round(result.bleu, 2),
            "repeating": round(result.repeating, 4), "distinct": round(result.distinct, 4), "pairs": len(dev),
            "chrf_signature": result.chrf_signature, "bleu_signature": result.bleu_signature}


def show(rows: list[dict]) -> None:
    print(f"{'run':<44} {'chrF':>6} {'BLEU':>6} {'repeat':>7} {'distinct':>8}")
    for r in rows:
        print(f"{r['name']:<44} {r['chrf']:6.2f} {r['bleu']:6.2f} {r['repeating']:7.1%} {r['distinct']:8.1%}")


def baseline(args) -> None:
    train, dev, _ = shipped_split(args.data_dir)
    print(f"{len(train):,} training pairs indexed, {len(dev)} held-out questions")
    rows = []
    for analyzer in args.analyzers.split(","):
        started = time.monotonic()
        index = build_index(train, analyzer)
        answers = [index.answers[i] for i in retrieved_for_dev(index, dev)]
        rows.append(score_row(f"TF-IDF {analyzer} (top 1)", dev, answers, time.monotonic() - started))
        rows[-1]["terms"] = len(index.vocabulary)
    shipped = json.loads((SHIPPED / "metrics.json").read_text()).get("evaluation", {}).get("chatbot_dev", {})
    if "greedy" in shipped:
        s = shipped["greedy"]
        rows.append({"name": "shipped K+S+T, greedy (its metrics.json)", **{k: s[k] for k in
                     ("chrf", "bleu", "repeating", "distinct", "pairs", "chrf_signature", "bleu_signature")}})
    show(rows)
    if args.out:
        Path(args.out).expanduser().write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")


def write_csv(path: Path, rows: list[tuple[str, str, str]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Q", "A", "label"])
        writer.writerows(rows)


def label_of(data_dir=None) -> dict:
    """ChatbotData's label per (question, answer), to keep its three columns."""
    from studio.data.sources import chatbot_csv

    with open(chatbot_csv(data_dir), encoding="utf-8-sig", newline="") as handle:
        return {(r["Q"].strip(), r["A"].strip()): r.get("label", "0") for r in csv.DictReader(handle)}


def build(args) -> None:
    out = Path(args.out).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    train, dev, config = shipped_split(args.data_dir)
    _check_separator(args.separator, config, train)
    index = build_index(train, args.analyzer)
    index.save(out / "index.npz")
    labels = label_of(args.data_dir)
    found = [index.nearest_excluding(i, 3 * args.top) for i in range(len(train))]
    nearest = [rows[0][0] for rows in found]
    blended = _alpha_blend(len(train), args.alpha, args.seed)
    place = random.Random(args.seed + 1)
    train_rows = []
    for i, (p, rows) in enumerate(zip(train, found)):
        answers = distinct_answers(index, rows, args.top)
        if i in blended:  # the gold answer among the retrieved ones, at a random place (α-blending)
            answers = [a for a in answers if a != p.target][: args.top - 1]
            answers.insert(place.randrange(len(answers) + 1), p.target)
        train_rows.append((refine_source(p.source, *answers, separator=args.separator), p.target,
                           labels.get((p.source, p.target), "0")))
    dev_rows = [(refine_source(p.source, *distinct_answers(index, index.query(p.source, 3 * args.top), args.top),
                               separator=args.separator), p.target, labels.get((p.source, p.target), "0"))
                for p in dev]
    write_csv(out / "train.csv", train_rows)
    write_csv(out / "dev.csv", dev_rows)
    stats = _stats(train, nearest, train_rows, dev_rows, dev, args.separator)
    stats.update(analyzer=args.analyzer, separator=args.separator, alpha=args.alpha, alpha_rows=len(blended), top=args.top,
                 index_bytes=(out / "index.npz").stat().st_size, terms=len(index.vocabulary))
    if args.tokens:
        stats.update(_token_lengths(config, train_rows, dev_rows, args.separator))
    (out / "stats.json").write_text(json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(stats, indent=2, ensure_ascii=False))


def _alpha_blend(rows: int, alpha: float, seed: int) -> set[int]:
    """The training rows whose "retrieved" answer is replaced by their own gold answer (Weston et al.'s
    α-blending), so the model learns to copy a retrieved answer that fits."""
    return set(random.Random(seed).sample(range(rows), round(rows * alpha)))


def _check_separator(separator: str, config, train) -> None:
    from studio.text.pipelines import pipeline_for

    pipeline = pipeline_for(config.task)
    if pipeline.source(f"a {separator} b") != f"a {separator} b":
        raise SystemExit(f"the separator {separator!r} does not survive the {config.task.text_pipeline} pipeline")
    if any(separator in p.source or separator in p.target for p in train):
        raise SystemExit(f"the separator {separator!r} occurs in the training text")


def _stats(train, nearest, train_rows, dev_rows, dev, separator: str) -> dict:
    same = sum(train[j].target == p.target for p, j in zip(train, nearest))
    copied_dev = sum(r[0].split(f" {separator} ")[1] == r[1] for r in dev_rows)
    among_dev = sum(r[1] in r[0].split(f" {separator} ")[1:] for r in dev_rows)
    chars = sorted(len(r[0]) for r in train_rows)
    return {"train_pairs": len(train_rows), "dev_pairs": len(dev_rows),
            "train_retrieved_is_gold": round(same / len(train), 4),
            "dev_retrieved_is_gold": round(copied_dev / len(dev), 4),
            "dev_gold_among_retrieved": round(among_dev / len(dev), 4),
            "train_source_chars_p50_p99_max": [chars[len(chars) // 2], chars[int(len(chars) * 0.99)], chars[-1]]}


def _token_lengths(config, train_rows, dev_rows, separator: str) -> dict:
    """Source and target lengths in pieces of a tokenizer trained as the trainer trains one (shared, 8k
    SentencePiece on the cleaned sources and targets), and how the separator is cut."""
    from studio.data import Pair, clean_pairs
    from studio.text import pipeline_for, train_tokenizer

    tk = config.tokenizer
    pairs = clean_pairs([Pair(q, a, "train.csv") for q, a, _ in train_rows], pipeline_for(config.task))
    tokenizer = train_tokenizer(tk.kind, [p.source for p in pairs] + [p.target for p in pairs], tk.vocab_size,
                                model_type=tk.model_type, character_coverage=tk.character_coverage,
                                byte_fallback=tk.byte_fallback)
    lengths = sorted(len(tokenizer.encode(p.source)) + 1 for p in pairs)
    dev_lengths = sorted(len(tokenizer.encode(q)) + 1 for q, _, _ in dev_rows)
    targets = sorted(len(tokenizer.encode(p.target)) + 1 for p in pairs)
    pick = lambda xs: [xs[len(xs) // 2], xs[int(len(xs) * 0.99)], xs[-1]]  # noqa: E731
    probe = tokenizer.encode(f"영화 볼래? {separator} 최신 영화가 좋을 것 같아요.")
    return {"separator_pieces": [tokenizer.decode([i]) or repr(i) for i in tokenizer.encode(separator)],
            "probe_ids": probe, "train_source_tokens_with_eos_p50_p99_max": pick(lengths),
            "dev_source_tokens_with_eos_p50_p99_max": pick(dev_lengths),
            "target_tokens_with_eos_p50_p99_max": pick(targets)}


def read_dev(path: Path):
    from studio.data.readers import read_chatbot_csv

    return read_chatbot_csv(path)


def evaluate_refine(args) -> None:
    from studio.evaluate import decode_all
    from studio.generate import DecodeOptions
    from studio.inference import TextGenerator

    data = Path(args.data).expanduser()
    augmented = read_dev(data / "dev.csv")
    _, dev, _ = shipped_split(args.data_dir)
    if [p.target for p in augmented] != [p.target for p in dev]:
        raise SystemExit(f"{data / 'dev.csv'} is not the shipped bundle's held-out split in order")
    retrieved = [p.source.split(f" {args.separator} ")[1] for p in augmented]  # the best retrieved answer
    generator = TextGenerator.from_path(Path(args.bundle).expanduser(), args.backend)
    started = time.monotonic()
    replies = decode_all(generator, [p.source for p in augmented], DecodeOptions(), args.batch_size)
    rows = [score_row("retrieved answer (the refine model's input)", dev, retrieved),
            score_row(f"refine {Path(args.bundle).name}, greedy ({args.backend})", dev, replies,
                      time.monotonic() - started)]
    rows[-1]["copied_retrieved"] = round(sum(r == c for r, c in zip(replies, retrieved)) / len(dev), 4)
    show(rows)
    print(f"replies equal to the retrieved answer: {rows[-1]['copied_retrieved']:.1%}")
    if args.hypotheses:
        Path(args.hypotheses).expanduser().write_text("".join(r + "\n" for r in replies), encoding="utf-8")
    if args.out:
        Path(args.out).expanduser().write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=None, help="holding chatbot/ChatbotData.csv [default: studio's search]")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("baseline", help="score TF-IDF retrieval on the shipped bundle's held-out split")
    p.add_argument("--analyzers", default=",".join(ANALYZERS))
    p.add_argument("--out", default=None, help="write the table as JSON here")
    p.set_defaults(run=baseline)
    p = commands.add_parser("build", help="write index.npz, train.csv, dev.csv and stats.json into --out")
    p.add_argument("--out", required=True)
    p.add_argument("--analyzer", default="char", choices=ANALYZERS)
    p.add_argument("--separator", default=SEPARATOR)
    p.add_argument("--alpha", type=float, default=0.0,
                   help="share of training rows given their own gold answer as the retrieved one (α-blending)")
    p.add_argument("--seed", type=int, default=1234, help="which rows α-blending picks")
    p.add_argument("--top", type=int, default=1, help="retrieved answers given to the model (distinct, best first)")
    p.add_argument("--tokens", action=argparse.BooleanOptionalAction, default=True,
                   help="also measure lengths in pieces of a tokenizer trained as the trainer would (~20 s)")
    p.set_defaults(run=build)
    p = commands.add_parser("eval", help="score a refine bundle on the held-out split with retrieved answers")
    p.add_argument("--bundle", required=True)
    p.add_argument("--data", required=True, help="the folder `build` wrote")
    p.add_argument("--separator", default=SEPARATOR)
    p.add_argument("--backend", default="tf", help="tf (no export needed) or an exported backend")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--hypotheses", default=None, help="write the replies here, one per line")
    p.add_argument("--out", default=None, help="write the table as JSON here")
    p.set_defaults(run=evaluate_refine)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
