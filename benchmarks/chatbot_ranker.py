"""The chatbot's reply ranker against retrieval alone, on the shipped chatbot's held-out questions:

    python benchmarks/chatbot_ranker.py --ranker ~/studio-runs/ranker/R1 [--backward ~/studio-runs/chat-backward]
        [--generated] [--cache ~/studio-runs/ranker/features]

The 566 held-out pairs of the shipped chatbot's split (`studio.data.sources.chatbot_split`, as `studio eval
chatbot` scores them) are cut in two by a hash of the question (`studio.train.ranker.tune_test_split`): every
variant's weights are chosen on the tune half (corpus chrF) and reported on both, the test half being the result.
Candidates: the distinct answers of TF-IDF retrieval's best training rows (k of them). Features: the ranker's
score, the retrieval cosine, a backward model's mean log p(question | answer) (Li et al. 2016's mutual
information) and, with --generated, the shipped generator's greedy reply as one more candidate. Scores: sacrebleu
chrF and BLEU as `studio.evaluate` computes them, exact hits (the reply is the reference) and distinct replies.
The slow features are cached (JSON) in --cache, so a rerun only rescores.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from studio.evaluate import score  # noqa: E402
from studio.text.ranking import Ranker, candidates, combine  # noqa: E402
from studio.text.retrieval import RetrievalIndex  # noqa: E402
from studio.train.ranker import tune_test_split  # noqa: E402

COSINE_GRID = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 12.0, 20.0, 1000.0)  # 1000: retrieval's own order
VOTES_GRID = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
BACKWARD_GRID = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
GENERATED_GRID = (-1e9, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0)


def held_out(data_dir: Path, bundle: Path):
    from studio.config import BundleConfig
    from studio.data.sources import chatbot_split

    train, dev = chatbot_split(data_dir, BundleConfig.load(bundle / "config.json"))
    tune, test = tune_test_split(dev)
    return train, dev, tune, test


def cached(path: Path | None, compute):
    if path is not None and path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    value = compute()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return value


def backward_scores(bundle_path: Path, questions: list[str], answer_lists: list[list[str]]) -> list[list[float]]:
    """Mean log p(question | answer) per target token (its `</s>` included) under a backward bundle."""
    import tensorflow as tf

    from studio.bundle import load_bundle

    bundle = load_bundle(bundle_path)
    model, pre = bundle.build_model(), bundle.preprocessor
    tokenizer, limit = bundle.tokenizers.target, bundle.config.model.max_target_len - 1
    flat = [(q, a) for q, answers in zip(questions, answer_lists) for a in answers]
    scores = []
    for start in range(0, len(flat), 256):
        chunk = flat[start:start + 256]
        sources = [pre.encode(a)[0] for _, a in chunk]
        targets = [tokenizer.encode(pre.pipeline.target(q))[:limit] for q, _ in chunk]
        width_s, width_t = max(map(len, sources)), max(map(len, targets)) + 1
        src = np.array([s + [0] * (width_s - len(s)) for s in sources], np.int32)
        t_in = np.array([[1] + t + [0] * (width_t - 1 - len(t)) for t in targets], np.int32)
        t_out = np.array([t + [2] + [0] * (width_t - 1 - len(t)) for t in targets], np.int32)
        logp = tf.nn.log_softmax(model((src, t_in), training=False), axis=-1).numpy()
        picked = np.take_along_axis(logp, t_out[..., None], -1)[..., 0] * (t_out != 0)
        scores += list(picked.sum(1) / (t_out != 0).sum(1))
    out, position = [], 0
    for answers in answer_lists:
        out.append([float(s) for s in scores[position:position + len(answers)]])
        position += len(answers)
    return out


def generated_replies(bundle: Path, questions: list[str]) -> list[str]:
    from studio.cli.common import load_generator
    from studio.generate import DecodeOptions

    generator = load_generator(bundle, "chatbot", "tflite")
    return [g.text for i in range(0, len(questions), 32)
            for g in generator.generate(questions[i:i + 32], options=DecodeOptions(strategy="greedy"))]


def features_for(pair, found, ranker, backward, generated):
    """The features of one question's candidates (+ the generated reply as the last one where given)."""
    answers = list(found.answers) + ([generated] if generated is not None else [])
    features = {"cosine": np.array(list(found.cosines) + [0.0] * (generated is not None)),
                "votes": np.array(list(found.votes) + [0.0] * (generated is not None)),
                "generated": np.array([0.0] * len(found.answers) + [1.0] * (generated is not None))}
    if ranker is not None:
        features["ranker"] = ranker.scores(pair.source, answers)
    if backward is not None:
        features["backward"] = np.array(backward)
    return answers, features


def choose_all(rows, weights: dict, k: int, with_generated: bool) -> list[str]:
    """The reply each question gets: the best of its first k retrieved candidates (and the generated one)."""
    replies = []
    for answers, features in rows:
        retrieved = len(answers) - int(features["generated"].sum())
        keep = list(range(min(k, retrieved))) + ([len(answers) - 1] if with_generated and retrieved < len(answers)
                                                  else [])
        total = combine({name: values[keep] for name, values in features.items()}, weights)
        replies.append(answers[keep[int(np.argmax(total))]])
    return replies


def measure(pairs, replies) -> dict:
    result = score(pairs, replies, "", 0.0)
    exact = np.mean([r.strip() == p.target.strip() for p, r in zip(pairs, replies)])
    return {"chrf": result.chrf, "bleu": result.bleu, "exact": float(exact), "distinct": result.distinct}


def oracle(pairs, rows, k: int) -> list[str]:
    """The candidate closest to the reference (sentence chrF): the ceiling of choosing among k."""
    import sacrebleu

    return [max(answers[:k], key=lambda a: sacrebleu.sentence_chrf(a, [p.target]).score)
            for p, (answers, _) in zip(pairs, rows)]


def grid(variant: dict) -> list[dict]:
    """Every weighting a variant's grid allows: its fixed weights plus each combination of its free ones."""
    free = variant.get("free", {})
    names = list(free)
    return [{**variant["fixed"], **dict(zip(names, values))} for values in itertools.product(*free.values())]


def tune_variant(variant: dict, tune, tune_rows) -> tuple[dict, dict]:
    """(the weights with the best tune chrF, that score)."""
    best = None
    for weights in grid(variant):
        result = measure(tune, choose_all(tune_rows, weights, variant["k"], variant.get("generated", False)))
        if best is None or result["chrf"] > best[1]["chrf"]:
            best = (weights, result)
    return best


def variants(has_ranker: bool, has_backward: bool, has_generated: bool) -> list[dict]:
    rows = [{"name": "retrieval top-1 (baseline)", "k": 1, "fixed": {"cosine": 1.0}}]
    for k in (10, 20):
        rows.append({"name": f"votes + λ·cosine (no model), top-{k}", "k": k, "fixed": {"votes": 1.0},
                     "free": {"cosine": COSINE_GRID}})
        if has_ranker:
            rows.append({"name": f"ranker, top-{k}", "k": k, "fixed": {"ranker": 1.0}})
            rows.append({"name": f"ranker + λ·cosine + ν·votes, top-{k}", "k": k, "fixed": {"ranker": 1.0},
                         "free": {"cosine": COSINE_GRID, "votes": VOTES_GRID}})
            rows.append({"name": f"ranker + λ·cosine, top-{k}", "k": k, "fixed": {"ranker": 1.0},
                         "free": {"cosine": COSINE_GRID}})
        if has_backward:
            rows.append({"name": f"backward (MI) + λ·cosine + ν·votes, top-{k}", "k": k, "fixed": {"backward": 1.0},
                         "free": {"cosine": COSINE_GRID, "votes": VOTES_GRID}})
        if has_ranker and has_backward:
            rows.append({"name": f"ranker + λ·cosine + μ·backward, top-{k}", "k": k, "fixed": {"ranker": 1.0},
                         "free": {"cosine": COSINE_GRID, "backward": BACKWARD_GRID}})
        if has_ranker and has_generated:
            rows.append({"name": f"ranker + λ·cosine + the generator's reply, top-{k}", "k": k, "generated": True,
                         "fixed": {"ranker": 1.0}, "free": {"cosine": COSINE_GRID, "generated": GENERATED_GRID}})
    return rows


def table(results: list[dict]) -> str:
    head = ("| variant | weights (chosen on tune) | tune chrF | tune BLEU | **test chrF** | **test BLEU** | test exact "
            "| test distinct |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
    lines = []
    for r in results:
        weights = ", ".join(f"{n} {v:g}" for n, v in r["weights"].items() if v) if r["weights"] else "—"
        lines.append(f"| {r['name']} | {weights} | {r['tune']['chrf']:.2f} | {r['tune']['bleu']:.2f} | "
                     f"{r['test']['chrf']:.2f} | {r['test']['bleu']:.2f} | {r['test']['exact']:.1%} | "
                     f"{r['test']['distinct']:.1%} |")
    return head + "\n".join(lines)


def latency(ranker: Ranker, index: RetrievalIndex, pairs, k: int, repeats: int = 100) -> dict:
    """Milliseconds per reply on this CPU: retrieval's candidates, then the ranker over them."""
    retrieve, rank = [], []
    for pair in pairs[:repeats]:
        started = time.perf_counter()
        found = candidates(index, pair.source, k)
        middle = time.perf_counter()
        ranker.scores(pair.source, found.answers)
        retrieve.append(middle - started)
        rank.append(time.perf_counter() - middle)
    return {"k": k, "retrieval_ms": 1000 * float(np.median(retrieve)), "ranker_ms": 1000 * float(np.median(rank))}


def feature_rows(dev, sets, ranker, backward, generated, ranker_scores=None):
    rows = [features_for(p, found, None if ranker_scores else ranker, None if backward is None else backward[i],
                         None if generated is None else generated[i])
            for i, (p, found) in enumerate(zip(dev, sets))]
    for i, (_, features) in enumerate(rows if ranker_scores else []):
        features["ranker"] = np.array(ranker_scores[i][: len(features["cosine"])])
    return rows


def ranker_scores(ranker, dev, sets, generated, path: Path | None) -> list[list[float]]:
    """The ranker's scores of every question's candidates (and the generated reply), cached in `path`."""
    lists = [f.answers + ([generated[i]] if generated else []) for i, f in enumerate(sets)]
    return cached(path, lambda: [[float(v) for v in ranker.scores(p.source, answers)]
                                 for p, answers in zip(dev, lists)])


def evaluate_rows(rows_all, dev, tune, test, has) -> list[dict]:
    position = {id(p): i for i, p in enumerate(dev)}
    tune_rows = [rows_all[position[id(p)]] for p in tune]
    test_rows = [rows_all[position[id(p)]] for p in test]
    results = []
    for variant in variants(*has):
        weights, tuned = tune_variant(variant, tune, tune_rows)
        replies = choose_all(test_rows, weights, variant["k"], variant.get("generated", False))
        results.append({"name": variant["name"], "weights": weights, "tune": tuned, "test": measure(test, replies)})
    for k in (10, 20):
        results.append({"name": f"oracle among the top-{k} (the ceiling)", "weights": {},
                        "tune": measure(tune, oracle(tune, tune_rows, k)),
                        "test": measure(test, oracle(test, test_rows, k))})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranker", type=Path, nargs="*", default=[],
                        help="ranker folders; the best on tune is reported")
    parser.add_argument("--backward", type=Path, help="a backward chatbot bundle, p(question | answer)")
    parser.add_argument("--generated", action="store_true", help="the shipped generator's greedy reply as a candidate")
    parser.add_argument("--bundle", type=Path, default=PROJECT / "assets" / "chatbot")
    parser.add_argument("--data-dir", type=Path, default=PROJECT.parent / "shared" / "data")
    parser.add_argument("--cache", type=Path, help="a folder for the slow features (backward scores, replies)")
    parser.add_argument("--json", type=Path, help="write every figure here too")
    args = parser.parse_args()
    train, dev, tune, test = held_out(args.data_dir, args.bundle)
    print(f"split: {len(train):,} training pairs, {len(dev)} held out = {len(tune)} tune + {len(test)} test")
    index = RetrievalIndex.build([p.source for p in train], [p.target for p in train], "char")
    sets = [candidates(index, p.source, 20) for p in dev]
    cache = (lambda name: args.cache / name) if args.cache else (lambda name: None)
    generated = cached(cache("generated.json"), lambda: generated_replies(args.bundle, [p.source for p in dev])) \
        if args.generated else None
    lists = [f.answers + ([generated[i]] if generated else []) for i, f in enumerate(sets)]
    backward = cached(cache("backward-with-generated.json" if generated else "backward.json"),
                      lambda: backward_scores(args.backward, [p.source for p in dev], lists)) if args.backward else None
    report = {"split": {"train": len(train), "held_out": len(dev), "tune": len(tune), "test": len(test)}, "epochs": {}}
    best = (None, None, -1.0, None)
    for path in args.ranker:  # the ranker (an epoch's files) whose "ranker + λ·cosine" scores best on tune
        ranker = Ranker.load(path)
        name = f"ranker-{path.parent.name}-{path.name}{'-g' if generated else ''}.json"
        scores = ranker_scores(ranker, dev, sets, generated, cache(name))
        rows_all = feature_rows(dev, sets, ranker, None, generated, scores)
        tuned = max(tune_variant(v, tune, [rows_all[dev.index(p)] for p in tune])[1]["chrf"]
                    for v in variants(True, False, False) if v["name"].startswith("ranker + λ·cosine, "))
        report["epochs"][str(path)] = tuned
        print(f"{path}: ranker + λ·cosine on tune {tuned:.2f}", flush=True)
        if tuned > best[2]:
            best = (path, ranker, tuned, scores)
    path, ranker = best[0] or "(none)", best[1]
    rows_all = feature_rows(dev, sets, ranker, backward, generated, best[3])
    results = evaluate_rows(rows_all, dev, tune, test, (ranker is not None, backward is not None, bool(generated)))
    best = (None, results, path, ranker)
    report["ranker"], report["results"] = str(best[2]), best[1]
    if best[3] is not None:
        report["latency"] = [latency(best[3], index, dev, k) for k in (10, 20)]
        print("latency:", report["latency"])
    print(f"\nranker: {best[2]}\n" + table(best[1]))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False, default=float), encoding="utf-8")


if __name__ == "__main__":
    main()
