"""The Train tab's "Use ChatbotData" on a computer without it: the tab offers the download (with progress) instead
of command-line advice, fetches it into the user's cache folder, and previews it."""

import gradio as gr
import pytest

from studio import paths
from studio.data import sources
from studio.errors import DataError


@pytest.fixture
def no_chatbot_data(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sources, "candidate_data_dirs", lambda explicit=None: [("download cache",
                                                                                 paths.downloads_dir())])
    original = tmp_path / "ChatbotData.csv"
    original.write_text("Q,A,label\n" + "".join(f"질문 {i}?,대답 {i}.,0\n" for i in range(40)), encoding="utf-8")
    monkeypatch.setattr(sources, "CHATBOT_URL", original.as_uri())
    return original


def test_a_download_reports_its_progress_and_lands_where_the_data_is_looked_for(no_chatbot_data):
    heard = []
    path = sources.download_chatbot_data(lambda done, total: heard.append((done, total)))
    assert path == paths.downloads_dir() / "chatbot" / "ChatbotData.csv" == sources.chatbot_csv()
    size = no_chatbot_data.stat().st_size
    assert heard[-1] == (size, size)


def test_the_train_tab_offers_the_download_then_previews_the_data(no_chatbot_data):
    from studio.ui.train import TrainTab

    with gr.Blocks():
        tab = TrainTab({})
    report, *_, fetch = tab.preview("chatbot", None, True, None, None, False)
    assert "ChatbotData is not on this computer yet: **Download ChatbotData**" in report and fetch.visible
    report, *_, fetch = tab.fetch_chatbot_data("chatbot", None, True, None, None, False,
                                               progress=lambda *args, **kwargs: None)
    assert "40" in report and fetch.visible is False
    assert sources.chatbot_csv().read_bytes() == no_chatbot_data.read_bytes()


def test_a_failed_download_says_how_to_do_without_internet(no_chatbot_data, monkeypatch):
    monkeypatch.setattr(sources, "CHATBOT_URL", (no_chatbot_data.parent / "gone.csv").as_uri())
    with pytest.raises(DataError, match="without internet, copy the file to .*STUDIO_CORPORA_DIR"):
        sources.download_chatbot_data()
