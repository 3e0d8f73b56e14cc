"""Guards against the two ways a small model fails on short or odd inputs: outputs that run far longer than
their source, and degenerate repetition ("salad salad salad"). `length_cap` bounds each source's output (for
a task whose output length follows its source's: `studio.tasks.Task.length_follows_source`);
`is_degenerate` spots a repeated loop, after which the generator decodes that source again with repeated
n-grams banned (see `TextGenerator.generate`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

CAP_RATIO, CAP_EXTRA = 1.5, 10  # at most 1.5 x the source's pieces + 10 tokens, </s> included
REPEATS = 3  # an n-gram three times in a row is a loop
RETRY_NO_REPEAT = 2  # the retry bans any repeated bigram (with 3, "to to to" could stay)
RETRIED = (f"the first output repeated itself in a loop; decoded again with repeated {RETRY_NO_REPEAT}-grams "
           "banned")  # the warning a retried output carries


def length_cap(source_length: int) -> int:
    """The most tokens (</s> included) an output of a source of `source_length` pieces (</s> included) may have."""
    return math.ceil(CAP_RATIO * source_length) + CAP_EXTRA


def is_degenerate(ids: Sequence[int], max_n: int = 4) -> bool:
    """Whether some n-gram (n <= max_n) occurs REPEATS times back to back: "a a a", "a b a b a b"."""
    ids = list(ids)
    for n in range(1, max_n + 1):
        span = n * REPEATS
        for start in range(len(ids) - span + 1):
            gram = ids[start:start + n]
            if all(ids[start + k * n: start + (k + 1) * n] == gram for k in range(1, REPEATS)):
                return True
    return False
