"""A reStructuredText page (Sphinx's, docutils') read as the markdown ctx reads: the same text, its section titles
as `#` headings and its literal blocks as fenced code blocks. Everything ctx does with a doc (its title, its
sections, `ctx show PATH SECTION`, a cut doc's parts) reads those two, so the rest of the page (roles such as
:func:`open`, directives such as `.. note::`) stays as written: a model reads it as it is.

reST marks a title by a line of one punctuation character under it (and, as it likes, over it); the levels are
the styles in the order the page first uses them. A literal block is the indented text after a paragraph that
ends with `::`, or a `.. code-block:: python` (`code`, `sourcecode`) directive's. Tried as a new user would on a
web framework's Sphinx docs: `ctx init` found 76 `.rst` pages and routed none ("no docs in docs").

Plain string work: the hook path never imports re.
"""

from __future__ import annotations

ADORNMENT = set("=-`:'\"~^_*+#<>.")  # the characters docutils takes for a title's line
CODE_DIRECTIVES = (".. code-block::", ".. code::", ".. sourcecode::")
MAX_LEVEL = 6
SUFFIX = ".rst"


def as_markdown(text: str) -> str:
    """The page with its titles as `#` headings (by the order their styles first appear) and its literal blocks
    fenced; `.. _label:` targets, which say nothing to a reader, are left out."""
    lines = text.replace("\r\n", "\n").split("\n")
    styles: list[tuple[str, bool]] = []  # (character, overlined) in the order the page first uses them
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        bare = line.strip()
        title = _title(lines, i)
        if title is not None:
            text_line, style, used = title
            if style not in styles:
                styles.append(style)
            out.append("#" * min(styles.index(style) + 1, MAX_LEVEL) + " " + text_line)
            i += used
            continue
        if bare.startswith(".. _") and bare.endswith(":") and line == line.lstrip():
            i += 1
            continue
        if line == line.lstrip() and _opens_literal(bare):
            body, end = _indented(lines, i + 1, bare.startswith(CODE_DIRECTIVES))
            if body:
                lang = ""
                if bare.startswith(CODE_DIRECTIVES):
                    lang = bare.partition("::")[2].strip()
                else:
                    lead = bare[:-2].rstrip()
                    if lead:  # "as follows::" reads "as follows:"; a `::` alone on its line says nothing
                        out.append(lead + ":" if bare[-3:-2] != " " else lead)
                    out.append("")
                out += ["```" + lang, *body, "```"]
                i = end
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _adornment(line: str) -> bool:
    """Whether a line is a title's: one punctuation character, twice or more, from the margin."""
    bare = line.rstrip()
    return len(bare) >= 2 and bare[0] in ADORNMENT and bare == bare[0] * len(bare)


def _title(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    """The title at line i: (its text, its style, lines it takes), or None. A title stands after a blank line
    (or first), its text at the margin, its underline at least as long as the text (docutils' own rule)."""
    if i and lines[i - 1].strip():
        return None
    line = lines[i]
    if _adornment(line) and i + 2 < len(lines):  # over and under: `=====` / `Title` / `=====`
        text, under = lines[i + 1], lines[i + 2]
        if text.strip() and under.rstrip() == line.rstrip() and len(line.rstrip()) >= len(text.strip()):
            return text.strip(), (line[0], True), 3
        return None
    if not line.strip() or line != line.lstrip() or i + 1 >= len(lines) or _adornment(line):
        return None
    under = lines[i + 1]
    if _adornment(under) and len(under.rstrip()) >= len(line.rstrip()) and (
            i + 2 >= len(lines) or not lines[i + 2].strip()):
        return line.strip(), (under[0], False), 2
    return None


def _opens_literal(bare: str) -> bool:
    """Whether the line is followed by a literal block: a code directive, or a paragraph's last line ending in
    `::` (a directive's own `::`, as `.. note::`, opens text, not code)."""
    if bare.startswith(CODE_DIRECTIVES):
        return True
    return bare.endswith("::") and not bare.startswith("..")


def _indented(lines: list[str], start: int, options: bool) -> tuple[list[str], int]:
    """The indented block from line `start` (after a directive's options, `:linenos:`, and the blank lines),
    dedented, and the line after it; nothing when the next text is at the margin."""
    i = start
    while options and i < len(lines) and lines[i][:1] in (" ", "\t") and lines[i].lstrip().startswith(":"):
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or lines[i][:1] not in (" ", "\t"):
        return [], start
    end = i
    block: list[str] = []
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")):
        block.append(lines[end].expandtabs(8) if lines[end].strip() else "")
        end += 1
    while not block[-1]:
        block.pop()
        end -= 1
    cut = min(len(b) - len(b.lstrip()) for b in block if b)
    return [b[cut:] for b in block], end
