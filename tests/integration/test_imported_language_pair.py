"""The translation path's steps written for Korean→English (Korean amounts, times and dates written in English, a
date's month repaired, English sentence finishing, Latin names and numbers protected, the language hint, the fidelity
figures) apply only where the model's language pair calls for them (`studio.tasks.LanguagePair`, from the bundle's
config): tiny random Marian models (`marian_fixture`) imported as English→German and as Korean→English. A random
model's words are noise, so the finishing steps are shown on a scripted model that reads with the imported bundle's
own preprocessor; the real model shows that an English line is translated, not kept as written."""

import pytest
from marian_fixture import POST_NORM, write_release

from studio.bundle import load_bundle
from studio.data.readers import Pair
from studio.evaluate import evaluate
from studio.generate import DecodeOptions
from studio.importers.pretrained import import_pretrained
from studio.inference import Generation, TextGenerator
from studio.text.protect import Glossary, protector_for
from studio.train.card import card_samples
from studio.translation import translate

# a Korean amount (30억 달러: "$3 billion" in English), a date (1월 9일: January 9) and an address
SOURCE = "삼성은 1월 9일 30억 달러를 투자했다 (https://samsung.com)."
# what the scripted model writes for the words it knows: a first word in lower case, and a wrong month
WORDS = {"삼성은": "samsung", "투자했다": "invested", "1월": "September", "9일": "9"}


class Scripted:
    """A translator that writes the words it knows in English and copies the others (placeholders too), without
    the source's final mark, reading with `bundle`'s preprocessor (its language pair)."""

    def __init__(self, bundle):
        self.preprocessor, self.config = bundle.preprocessor, bundle.config

    def generate(self, texts, options=None, scores=False):
        return [Generation(" ".join(WORDS.get(word, word) for word in text.rstrip(".").split()), [])
                for text in texts]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    """{"en-de": the bundle of a tiny model imported as English→German, "ko-en": its weights as Korean→English}."""
    root = tmp_path_factory.mktemp("pairs")
    found = {}
    for source, target in (("en", "de"), ("ko", "en")):
        release = write_release(root / f"opus-mt-{source}-{target}", POST_NORM, languages=(source, target))
        found[f"{source}-{target}"] = load_bundle(import_pretrained(release, root / f"{source}-{target}", 32,
                                                                    progress=lambda _: None))
    return found


def translated(bundle):
    return translate(Scripted(bundle), [SOURCE], protector=protector_for(Glossary(), True))


def test_an_english_german_import_gets_none_of_the_korean_or_english_steps(bundles):
    result = translated(bundles["en-de"])
    # the model's words as it wrote them: no capital, no final mark, the month and the amount as written; only the
    # address passed through a placeholder
    assert result.text == "samsung September 9 30억 달러를 invested (https://samsung.com)"
    assert [(span.kind, applied) for span, applied in result.report] == [("url", True)]
    assert bundles["en-de"].preprocessor.language_hint("The weather is fine and the sea is calm today.") is None


def test_a_korean_english_import_still_gets_them(bundles):
    result = translated(bundles["ko-en"])
    assert result.text == "Samsung January 9 $3 billion를 invested (https://samsung.com)."
    assert [span.kind for span, _ in result.report] == ["amount", "url"]
    assert "looks like English" in bundles["ko-en"].preprocessor.language_hint(
        "The weather is fine and the sea is calm today.")


def test_a_line_without_korean_is_translated_by_an_english_model_and_kept_by_a_korean_one(bundles):
    english = TextGenerator.open(bundles["en-de"], "tf")
    line = "the weather is fine today."
    result = translate(english, [line])
    assert result.pieces == 1 and not any("kept as written" in warning for warning in result.warnings)
    assert result.text == english.generate([line])[0].text.strip()  # the model's own output, unfinished
    kept = translate(Scripted(bundles["ko-en"]), [line, "2024"])
    assert (kept.pieces, kept.text) == (0, f"{line}\n2024")
    assert kept.warnings == ["2 lines without Korean kept as written (the first: 'the weather is fine today.')"]
    numbers = translate(english, ["2024", "---"])
    assert (numbers.pieces, numbers.warnings) == (0, ["2 lines without letters kept as written (the first: '2024')"])


def test_only_a_korean_english_model_counts_the_facts_and_shows_the_korean_samples_in_its_card(bundles):
    pairs = [Pair(SOURCE, "Samsung invested $3 billion on January 9.")]
    options, protector = {"greedy": DecodeOptions()}, protector_for(Glossary(), True)
    assert evaluate(Scripted(bundles["en-de"]), pairs, options, protector=protector)[0].facts is None
    facts = evaluate(Scripted(bundles["ko-en"]), pairs, options, protector=protector)[0].facts
    assert (facts.found["figures"], facts.kept["figures"]) == (3, 3)  # $3 billion, January and 9
    assert card_samples(Scripted(bundles["en-de"]), "tf") == {}
    assert card_samples(Scripted(bundles["ko-en"]), "tf")["samples"]
