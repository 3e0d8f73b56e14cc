"""Prepare a folder for `studio.train.accelerated` (a GPU machine with JAX and no TensorFlow): training pairs
through the task's text pipeline, evaluation-set sentences removed from them, the tuning sets, English news
for back-translation, a SentencePiece tokenizer and the bundle config.

    python -m studio.train.prepare_accelerated --out prep/ --vocab 16000 [--sources all] [--data-dir DIR]
    python -m studio.train.prepare_accelerated --out prep/ --tokenizer-from assets/translator   # to fine-tune it
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from studio.config import BundleConfig, translator_preset
from studio.data.readers import read_pairs, read_text_lines
from studio.data.sources import EN_MONO, EVAL_SETS, TUNING_SETS, find_file, koen_source_files, select_sources
from studio.text import SentencePieceTokenizer, TokenizerPair, pipeline_for
from studio.text.tokenizers import BACK_TRANSLATION_TAG


def prepare(out: Path, vocab_size: int = 16000, sources: str | None = None, data_dir=None,
            separate_vocab: bool = False, mono_lines: int = 0, config: BundleConfig | None = None,
            max_words: int = 120, tokenizer_from: Path | None = None) -> dict:
    """The folder; `tokenizer_from` (a bundle) reuses that bundle's tokenizer and config instead of training
    a tokenizer, so a run warm-started from that bundle reads the same pieces."""
    out = Path(out)
    (out / "dev").mkdir(parents=True, exist_ok=True)
    if tokenizer_from is not None:
        config = BundleConfig.load(Path(tokenizer_from) / "config.json")
    config = config or translator_preset()
    pipeline = pipeline_for(config.task)

    evaluation_sources = set()
    for name, relative in EVAL_SETS.items():
        path = find_file(relative, data_dir)
        if path is None:
            continue
        pairs = read_pairs(path)
        evaluation_sources |= {pipeline.source(p.source) for p in pairs}
        if name in TUNING_SETS:
            rows = [f"{pipeline.source(p.source)}\t{p.target.strip()}" for p in pairs]
            (out / "dev" / f"{name}.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")

    chosen = select_sources(sources)
    raw = []
    for source, path in zip(chosen, koen_source_files(chosen, data_dir)):
        raw += [(pipeline.source(p.source), pipeline.target(p.target), source.name) for p in read_pairs(path)]
    seen, train = set(), []
    overlap = 0
    for s, t, origin in raw:
        if not s or not t or (s, t) in seen or len(s.split()) > max_words or len(t.split()) > max_words:
            continue
        if s in evaluation_sources:
            overlap += 1
            continue
        seen.add((s, t))
        train.append((s, t, origin))
    (out / "train.tsv").write_text("".join(f"{s}\t{t}\t{o}\n" for s, t, o in train), encoding="utf-8")

    mono = []
    for relative in EN_MONO.values():
        path = find_file(relative, data_dir)
        if path is not None:
            mono += [pipeline.target(line) for line in read_text_lines(path)]
    mono = [line for line in dict.fromkeys(mono) if line]
    random.Random(0).shuffle(mono)
    if mono_lines:
        mono = mono[:mono_lines]
    (out / "mono_en.txt").write_text("\n".join(mono) + "\n", encoding="utf-8")

    if tokenizer_from is not None:
        tokenizers = TokenizerPair.load(Path(tokenizer_from) / "tokenizer")
    else:
        tokenizers = _train_tokenizers(train, mono, config, vocab_size, separate_vocab)
    tokenizers.save(out / "tokenizer")

    m = config.model
    m.src_vocab_size, m.tgt_vocab_size = tokenizers.source.vocab_size, tokenizers.target.vocab_size
    m.share_embeddings = tokenizers.shared
    config.tokenizer.vocab_size, config.tokenizer.shared = tokenizers.source.vocab_size, tokenizers.shared
    config.task.sources = sorted({source.path.rsplit("/", 1)[-1] for source in chosen})
    config.save(out / "config.json")
    summary = {"train_pairs": len(train), "raw_pairs": len(raw), "dropped_eval_overlap": overlap,
               "mono_lines": len(mono), "vocab": [tokenizers.source.vocab_size, tokenizers.target.vocab_size]}
    print(summary)
    return summary


def _train_tokenizers(train, mono, config: BundleConfig, vocab_size: int, separate_vocab: bool) -> TokenizerPair:
    korean, english = [s for s, _, _ in train], [t for _, t, _ in train]
    options = dict(model_type=config.tokenizer.model_type, character_coverage=config.tokenizer.character_coverage,
                   byte_fallback=True, user_symbols=[BACK_TRANSLATION_TAG])
    if separate_vocab:
        tokenizers = TokenizerPair(SentencePieceTokenizer.train(korean, vocab_size, **options),
                                   SentencePieceTokenizer.train(english + mono[: len(english)], vocab_size, **options))
    else:
        shared = SentencePieceTokenizer.train(korean + english + mono[: len(english) // 2], vocab_size, **options)
        tokenizers = TokenizerPair(shared, shared)
    return tokenizers


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--vocab", type=int, default=16000)
    parser.add_argument("--sources", default="all")
    parser.add_argument("--data-dir")
    parser.add_argument("--separate-vocab", action="store_true")
    parser.add_argument("--mono-lines", type=int, default=0)
    parser.add_argument("--tokenizer-from", help="a bundle whose tokenizer and config to reuse (to fine-tune it)")
    args = parser.parse_args(argv)
    prepare(Path(args.out), args.vocab, args.sources, args.data_dir, args.separate_vocab, args.mono_lines,
            tokenizer_from=args.tokenizer_from)


if __name__ == "__main__":
    main()
