import hashlib

import pytest

from studio.data import sources
from studio.errors import DataError


def test_download_checks_sha256_and_never_leaves_half_a_file(tmp_path):
    original = tmp_path / "remote.csv"
    original.write_text("Q,A,label\n안녕,반가워,0\n", encoding="utf-8")
    digest = hashlib.sha256(original.read_bytes()).hexdigest()
    target = tmp_path / "cache" / "ChatbotData.csv"

    sources.download(original.as_uri(), target, expected_sha256=digest)
    assert target.read_bytes() == original.read_bytes()
    assert (tmp_path / "cache" / "ChatbotData.csv.sha256").read_text().strip() == digest

    other = tmp_path / "cache" / "other.csv"
    with pytest.raises(DataError, match="sha256 mismatch"):
        sources.download(original.as_uri(), other, expected_sha256="0" * 64)
    assert not other.exists() and not list((tmp_path / "cache").glob("other.csv.*"))


def test_a_changed_download_is_noticed(tmp_path):
    original = tmp_path / "remote.csv"
    original.write_text("Q,A,label\n", encoding="utf-8")
    target = sources.download(original.as_uri(), tmp_path / "cache" / "data.csv")
    sources.verify_recorded_checksum(target)
    target.write_text("tampered", encoding="utf-8")
    with pytest.raises(DataError, match="checksum differs"):
        sources.verify_recorded_checksum(target)


def test_unreachable_download_says_to_use_local_files(tmp_path):
    with pytest.raises(DataError, match="--data-dir"):
        sources.download((tmp_path / "missing.csv").as_uri(), tmp_path / "x.csv")


def test_data_dir_search_order(tmp_path, monkeypatch):
    explicit, env = tmp_path / "explicit", tmp_path / "env"
    for folder in (explicit, env):
        (folder / "chatbot").mkdir(parents=True)
        (folder / "chatbot" / "ChatbotData.csv").write_text("Q,A,label\n")
    monkeypatch.setenv("STUDIO_CORPORA_DIR", str(env))
    assert sources.chatbot_csv(explicit) == explicit / "chatbot" / "ChatbotData.csv"
    assert sources.chatbot_csv() == env / "chatbot" / "ChatbotData.csv"
    with pytest.raises(DataError, match="ChatbotData.csv not found: pass --data-dir DIR or set STUDIO_CORPORA_DIR"):
        sources.chatbot_csv(tmp_path / "empty")
