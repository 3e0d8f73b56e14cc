"""The benchmark's chart draws rows with a figure that could not be measured (CTranslate2's per-token time is
below timing noise on a tiny model): on a log axis such a value must not be drawn at zero."""


def test_a_latency_chart_with_an_unmeasured_value_is_saved(tmp_path):
    from studio.latency.bench import plot

    rows = [{"runtime": "tf", "ms_per_token_p50": 1.04, "first_token_ms_p50": 2.2, "total_ms_p50": 5.3},
            {"runtime": "tf-naive", "ms_per_token_p50": 1.06, "first_token_ms_p50": 1.4, "total_ms_p50": 4.6},
            {"runtime": "ctranslate2", "ms_per_token_p50": None, "first_token_ms_p50": 0.2, "total_ms_p50": 0.2}]
    for row in rows:
        row.update(output_tokens=4, threads=1)
    plot(rows, tmp_path / "chart.png")
    assert (tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"


def test_the_explore_tab_says_when_no_font_can_draw_hangul(monkeypatch):
    from studio.ui import figures

    monkeypatch.setattr(figures, "_KOREAN_FONT", "")  # looked for, none found
    assert "fonts-noto-cjk" in figures.korean_font_missing()
    monkeypatch.setattr(figures, "_KOREAN_FONT", "Noto Sans CJK KR")
    assert figures.korean_font_missing() is None
