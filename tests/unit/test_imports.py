"""studio.data.imports: a Train tab upload (chatbot CSV/TSV, translator TSV/CSV, .ko/.en line files, TMX) read into
pairs with a preview report, and the errors a user gets for files that can't be trained on."""

import csv
import io
import subprocess
import sys

import pytest

import studio.data.imports as imports
from studio.data import Pair, split_train_dev
from studio.data.imports import ColumnsNeeded, SidesSwapped, read_training_upload, split_dev
from studio.errors import DataError


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def chats(count, start=0):
    return [(f"{n}번 질문 있어요?", f"{n}번 답변이에요, 고마워요.") for n in range(start, start + count)]


def translations(count, start=0):
    return [(f"오늘은 {n}번째 날이에요.", f"Today is day {n}.") for n in range(start, start + count)]


def table(rows, delimiter=",", header=None):
    """A TSV (tabs, no quoting) or a CSV written by the csv module (quoted where a cell holds the delimiter)."""
    rows = ([header] if header else []) + list(rows)
    if delimiter == "\t":
        return "".join("\t".join(row) + "\n" for row in rows)
    text = io.StringIO()
    csv.writer(text, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return text.getvalue()


def tmx(units, attribute="xml:lang"):
    """`units`: one {language: seg XML} per <tu>."""
    body = "".join("<tu>" + "".join(f'<tuv {attribute}="{lang}"><seg>{seg}</seg></tuv>' for lang, seg in unit.items())
                   + "</tu>\n" for unit in units)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="ko"/><body>\n{body}</body></tmx>'


# chatbot CSVs

def test_chatbotdata_csv_reads_question_and_answer_columns(tmp_path):
    rows = [(q, a, "0") for q, a in chats(25)]
    path = write(tmp_path / "ChatbotData.csv", table(rows, header=("Q", "A", "label")))
    data = read_training_upload(path, "chatbot")
    assert len(data.pairs) == 25 and data.report.pairs == 25
    assert data.pairs[0] == Pair("0번 질문 있어요?", "0번 답변이에요, 고마워요.", "ChatbotData.csv")
    assert any("column 'Q' and column 'A'" in note for note in data.report.notes)


def test_two_column_csv_with_other_header_names_and_semicolons(tmp_path):
    path = write(tmp_path / "chat.csv", table(chats(22), ";", header=("질문내용", "답변내용")))
    data = read_training_upload([path], "chatbot")
    assert len(data.pairs) == 22  # the header is no pair, and the answers' commas split nothing
    assert data.pairs[0].target == "0번 답변이에요, 고마워요."
    assert any("semicolon-separated" in note and "'질문내용'" in note for note in data.report.notes)


def test_two_unnamed_columns_are_used_in_order(tmp_path):
    headless = write(tmp_path / "headless.csv", table(chats(21)))
    data = read_training_upload(headless, "chatbot")
    assert len(data.pairs) == 21 and data.pairs[0].source == "0번 질문 있어요?"  # the first row is data
    assert any("(no header row)" in note for note in data.report.notes)
    latin = write(tmp_path / "latin.csv", table(chats(21), header=("text_a", "text_b")))
    assert len(read_training_upload(latin, "chatbot").pairs) == 21  # Latin names over Korean text: a header


def test_csv_with_unclear_columns_lists_them_then_reads_the_chosen_ones(tmp_path):
    rows = [(str(n), q, a, "1") for n, (q, a) in enumerate(chats(20))]
    path = write(tmp_path / "export.csv", table(rows, header=("id", "first", "second", "score")))
    with pytest.raises(ColumnsNeeded, match=r"export\.csv:1: .*'id', 'first', 'second', 'score'") as raised:
        read_training_upload(path, "chatbot")
    assert raised.value.columns == ["id", "first", "second", "score"]
    data = read_training_upload(path, "chatbot", columns=("first", "second"))
    assert data.pairs[3] == Pair("3번 질문 있어요?", "3번 답변이에요, 고마워요.", "export.csv")
    with pytest.raises(DataError, match=r"has no column 'reply'; the columns are 'id', 'first', 'second', 'score'"):
        read_training_upload(path, "chatbot", columns=("first", "reply"))


def test_one_column_file_says_what_it_expected(tmp_path):
    path = write(tmp_path / "list.csv", "".join(f"{q}\n" for q, _ in chats(20)).replace(",", ""))
    with pytest.raises(DataError, match=r"list\.csv:1: found one column"):
        read_training_upload(path, "chatbot")


# translator files

def test_translator_tsv_keeps_quotes_as_text(tmp_path):
    rows = translations(20) + [('"안녕"이라고 그가 말했다', '"Hi," he said')]
    path = write(tmp_path / "pairs.tsv", table(rows, "\t", header=("ko", "en")))
    data = read_training_upload(path, "translator")
    assert len(data.pairs) == 21 and data.pairs[-1] == Pair('"안녕"이라고 그가 말했다', '"Hi," he said', "pairs.tsv")


def test_ko_and_en_uploads_pair_by_name_or_beside(tmp_path):
    rows = translations(20)
    ko = write(tmp_path / "corpus.ko", "".join(k + "\n" for k, _ in rows))
    en = write(tmp_path / "corpus.en", "".join(e + "\n" for _, e in rows))
    for upload in ([en, ko], [ko]):  # the English file uploaded (in any order), or lying beside the Korean one
        data = read_training_upload(upload, "translator")
        assert data.pairs[5] == Pair(rows[5][0], rows[5][1], "corpus")
    with pytest.raises(DataError, match="needs its Korean partner"):
        read_training_upload([en], "translator")


def test_line_files_with_different_line_counts_name_both_counts(tmp_path):
    rows = translations(21)
    ko = write(tmp_path / "a.ko", "".join(k + "\n" for k, _ in rows))
    en = write(tmp_path / "a.en", "".join(e + "\n" for _, e in rows[:20]) + "\n\n")  # trailing blank lines: no line
    with pytest.raises(DataError, match=r"a\.ko: has 21 lines but a\.en has 20; .*line-aligned"):
        read_training_upload([ko, en], "translator")


def test_tmx_with_regional_language_codes(tmp_path):
    units = [{"ko-KR": k, "en-US": e} for k, e in translations(20)]
    data = read_training_upload(write(tmp_path / "memory.tmx", tmx(units)), "translator")
    assert data.pairs[0] == Pair("오늘은 0번째 날이에요.", "Today is day 0.", "memory.tmx")
    assert "memory.tmx: TMX languages: en-US, ko-KR" in data.report.notes


def test_tmx_with_the_old_lang_attribute_and_any_case(tmp_path):
    units = [{"EN-gb": e, "KO-kr": k} for k, e in translations(20)]
    data = read_training_upload(write(tmp_path / "old.tmx", tmx(units, attribute="lang")), "translator")
    assert data.pairs[1] == Pair("오늘은 1번째 날이에요.", "Today is day 1.", "old.tmx")


def test_tmx_inline_markup_is_dropped_and_highlighted_text_kept(tmp_path):
    marked = {"ko": '<bpt i="1">&lt;b&gt;</bpt>굵은<ept i="1">&lt;/b&gt;</ept> 글씨<ph>&lt;br/&gt;</ph>입니다',
              "en": "<hi>bold</hi> text<ph x='1'>{0}</ph>"}
    units = [{"ko": k, "en": e} for k, e in translations(20)] + [marked]
    data = read_training_upload(write(tmp_path / "inline.tmx", tmx(units)), "translator")
    assert data.pairs[-1] == Pair("굵은 글씨입니다", "bold text", "inline.tmx")


def test_tmx_unit_missing_a_side_is_dropped_and_counted(tmp_path):
    units = [{"ko": k, "en": e} for k, e in translations(20)] + [{"ko": "번역이 없어요", "ja": "翻訳なし"}]
    data = read_training_upload(write(tmp_path / "gaps.tmx", tmx(units)), "translator")
    assert data.report.pairs == 20 and data.report.dropped == {"missing English side (TMX)": 1}


def test_tmx_without_english_names_the_missing_language_and_those_found(tmp_path):
    units = [{"ko-KR": k, "ja-JP": "今日は"} for k, _ in translations(20)]
    with pytest.raises(DataError, match=r"no English side: .*the languages found are ja-JP, ko-KR"):
        read_training_upload(write(tmp_path / "koja.tmx", tmx(units)), "translator")


def test_tmx_entities_are_not_resolved(tmp_path):
    secret = write(tmp_path / "secret.txt", "SECRET")
    units = [{"ko": k, "en": e} for k, e in translations(20)] + [{"ko": "비밀은 &leak;", "en": "the secret is &leak;"}]
    text = tmx(units).replace("<tmx ", f'<!DOCTYPE tmx [<!ENTITY leak SYSTEM "file://{secret}">]>\n<tmx ', 1)
    data = read_training_upload(write(tmp_path / "hostile.tmx", text), "translator")
    assert data.pairs[-1] == Pair("비밀은", "the secret is", "hostile.tmx")


# encodings and damaged files

def test_utf8_with_bom_reads_the_first_column_name(tmp_path):
    path = write(tmp_path / "bom.csv", table(chats(20), header=("Q", "A")), "utf-8-sig")
    data = read_training_upload(path, "chatbot")
    assert data.pairs[0].source == "0번 질문 있어요?" and not any("CP949" in note for note in data.report.notes)


def test_cp949_korean_is_read_with_a_note(tmp_path):
    path = write(tmp_path / "legacy.tsv", table(translations(20), "\t"), "cp949")
    data = read_training_upload(path, "translator")
    assert data.pairs[0].source == "오늘은 0번째 날이에요."
    assert any("legacy.tsv" in note and "CP949" in note for note in data.report.notes)


def test_binary_upload_says_what_it_is(tmp_path):
    with pytest.raises(DataError, match=r"data\.csv: is a ZIP archive"):
        read_training_upload(write(tmp_path / "data.csv", b"PK\x03\x04" + bytes(range(256))), "chatbot")
    with pytest.raises(DataError, match=r"data\.tmx:1: not a readable TMX"):
        read_training_upload(write(tmp_path / "data.tmx", b"PK\x03\x04" + bytes(range(256))), "translator")


def test_empty_file_is_an_error(tmp_path):
    with pytest.raises(DataError, match=r"empty\.csv: empty file"):
        read_training_upload(write(tmp_path / "empty.csv", ""), "chatbot")
    with pytest.raises(DataError, match=r"blank\.tsv: empty file"):
        read_training_upload(write(tmp_path / "blank.tsv", "\n \n"), "translator")


def test_file_over_the_limit_is_refused_before_reading(tmp_path, monkeypatch):
    path = write(tmp_path / "big.csv", table(chats(100), header=("Q", "A")))
    monkeypatch.setattr(imports, "_read_bytes", lambda path: pytest.fail("read a file over the limit"))
    with pytest.raises(DataError, match=r"big\.csv: is [\d,]+ bytes, over the 1,000-byte limit"):
        read_training_upload(path, "chatbot", max_bytes=1000)


def test_unknown_suffix_and_translation_files_for_a_chatbot_are_errors(tmp_path):
    with pytest.raises(DataError, match=r"notes\.docx: unknown format"):
        read_training_upload(write(tmp_path / "notes.docx", "x"), "chatbot")
    with pytest.raises(DataError, match=r"m\.tmx: holds translations"):
        read_training_upload(write(tmp_path / "m.tmx", tmx([{"ko": "가", "en": "a"}])), "chatbot")


# dropped rows and the minimum

def test_empty_rows_and_duplicates_are_dropped_and_counted(tmp_path):
    rows = chats(20) + [("", ""), ("답 없는 질문", ""), ("", "질문 없는 답")] + chats(3)
    path = write(tmp_path / "messy.csv", table(rows, header=("Q", "A")) + "\n\n")
    report = read_training_upload(path, "chatbot").report
    assert report.pairs == 20 and report.duplicates == 3
    assert report.dropped == {"empty question or answer": 3, "duplicate pair": 3}


def test_duplicates_across_files_count_once(tmp_path):
    first = write(tmp_path / "one.tsv", table(translations(20), "\t"))
    second = write(tmp_path / "two.tsv", table(translations(10, start=15), "\t"))
    data = read_training_upload([first, second], "translator")
    assert data.report.pairs == 25 and data.report.duplicates == 5 and data.report.files == ["one.tsv", "two.tsv"]
    assert data.pairs[-1].origin == "two.tsv"


def test_untranslated_rows_are_dropped(tmp_path):
    rows = translations(20) + [("BTS", "BTS"), ("서울", "서울")]
    report = read_training_upload(write(tmp_path / "same.tsv", table(rows, "\t")), "translator").report
    assert report.pairs == 20 and report.dropped == {"source equals target": 2}


def test_too_few_pairs_says_how_many_were_found_and_needed(tmp_path):
    path = write(tmp_path / "few.csv", table(chats(5) + chats(2), header=("Q", "A")))
    with pytest.raises(DataError, match=r"found 5 usable pairs \(dropped: duplicate pair \(2\)\); at least 20 are"):
        read_training_upload(path, "chatbot")
    assert len(read_training_upload(path, "chatbot", min_pairs=5).pairs) == 5
    assert imports.MIN_PAIRS == 20


# the translator's languages

def test_swapped_translator_columns_are_an_error_then_read_with_swap(tmp_path):
    swapped = write(tmp_path / "swapped.tsv", table([(e, k) for k, e in translations(20)], "\t"))
    with pytest.raises(SidesSwapped, match=r"swapped\.tsv: the sides look swapped: .*other way round"):
        read_training_upload(swapped, "translator")
    right = write(tmp_path / "right.tsv", table(translations(5, start=20), "\t"))
    data = read_training_upload([swapped, right], "translator", swap=True)
    assert len(data.pairs) == 25 and all(pair.source.startswith("오늘은") for pair in data.pairs)
    assert any("swapped.tsv: sides swapped" in note for note in data.report.notes)


def test_translator_side_in_the_wrong_language(tmp_path):
    english = write(tmp_path / "english.tsv", table([(e, e.upper()) for _, e in translations(20)], "\t"))
    with pytest.raises(DataError, match=r"english\.tsv:1: the Korean side has no Korean"):
        read_training_upload(english, "translator")
    korean = write(tmp_path / "korean.tsv", table([(k, q) for (k, _), (q, _) in zip(translations(20), chats(20))], "\t"))
    with pytest.raises(DataError, match=r"korean\.tsv:1: the English side is mostly Korean"):
        read_training_upload(korean, "translator")


# the report

def test_report_counts_first_rows_lengths_and_markdown(tmp_path):
    rows = [("가" * n, "b" * (2 * n)) for n in range(1, 23)] + [("가|나", "a|b")]
    report = read_training_upload(write(tmp_path / "sizes.tsv", table(rows, "\t")), "translator").report
    assert report.pairs == 23 and report.dropped == {} and report.duplicates == 0
    assert report.first_rows == rows[:5]
    assert report.source_chars == (1, 11, 22) and report.target_chars == (2, 22, 44)  # with 가|나's 3, a|b's 3
    markdown = report.as_markdown()
    assert "| Pairs kept | 23 |" in markdown and "| Dropped | none |" in markdown and "| 가 | bb |" in markdown
    assert markdown.startswith("| Files | ")  # its first row is the header: no empty row above it
    assert "min 1 · median 11 · max 22" in markdown


def test_markdown_escapes_cells(tmp_path):
    rows = [("가\\|나", "a|b")] + translations(20)
    markdown = read_training_upload(write(tmp_path / "pipes.tsv", table(rows, "\t")), "translator").report.as_markdown()
    assert "| 가\\\\\\|나 | a\\|b |" in markdown


# the dev split

def test_split_dev_uses_the_pipeline_split_by_default(tmp_path):
    pairs = read_training_upload(write(tmp_path / "t.tsv", table(translations(200), "\t")), "translator").pairs
    train, dev = split_dev(pairs, dev_fraction=0.1)
    assert (train, dev) == split_train_dev(pairs, 0.1, 1234) and dev and len(train) + len(dev) == 200


def test_split_dev_reads_an_uploaded_dev_file_and_keeps_its_sources_out_of_train(tmp_path):
    pairs = read_training_upload(write(tmp_path / "t.tsv", table(translations(30), "\t")), "translator").pairs
    dev_file = write(tmp_path / "dev.tsv", table(translations(3, start=28) + [("새 문장이에요", "A new sentence.")], "\t"))
    train, dev = split_dev(pairs, dev_paths=[dev_file], task="translator")
    assert [pair.source for pair in dev][-1] == "새 문장이에요" and len(dev) == 4
    assert len(train) == 28 and not {p.source for p in train} & {p.source for p in dev}


def test_module_imports_without_tensorflow():
    code = "import sys, studio.data.imports; assert 'tensorflow' not in sys.modules, 'tensorflow imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_columns_of_numbers_are_refused_and_a_chatbot_file_without_korean_is_noted(tmp_path):
    numbers = write(tmp_path / "scores.csv", table([(str(n), str(n * 7 % 5)) for n in range(50)],
                                                   header=("id", "score")))
    with pytest.raises(DataError, match=r"scores\.csv: .*holds no text: only \d+% of its rows have a letter"):
        read_training_upload(numbers, "chatbot")
    with pytest.raises(DataError, match=r"holds no text"):
        read_training_upload(write(tmp_path / "ids.tsv", table(
            [(korean, str(n)) for n, (korean, _) in enumerate(translations(30))], "\t")), "translator")
    english = write(tmp_path / "faq.csv", table([(f"Question {n}?", f"Answer {n}.") for n in range(30)],
                                                header=("question", "answer")))
    data = read_training_upload(english, "chatbot")  # a bot of another language is the user's choice
    assert len(data.pairs) == 30 and any("few of the questions are Korean" in note for note in data.report.notes)
    assert not any("Korean" in note for note in read_training_upload(
        write(tmp_path / "ko.csv", table(chats(30), header=("Q", "A"))), "chatbot").report.notes)


def test_the_training_format_table_drives_the_upload_types_and_the_errors(tmp_path):
    from studio.data.imports import formats_text, upload_suffixes

    assert set(upload_suffixes()) == {".csv", ".tsv", ".txt", ".ko", ".en", ".tmx"}
    assert "TMX" in formats_text("translator") and "TMX" not in formats_text("chatbot")
    sheet = tmp_path / "pairs.xlsx"
    sheet.write_bytes(b"PK")
    with pytest.raises(DataError, match=r"unknown format: a chatbot's training data is CSV \(two columns\) or TSV"):
        read_training_upload([sheet], "chatbot")
    memory = tmp_path / "memory.tmx"
    memory.write_text("<tmx/>", encoding="utf-8")
    with pytest.raises(DataError, match="holds translations; a chatbot learns from question/answer pairs in a CSV"):
        read_training_upload([memory], "chatbot")
