import io
import tarfile

import numpy as np
import pytest

from studio.data import (BucketedBatches, Example, Pair, clean_pairs, read_chatbot_csv, read_pairs,
                         read_parallel_files, read_park_tarball, read_tsv_pairs, split_train_dev)
from studio.data.sources import select_sources
from studio.errors import DataError
from tests.conftest import generated_pairs


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
    assert clean_pairs(pairs, lowercase_target=True) == [Pair("안녕 !", "hello !")]


def test_split_is_deterministic_and_keeps_a_source_on_one_side():
    pairs = [Pair(q, a) for q, a, _ in generated_pairs(200)]
    train, dev = split_train_dev(pairs, 0.2, seed=1)
    assert (train, dev) == split_train_dev(list(reversed(pairs))[::-1], 0.2, seed=1)
    assert not {p.source for p in train} & {p.source for p in dev}
    assert 0.05 < len(dev) / len(pairs) < 0.4


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
