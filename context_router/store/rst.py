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
    """The page with its titles as `#` headings (by the order their styles first appear), the objects Sphinx
    describes (`.. option:: --strict`, `.. confval:: strict`, `.. function:: open`) as headings under them, its
    literal blocks fenced, and its labels, comments and link targets left out."""
    return "\n".join(_convert(text.replace("\r\n", "\n").split("\n"), [], [1]))


def _convert(lines: list[str], styles: list[tuple[str, bool]], depth: list[int]) -> list[str]:
    """as_markdown's work on these lines. styles: the title styles in the order the page first used them;
    depth: the level of the last heading (one item, shared with the blocks inside)."""
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
            depth[0] = min(styles.index(style) + 1, MAX_LEVEL)
            out.append("#" * depth[0] + " " + text_line)
            i += used
            continue
        if line.startswith(".. "):
            head = bare[3:]
            directive, sep, arg = head.partition("::")
            if head.startswith("_"):  # `.. _name:` labels the heading after it (labelled()); `.. _name: URL` a link
                i += 1
                continue
            if sep and directive.strip() in OBJECTS:
                block, end = _block(lines, i + 1)
                # Deeper than a section's (`####`): `ctx show` finds it, and the section it is in stays one (as
                # sections of their own, a type checker's 147 options made its option page a crowd of small parts
                # that outranked the pages that answered, in a conversation tried through the hook)
                level = min(max(depth[0] + 1, OBJECT_LEVEL), MAX_LEVEL)
                out += ["#" * level + " " + arg.strip(), ""]
                out += _convert(block[next((k for k, b in enumerate(block) if b), len(block)):], styles, [level])
                i = end
                continue
            if not sep and not head.startswith("|"):  # a comment, and the lines indented under it
                i = _block(lines, i + 1)[1]
                continue
        if _opens_literal(bare):
            indent = line[:len(line) - len(line.lstrip())]
            body, end = _indented(lines, i + 1, bare.startswith(CODE_DIRECTIVES), len(indent))
            if body:
                lang = ""
                if bare.startswith(CODE_DIRECTIVES):
                    lang = bare.partition("::")[2].strip()
                else:
                    lead = bare[:-2].rstrip()
                    if lead:  # "as follows::" reads "as follows:"; a `::` alone on its line says nothing
                        out.append(indent + (lead + ":" if bare[-3:-2] != " " else lead))
                    out.append("")
                out += [indent + "```" + lang, *(indent + b if b else b for b in body), indent + "```"]
                i = end
                continue
        out.append(line)
        i += 1
    return out


# The objects Sphinx describes, each a heading under the section it is in: a type checker's command
# line page is 147 `.. option::`, its config page 89 `.. confval::`, and as one section each of a few they could
# be neither found nor shown (`ctx show command_line.rst -- --strict`)
OBJECTS = frozenset({"option", "confval", "envvar", "describe", "object", "function", "class", "method",
                     "attribute", "data", "exception", "decorator", "module", "cmdoption",
                     *(f"py:{kind}" for kind in ("function", "class", "method", "attribute", "data", "exception",
                                                 "decorator", "module", "property"))})


OBJECT_LEVEL = 4  # the shallowest heading of an object: below the `##` and `###` that part a page into sections


def labelled(text: str, label: str) -> str | None:
    """The heading a label (`.. _code-union-attr:`, what every `:ref:` names) stands on, as as_markdown writes it:
    the title or the object after it; None when the page has no such label. Read here, not written into the
    headings: the label's words are no words of the section (written as `{#anchor}`, they moved a type checker's
    conversation)."""
    lines = text.replace("\r\n", "\n").split("\n")
    at = next((k for k, ln in enumerate(lines) if ln.strip() == f".. _{label}:"), None)
    if at is None:
        return None
    for k in range(at + 1, len(lines)):
        title = _title(lines, k)
        if title is not None:
            return title[0]
        bare = lines[k].strip()
        directive, sep, arg = bare[3:].partition("::") if bare.startswith(".. ") else ("", "", "")
        if sep and directive.strip() in OBJECTS:
            return arg.strip()
        if bare and not bare.startswith(".. _"):
            return None
    return None


def _block(lines: list[str], start: int) -> tuple[list[str], int]:
    """The lines indented under a directive from line `start` (its options, its content), dedented, and the line
    after them."""
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t")):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    block = [ln.expandtabs(8) if ln.strip() else "" for ln in lines[start:end]]
    cut = min((len(b) - len(b.lstrip()) for b in block if b), default=0)
    return [b[cut:] for b in block], end


def _adornment(line: str) -> bool:
    """Whether a line is a title's: one punctuation character, twice or more, from the margin."""
    bare = line.rstrip()
    return len(bare) >= 2 and bare[0] in ADORNMENT and bare == bare[0] * len(bare)


def _title(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    """The title at line i: (its text, its style, lines it takes), or None. A title stands after a blank line
    (or first), its text at the margin, its underline at least as long as the text (docutils' own rule); text may
    follow the underline at once (a blank line after a title is optional: an automation tool's style guide pages
    had no title)."""
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
    if _adornment(under) and len(under.rstrip()) >= len(line.rstrip()):
        return line.strip(), (under[0], False), 2
    return None


def _opens_literal(bare: str) -> bool:
    """Whether the line is followed by a literal block: a code directive, or a paragraph's last line ending in
    `::` (a directive's own `::`, as `.. note::`, opens text, not code)."""
    if bare.startswith(CODE_DIRECTIVES):
        return True
    return bare.endswith("::") and not bare.startswith("..")


def _indented(lines: list[str], start: int, options: bool, base: int = 0) -> tuple[list[str], int]:
    """The block indented past `base` from line `start` (after a directive's options, `:linenos:`, and the blank
    lines), dedented, and the line after it; nothing when the next text is not indented past it."""
    def inside(line: str) -> bool:
        return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip()) > base

    i = start
    while options and i < len(lines) and inside(lines[i]) and lines[i].lstrip().startswith(":"):
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or not inside(lines[i]):
        return [], start
    end = i
    block: list[str] = []
    while end < len(lines) and (not lines[end].strip() or inside(lines[end])):
        block.append(lines[end].expandtabs(8) if lines[end].strip() else "")
        end += 1
    while not block[-1]:
        block.pop()
        end -= 1
    cut = min(len(b) - len(b.lstrip()) for b in block if b)
    return [b[cut:] for b in block], end
