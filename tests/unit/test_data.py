import io
import tarfile

import numpy as np
import pytest

from studio.data import (BucketedBatches, Example, Pair, clean_pairs, read_chatbot_csv, read_pairs,
                         read_parallel_files, read_park_tarball, read_tsv_pairs, split_train_dev)
from studio.data.pipeline import encode_pairs
from studio.data.sources import select_sources
from studio.errors import DataError
from studio.text import SentencePieceTokenizer, TextPipeline, TokenizerPair
from helpers import generated_pairs


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def test_reads_chatbot_csv_questions_and_answers(chat_csv):
    pairs = read_chatbot_csv(chat_csv)
    assert len(pairs) == 40
    assert pairs[0].source.endswith("?") and pairs[0].origin == "ChatbotData.csv"


def test_csv_without_answer_column_names_file_and_line(tmp_path):
    path = write(tmp_path / "bad.csv", "Q,label\n안녕,0\n")
    with pytest.raises(DataError, match=r"bad\.csv:1: missing column\(s\) A"):
        read_chatbot_csv(path)


def test_csv_with_short_row_names_the_line(tmp_path):
    path = write(tmp_path / "short.csv", "Q,A,label\n안녕,반가워,0\n혼자\n")
    with pytest.raises(DataError, match=r"short\.csv:3: expected 3 columns, found 1"):
        read_chatbot_csv(path)


def test_tsv_line_without_tab_is_reported_with_its_line_number(tmp_path):
    path = write(tmp_path / "pairs.tsv", "안녕\thello\n이건 탭이 없다\n")
    with pytest.raises(DataError, match=r"pairs\.tsv:2: expected two tab-separated columns"):
        read_tsv_pairs(path)


def test_undecodable_bytes_are_reported_with_their_line(tmp_path):
    path = write(tmp_path / "cp949.tsv", "안녕\thello\n".encode("utf-8") + "세상\tworld\n".encode("cp949"))
    with pytest.raises(DataError, match=r"cp949\.tsv:2: not valid UTF-8"):
        read_tsv_pairs(path)


def test_binary_file_is_rejected(tmp_path):
    path = write(tmp_path / "blob.tsv", b"a\tb\n\x00\x01\x02")
    with pytest.raises(DataError, match="binary"):
        read_tsv_pairs(path)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(DataError, match="nope.tsv: file not found"):
        read_pairs(tmp_path / "nope.tsv")


def test_parallel_files_must_have_the_same_line_count(tmp_path):
    ko = write(tmp_path / "c.ko", "하나\n둘\n셋\n")
    en = write(tmp_path / "c.en", "one\ntwo\n")
    with pytest.raises(DataError, match="has 3 lines but .*c.en has 2"):
        read_parallel_files(ko, en)
    write(en, "one\ntwo\nthree\n")
    assert [p.target for p in read_pairs(ko)] == ["one", "two", "three"]


def test_reads_the_park_tarball_layout(tmp_path):
    path = tmp_path / "korean-english-park.dev.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, text in (("korean-english-park.dev.ko", "오바마는 대통령이다.\n"),
                           ("korean-english-park.dev.en", "Obama is president.\n")):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    assert read_park_tarball(path) == [Pair("오바마는 대통령이다.", "Obama is president.", path.name)]


def test_corrupt_tarball_is_named(tmp_path):
    path = write(tmp_path / "broken.tar.gz", b"not a tarball")
    with pytest.raises(DataError, match="broken.tar.gz: not a readable"):
        read_park_tarball(path)


def test_cleaning_normalizes_lowercases_target_and_dedupes():
    pairs = [Pair("안녕!", "Hello!"), Pair("안녕 !", "hello !"), Pair("😀", "smile")]
    assert clean_pairs(pairs, TextPipeline("tutorial", lowercase_target=True)) == [Pair("안녕 !", "hello !")]


def test_translator_cleaning_keeps_text_as_written_and_dedupes_exact_repeats():
    pairs = [Pair("오바마(Obama)는 말했다: \"네.\"", "Obama said: \"Yes.\""), Pair("오바마(Obama)는  말했다: \"네.\"",
             "Obama said:  \"Yes.\""), Pair("\u200b", "nothing")]
    assert clean_pairs(pairs, TextPipeline("translator")) == [Pair("오바마(Obama)는 말했다: \"네.\"",
                                                                  "Obama said: \"Yes.\"")]


def test_source_weights_resample_each_epoch_by_origin():
    from studio.data.pipeline import parse_source_weights

    questions = list(dict.fromkeys(q for q, _, _ in generated_pairs(300)))[:60]
    tokenizers = TokenizerPair(*(2 * [SentencePieceTokenizer.train(questions, 200)]))
    pairs = [Pair(q, q, "news.tsv") for q in questions[:30]] + [Pair(q, q, "bible.tsv") for q in questions[30:]]
    weights = parse_source_weights("news=3,bible=0.5")
    examples = encode_pairs(pairs, tokenizers, 40, 40, source_weights=weights)
    batches = BucketedBatches(examples, 4, 8, 40, 1, 2, seed=3)
    epoch = [row.tolist() for src, _, _ in batches.epoch(0) for row in src if row.any()]
    news = {tuple(e.source) for e in examples if e.weight == 3.0}
    counted = sum(tuple(r[: r.index(2) + 1]) in news for r in epoch)
    assert counted == 3 * len([e for e in examples if e.weight == 3.0])  # whole weights: exactly 3 each
    bible_rows = len(epoch) - counted
    assert 0 < bible_rows < len([e for e in examples if e.weight == 0.5])  # about half of them
    other = [row.tolist() for src, _, _ in batches.epoch(1) for row in src if row.any()]
    assert sorted(map(tuple, other)) != sorted(map(tuple, epoch))  # drawn anew each epoch
    assert encode_pairs(pairs, tokenizers, 40, 40, source_weights={"bible": 0}) == \
        encode_pairs(pairs[:30], tokenizers, 40, 40)  # weight 0 leaves a source out
    with pytest.raises(ValueError, match="NAME=NUMBER"):
        parse_source_weights("news:3")


def test_split_is_deterministic_and_keeps_a_source_on_one_side():
    pairs = [Pair(q, a) for q, a, _ in generated_pairs(200)]
    train, dev = split_train_dev(pairs, 0.2, seed=1)
    assert (train, dev) == split_train_dev(list(reversed(pairs))[::-1], 0.2, seed=1)
    assert not {p.source for p in train} & {p.source for p in dev}
    assert 0.05 < len(dev) / len(pairs) < 0.4


def test_split_ignores_spacing_punctuation_and_case():
    """Two text pipelines write one question differently; both runs must put it on the same side."""
    pairs = [Pair(q, a) for q, a, _ in generated_pairs(200)]
    respelled = [Pair(p.source.replace(" ", "  ").replace("?", " ?").upper() + "!", p.target) for p in pairs]
    train, dev = split_train_dev(pairs, 0.2, seed=1)
    train2, dev2 = split_train_dev(respelled, 0.2, seed=1)
    assert [p.target for p in dev] == [p.target for p in dev2] and len(train) == len(train2)


def test_source_selection_knows_licenses():
    names = {s.name for s in select_sources("commercial-safe")}
    assert "kss" not in names and "kornli_xnli" not in names and "bible_krv_web" in names
    assert [s.name for s in select_sources("kss,pawsx")] == ["kss", "pawsx"]
    with pytest.raises(DataError, match="unknown source 'nope'"):
        select_sources("kss,nope")


def test_buckets_pad_dynamically_with_one_shape_per_bucket():
    rng = np.random.default_rng(0)
    examples = [Example(list(rng.integers(4, 50, rng.integers(1, 20))) + [2], list(rng.integers(4, 50, rng.integers(1, 20))))
                for _ in range(100)]
    batches = BucketedBatches(examples, batch_size=8, bucket_width=4, max_len=24, bos_id=1, eos_id=2)
    seen_rows, shapes = 0, set()
    for source, target_in, target_out in batches.epoch(0):
        shapes.add(source.shape)
        assert source.shape == target_in.shape == target_out.shape
        assert source.shape[1] in (4, 8, 12, 16, 20, 24)
        assert source.shape[0] == batches.batch_sizes[source.shape[1]]
        real = target_out != 0
        rows = np.flatnonzero(real.sum(1))
        lengths = real.sum(1)[rows]
        assert np.all(target_in[rows, 0] == 1)  # decoder input starts with <s>
        assert np.all(target_out[rows, lengths - 1] == 2)  # labels end with </s>
        seen_rows += len(rows)
    assert seen_rows == len(examples)  # partial batches are filled with padding rows, nothing dropped
    assert len(shapes) == len(batches.buckets)  # one compiled shape per bucket
    assert min(width for _, width in shapes) < 24  # short pairs are not padded to the maximum
    assert batches.target_tokens == sum(len(e.target) + 1 for e in examples)
    first = [b[0].tolist() for b in batches.epoch(3)]
    assert first == [b[0].tolist() for b in batches.epoch(3)]  # an epoch's order is reproducible (resume)
    assert first != [b[0].tolist() for b in batches.epoch(4)]  # and differs between epochs


def test_tf_data_pipeline_yields_the_same_bucketed_batches():
    rng = np.random.default_rng(1)
    examples = [Example(list(rng.integers(4, 50, rng.integers(1, 12))) + [2], list(rng.integers(4, 50, rng.integers(1, 12))))
                for _ in range(30)]
    batches = BucketedBatches(examples, batch_size=4, bucket_width=4, max_len=16, bos_id=1, eos_id=2)
    from_numpy = [tuple(a.tolist() for a in b) for b in batches.epoch(2)]
    from_tf = [tuple(t.numpy().tolist() for t in b) for b in batches.dataset(2)]
    assert from_tf == from_numpy


def test_subword_sampling_changes_segmentations_between_epochs_but_never_the_text():
    from studio.data.pipeline import SampledBatches

    sentences = ["Obama met the Prime Minister in Seoul.", "오바마는 서울에서 총리를 만났다.",
                 "The President said yes.", "대통령은 네라고 말했다."] * 10
    tokenizer = SentencePieceTokenizer.train(sentences, vocab_size=300)
    tokenizers = TokenizerPair(tokenizer, tokenizer)
    pairs = [Pair(e, k, "news.tsv") for k, e in zip(sentences[1::2], sentences[0::2])]  # English: many segmentations
    batches = SampledBatches(pairs, tokenizers, 0.1, dict(max_source_len=64, max_target_len=64),
                             dict(batch_size=4, bucket_width=8, max_len=64, bos_id=1, eos_id=2, seed=5))

    def segmentations(epoch):
        rows = [row[row != 0].tolist() for src, _, _ in batches.epoch(epoch, shuffle=False) for row in src]
        return sorted(tuple(r) for r in rows if r)

    first, second = segmentations(0), segmentations(1)
    assert first != second  # other pieces in another epoch
    texts = lambda rows: sorted(tokenizer.decode(list(r)) for r in rows)  # noqa: E731
    assert texts(first) == texts(second) == sorted(p.source for p in pairs)
    assert len(batches) == len(BucketedBatches(encode_pairs(pairs, tokenizers, 64, 64), 4, 8, 64, 1, 2, seed=5))


@pytest.mark.parametrize("split, pipeline", [("letters-digits", "translator"), ("letters-digits", "tutorial"),
                                             ("pipeline-text", "tutorial")])  # the last: bundles made before 2026-11
def test_the_chatbot_dev_set_is_what_the_bundles_training_left_out(tmp_path, split, pipeline):
    """`studio eval chatbot`'s set: the raw pairs whose cleaned form the trainer put on the dev side, by the
    bundle's own split (older bundles hashed their pipeline's text)."""
    from studio.config import chatbot_preset
    from studio.data.sources import chatbot_dev_pairs
    from studio.text.pipelines import pipeline_for

    rows = [(q.replace("?", " ?") if i % 2 else q, a) for i, (q, a, _) in enumerate(generated_pairs(300, seed=3))]
    (tmp_path / "ChatbotData.csv").write_text("Q,A,label\n" + "".join(f"{q},{a},0\n" for q, a in rows),
                                              encoding="utf-8")
    config = chatbot_preset()
    config.train.dev_fraction, config.train.dev_split, config.task.text_pipeline = 0.3, split, pipeline
    cleaned = clean_pairs([Pair(q, a) for q, a in rows], pipeline_for(config.task))
    _, dev = split_train_dev(cleaned, 0.3, config.train.seed, split)
    held_out = chatbot_dev_pairs(tmp_path, config)
    normalize = pipeline_for(config.task)
    assert {(normalize.source(p.source), normalize.target(p.target)) for p in held_out} == \
        {(p.source, p.target) for p in dev}


def test_another_training_seed_holds_out_the_same_dev_pairs(tmp_path):
    """A run with another `train.seed` (new initial weights and batch order) is judged on the same held-out
    pairs; bundles from before `train.split_seed` existed drew their split with their training seed."""
    from studio.config import BundleConfig, chatbot_preset
    from studio.data.sources import chatbot_dev_pairs

    rows = [(q, a) for q, a, _ in generated_pairs(300, seed=4)]
    (tmp_path / "ChatbotData.csv").write_text("Q,A,label\n" + "".join(f"{q},{a},0\n" for q, a in rows),
                                              encoding="utf-8")
    config = chatbot_preset()
    config.train.dev_fraction = 0.3
    before = chatbot_dev_pairs(tmp_path, config)
    config.train.seed = 4321
    assert chatbot_dev_pairs(tmp_path, config) == before
    config.train.split_seed = 4321
    assert chatbot_dev_pairs(tmp_path, config) != before

    old = chatbot_preset().to_dict()
    del old["train"]["split_seed"]
    old["train"]["seed"] = 77
    assert BundleConfig.from_dict(old).train.split_seed == 77
    assert BundleConfig.from_dict(chatbot_preset().to_dict()).train.split_seed == 1234


def test_the_chatbot_split_parts_every_pair_into_training_and_held_out(tmp_path):
    """What the retrieval baseline indexes (the training side) never holds a held-out pair, and together they are
    every pair once."""
    from studio.config import chatbot_preset
    from studio.data.sources import chatbot_dev_pairs, chatbot_split

    rows = [(q, a) for q, a, _ in generated_pairs(300, seed=5)]
    (tmp_path / "ChatbotData.csv").write_text("Q,A,label\n" + "".join(f"{q},{a},0\n" for q, a in rows),
                                              encoding="utf-8")
    config = chatbot_preset()
    train, dev = chatbot_split(tmp_path, config)
    assert dev == chatbot_dev_pairs(tmp_path, config) and dev and train
    assert not {(p.source, p.target) for p in train} & {(p.source, p.target) for p in dev}
    assert {(p.source, p.target) for p in train + dev} == {(q.strip(), a.strip()) for q, a in rows}


def test_the_retrieval_baseline_answers_a_known_question_with_its_answer():
    from studio.evaluate import RETRIEVAL, retrieval_baseline

    train = [Pair("영화 볼래?", "최신 영화가 좋을 것 같아요."), Pair("배고파", "뭐 좀 챙겨 드세요.")]
    result = retrieval_baseline(train, [Pair("영화 볼래", "최신 영화가 좋을 것 같아요.")])
    assert result.name == RETRIEVAL and result.hypotheses == ["최신 영화가 좋을 것 같아요."] and result.chrf == 100.0
