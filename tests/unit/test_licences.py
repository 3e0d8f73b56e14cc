"""The licence files every export package carries (`exporters.licences`): the model's terms first, the code's,
then each third-party component with its licence's text where the package holds it."""

from exporters.licences import Component, licence_files, python_components

NON_COMMERCIAL_CARD = "# A translator\n- `kss.tsv` — CC BY-NC-SA 4.0  **non-commercial license**\n"
FREE_CARD = "# A chatbot\n- `ChatbotData.csv` — MIT License\n"
BUNDLED = Component("@litertjs/core", "2.5.3", "Apache-2.0", True, "runs the graph")


def test_a_model_trained_on_non_commercial_data_says_so_before_anything_else():
    files = licence_files(NON_COMMERCIAL_CARD, "android", [])
    licence = files["LICENSE.md"].decode()
    assert licence.index("**Non-commercial use only.**") < licence.index("MIT License")
    assert files["MODEL_CARD.md"].decode() == NON_COMMERCIAL_CARD


def test_a_model_without_such_data_points_to_its_card_and_one_without_a_card_says_whom_to_ask():
    assert "Non-commercial" not in licence_files(FREE_CARD, "python", [])["LICENSE.md"].decode()
    missing = licence_files(None, "python", [])
    assert "MODEL_CARD.md" not in missing and "has no model card" in missing["LICENSE.md"].decode()


def test_a_component_in_the_package_travels_with_its_licence_text_and_one_beside_it_with_its_version():
    notices = licence_files(FREE_CARD, "web", [BUNDLED, *python_components("LiteRT")])["THIRD_PARTY_NOTICES.md"]
    text = notices.decode()
    assert "| @litertjs/core | 2.5.3 | Apache-2.0 | in this package |" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text  # Apache-2.0's own words
    assert "| sentencepiece | 0." in text and "| install it |" in text and "BSD-3-Clause" in text
    assert text.count("TERMS AND CONDITIONS FOR USE") == 1  # each licence once


def test_stored_replies_say_whose_data_they_are_and_chatbotdata_travels_with_its_own_licence():
    from exporters.licences import replies_components

    components = replies_components(FREE_CARD, "replies.json")
    files = licence_files(FREE_CARD, "android", components, "replies.json")
    licence, notices = files["LICENSE.md"].decode(), files["THIRD_PARTY_NOTICES.md"].decode()
    assert "## The stored replies" in licence and "ChatbotData's (songys/Chatbot_data" in licence
    assert "| ChatbotData (songys/Chatbot_data) | 1.0 | MIT | in this package | `replies.json`:" in notices
    assert "The MIT License (MIT)\n\nCopyright (c) 2018" in notices  # its own words
    assert "the Transformer Studio authors" not in notices  # not the package's own MIT text
    own = licence_files("# A chatbot\n- `mine.csv`\n", "python", [], "replies.json")["LICENSE.md"].decode()
    assert "training data itself" in own and "ship them only if that data may be passed on" in own
    assert replies_components("# A chatbot\n- `mine.csv`\n", "replies.json") == []
    assert "## The stored replies" not in licence_files(FREE_CARD, "python", [])["LICENSE.md"].decode()
