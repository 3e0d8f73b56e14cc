def test_compare_swaps_the_example_with_the_model_but_keeps_what_was_typed():
    from studio.tasks import CHATBOT, TRANSLATOR
    from studio.ui.compare import example_for

    assert example_for("translator", CHATBOT.prompts[3]) == TRANSLATOR.prompts[0]
    assert example_for("chatbot", TRANSLATOR.prompts[0]) == CHATBOT.prompts[3]
    assert example_for("translator", "") == TRANSLATOR.prompts[0]
    assert example_for("translator", "내가 쓴 문장") == "내가 쓴 문장"
