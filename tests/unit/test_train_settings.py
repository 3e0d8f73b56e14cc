"""A training's settings from the Train tab and `--set`: an untouched field keeps the preset's value, and a shape a
training cannot start with is refused in plain words before any job is made."""

import pytest

from studio.config import apply_overrides, check_settings, preset_config
from studio.errors import StudioError
from studio.ui.train import ADVANCED, PRESETS, SCRATCH, overrides_for, preset_placeholders


def test_advanced_fields_left_empty_or_at_zero_keep_the_presets_shape():
    for untouched in (None, "", "  "):
        settings = overrides_for(SCRATCH, 0, 0, 1.0, 0, dict.fromkeys(ADVANCED, untouched))
        assert not [key for key in settings if key.startswith(("model.", "tokenizer."))]
    zeros = overrides_for(SCRATCH, 0, 0, 1.0, 0, dict.fromkeys(ADVANCED, "0"))  # 0 layers is no value; 0 dropout is
    assert [key for key in zeros if key.startswith(("model.", "tokenizer."))] == ["model.dropout"]
    chosen = overrides_for(SCRATCH, 0, 0, 1.0, 0, {**dict.fromkeys(ADVANCED, 0), "model.num_layers": 3})
    assert chosen["model.num_layers"] == "3"


def test_the_advanced_fields_show_the_chosen_presets_own_values():
    small, full = (preset_placeholders("translator", preset) for preset in PRESETS)
    d_model = list(ADVANCED).index("model.d_model")
    assert small[d_model] == f"{preset_config('translator', 'translator-small').model.d_model} (the preset's)"
    assert full[d_model] == f"{preset_config('translator').model.d_model} (the preset's)"
    assert small != full


@pytest.mark.parametrize("overrides, said", [
    ({"model.num_layers": "0"}, "encoder layers (model.num_layers) must be between 1 and 24, not 0"),
    ({"model.num_heads": "3"}, "d_model (256) must be a multiple of the attention heads (3)"),
    ({"model.d_model": "wide"}, "model.d_model must be a whole number, not 'wide'"),
    ({"model.dropout": "1.5"}, "dropout (model.dropout) must be between 0 and 0.9, not 1.5"),
    ({"tokenizer.vocab_size": "12"}, "the vocabulary size (tokenizer.vocab_size) must be between 64"),
])
def test_a_shape_no_training_can_start_with_is_refused_by_name(overrides, said):
    with pytest.raises(StudioError, match=said.replace("(", r"\(").replace(")", r"\)")):
        check_settings(apply_overrides(preset_config("chatbot"), overrides))


def test_a_whole_number_typed_with_a_decimal_point_is_taken():
    assert apply_overrides(preset_config("chatbot"), {"model.d_model": "128.0"}).model.d_model == 128


def test_a_job_with_an_impossible_shape_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    from studio.data.readers import Pair
    from studio.train import jobs

    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path))
    spec = jobs.JobSpec("chatbot", "my bot", preset="chatbot-small", overrides={"model.num_layers": "0"})
    with pytest.raises(StudioError, match="encoder layers"):
        jobs.create_job(spec, [Pair("안녕", "안녕하세요", "t")] * 3)
    assert not jobs.jobs_dir().exists() or not any(jobs.jobs_dir().iterdir())
