"""`studio translate` on a fake translator (no model): what it says about protected terms the model dropped,
alternatives with term protection, the language hint judged on the input as written, .txt files kept as
they were (line breaks, BOM, indentation), and stderr without a progress bar's leftovers."""

import json
import re
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from studio.cli import text as cli
from helpers import translate_alternatives
from studio.inference import Generation
from studio.tasks import KOREAN_ENGLISH
from studio.text.preprocess import Preprocessor
from studio.text.protect import Glossary, Protector

READS = "this model translates Korean to English"


class FakePreprocessor(Preprocessor):
    """The real language hint; tokens are words."""

    def __init__(self):
        self.reads, self.source_limit, self.pair = READS, 100, KOREAN_ENGLISH

    def count_tokens(self, text):
        return len(text.split())

    def encode(self, text):
        hint = self.language_hint(text)
        return [], [hint] if hint else []


class FakeTranslator:
    """Copies its source word for word, leaving out what matches `drops` (placeholders, numbers: whatever
    the test wants the "model" to lose, on every try); `alternatives` gives three variants."""

    def __init__(self, drops: str = r"(?!)"):
        self.drops = re.compile(drops)
        self.preprocessor = FakePreprocessor()
        self.sources = []

    def _copy(self, source):
        self.sources.append(source)
        return " ".join(filter(None, (self.drops.sub("", word) for word in source.split())))

    def generate(self, texts, options=None, scores=False):
        return [Generation(self._copy(t), [], self.preprocessor.encode(t)[1]) for t in texts]

    def alternatives(self, text, n, options=None):
        copied = self._copy(text)
        return [(copied, -0.1), (f"so {copied}", -0.2), (f"well {copied}", -0.3)][:n]


@pytest.fixture
def fake(monkeypatch):
    def install(translator):
        monkeypatch.setattr(cli, "load_generator", lambda *args, **kwargs: translator)
        return translator

    return install


def studio_translate(*args, **options):
    return CliRunner().invoke(cli.app, ["translate", *args], **options)


def test_a_dropped_number_is_named_without_a_glossary_and_a_clean_run_says_nothing(fake):
    fake(FakeTranslator(drops=r"Xq\d+|127\.95"))  # the placeholder, and the number written in on the retry
    dropped = studio_translate("배럴당 127.95 에 거래됐다.")
    assert dropped.exit_code == 0, dropped.output
    assert "127.95" not in dropped.stdout
    assert "Not kept as written (the model dropped it): 127.95." in dropped.stderr
    fake(FakeTranslator())
    clean = studio_translate("배럴당 127.95 에 거래됐다.")
    assert clean.exit_code == 0 and "127.95" in clean.stdout and clean.stderr == ""


def test_dropped_spans_are_named_once_each_on_stdin_and_in_documents(fake, tmp_path):
    fake(FakeTranslator(drops=r"Xq\d+|6\.8|\$3"))
    piped = studio_translate(input="규모 6.8 지진.\n\n규모 6.8 여진. 투자 30억 달러\n")
    assert piped.exit_code == 0, piped.output
    assert "Not kept as written (the model dropped them): 6.8 (2 times), 30억 달러 → $3 billion." in piped.stderr
    document = tmp_path / "news.md"
    document.write_text("# 규모 6.8 지진\n", encoding="utf-8")
    written = studio_translate("--file", str(document))
    assert written.exit_code == 0 and "(the model dropped it): 6.8." in written.stderr
    assert "Not kept" not in studio_translate("--no-protect", "--file", str(document)).stderr


def test_alternatives_protect_the_terms_of_each_line_and_restore_them_in_every_alternative(fake, tmp_path):
    translator = fake(FakeTranslator())
    glossary = tmp_path / "terms.tsv"
    glossary.write_text("삼성전자\tSamsung Electronics\n", encoding="utf-8")
    result = studio_translate("--alternatives", "3", "--glossary", str(glossary),
                              input="삼성전자는 30억 달러를 투자했다.\n\n규모 6.8의 지진.\n")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows[1] == {"translation": "", "alternatives": []}
    assert [t for t, _ in rows[0]["alternatives"]] == [
        "Samsung Electronics는 $3 billion를 투자했다.", "So Samsung Electronics는 $3 billion를 투자했다.",
        "Well Samsung Electronics는 $3 billion를 투자했다."]
    assert rows[0]["translation"] == rows[0]["alternatives"][0][0]
    assert all("6.8" in t for t, _ in rows[2]["alternatives"])
    assert translator.sources == ["Xq1는 Xq2를 투자했다.", "규모 Xq1의 지진."]  # the model saw placeholders
    assert "Glossary: 삼성전자 → Samsung Electronics (applied)." in result.stderr


def test_alternatives_of_several_sentences_warn_and_dropped_terms_are_retried_then_reported():
    generator = FakeTranslator(drops=r"Xq\d+")  # drops placeholders, keeps the English written in
    report = []
    found, warnings = translate_alternatives(generator, "규모 6.8의 지진.  여진은 5.1이었다.", 2,
                                             protector=Protector(), report=report)
    assert [t for t, _ in found] == ["규모 6.8의 지진. 여진은 5.1이었다.", "So 규모 6.8의 지진. 여진은 5.1이었다."]
    assert generator.sources[-1] == "규모 6.8의 지진. 여진은 5.1이었다."  # the retry: the English written in
    assert [(span.original, applied) for span, applied in report] == [("6.8", True), ("5.1", True)]
    assert any("it has 2" in w for w in warnings)
    stubborn = FakeTranslator(drops=r"Xq\d+|6\.8")
    report = []
    found, _ = translate_alternatives(stubborn, "규모 6.8의 지진.", 1, protector=Protector(), report=report)
    assert found == [("규모 의 지진.", -0.1)] and [(s.original, a) for s, a in report] == [("6.8", False)]
    assert translate_alternatives(stubborn, "   ", 3, protector=Protector()) == ([], [])


def test_the_language_hint_judges_the_input_as_written_and_names_its_lines(fake, tmp_path):
    pre = FakePreprocessor()
    assert pre.language_hint("Xq1, Xq1, Xq1!") is None  # "삼성, 삼성, 삼성!" with a glossary
    assert pre.language_hint("이메일은 kim.minsu@example.co.kr 입니다.") is None
    assert pre.language_hint("자세한 내용은 https://www.example.com/news/article 참고") is None
    assert "looks like English" in pre.language_hint("this is an English sentence")
    fake(FakeTranslator())
    glossary = tmp_path / "terms.tsv"
    glossary.write_text("삼성\tSamsung\n", encoding="utf-8")
    for args in (["--glossary", str(glossary), "삼성, 삼성, 삼성!"], ["--no-protect", "이메일은 kim.minsu@example.co.kr 입니다."]):
        result = studio_translate(*args)
        assert result.exit_code == 0 and "looks like" not in result.stderr, (args, result.stderr)
    piped = studio_translate(input="안녕하세요 여러분.\nHello there, my friend.\n\nAnother English line, 친구.\n")
    assert piped.exit_code == 0 and piped.stdout.split("\n")[1] == "Hello there, my friend."  # no Korean: kept
    assert piped.stderr == ("warning: kept as written, without Korean to translate: 'Hello there, my friend.'\n"
                            f"warning: line 4: {READS}; the input looks like English or another language in Latin "
                            "letters\n")
    alone = studio_translate("Hello there, my 친구.")
    assert alone.stderr.startswith(f"warning: {READS}; the input looks like English")  # one input: no line number


def test_a_txt_file_keeps_its_line_breaks_bom_and_indentation(fake, tmp_path):
    fake(FakeTranslator())
    source = tmp_path / "crlf.txt"
    source.write_bytes("\ufeff안녕하세요.\r\n\r\n  반갑습니다.\r\n\t\t둘째 줄\n끝".encode("utf-8"))
    result = studio_translate("--file", str(source))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "crlf.en.txt").read_bytes() == source.read_bytes()  # the fake copies: nothing else changes
    fake(FakeTranslator(drops=r"반갑습니다\.|줄"))  # a changed line is written with its indentation
    studio_translate("--file", str(source), "--no-protect")
    assert (tmp_path / "crlf.en.txt").read_bytes() == "\ufeff안녕하세요.\r\n\r\n  \r\n\t\t둘째\n끝".encode("utf-8")
    piped = studio_translate("--file", str(source), "--out", "-")
    assert piped.stdout_bytes == (tmp_path / "crlf.en.txt").read_bytes()


def test_empty_and_unsupported_files_are_refused_before_a_model_loads(monkeypatch, tmp_path):
    monkeypatch.setattr(cli, "load_generator", lambda *args, **kwargs: pytest.fail("a model was loaded"))
    for name, content in (("empty.txt", b""), ("blank.txt", b"  \r\n\n"), ("empty.srt", b"")):
        (tmp_path / name).write_bytes(content)
        result = studio_translate("--file", str(tmp_path / name))
        assert result.exit_code == 1 and "is empty: there is no text to translate" in str(result.exception), name
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.7")
    result = studio_translate("--file", str(tmp_path / "a.pdf"))
    assert "it is no document format (.txt, .srt, .md, .html, .htm, .docx)" in str(result.exception)
    (tmp_path / "movie.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\n안녕\n", encoding="utf-8")
    result = studio_translate("--scores", "--file", str(tmp_path / "movie.srt"))
    assert result.exit_code == 1 and "take a .txt" in str(result.exception)


def test_stderr_has_no_blank_line_left_by_a_progress_bar(fake, tmp_path):
    fake(FakeTranslator())
    source = tmp_path / "in.txt"
    source.write_text("안녕하세요.\n", encoding="utf-8")
    result = studio_translate("--file", str(source))
    assert result.exit_code == 0 and result.stderr.startswith("Wrote ") and result.stderr.count("\n") == 1


def test_the_shared_alternatives_keep_an_unprotected_input_as_the_generator_gives_it_capitalized():
    generator = FakeTranslator()
    found, warnings = translate_alternatives(generator, "규모 6.8의 지진", 3)
    assert found == [(text[0].upper() + text[1:], score) for text, score in generator.alternatives("규모 6.8의 지진", 3)]
    assert warnings == []
    glossary = Protector(Glossary.of({"지진": "earthquake"}), auto=False)
    found, _ = translate_alternatives(generator, "규모 6.8의 지진", 2, protector=glossary)
    assert [t for t, _ in found] == ["규모 6.8의 earthquake", "So 규모 6.8의 earthquake"]


def test_the_apps_alternatives_protect_terms_as_its_translation_does():
    from studio.ui.translate import TranslateTab, alternatives_api

    translator = FakeTranslator()
    service = SimpleNamespace(check_text=lambda text: None, generator=lambda backend: translator)
    found = alternatives_api(service, "tf")("규모 6.8의 지진이  발생했다.", 2, "tf", "지진\tearthquake")
    assert [t for t, _ in found] == ["규모 6.8의 earthquake이 발생했다.", "So 규모 6.8의 earthquake이 발생했다."]
    assert translator.sources == ["규모 Xq1의 Xq2이 발생했다."]
    unprotected = alternatives_api(service, "tf")("규모 6.8의 지진이 발생했다.", 1, "tf", "", False)
    assert unprotected[0][0] == "규모 6.8의 지진이 발생했다." and translator.sources[-1] == unprotected[0][0]
    tab = SimpleNamespace(service=service, decoding=SimpleNamespace(named=lambda settings: {}))
    radio = TranslateTab.offer_alternatives(tab, "규모 6.8의 지진이 발생했다.", "tf", "지진\tearthquake", True)
    assert radio.choices[0][0] == "규모 6.8의 earthquake이 발생했다."
    assert translator.sources[-1] == "규모 Xq1의 Xq2이 발생했다."


NAMED_LINES = ["국영 철도 회사인 도이체반(Deutsche Bahn)은 파업했다", "도이체반은 협상했다"]


def test_a_terminal_session_and_alternatives_remember_names_bracketed_on_earlier_lines(fake, monkeypatch, capsys):
    translator = fake(FakeTranslator())
    monkeypatch.setattr(cli, "typed_lines", lambda prompt: iter(NAMED_LINES))
    cli._translate_interactively(translator, None, Protector())
    assert capsys.readouterr().out.splitlines()[-1] == "Deutsche Bahn은 협상했다"
    result = studio_translate("--alternatives", "2", input="\n".join(NAMED_LINES) + "\n")
    assert json.loads(result.stdout.splitlines()[1])["translation"] == "Deutsche Bahn은 협상했다"


def test_options_that_would_lose_work_or_be_ignored_are_refused_before_a_model_loads(monkeypatch, tmp_path):
    monkeypatch.setattr(cli, "load_generator", lambda *args, **kwargs: pytest.fail("a model was loaded"))
    source = tmp_path / "news.txt"
    source.write_text("안녕하세요.\n", encoding="utf-8")
    korean_name = tmp_path / "보고서.txt"
    korean_name.write_text("안녕하세요.\n", encoding="utf-8")
    refused = {
        ("--file", str(source), "--out", str(source)): "is the file being translated; its Korean would be lost",
        ("--file", str(source), "안녕"): "not both",
        ("--file", str(source), "--out", str(tmp_path / "news.docx")): "give a name ending in .txt",
        ("--file", str(source), "--out", str(tmp_path / "no" / "x.txt")): "does not exist",
        ("--alternatives", "2", "--scores", "안녕"): "choose one",
        ("--alternatives", "2", "--sample", "안녕"): "leave out --sample",
        ("--alternatives", "2", "--beam", "1", "안녕"): "leave out --beam 1",
        (str(source),): "looks like a file: to translate a document, give it with --file",
        (str(korean_name),): "looks like a file",
        ("--sample", "--seed", "-1", "안녕"): "seed must be a whole number, 0 or more",
        ("--length-penalty", "-1", "안녕"): "length penalty cannot be negative",
    }
    for args, message in refused.items():
        result = studio_translate(*args)
        assert result.exit_code == 1 and message in str(result.exception), (args, result.exception)
    assert source.read_text(encoding="utf-8") == "안녕하세요.\n"


def test_json_lines_of_a_file_go_to_a_jsonl_beside_it_not_over_its_translation(fake, tmp_path):
    fake(FakeTranslator())
    source = tmp_path / "news.txt"
    source.write_text("안녕하세요.\n", encoding="utf-8")
    assert studio_translate("--file", str(source)).exit_code == 0
    assert studio_translate("--alternatives", "2", "--file", str(source)).exit_code == 0
    assert (tmp_path / "news.en.txt").read_text(encoding="utf-8") == "안녕하세요.\n"
    assert json.loads((tmp_path / "news.en.jsonl").read_text(encoding="utf-8"))["translation"] == "안녕하세요."


def test_a_bundle_of_the_other_task_is_named(monkeypatch):
    served = SimpleNamespace(task="chatbot", bundle=SimpleNamespace(path="models/chat"),
                             generator=lambda backend: FakeTranslator())
    monkeypatch.setattr("studio.serving.ServedModel.shared", lambda *args, **kwargs: served)
    result = studio_translate("--bundle", "models/chat", "안녕")
    assert result.exit_code == 0 and "models/chat is a chatbot bundle, not a translator" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["eval", "foo"], "unknown task 'foo'"),
    (["eval", "translator", "--hypotheses", "/nonexistent/h"], "the folder /nonexistent does not exist"),
    (["bench", "--lengths", "0"], "lengths of 1 token or more"),
    (["bench", "--json", "/nonexistent/x.json"], "the folder /nonexistent does not exist"),
])
def test_eval_and_bench_refuse_bad_values_before_their_work(monkeypatch, args, message):
    monkeypatch.setattr("studio.serving.ServedModel.shared", lambda *a, **k: pytest.fail("a model was loaded"))
    monkeypatch.setattr("studio.bundle.load_bundle", lambda *a, **k: pytest.fail("a model was loaded"))
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 1 and message in str(result.exception)


@pytest.mark.parametrize("args", [["eval", "translator", "--batch-size", "0"], ["eval", "translator", "--limit", "0"],
                                  ["bench", "--repeats", "0"], ["bench", "--threads", "-3"]])
def test_counts_below_one_are_usage_errors(args):
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 2 and "Invalid value" in result.output


def test_a_sentences_decoding_warning_names_its_line(fake, monkeypatch):
    class Looping(FakeTranslator):
        def generate(self, texts, options=None, scores=False):
            return [Generation(self._copy(t), [], ["the output repeated itself; decoded again"] if "하하" in t else [])
                    for t in texts]

    fake(Looping())
    monkeypatch.setattr(cli.sys.stdin, "isatty", lambda: False, raising=False)
    result = studio_translate(input="안녕하세요.\n하하하하하하.\n반갑습니다.\n")
    assert result.exit_code == 0
    assert "line 2: the output repeated itself; decoded again" in result.stderr
