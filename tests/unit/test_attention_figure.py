"""The Explore tab's heat-maps stay a readable size for a long input, with a colour scale."""

import numpy as np

from studio.ui.figures import MAX_HEAD_INCHES, MAX_LABELS, attention_figure


def test_a_long_inputs_heat_maps_are_bounded_and_name_every_kth_piece():
    pieces = [f"▁p{i}" for i in range(120)]
    figure = attention_figure(np.random.default_rng(0).random((4, 120, 120)), pieces, pieces, "Encoder")
    width, height = figure.get_size_inches()
    assert height <= MAX_HEAD_INCHES and width <= 4 * MAX_HEAD_INCHES + 1
    heads = [axis for axis in figure.axes if axis.get_title().startswith("head")]
    assert len(heads) == 4 and all(len(axis.get_xticklabels()) <= MAX_LABELS for axis in heads)
    assert figure.axes[-1].get_ylabel() == "attention weight" and "one piece in 3 named" in figure._suptitle.get_text()
    short = attention_figure(np.zeros((2, 3, 3)), ["a", "b", "c"], ["x", "y", "z"], "Decoder")
    assert [t.get_text() for t in short.axes[0].get_xticklabels()] == ["x", "y", "z"]  # every piece named
