import pytest
from helpers import translate_lines
from typer.testing import CliRunner

from studio.cli import app
from studio.translation import finish_sentence, fit_to_length, split_sentences


def translate_cli(bundle, args, **options):
    """`studio translate` on the tiny bundle's TF backend (the default, TFLite, would export into it)."""
    return CliRunner().invoke(app, ["translate", "--bundle", str(bundle), "--backend", "tf", *args], **options)


def test_paragraphs_split_into_sentences():
    assert split_sentences("오바마는 대통령이다. 시민들은 도시 속에 산다!  커피는 필요 없다?") == [
        "오바마는 대통령이다.", "시민들은 도시 속에 산다!", "커피는 필요 없다?"]
    assert split_sentences("   ") == []


def test_too_long_sentences_split_at_clauses_then_words():
    count = lambda text: len(text.split())  # noqa: E731
    assert fit_to_length("가 나 다, 라 마 바, 사 아", count, 3) == ["가 나 다,", "라 마 바,", "사 아"]
    assert fit_to_length("가 나 다 라 마 바 사", count, 3) == ["가 나 다", "라 마 바", "사"]
    assert fit_to_length("짧다", count, 3) == ["짧다"]


def test_file_translation_keeps_line_count_order_and_empty_lines(tiny_generator):
    generator = tiny_generator
    lines = ["나는 커피를 좋아해?", "", "너는 영화를 봤어? 그는 책을 샀어?", "   ", "우리는 여행을 원해?"]
    outputs, _ = translate_lines(generator, lines)
    assert len(outputs) == len(lines)
    assert outputs[1] == "" and outputs[3] == ""
    # each sentence as the generator alone gives it, finished as every translation is (`finish_sentence`)
    single = {line: finish_sentence(line, generator(line))
              for line in ("나는 커피를 좋아해?", "너는 영화를 봤어?", "그는 책을 샀어?")}
    assert outputs[0] == single["나는 커피를 좋아해?"]
    assert outputs[2] == " ".join(t for t in (single["너는 영화를 봤어?"], single["그는 책을 샀어?"]) if t)


def test_a_very_long_line_is_split_and_joined_without_truncation(tiny_generator):
    generator = tiny_generator
    long_line = " ".join(["나는 커피를 좋아해, 너는 영화를 봤어"] * 12)
    outputs, warnings = translate_lines(generator, [long_line])
    assert len(outputs) == 1 and not [w for w in warnings if "only the first" in w]  # every piece fitted: none cut


def test_translate_file_cli(tiny_bundle, tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("나는 커피를 좋아해?\n\n그는 책을 샀어?\n", encoding="utf-8")
    target = tmp_path / "out.txt"
    result = translate_cli(tiny_bundle, ["--file", str(source), "--out", str(target)])
    assert result.exit_code == 0, result.output
    translated = target.read_text(encoding="utf-8").split("\n")
    assert len(translated) == 4 and translated[1] == "" and translated[3] == ""
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02\xff")
    failed = translate_cli(tiny_bundle, ["--file", str(binary)])
    assert failed.exit_code != 0 and "blob.txt" in str(failed.exception)
    # like every other format, a .txt is written beside the original unless --out says otherwise ("-": stdout)
    beside = translate_cli(tiny_bundle, ["--file", str(source)])
    assert beside.exit_code == 0 and (tmp_path / "in.en.txt").read_text(encoding="utf-8") == target.read_text(encoding="utf-8")
    piped = translate_cli(tiny_bundle, ["--file", str(source), "--out", "-"])
    assert piped.exit_code == 0 and piped.stdout == target.read_text(encoding="utf-8")


def test_translate_cli_names_what_is_wrong_before_loading_a_model(tmp_path):
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(b"%PDF-1.7")
    for arguments, expected in ((["  "], "the text is empty"), (["--file", str(tmp_path / "nope.srt")], "file not found"),
                                (["--file", str(tmp_path)], "is a folder"),
                                (["--file", str(pdf)], "cannot translate .pdf")):
        result = CliRunner().invoke(app, ["translate", "--bundle", str(tmp_path / "no-bundle"), *arguments])
        assert result.exit_code != 0 and expected in str(result.exception), (arguments, result.output)


def test_a_corpus_line_file_is_read_as_text_and_format_forces_a_reader(tiny_bundle, tmp_path):
    """`.ko`/`.en` line files are the corpus convention: read as plain text (said in a note), written as `.en`."""
    source = tmp_path / "test.ko"
    source.write_text("나는 커피를 좋아해?\n너는 영화를 봤어?\n", encoding="utf-8")
    result = translate_cli(tiny_bundle, ["--file", str(source)])
    assert result.exit_code == 0, result.output
    assert "test.ko: read as plain text" in result.output
    assert len((tmp_path / "test.en").read_text(encoding="utf-8").splitlines()) == 2
    notes = tmp_path / "notes.txt"  # Markdown in a .txt: --format md keeps its structure
    notes.write_text("# 제목\n\n- 나는 커피를 좋아해?\n", encoding="utf-8")
    forced = translate_cli(tiny_bundle, ["--file", str(notes), "--format", "md"])
    assert forced.exit_code == 0, forced.output
    written = (tmp_path / "notes.en.md").read_text(encoding="utf-8")  # named as the format it was read as
    assert written.startswith("# ") and "\n- " in written
    wrong = translate_cli(tiny_bundle, ["--file", str(source), "--format", "pdf"])
    assert wrong.exit_code != 0 and "--format pdf: not a document format" in str(wrong.exception)


SUBTITLES = ("1\n00:00:01,000 --> 00:00:02,500\n나는 커피를\n좋아해?\n\n"
             "2\n00:00:03,000 --> 00:00:04,000\n너는 영화를 봤어?\n")


def test_cli_translates_a_subtitle_file_keeping_numbers_and_timecodes(tiny_bundle, tmp_path):
    import srt

    source = tmp_path / "movie.srt"
    source.write_text(SUBTITLES, encoding="utf-8")
    result = translate_cli(tiny_bundle, ["--file", str(source)])
    assert result.exit_code == 0, result.output
    cues = list(srt.parse((tmp_path / "movie.en.srt").read_text(encoding="utf-8")))
    assert [(c.index, str(c.start), str(c.end)) for c in cues] == [(1, "0:00:01", "0:00:02.500000"),
                                                                  (2, "0:00:03", "0:00:04")]
    broken = tmp_path / "broken.srt"
    broken.write_text("1\n00:00:01,000 --> nonsense\n안녕\n", encoding="utf-8")
    failed = translate_cli(tiny_bundle, ["--file", str(broken)])
    assert failed.exit_code != 0 and "broken.srt" in str(failed.exception) and "Traceback" not in failed.output


def test_cli_scores_give_each_line_its_confidence_and_its_words(tiny_bundle, tiny_generator):
    import json

    result = translate_cli(tiny_bundle, ["--scores"],
                           input="나는 커피를 좋아해?\n\n너는 영화를 봤어? 그는 책을 샀어?\n")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 3 and rows[1] == {"translation": "", "confidence": 0.0, "words": []}
    for row in (rows[0], rows[2]):
        scores = [s for _, s in row["words"]]
        assert all(s <= 0 for s in scores) and row["confidence"] == pytest.approx(sum(scores) / len(scores), abs=1e-3)
    # the scores are the model's own log-probabilities of its output (teacher-forced again)
    generation = tiny_generator.generate(["나는 커피를 좋아해?"], scores=True)[0]
    assert finish_sentence("나는 커피를 좋아해?", generation.text) == rows[0]["translation"]
    assert generation.confidence.sentence == pytest.approx(rows[0]["confidence"], abs=1e-3)


def test_cli_scores_and_alternatives_of_a_file_in_cp949_say_how_it_was_read(tiny_bundle, tmp_path):
    source = tmp_path / "old.txt"
    source.write_bytes("나는 커피를 좋아해?\n".encode("cp949"))
    for option in (["--scores"], ["--alternatives", "2"]):
        result = translate_cli(tiny_bundle, [*option, "--file", str(source), "--out", "-"])
        assert result.exit_code == 0, result.output
        assert "read as CP949" in result.stderr and result.stdout.startswith('{"translation": ')


def test_cli_alternatives_are_different_translations_best_first(tiny_bundle):
    import json

    result = translate_cli(tiny_bundle, ["--alternatives", "3"], input="나는 커피를 좋아해?\n\n")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 2 and rows[1] == {"translation": "", "alternatives": []}
    found = rows[0]["alternatives"]
    assert 1 <= len(found) <= 3 and rows[0]["translation"] == found[0][0]
    assert len({t for t, _ in found}) == len(found) and [s for _, s in found] == sorted((s for _, s in found), reverse=True)


def test_cli_glossary_terms_reach_the_output_or_are_reported_missing(tiny_bundle, tmp_path):
    glossary = tmp_path / "terms.tsv"
    glossary.write_text("커피\tespresso\n영화\tthe film\n", encoding="utf-8")
    result = translate_cli(tiny_bundle, ["--glossary", str(glossary), "나는 커피를 좋아해? 너는 영화를 봤어?"])
    assert result.exit_code == 0, result.output
    translation = result.output.splitlines()[-1]  # the report comes before the translation
    assert "Xq" not in translation
    for term, english in (("커피", "espresso"), ("영화", "the film")):
        state = result.output.split(f"{term} → {english} (")[1].split(")")[0]
        assert state in ("applied", "not applied: the model dropped it")
        assert (english in translation) == (state == "applied")  # the tiny model may drop a placeholder
    broken = tmp_path / "broken.tsv"
    broken.write_text("커피\tcoffee\n영화 the film\n", encoding="utf-8")
    failed = translate_cli(tiny_bundle, ["--glossary", str(broken), "안녕"])
    assert failed.exit_code != 0 and "broken.tsv:2" in str(failed.exception)


def test_cli_alternatives_apply_a_glossary_and_report_it(tiny_bundle, tmp_path):
    import json

    glossary = tmp_path / "terms.tsv"
    glossary.write_text("커피\tespresso\n", encoding="utf-8")
    result = translate_cli(tiny_bundle, ["--alternatives", "2", "--glossary", str(glossary), "나는 커피를 좋아해?"])
    assert result.exit_code == 0, result.output
    [row] = [json.loads(line) for line in result.stdout.splitlines()]
    assert row["alternatives"] and not [t for t, _ in row["alternatives"] if "Xq" in t]
    state = result.stderr.split("커피 → espresso (")[1].split(")")[0]  # about the best one, the translation
    assert ("espresso" in row["translation"]) == (state == "applied")
