"""One rule for the lines that open or close a code block (fences.is_fence), in every stage."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from context_router.fences import is_fence
from context_router.store.index import readable
from context_router.turn import sections
from context_router.turn.render import unpadded

SIGNATURE = "```> str replace {flags} (find) (replace) ...rest```"


def test_a_one_line_code_span_of_three_backticks_opens_no_block():
    """Tried as a new user would on a shell's command reference: 715 of its 751 pages had a signature line like
    this, and every section after it was read as code: each page was one section."""
    assert not is_fence(SIGNATURE) and is_fence("```nu") and is_fence("   ```") and is_fence("~~~ `x`")
    page = (f"# str replace\n\n## Signature\n\n{SIGNATURE}\n\n## Flags\n\n| flag   |  what  |\n|---|---|\n"
            "| --all  |  every match |\n\n## Examples\n\n```nu\n> 'abc' | str replace b x\n```\n\n## Notes\n\nNote.\n")
    assert sections.titles(readable(page, "str_replace.md")) == ["Signature", "Flags", "Examples", "Notes"]
    assert "| --all | every match |" in unpadded(page)  # a table after the span is no code
    opening = sections.opening_of(f"Intro.\n\n{SIGNATURE}\n\n" + "More words. " * 80)
    assert "```" not in opening.replace(SIGNATURE, "")  # no fence added to close a block that never opened


@given(st.text(alphabet="`~ ax\n", max_size=60))
def test_the_sections_of_any_text_read_back_whole(text):
    """However backticks and tildes fall, the parts of a doc hold all its text, in order."""
    body = "# T\n\n## A\n\n" + text + "\n\n## B\n\nb\n"
    joined = "\n".join(s.text for s in sections.split(body))
    assert [ln for ln in joined.split("\n") if ln.strip()] == [ln for ln in body.split("\n") if ln.strip()]
