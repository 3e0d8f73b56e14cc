"""A chatbot's stored replies (`studio.replies`): the training side of the split as written, the reply to a message
with where it came from, the modes, and the bundle file that keeps them."""

from __future__ import annotations

import json

import pytest

from studio.data.pipeline import Pair, clean_pairs, split_train_dev
from studio.replies import (GENERATE, NO_INDEX, NONE_STORED, REPLIES_FILE, RETRIEVE, build_replies, find_reply,
                            stored_reply, training_side)
from studio.text import pipeline_for
from studio.text.inputs import InputError

WRITTEN = [Pair("영화 볼래?", "최신 영화가 좋을 것 같아요."), Pair("넌 누구야?", "저는 위로봇입니다."),
           Pair("배고파", "뭐 좀 챙겨 드세요."), Pair("오늘 날씨는 어때?", "날씨 어플에 물어보세요."),
           Pair("넌  누구야 ?", "저는 위로봇입니다."), Pair("고마워", "")]
MODES = ("retrieve", "generate")


def test_stored_replies_are_the_training_side_as_written_never_a_dev_question():
    cleaned = clean_pairs(WRITTEN, pipeline_for("chatbot"))  # spaced punctuation: "영화 볼래 ?"
    train, dev = split_train_dev(cleaned, 0.4, seed=3)
    assert train and dev
    stored = training_side(WRITTEN, train, "letters-digits")
    dev_questions = {p.source.replace(" ", "").rstrip("?") for p in dev}
    assert stored and all(p.source.replace(" ", "").rstrip("?") not in dev_questions for p in stored)
    assert all(p in WRITTEN for p in stored)  # as written: "영화 볼래?", not the pipeline's "영화 볼래 ?"
    assert all(p.target for p in stored)  # a pair without an answer stores nothing


def test_the_reply_is_the_answer_of_the_most_alike_question_with_how_alike_and_which():
    index = build_replies([p for p in WRITTEN if p.target])
    found = find_reply(index, "너는 누구야")
    assert found.text == "저는 위로봇입니다." and found.question == "넌 누구야?"
    assert 0 < found.match < 1 and found.ms >= 0
    assert found.summary().startswith(f"stored reply · match {found.match:.2f} · answers “넌 누구야?”")
    assert find_reply(index, "🎉") is None  # no character n-gram in common: the model writes it


def test_the_mode_chooses_a_stored_reply_the_model_or_says_why_the_model_wrote_it():
    index = build_replies([p for p in WRITTEN if p.target])
    assert stored_reply(index, "배고파요", RETRIEVE, MODES)[0].text == "뭐 좀 챙겨 드세요."
    assert stored_reply(index, "배고파요", GENERATE, MODES) == (None, "")
    assert stored_reply(index, "🎉", RETRIEVE, MODES) == (None, NONE_STORED)
    assert stored_reply(None, "배고파요", RETRIEVE, MODES) == (None, NO_INDEX)
    with pytest.raises(InputError, match="Unknown reply mode 'ranked': choose retrieve .*, generate"):
        stored_reply(index, "배고파요", "ranked", MODES)


def test_a_bundle_keeps_its_stored_replies_checksummed_and_names_a_damaged_file(bundle_copy):
    from studio.bundle import load_bundle
    from studio.errors import BundleError

    bundle = load_bundle(bundle_copy)
    assert bundle.replies is not None and len(bundle.replies.questions) > 0  # training wrote them
    assert REPLIES_FILE in json.loads((bundle_copy / "checksums.json").read_text())
    damaged = bytearray((bundle_copy / REPLIES_FILE).read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    (bundle_copy / REPLIES_FILE).write_bytes(bytes(damaged))
    with pytest.raises(BundleError, match=f"{REPLIES_FILE}.*corrupted"):
        load_bundle(bundle_copy)


def test_the_portable_index_round_trips_and_scores_every_message_as_the_index_does():
    from studio.replies import PORTABLE_FILES, load_portable, manifest_section, portable_replies
    from studio.text.retrieval import PORTABLE, RetrievalIndex

    index = build_replies([p for p in WRITTEN if p.target])
    meta, arrays = index.portable()
    read = RetrievalIndex.from_portable(meta, arrays)
    assert (read.analyzer, read.vocabulary, read.questions, read.answers) == (
        index.analyzer, index.vocabulary, index.questions, index.answers)
    for name in ("idf", "indptr", "indices", "data"):
        assert getattr(read, name).tolist() == getattr(index, name).tolist(), name
    for message in ("너는 누구야", "배 고 파", "🎉", "", "영화 볼래? 날씨는?"):
        assert read.query(message, 3) == index.query(message, 3), message
    described = json.loads(meta)
    assert described["format"] == PORTABLE and described["byte_order"] == "little"
    assert [(a["name"], a["dtype"]) for a in described["arrays"]] == [
        ("idf", "float32"), ("indptr", "int32"), ("indices", "int32"), ("data", "float32")]
    assert len(arrays) == sum(a["length"] for a in described["arrays"]) * 4
    files = portable_replies(index, "chatbot/")
    assert set(files) == {"chatbot/replies.json", "chatbot/replies.bin"}
    section = manifest_section(index, MODES, "chatbot/")
    assert (section["index"], section["arrays"], section["modes"]) == (
        "chatbot/" + PORTABLE_FILES["index"], "chatbot/" + PORTABLE_FILES["arrays"], list(MODES))


def test_a_portable_index_that_does_not_add_up_is_refused_saying_what(tmp_path):
    from studio.replies import load_portable, manifest_section, portable_replies
    from studio.text.retrieval import RetrievalIndex

    index = build_replies([p for p in WRITTEN if p.target])
    for name, content in portable_replies(index).items():
        (tmp_path / name).write_bytes(content)
    assert load_portable(tmp_path, manifest_section(index, MODES)).questions == index.questions
    meta, arrays = index.portable()
    with pytest.raises(ValueError, match="the binary file ends before data does"):
        RetrievalIndex.from_portable(meta, arrays[:-4])
    wrong = json.loads(meta)
    wrong["answers"] = wrong["answers"][:-1]
    with pytest.raises(ValueError, match="sizes do not agree: answers"):
        RetrievalIndex.from_portable(json.dumps(wrong).encode(), arrays)
    with pytest.raises(ValueError, match="format 1"):
        RetrievalIndex.from_portable(json.dumps({**wrong, "format": 1}).encode(), arrays)
