"""Where models, jobs, corpora, exports and downloads go (`studio.paths`): each folder variable means one folder, and
a STUDIO_DATA_DIR that names a corpus folder (the old advice) is warned about, its corpora still found, and no model
or training run written among the data."""

import warnings

import pytest

from studio import library, paths
from studio.bundle import default_bundle
from studio.data import sources
from studio.train import jobs
from studio.variants import export_dir_for


@pytest.fixture
def clean(monkeypatch, tmp_path):
    for name in (paths.DATA_VARIABLE, paths.CORPORA_VARIABLE, paths.CACHE_VARIABLE):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(paths.platformdirs, "user_data_dir", lambda app: str(tmp_path / "default-data" / app))
    monkeypatch.setattr(paths.platformdirs, "user_cache_dir", lambda app: str(tmp_path / "default-cache" / app))
    monkeypatch.setattr(paths, "_warned", set())
    return tmp_path


def corpus(folder):
    (folder / "chatbot").mkdir(parents=True)
    (folder / "chatbot" / "ChatbotData.csv").write_text("Q,A,label\n안녕,안녕하세요,0\n", encoding="utf-8")
    return folder


def test_each_variable_chooses_its_own_folder(clean, monkeypatch):
    mine, data, cache = clean / "mine", corpus(clean / "corpora"), clean / "cache"
    monkeypatch.setenv("STUDIO_DATA_DIR", str(mine))
    monkeypatch.setenv("STUDIO_CORPORA_DIR", str(data))
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(cache))
    assert library.models_dir() == mine / "models" and jobs.jobs_dir() == mine / "jobs"
    assert sources.chatbot_csv() == data / "chatbot" / "ChatbotData.csv"
    assert paths.downloads_dir() == cache / "data"
    shipped = export_dir_for(default_bundle("translator"))  # shipped bundles export into the cache
    assert shipped.parent == cache / "exports" and shipped.name.startswith("translator-")


def test_without_variables_the_platforms_folders_are_used(clean):
    assert library.data_dir() == clean / "default-data" / "transformer-studio"
    assert paths.cache_dir() == clean / "default-cache" / "transformer-studio"
    assert paths.downloads_dir() == clean / "default-cache" / "transformer-studio" / "data"
    assert paths.corpora_dir() is None


def test_a_data_dir_pointing_at_corpora_is_warned_about_and_still_searched(clean, monkeypatch):
    data = corpus(clean / "shared-data")
    monkeypatch.setenv("STUDIO_DATA_DIR", str(data))
    with pytest.warns(UserWarning, match="holds training data, not the app's models: set STUDIO_CORPORA_DIR="):
        models = library.models_dir()
    assert models == clean / "default-data" / "transformer-studio" / "models"  # not among the data
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once
        assert sources.chatbot_csv() == data / "chatbot" / "ChatbotData.csv"
        assert jobs.jobs_dir() == clean / "default-data" / "transformer-studio" / "jobs"


def test_a_data_dir_the_app_already_uses_is_kept_and_its_corpora_still_found(clean, monkeypatch):
    folder = corpus(clean / "portable")
    (folder / "models").mkdir()
    monkeypatch.setenv("STUDIO_DATA_DIR", str(folder))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert library.models_dir() == folder / "models" and paths.corpora_dir() == folder
        assert sources.chatbot_csv() == folder / "chatbot" / "ChatbotData.csv"


def test_a_data_dir_that_cannot_be_read_is_no_error(clean, monkeypatch):
    monkeypatch.setenv("STUDIO_DATA_DIR", str(clean / "locked"))
    monkeypatch.setattr(paths.Path, "exists", lambda self: (_ for _ in ()).throw(PermissionError(13, "denied")))
    assert paths.data_dir() == clean / "locked" and paths.corpora_dir() is None
