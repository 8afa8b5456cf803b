"""Lines of a doc that say nothing to its reader: HTML tags with no text between them, and badges.

A project's landing page or README often opens with a centred logo and a row of badges (`<p align="center">`,
`<img src=... alt="...">`, `[![CI](https://.../badge.svg)](https://...)`): what a browser draws as pictures,
and what a model reads as 400 chars of attributes and URLs. Tried as a new user would on an HTTP client's docs:
the landing page's opening, cut to its first 400 chars, was its logo's and its badges' markup, and not one
word of what the library is. Plain string work: the hook path never imports re.
"""

from __future__ import annotations


def says_nothing(line: str) -> bool:
    """Whether a line, outside a code block, holds only markup: HTML tags without text between them (`<p
    align="center">`, `<img ...>`, `</div>`), markdown images and badges (`![logo](...)`, `[![CI](...)](...)`),
    or both. A blank line is not such a line (it parts paragraphs); `<h1>Title</h1>` is not (it has text)."""
    bare = line.strip()
    if not bare or bare[0] not in "<![":
        return False
    rest = _without_tags(bare)
    if rest is None:
        return False
    while rest:
        if rest.startswith("[!["):
            inner = _image(rest[1:])
            if inner is None or not inner.startswith("]("):
                return False
            close = inner.find(")")
            if close < 0:
                return False
            rest = inner[close + 1:].lstrip()
        elif rest.startswith("!["):
            after = _image(rest)
            if after is None:
                return False
            rest = after.lstrip()
        else:
            return False
    return True


def leaves_out(line: str, before: str | None) -> bool:
    """Whether a reader's opening of a doc leaves this line out (outside a code block): markup that says nothing,
    a table's row of badges, or a blank line at the start (`before` is None) or after another blank line, as such
    markup leaves them."""
    return says_nothing(line) or badge_row(line) or not line.strip() and (before is None or not before.strip())


def badge_row(line: str) -> bool:
    """Whether a line is a table's row whose cells after its label are badges only (`| Issues | [![Open
    issues](https://img.shields.io/...)](...) |`): tried as a new user would on a collector's monorepo, each
    component README's status table opened its HOT block with 650 chars of them."""
    bare = line.strip()
    if not bare.startswith("|") or "[![" not in bare:
        return False
    cells = [cell.strip() for cell in bare.strip("|").split("|")]
    return len(cells) >= 2 and all(says_nothing(cell) for cell in cells[1:] if cell) and any(
        cell.startswith("[![") for cell in cells[1:])


def _without_tags(text: str) -> str | None:
    """The text with its HTML tags taken out; None when a tag is left open (it goes on on the next line, or a
    `<` is not a tag's) or something other than a tag or an image is left."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "<":
            end = text.find(">", i)
            if end < 0 or not (text[i + 1:i + 2].isalpha() or text[i + 1:i + 2] in ("/", "!")):
                return None
            if "://" in text[i:end] and " " not in text[i:end]:  # an autolink, `<https://...>`: a URL to read
                return None
            i = end + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out).strip()


def _image(text: str) -> str | None:
    """What follows a markdown image `![alt](url)` at the start of `text`; None when it is not one."""
    if not text.startswith("!["):
        return None
    mid = text.find("](", 2)
    if mid < 0:
        return None
    close = text.find(")", mid + 2)
    return text[close + 1:] if close >= 0 else None
