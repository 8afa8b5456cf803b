from hypothesis import given
from hypothesis import strategies as st

from context_router import markup
from context_router.markup import says_nothing
from context_router.store import index
from context_router.turn import sections

# A landing page as many projects open theirs: a centred logo, a title in HTML, a row of badges, then prose.
LANDING = """<p align="center" style="margin: 0 0 10px">
  <img width="350" height="208" src="https://example.org/img/logo.png" alt='Widget'>
</p>

<h1 align="center">
Widget
</h1>

<div align="center">
<a href="https://ci.example.org/widget/actions">
    <img src="https://ci.example.org/widget/badge.svg" alt="Test Suite">
</a>
[![PyPI](https://img.shields.io/pypi/v/widget.svg)](https://pypi.org/project/widget/) ![cov](https://cov.svg)
</div>

Widget is a fully featured frobnicator for Python, with sync and async APIs.

Install it with pip:

```html
<div align="center">
</div>
```
"""


def test_markup_without_text_says_nothing():
    for line in ('<p align="center">', "  </div>", "<br/>", '<img src="a.png" alt="logo">',
                 "[![CI](https://ci.example.org/badge.svg)](https://ci.example.org)",
                 "![logo](logo.png) ![b](b.svg)", '<a href="https://x.org"><img src="b.svg"></a>'):
        assert says_nothing(line), line
    for line in ("", "   ", "<h1>Widget</h1>", "<em>A frobnicator.</em>", "<https://example.org>",
                 "[the guide](guide.md)", "![logo](logo.png) and some words", "a <b>bold</b> word",
                 "x < y and y > z", "<unclosed tag that goes on"):
        assert not says_nothing(line), line


def test_a_landing_page_opens_with_what_it_is_not_its_logo_and_badges():
    """Tried as a new user would on an HTTP client's docs: the landing page's opening, cut to 400 chars, was
    its logo's and badges' markup. The opening and the WARM header are its words; a code block keeps its own."""
    opening = sections.opening_of(LANDING)
    assert opening.startswith("Widget\n\nWidget is a fully featured frobnicator")
    assert "<img" not in opening and "shields" not in opening and "\n\n\n" not in opening
    header, truncated = index.header_of(LANDING, 25)
    assert header.startswith("Widget\n\nWidget is a fully featured") and not truncated
    assert header.endswith('```html\n<div align="center">\n</div>\n```')  # inside a code block: kept
    assert index.header_of(LANDING, 3) == ("Widget\n\nWidget is a fully featured frobnicator for Python, with "
                                            "sync and async APIs.", True)


@given(st.lists(st.sampled_from(["# T", "", "text", "<p>", "</p>", "[![b](u)](v)", "```", "<div>", "more"]),
                max_size=40), st.integers(min_value=1, max_value=30))
def test_a_header_is_at_most_its_lines_and_only_the_docs_lines(lines, n):
    body = "\n".join(lines)
    header, _ = index.header_of(body, n)
    got = header.splitlines()
    assert len(got) <= n
    assert all(line in lines for line in got)
    # ... and a code block it is cut inside is closed (a fence after the last one opened)
    opened = sum(1 for line in got if line.startswith("```")) % 2
    assert not opened


def test_a_tables_row_of_badges_says_nothing():
    """A collector's component READMEs open with a status table whose `Issues` row is 650 chars of badges."""
    readme = ("# Batch Processor\n\n| Status | |\n| --- | --- |\n| Stability | beta: traces, metrics |\n"
              "| Issues | [![Open issues](https://img.shields.io/a)](https://x) [![Closed](https://img.shields.io/b)]"
              "(y) |\n"
              "\nThe batch processor accepts spans and places them into batches.\n")
    opening = sections.opening_of(readme)
    assert "| Stability | beta: traces, metrics |" in opening and "img.shields.io" not in opening
    header, _ = index.header_of(readme, 25)
    assert "img.shields.io" not in header and "places them into batches" in header
    assert not markup.badge_row("| a | [link](x) |") and not markup.badge_row("| Stability | beta |")
