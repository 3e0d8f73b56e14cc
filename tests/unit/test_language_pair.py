"""Which steps of the translation path apply to which language pair (`studio.tasks.LanguagePair`, the one place that
decides it from a bundle's config), and term protection's kinds for a pair."""

from studio.config import TaskConfig
from studio.tasks import KOREAN_ENGLISH, LanguagePair, language_pair
from studio.text.protect import Glossary, Protector


def steps(pair: LanguagePair) -> tuple[bool, bool, bool]:
    return pair.korean_source, pair.korean_to_english, pair.english_target


def test_each_step_applies_only_to_the_pairs_it_was_written_for():
    assert steps(LanguagePair("ko", "en")) == (True, True, True)
    assert steps(LanguagePair("en", "de")) == (False, False, False)
    assert steps(LanguagePair("ko", "ja")) == (True, False, False)  # Korean input, but nothing written in English
    assert steps(LanguagePair("de", "en")) == (False, False, True)  # English sentences, but no Korean forms


def test_a_line_has_text_to_translate_by_the_source_languages_letters():
    korean, english = LanguagePair("ko", "en"), LanguagePair("en", "de")
    assert [korean.has_text(line) for line in ("hello.", "안녕", "2024")] == [False, True, False]
    assert [english.has_text(line) for line in ("hello.", "안녕", "2024", "--- 5%")] == [True, True, False, False]
    assert (korean.source_text, english.source_text) == ("Korean", "letters")


def test_a_bundles_pair_is_its_translator_configs_and_another_tasks_is_the_shipped_translators():
    assert language_pair(TaskConfig(task="translator", source_lang="en", target_lang="de")) == LanguagePair("en", "de")
    assert language_pair(TaskConfig(task="translator", source_lang="", target_lang="")) == KOREAN_ENGLISH
    assert language_pair(TaskConfig(task="chatbot", source_lang="ko", target_lang="ko")) == KOREAN_ENGLISH
    assert language_pair(None) == KOREAN_ENGLISH


def kinds(pair: LanguagePair, text: str, glossary: Glossary = Glossary()) -> list[str]:
    return [span.kind for span in Protector(glossary).for_pair(pair).protect(text).spans]


def test_protection_passes_only_addresses_and_the_glossary_for_a_pair_other_than_korean_english():
    text = "삼성은 6.8 km 떨어진 곳에 30억 달러를 투자했다 (kim@example.com, https://samsung.com)."
    assert kinds(KOREAN_ENGLISH, text) == ["number", "amount", "email", "url"]
    assert kinds(LanguagePair("en", "de"), text) == ["email", "url"]
    english = "Visit Samsung in Seoul at 9:30, or write to kim@example.com."
    assert kinds(LanguagePair("en", "de"), english, Glossary.of({"Samsung": "Samsung AG"})) == ["glossary", "email"]


def test_a_document_remembers_bracketed_names_only_for_korean_english():
    text = "도이체반(Deutsche Bahn)이 파업했다. 도이체반은 사과했다."
    assert Protector().for_pair(KOREAN_ENGLISH).remembering(text).names.entries
    assert not Protector().remembering(text).for_pair(LanguagePair("ko", "ja")).names.entries
    assert not Protector().for_pair(LanguagePair("ko", "ja")).remembering(text).names.entries


def test_a_pair_is_titled_by_its_languages_names_or_codes():
    assert KOREAN_ENGLISH.title == "Korean → English"  # the shipped translator's tab on the web page, as before
    assert LanguagePair("en", "de").title == "English → German"
    assert LanguagePair("xx", "en").title == "xx → English"  # a code without a name is shown as written
