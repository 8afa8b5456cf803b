"""A doc's sections: split at its `##` and `###` headings, found by title, and cut to fit a budget.

Sections are the unit of evidence and of output. A long section is cut into parts at blank lines (outside
code fences), each part about PART_CHARS: a 10,000-char section whose one paragraph answers the turn must not
cost the whole section or nothing. A HOT doc too big for its room is shown cut: its opening (the title and
first lines), then the parts that match the turn best, in the doc's own order (a part shown without the one
before it carries its section's heading), and one line that names what was left out and how to see it
(`ctx show PATH [SECTION]`). Pure: the ranking of the parts against the turn comes from the caller.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from ..fences import closing_fence, is_fence
from ..markup import leaves_out
from ..records import record
from .words import STOPWORDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

MAX_LEVEL = 3  # `##` and `###` open sections; deeper headings stay inside theirs
LEFT_OUT_NAMES = 100  # chars of section titles a line names (240 in a cut doc's line cost 1,300 chars a
# conversation on plain folders and put no answer more in context) ...
CUT_NAMES = 60  # ... and in a cut doc's line of what it does not show (replayed with the line's shorter wording:
# 780 chars a conversation less on eight plain folders, answers in context 78.4% both ways)
PART_CHARS = 1000  # a section longer than this is cut into parts of about this size (replayed at 10,000 chars:
# 1,500 put the answer in context on 76% of plain turns, 1,000 on 78%, no corpus lower, at the same chars)
PART_FLOOR = 0.35  # a cut doc adds the parts that score at least this share of its best part, not every match
REST_OF_OPENING = "the rest of the opening"
GOES_ON = "[...]"  # under a part whose section goes on unshown, and a cut opening that stops inside a paragraph
NAMING_WORDS = 2  # a heading's words a prompt says that name its section (named_parts): one word is a topic
PROMPT_WORDS = 60  # of a prompt, read for the headings it names (said_in)
NAMED_SHARE = 0.99  # of a doc's best part: a section the prompt names ranks next to it (with_named). Replayed on
# twenty-one plain folders through the hook: 76.9% -> 77.2% in context (4 turns won, none lost), 60,089 chars a
# conversation; piped one more shown. At 1.0 (it could take the best part's place): 77.0%, 3 lost; NAMING_WORDS 1:
# 77.2% (2 won, 1 lost); 3: 76.9%
OPENING_CHARS = 400  # of a cut doc's opening part: its title and what it is about, not its whole preamble
# (replayed at 10,000 chars on thirteen plain folders: 600 -> 400 put the answer in context on 76.2% of turns
# against 76.0%, at 180 chars a conversation less)


@record
class Section:
    title: str  # the heading's text; "" for the opening part before the first heading
    level: int  # 2 or 3; 0 for the opening part
    text: str  # the heading line (in the first part) and everything up to the next part
    part: int = 0  # 0: the section's first part; 1, 2...: the parts after it
    lead: str = ""  # the header rows of the table it goes on with (its rows follow the part before's): printed
    # above its rows when it is shown alone
    parent: str = ""  # a `###` section's whose title the doc repeats: the `## ` heading of the section it is in


def split(body: str) -> list[Section]:
    """The opening part, then the parts of each `##`/`###` section (outside code fences), in order."""
    return list(_split(body))


def heading_words(text: str) -> frozenset[str]:
    """The words of a heading or a prompt that can name a section: no stop words, a plural as its singular
    ("Path matchers" and "path matcher" alike), a dotted name whole (a heading `+layout.svelte` is not named by
    a prompt's "+layout.server.js" and "+error.svelte")."""
    spaced = "".join(ch if ch.isalnum() or ch in "._" else " " for ch in text.lower())
    return frozenset(_singular(w) for w in (w.strip(".") for w in spaced.split()) if w and w not in STOPWORDS)


def said_in(prompt: str) -> frozenset[str]:
    """The heading words of a prompt's first PROMPT_WORDS words: a pasted log or page of a thousand words would
    name half the headings of the docs by chance (the text's query takes the first words too)."""
    return heading_words(" ".join(prompt.split()[:PROMPT_WORDS]))


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.isalpha() and word.endswith("s") and not word.endswith("ss") else word


def with_named(ranked: Mapping[int, float], parts: Sequence[Section], said: frozenset[str]) -> dict[int, float]:
    """A doc's ranked parts (part -> score), with the sections the prompt names by their headings (named_parts)
    at NAMED_SHARE of its best part: next to it, not in its place."""
    out = dict(ranked)
    best = max(out.values(), default=0.0)
    for i in named_parts(parts, said):
        out[i] = max(out.get(i, 0.0), NAMED_SHARE * best)
    return out


def named_parts(parts: Sequence[Section], said: frozenset[str]) -> list[int]:
    """The parts that open a section the prompt names by its heading (its attribute list, `{#r36}`, aside): two
    words or more, every one said (`said`: said_in of the prompt). Tried as a new user would on a web server's docs,
    "path matcher `reverse_proxy /api localhost:9000` doesnt catch /api/users" showed the matchers page's wildcard
    and named matchers but not its "Path matchers": "path" and "matcher" are in most of its pages, too common to
    rank a section."""
    out: list[int] = []
    for i, part in enumerate(parts):
        if part.title and part.part == 0:
            title, brace, attrs = part.title.partition(" {")
            words = heading_words(title if brace and attrs[:1] in ("#", ":", ".") else part.title)
            if len(words) >= NAMING_WORDS and words <= said:
                out.append(i)
    return out


@lru_cache(maxsize=64)
def _split(body: str) -> tuple[Section, ...]:
    """split's work, kept for the last docs split: a turn asks for the parts of each doc it shows three or four
    times (its rooms, its cut, its memory, its WARM part), and a served turn's docs are often the last turn's."""
    groups: list[tuple[str, int, list[str], str]] = []  # each section's title, level, lines, `##` heading above
    title, level, lines = "", 0, list[str]()
    parent = under = ""  # the last `##` heading; the one the section being read is in
    fenced = False
    for line in body.splitlines():
        if line.startswith(("```", "~~~")) and is_fence(line):
            fenced = not fenced
        depth = len(line) - len(line.lstrip("#"))
        if not fenced and 2 <= depth <= MAX_LEVEL and line[depth:depth + 1] == " ":
            if depth == level and _overload(title, line[depth:].strip()) and not any(ln.strip() for ln in lines[1:]):
                # A signature's heading right on another of the same name, nothing between: one section of the
                # two (an API reference's overloads, `## http.request(options)` over `## http.request(url,
                # options)`). Tried as a new user would on a runtime's API reference: `ctx show api/http.md
                # http.request` printed the first heading alone, and a turn that ranked it showed no word of its
                # options. (Headings of a template, each with nothing under it yet, stay apart.)
                lines.append(line)
                continue
            groups.append((title, level, lines, under))
            title, level, lines = line[depth:].strip(), depth, [line]
            parent = f"## {title}" if depth == 2 else parent
            under = parent if depth == 3 else ""
        else:
            lines.append(line)
    groups.append((title, level, lines, under))
    # A `###` title the doc repeats (`### Why is this bad?` under each lint) says what its part is only with its
    # `##` heading; a title of its own does without (the heading costs room).
    repeats = Counter(title for title, level, _, _ in groups if level == 3)
    return tuple(part for title, level, lines, under in groups
                 for part in _parts(title, level, lines, under if repeats[title] > 1 else ""))


def _overload(first: str, second: str) -> bool:
    """Whether two headings are signatures of one name: `http.request(options)`, `http.request(url, options)`."""
    def name(title: str) -> str:
        head, paren, _ = title.strip("`").partition("(")
        return head.strip() if paren else ""

    return bool(name(first)) and name(first) == name(second)


def _parts(title: str, level: int, lines: list[str], parent: str = "") -> list[Section]:
    """One section's parts: paragraphs (blank-line separated, a code block kept whole) gathered up to
    PART_CHARS each. A long table is cut between its rows: a reference page's table of options (a 4,000-char
    `## Attributes`) is where a turn's answer is, one row of it, and as one part its length put it behind every
    example that repeats the option's name (replayed at 10,000 chars: an API gateway's reference docs 43.8% ->
    51.2% in context, nine other plain folders 79.8% -> 79.9%, at the same chars)."""
    text = "\n".join(lines).strip("\n")
    if len(text) <= PART_CHARS:
        return [Section(title, level, text, parent=parent)]
    chunks: list[list[str]] = [[]]
    leads: list[str | None] = [None]  # a chunk that starts inside a table: that table's header rows
    head: list[str] = []  # the header rows of the table the line is in (its first two: names, then the marks)
    prev = said = ""  # the line before; the last line with text
    # A doc that writes its code indented writes no fences; in one that does, an indented line is a tab's or a
    # box's text (mkdocs' `=== "Tab"`, `!!! note`), whose paragraphs parts may end at.
    indented = not any(is_fence(line) for line in lines)
    fenced = False
    size = 0
    for line in lines:
        inside = _row(line) and _row(prev)
        # A part ends at a paragraph's start, never inside a code block: a fenced one (indented in a list item or
        # a tab, mkdocs' `=== "Tab"`, too), or one indented four spaces that goes on after a blank line (tried as a
        # new user would on an API framework's docs, whose examples are so indented: 17 parts in a conversation
        # opened on a line of a method's body, without the heading and the rule above it; read so in docs with
        # fences too, a validation library's lost three answers).
        start = line.strip() and not prev.strip() and not (indented and _indented(line) and _indented(said))
        if not fenced and size >= PART_CHARS and (start or inside):
            chunks.append([])
            leads.append("\n".join(head) if inside else None)
            size = 0
        if is_fence(line):
            fenced = not fenced
        if line.strip():
            said = line
        if not _row(line):
            head = []
        elif len(head) < 2:
            head.append(line)
        chunks[-1].append(line)
        size += len(line) + 1
        prev = line
    out: list[Section] = []
    for chunk, lead in zip(chunks, leads, strict=True):
        text = "\n".join(chunk).strip("\n")
        if text and out and lead is not None:  # it starts inside a table: it goes on with the part before
            out.append(Section(title, level, text, len(out), lead, parent))
        elif text:
            out.append(Section(title, level, text, len(out), parent=parent))
    return out


def _indented(line: str) -> bool:
    """Whether a line is indented as a code block's (four spaces or a tab)."""
    return line.startswith(("    ", "\t"))


def _row(line: str) -> bool:
    """Whether a line is a row of a markdown table."""
    return line.lstrip().startswith("|")


def find(body: str, name: str) -> str | None:
    """The section called `name` (case-insensitive, as the heading reads or by its slug: the exact title
    first, then the first title that holds it), with its subsections; None when there is none. A name written
    with its heading's marks (`#### Paths`) is the heading of that level: tried as a new user would on a style
    guide with a `### Paths` and a `#### Paths`, the second could not be asked for."""
    from . import headings  # re and html: for `ctx show`, never on the hook path

    level, name = heading_level(name)
    sections = split(body)
    wanted = [k for k in headings.keys(name) if k]
    titles = [s.title if s.part == 0 and level in (0, s.level) else "" for s in sections]
    picks = [i for i, t in enumerate(titles) if t and headings.matches(t, name)] or \
        [i for i, t in enumerate(titles) if t and any(k in headings.key(t) for k in wanted)]
    if picks:
        return _whole(sections, picks[0])
    # A `####` heading (and deeper) opens no section of ctx's, but it is one to the page's reader: tried as a new
    # user would on an API framework's docs, `ctx show serializers.md "Field-level validation"` found none.
    deep = [(j, lv, t if level in (0, lv) else "") for j, lv, t in deeper(body)]
    picks = [i for i, (_, _, t) in enumerate(deep) if t and headings.matches(t, name)] or \
        [i for i, (_, _, t) in enumerate(deep) if t and any(k in headings.key(t) for k in wanted)]
    if not picks:
        return None
    lines = body.splitlines()
    start, level, _ = deep[picks[0]]
    ends = [j for j, lv, _ in _headings(lines) if j > start and lv <= level]
    return "\n".join(lines[start:ends[0] if ends else len(lines)]).strip("\n")


def heading_level(name: str) -> tuple[int, str]:
    """(the level a section's name asks for, 0 for any; the name without its marks): `#### Paths` -> (4, Paths)."""
    level = len(name) - len(name.lstrip("#"))
    return (level, name[level:].strip()) if level and name[level:level + 1] == " " else (0, name)


def named_levels(body: str, name: str) -> list[int]:
    """The levels of the headings whose text is `name` exactly (as the heading reads or by its slug)."""
    from . import headings  # re and html: for `ctx show`, never on the hook path

    return [lv for _, lv, t in _headings(body.splitlines()) if lv >= 2 and headings.matches(t, name)]


def _headings(lines: Sequence[str]) -> list[tuple[int, int, str]]:
    """(line number, level, title) of each `#` to `######` heading outside code fences."""
    out = []
    fenced = False
    for j, line in enumerate(lines):
        if line.startswith(("```", "~~~")) and is_fence(line):
            fenced = not fenced
        depth = len(line) - len(line.lstrip("#"))
        if not fenced and 1 <= depth <= 6 and line[depth:depth + 1] == " ":
            out.append((j, depth, line[depth:].strip().rstrip("#").strip()))
    return out


def deeper(body: str) -> list[tuple[int, int, str]]:
    """(line number, level, title) of the headings deeper than a section's (`####` to `######`)."""
    return [h for h in _headings(body.splitlines()) if h[1] > MAX_LEVEL]


def _whole(sections: Sequence[Section], first: int) -> str:
    """The section that starts at part `first`, with its later parts and its subsections."""
    end = first + 1
    while end < len(sections) and (sections[end].part > 0 or sections[end].level > sections[first].level):
        end += 1
    shown = sections[first:end]
    return shown[0].text + "".join(("\n" if s.lead else "\n\n") + s.text for s in shown[1:])


def mentioning(body: str, name: str) -> tuple[str, str] | None:
    """(title, text) of the section that mentions `name` most (case-insensitive; its own parts, not its
    subsections'), the first of them on a tie: a key documented inside a section (`queue_config` under
    `<remote_write>`) has no heading of its own. None when no section mentions it."""
    sections = split(body)
    wanted = name.lower().strip()
    counts: dict[int, int] = {}
    head = 0
    for i, section in enumerate(sections):
        if section.part == 0:
            head = i
        if head and wanted:
            counts[head] = counts.get(head, 0) + section.text.lower().count(wanted)
    best = max(counts, key=lambda i: (counts[i], -i), default=None)
    if best is None or counts[best] == 0:
        return None
    return sections[best].title, _whole(sections, best)


def blank(body: str) -> bool:
    """Whether a page has nothing to read: no line but markup (`<HomeSponsors />`, `<Live />`, a `{% block %}`)
    and blank ones; its text is what a site's layout or components render, from its front matter or code. Tried
    as a new user would on two sites' docs: a home page whose name a prompt said was HOT and printed one
    component tag, and a 404 page of front matter only printed nothing but its banner."""
    for line in body.splitlines():
        text = line.strip()
        if text and not (text[0] in "<{" and text[-1] in ">}"):
            return False
    return True


def titles(body: str) -> list[str]:
    return [s.title for s in split(body) if s.title and s.part == 0]


@record
class Cut:
    text: str
    parts: frozenset[int]  # the part numbers printed (0: the opening, as opening_of shows it)


def cut(body: str, room: int, relevance: Mapping[int, float], path: str, header: str,
        sent: Mapping[int, int] | None = None, hint: bool = True, floor: float = PART_FLOOR,
        rank: Callable[[Sequence[str]], Mapping[int, float]] | None = None, now: int = 0) -> Cut | None:
    """The body cut to at most `room` chars: its opening (the title and first lines), the parts that match the turn
    (relevance: part number -> score) best first while they fit, in the doc's order, and a closing line. sent: part
    number -> the turn it was sent in, for the parts the conversation already holds; they are not printed again, and
    a line says so (now: this turn, whose parts are in a block above). hint: the closing line says how to see the
    rest (`ctx show`; once a turn is enough). floor: a part is added when it scores at least this share of the doc's
    best. rank: how the turn ranks pieces of text (index -> score); with it, the first matching part over
    STRETCH_FROM chars that is too big for the room shows its best stretch (_stretch). None when not even the
    opening and the lines fit."""
    sent = sent or {}
    sections = split(body)
    rest = sections[1:]
    # A doc that opens with a `##` heading has no opening part: its header would print its first sections
    # a second time beside the parts kept.
    opening = "" if 0 in sent or not sections[0].text else opening_of(sections[0].text)
    short = 0 not in sent and opening != sections[0].text.strip("\n")  # a cut opening: the last line says so
    new = [j for j in range(1, len(rest) + 1) if j not in sent]
    kept: set[int] = set()

    def compose(opening: str, kept: set[int], short: bool) -> str:
        return _compose(opening, rest, kept, path, short, sent, hint, named, ranked, now)

    # The floor is the doc's best part, held or not: a doc whose best parts the conversation holds adds its
    # best new part, and no more parts far weaker than those it holds (a kept doc earns its room again).
    top = max((v for j, v in relevance.items() if j > 0), default=0.0)
    relevance = _with_next_parts(relevance, rest, sent, floor * top)
    asked = {j for j, v in relevance.items() if j <= len(rest) and v >= floor * top > 0}
    named, ranked = asked & set(sent), asked - {0}
    whole = sections[0].text.strip("\n")
    answers = short and relevance.get(0, 0.0) > 0 and relevance[0] >= floor * top
    if answers and len(compose(whole, set(), False)) <= room:
        # The opening itself answers the turn (what the page is, often in its last lines): whole, not its start.
        opening, short, answers = whole, False, False
    answers = answers and rank is not None and len(whole) > STRETCH_FROM
    stretched: set[int] = set()  # a part too big for the room, shown as its best stretch: not all of it is sent
    for j in sorted(relevance, key=lambda j: (-relevance[j], j)):
        if j == 0 and answers and rank is not None:
            # An opening too big for the room that answers (a reference page's one YAML block of every option,
            # before its first heading) shows its start and its best stretch, in its place among the parts: tried
            # as a new user would on a release tool's docs, "where does it read the signing key's passphrase
            # from?" showed the packaging page's first lines and none of its parts, the whole opening taken
            # first and found too big.
            piece = _stretch(whole, min(OPENING_STRETCH, room - len(compose(opening, kept, short)) - 2), rank)
            if piece is not None and not whole.startswith(piece) and len(compose(
                    f"{opening}\n\n{piece}", kept, short)) <= room:
                opening = f"{opening}\n\n{piece}"
                stretched.add(0)
            continue
        if j in new and (relevance[j] >= floor * top or not kept and relevance[j] > 0):
            kept.add(j)
            if len(compose(opening, kept, short)) > room:
                kept.discard(j)
                if rank is not None and not stretched and j > 0 and len(rest[j - 1].text) > STRETCH_FROM:
                    before = rest
                    rest = _stretched(rest, j, room - len(compose(opening, kept, short)), rank)
                    kept.add(j)
                    if len(compose(opening, kept, short)) > room:
                        rest = before
                        kept.discard(j)
                    else:
                        stretched.add(j)
    # Nothing matched, or nothing that matched fits: the doc's first sections, in order; but a doc the
    # conversation holds parts of gets nothing new that the turn did not ask for.
    if not kept and not sent:
        for j in new:
            kept.add(j)
            if len(compose(opening, kept, short)) > room:
                kept.discard(j)
                break
    text = compose(opening, kept, short)
    if len(text) <= room:
        return Cut(text, frozenset(kept - stretched | ({0} if opening and sections[0].text and 0 not in stretched
                                                       else set())))
    opening = "" if 0 in sent else opening_of(header)
    text = compose(opening, set(), True)
    return Cut(text, frozenset()) if len(text) <= room else None


STRETCH_FROM = 3000  # a part longer than this that does not fit shows its best stretch (_stretch)
OPENING_STRETCH = 1000  # ... and an opening, at most this long beside its start: about 25 lines of a YAML block
# (a release tool's 80 turns through the hook: the opening's stretch at 500 to 100,000 chars puts the same 4 more
# answers in context, 59,011 to 62,730 chars a conversation; without it none; 1,000: 60,252)


def _stretched(rest: list[Section], j: int, left: int,
               rank: Callable[[Sequence[str]], Mapping[int, float]]) -> list[Section]:
    """The parts with part `j` as its best stretch that fits in `left` chars (as it is shown without the part
    before it), or as they are when none does."""
    section = rest[j - 1]
    piece = _stretch(section.text, left - len(section.title) - 20, rank)
    if piece is None:
        return rest
    shown = list(rest)
    shown[j - 1] = Section(section.title, section.level, piece, max(1, section.part), parent=section.parent)
    return shown


def _stretch(text: str, room: int, rank: Callable[[Sequence[str]], Mapping[int, float]]) -> str | None:
    """The stretch of a part that the turn ranks best, at most `room` chars: its best paragraph (blank-line
    separated, inside a code block too) and the ones after it while they fit, in a code block's fences when it
    starts or ends inside one. Tried as a new user would on a monitoring system's configuration reference:
    `<remote_write>` is one 8,600-char YAML block, a part no hook turn's room holds, so "which queue_config
    settings control concurrency?" never showed `max_shards`."""
    lines = text.split("\n")
    paras: list[tuple[int, int, str]] = []  # (first line, line after the last, the fence open at its start)
    opener, first, at = "", -1, ""
    for k, line in enumerate([*lines, ""]):
        if line.strip() and first < 0:
            first, at = k, opener
        elif not line.strip() and first >= 0:
            paras.append((first, k, at))
            first = -1
        if k < len(lines) and is_fence(line):
            opener = "" if opener else line
    if len(paras) < 2:
        return None
    scores = rank(["\n".join(lines[a:b]) for a, b, _ in paras])
    best = max(range(len(paras)), key=lambda i: (scores.get(i, 0.0), -i))
    if scores.get(best, 0.0) <= 0:
        return None
    a, b, at = paras[best]
    end = b
    for _, b2, _ in paras[best + 1:]:
        if len("\n".join(lines[a:b2])) + len(at) + 20 > room:
            break
        end = b2
    body = lines[a:end]
    fence = at
    for line in body:
        if is_fence(line):
            fence = "" if fence else line
    out = ([at] if at else []) + body + ([closing_fence(fence)] if fence else [])
    if end < len(lines):
        out.append(GOES_ON)
    piece = "\n".join(out)
    return piece if len(piece) <= room else None


HELD_NEXT = 1.0  # of a held part's score: the next part of its section ranks so, when the held part ranks among
# the doc's best again


def _with_next_parts(relevance: Mapping[int, float], rest: Sequence[Section], sent: Mapping[int, int],
                     bar: float) -> Mapping[int, float]:
    """The turn's ranking of a doc's parts, with the next part of each section the conversation holds a part
    of ranked as that part, when that part ranks at least `bar` again: the conversation is still on it, and a
    section shown in part goes on where the part stopped (tried as a new user would: "where do those cache
    files live?" was answered by the paragraph after the part shown the turn before, and no word of the prompt
    ranked it)."""
    lifted = {j + 1: v * HELD_NEXT for j, v in relevance.items()
              if j in sent and j >= 1 and v >= bar and v > 0 and j < len(rest) and rest[j].part > 0
              and j + 1 not in sent}
    if not lifted:
        return relevance
    return {**relevance, **{j: max(v, relevance.get(j, 0.0)) for j, v in lifted.items()}}


def opening_of(text: str) -> str:
    """The start of a doc's opening part, at most OPENING_CHARS at a line's end, without markup that says
    nothing to a reader (script and style blocks, HTML comments, a logo's and badges' lines: markup.py)."""
    lines: list[str] = []
    used = 0
    within = False
    skipping = ""
    fence, since = "", 0  # the code fence open at the line reached, and how many lines came before it
    for line in text.splitlines():
        low = line.strip().lower()
        if skipping:
            if skipping in low:
                skipping = ""
            continue
        for tag, end in (("<script", "</script>"), ("<style", "</style>"), ("<!--", "-->")):
            if low.startswith(tag):
                skipping = "" if end in low else end
                break
        else:
            if not fence and leaves_out(line, lines[-1] if lines else None):
                continue  # a logo's or a badge's markup, and the blank lines it leaves, say nothing
            if used + len(line) > OPENING_CHARS and lines:
                within = bool(line.strip() and lines[-1].strip())  # the cut stops inside a paragraph
                break
            mark = line.lstrip()[:3]
            if mark in ("```", "~~~") and not fence and is_fence(line):
                fence, since = mark, len(lines)
            elif fence and mark == fence and is_fence(line):
                fence = ""
            lines.append(line)
            used += len(line) + 1
    if fence:
        # Cut inside a code block: everything after it would read as code. The text before it, or the block
        # closed where it was cut.
        lines = lines[:since] if any(ln.strip() for ln in lines[:since]) else [*lines, fence]
    elif within:
        lines[-1] += " " + GOES_ON
    return "\n".join(lines).strip("\n")


def _compose(opening: str, rest: Sequence[Section], kept: set[int], path: str, short: bool = False,
             sent: Mapping[int, int] | None = None, hint: bool = True, named: set[int] | None = None,
             ranked: set[int] | None = None, now: int = 0) -> str:
    """short: the opening itself is cut. sent: the parts the conversation already holds (not printed; those in `named`
    are named, else counted; those sent at turn `now`, this one, are in a block above). ranked: the parts the turn
    ranked among the doc's best; those not printed are named as not shown, the others counted (None: named in the
    doc's order)."""
    sent = sent or {}
    named = set(sent) if named is None else named
    parts = [opening]
    skipped: list[str] = [REST_OF_OPENING] if short else []
    heading = ""  # the `##` heading the parts printed so far are under
    for j, section in enumerate(rest, start=1):
        if j in kept:
            if section.level == 2:
                heading = f"## {section.title}"
            elif section.parent and section.parent != heading:
                # A `###` shown without its `##` (the lint it is about, over its `### Why is this bad?`): the
                # `##` heading goes first.
                parts.append(section.parent)
                heading = section.parent
            if section.part > 0 and j - 1 not in kept:  # a part shown without the one before it
                parts.append(alone(section))
            elif section.lead:  # the rows after the part before's: one table
                parts[-1] += "\n" + section.text
            else:
                parts.append(section.text)
            if j < len(rest) and rest[j].part > 0 and j + 1 not in kept and j + 1 not in sent:
                parts[-1] += "\n" + GOES_ON  # its section goes on, unshown: the reader is told
        elif j not in sent:
            # A section is named once however many of its parts are left out; a later part of the opening
            # is "the rest of the opening".
            name = _name(section.title) or REST_OF_OPENING
            if name not in skipped:
                skipped.append(name)
    # A section shown in part (its heading says so) is not named as not shown; when only such are left out,
    # the line names what is: "the rest of" them (a count "1 of 1 sections" read as if nothing were shown).
    shown = {_name(rest[j - 1].title) or REST_OF_OPENING for j in (*kept, *sent) if 0 < j <= len(rest)}
    whole = [name for name in skipped if name not in shown]
    asked = None if ranked is None else {_name(rest[j - 1].title) or REST_OF_OPENING for j in ranked}
    rests = [] if whole else [name if name == REST_OF_OPENING else f"the rest of {name}" for name in skipped]
    if sent:
        # The held sections this turn ranks among the doc's best are named (where the model finds the answer it
        # holds); the others are counted (replayed through the hook on thirteen plain folders: 180 chars a
        # conversation less, the same answers in context).
        labels = {j: _held_name(rest, j, sent, kept) for j in sorted(sent) if j <= len(rest)}
        names = list(dict.fromkeys(label for j, label in labels.items() if j in named))
        more = len(set(labels.values())) - len(names)
        if more:
            names.append(f"{more} {'more ' if names else ''}section{'s' if more > 1 else ''}")
        earlier = sorted(set(sent.values()) - {now})
        when = [f"turn{'s' if len(earlier) > 1 else ''} {', '.join(map(str, earlier))}"] if earlier else []
        if now in sent.values():  # a part another doc printed above ("(turn 1)" on a first turn read as a fault)
            when.append("above")
        parts.append(_names_line(f"... [already in this conversation ({', '.join(when)}): ", names, "] ..."))
    if short or len(kept) + len([j for j in sent if j]) < len(rest):
        total = len({_name(s.title) or REST_OF_OPENING for s in rest} | ({REST_OF_OPENING} if short else set()))
        parts.append(_left_out_line(whole or rests, total if whole else 0, path, hint, asked if whole else None))
    return "\n\n".join(p for p in parts if p)


def _held_name(rest: Sequence[Section], j: int, sent: Mapping[int, int], kept: set[int]) -> str:
    """How the line of what the conversation holds names part `j`: its section's name, "(part)" after it while
    a part of that section is neither held nor printed (a model told it holds the whole section does not look
    for the rest of it)."""
    if not j:
        return "the opening"
    first = j
    while first > 1 and rest[first - 1].part > 0:
        first -= 1
    last = j
    while last < len(rest) and rest[last].part > 0:
        last += 1
    name = _name(rest[j - 1].title) or "the opening"
    whole = all(k in sent or k in kept for k in range(first, last + 1))
    return name if whole else name + PART_MARK


PART_MARK = " (part)"  # after a section's name where a part of it is shown or held


def _name(title: str) -> str:
    """A section's name as its site shows it, without an attribute list after it (`computed() {#computed}`), a
    component's tag (`<Badge type="info" text="optional" /> cookie`) or backslash escapes (`Declaring Reactive
    State \\*`). String work only: the hook path imports no re."""
    if title.endswith("}") and "{" in title:
        head, _, attrs = title.rpartition("{")
        if attrs.lstrip(":").lstrip()[:1] in ("#", "."):
            title = head.rstrip()
    if "/>" in title:
        title = _without_closed_tags(title)
    return title.replace("\\", "") if "\\" in title else title


def _without_closed_tags(title: str) -> str:
    """The title without its self-closing tags outside code (a web framework's 105 option headings open with
    `<Badge type="danger" text="required" />`, which named each in a cut doc's line); `Vec<T>` stays."""
    out: list[str] = []
    at = 0
    while (start := title.find("<", at)) >= 0:
        end = title.find(">", start) - 1  # the tag's end: its first `>`, after a `/`
        if end < 0 or title[end] != "/" or title.count("`", 0, start) % 2 or not title[start + 1:start + 2].isalpha():
            out.append(title[at:start + 1])
            at = start + 1
            continue
        out.append(title[at:start])
        at = end + 2
    return " ".join("".join(out + [title[at:]]).split()) or title


def alone(section: Section, under: bool = False) -> str:
    """A part as it is shown without the one before it: a later part of a section carries its section's
    heading (and its table's header rows); under: a `###` section's part carries its `##` heading too."""
    above = f"{section.parent}\n\n" if under and section.parent else ""
    lead = f"{section.lead}\n" if section.lead else ""
    if section.part == 0 or not section.level:  # the opening's later part has no heading to carry
        return above + (lead if section.part else "") + section.text
    return f"{above}{'#' * section.level} {section.title}{PART_MARK}\n{lead}{section.text}"


def _names_line(head: str, names: Sequence[str], tail: str, room: int = LEFT_OUT_NAMES) -> str:
    shown: list[str] = []
    used = 0
    for title in names:
        if used + len(title) > room:
            # The first name alone too long for the line (a changelog's sentence of a heading): its words that
            # fit ("..., ... (83 of 84 sections)" named nothing).
            shown.append(title[:room].rsplit(" ", 1)[0] + " ..." if not shown and " " in title[:room] else "...")
            break
        shown.append(title)
        used += len(title) + 2
    return head + ", ".join(shown) + tail


def shown_name(path: str) -> str:
    """A doc's name as printed: control characters, line and paragraph separators escaped, so no name can
    start a line of its own that looks like a banner or an instruction from ctx."""
    if path.isprintable():
        return path
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}"
                   for ch in path)


# What a shell reads as part of a word: a path of only these needs no quotes.
_PLAIN_IN_SHELL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,@%=:")


def show_command(path: str, section: bool = False) -> str:
    """`ctx show PATH [SECTION]` as a shell runs it: a path with a space or a quote in it quoted (not shlex:
    it imports re, which the hook path never does). Tried as a new user would on a note app's help vault, the
    line said `ctx show en/Getting started/Download and install Obsidian.md SECTION`, which a model runs as
    five arguments."""
    name = shown_name(path)
    if not all(ch in _PLAIN_IN_SHELL for ch in name):
        name = "'" + name.replace("'", "'\"'\"'") + "'"
    return f"ctx show {name} SECTION" if section else f"ctx show {name}"


def _left_out_line(skipped: Sequence[str], total: int, path: str, hint: bool = True,
                   asked: set[str] | None = None) -> str:
    """The cut doc's last line: the sections it does not show (whole), the doc's own first, and how many of
    the `total` (0: no count); how to see them. asked: only these of them are named (the turn ranked them
    among the doc's best and they did not fit), the others counted."""
    ordered = sorted(skipped, key=lambda name: name == REST_OF_OPENING)
    if asked is not None and total and ordered != [REST_OF_OPENING]:  # "1 of 1 sections" would read as nothing
        named = [name for name in ordered if name in asked]
        count = f"{len(skipped)} of {total} sections"
        how = f": `{show_command(path, True)}`" if hint else ""
        if not named:
            return f"... [cut; not shown: {count}{how}] ..."
        # The sections named are some of those counted: "..." says so ("`wal` (27 of 38 sections)" read as if
        # `wal` were all that is not shown).
        more = ", ..." if len(named) < len(skipped) else ""
        line = _names_line("... [cut; not shown: ", named, f"{more} ({count}){how}] ...", CUT_NAMES)
        return line.replace(", ..., ...", ", ...")
    # Only the rest of the opening left out: `ctx show PATH` shows it (no SECTION names it), and no count ("1 of
    # 1 sections" reads as if nothing were shown).
    alone = ordered == [REST_OF_OPENING]
    how = "" if not hint else f": `{show_command(path, not alone)}`"
    count = f" ({len(skipped)} of {total} sections)" if total and not alone else ""
    return _names_line("... [cut; not shown: ", ordered, f"{count}{how}] ...", CUT_NAMES)


HUB_NAMES = frozenset({"changelog", "change_log", "change-log", "changes", "history", "news", "release-notes",
                       "releases", "release_notes",
                       # every API's removals, release by release: tried as a new user would on a desktop app
                       # framework's docs, its 265 sections were HOT for one-word prompts ("BrowserWindow")
                       "breaking-changes", "breaking_changes",
                       # each release's highlights (a messaging system's `release_notes/whats_new.md`, 42
                       # releases' sections, was HOT for "configure tls for the server")
                       "whats-new", "whats_new", "whatsnew", "what-s-new"})
CONTENTS_NAMES = frozenset({"summary", "sitemap"})  # a book's or a site's table of contents, by its name alone
LOG_NAMES = ("changelog", "release-notes", "release_notes", "releasenotes")  # ... and a name that goes on after
# one of these (`CHANGELOG-API.md`, `release-notes-2.0.md`): tried as a new user would on a collector's monorepo,
# its Go API changelog was WARM beside the right pages
LOG_FOLDERS = frozenset({"changelog", "changelogs", "changes", "release-notes", "releases", "newsfragments",
                         "changelog.d", "changes.d", "whatsnew"})
INDEX_NAMES = frozenset({"index", "_index", "readme"})  # a folder's own page
HUB_LINK_SHARE = 0.4  # a page whose lines are mostly links at least this often is a hub
HUB_MIN_LINKS = 6


STUB_CHARS = 200  # a page of markup (`::: module.name`, `.. automodule::`, badges, HTML) with less prose than
# this is a hub


def is_release_notes(path: str) -> bool:
    """Whether a page is one release's notes: named by its version or its date in a folder of them (`Release
    notes/v1.5.6.md`, `changelog/2.0.md`, `changelog/2024-10-sidebar.mdx`). Tried as a new user would on a note
    app's help vault: 364 such pages beside 173 of help, and "how do I make a table?" made four of them HOT (the
    releases that changed tables); on a component library's docs, a dated changelog entry was HOT for dark mode."""
    *folders, name = path.lower().replace(" ", "-").replace("_", "-").split("/")
    stem = name.rsplit(".", 1)[0]
    dated = stem[:4].isdigit() and stem[4:5] == "-" and stem[5:7].isdigit()  # `changelog/2024-10-sidebar.mdx`
    # A change's fragment, named by its ticket (`changelog/unreleased_13/6135.rst`, towncrier's
    # `newsfragments/1234.bugfix.md`): tried as a new user would on a database toolkit's docs, `ctx check` asked
    # 38 of them for a title.
    ticket, _, kind = stem.partition(".")
    fragment = len(ticket) >= 3 and ticket.isdigit() and "." not in kind
    # ... in a folder of them, or one whose name goes on after a changelog's (a formatter's `changelog_unreleased/
    # typescript/19688.md`, WARM for "what does --prose-wrap do")
    return (_is_version(stem) or dated or fragment) and any(
        f in LOG_FOLDERS or any(f.startswith(n) and f[len(n):][:1] in ("-", ".") for n in LOG_NAMES) for f in folders)


def _is_version(stem: str) -> bool:
    """`v1.5.6`, `2.0`, `1.x`, `2.0.0-beta.1`, `v2`; not `2` (a chapter) nor `2.4-2.5` (an upgrade between two)."""
    bare = stem.removeprefix("v")
    core, _, tag = bare.partition("-")
    parts = core.partition("+")[0].split(".")
    if not parts[0].isdigit() or tag and not (tag[:1].isalpha() and tag.replace(".", "").isalnum()):
        return False
    return all(p.isdigit() or p == "x" for p in parts[1:]) and (len(parts) > 1 or bare != stem)


def is_hub(path: str, body: str) -> bool:
    """Whether a page mostly lists or links other pages (an index, a nav page, a table of contents, a
    changelog or one release's notes), or says next to nothing itself (an API stub page of a few lines, a
    landing page of badges and HTML): it mentions every topic, or only names one, so it must not win a turn on
    breadth or on its title."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    if stem in CONTENTS_NAMES or is_release_notes(path):
        return True
    # A log's name is a hub when the page logs releases: tried as a new user would on a release tool's docs,
    # its `customization/publish/changelog.md` (how to configure the changelog it writes) was never shown, and
    # a test runner's `releases.md` (its release cycle and supported versions) neither.
    if (stem in HUB_NAMES or any(stem.startswith(name) and stem[len(name):][:1] in ("-", "_", ".")
                                 for name in LOG_NAMES)) and logs_releases(body):
        return True
    # A changelog folder's own page (`changelog/index.md`): tried as a new user would on a theme's mkdocs docs, its
    # 216 releases' page was HOT for "can I show the last updated date on each page?"
    folder = path.lower().rsplit("/", 2)[-2] if path.count("/") else ""
    if stem in INDEX_NAMES and (folder in LOG_FOLDERS or folder in HUB_NAMES):
        return True
    # ... and a page in such a folder whose headings name releases: tried as a new user would on a web server's
    # docs, a firewall's `releases/about-4.2.md` (`## Release 4.2`) was HOT for "how to enable http/3 with quic"
    if folder in LOG_FOLDERS and logs_releases(body, unheaded=False):
        return True
    prose = links = prose_chars = markup = 0
    fenced = toctree = False
    rst = path.endswith(".rst")  # a directive (`.. autoclass:: Flask`) and its options are markup
    for line in body.splitlines():
        if line.startswith(("```", "~~~")) and is_fence(line):
            fenced = not fenced
            prose_chars += 1
            continue
        text = line.strip()
        if fenced:
            prose_chars += len(text)
            continue
        # A Sphinx table of contents: each entry under `.. toctree::` is a link to a page (a framework's
        # `index.rst` of 29 entries won "how do I test a view ...?" by the entries `testing` and `views`).
        toctree = rst and (text.startswith(".. toctree::") or toctree and (not text or line[:1] in (" ", "\t")))
        if toctree and text and not text.startswith((".. toctree::", ":")):
            prose += 1
            links += 1
            continue
        if not text or text.startswith("#") or text.startswith("<!--"):
            continue
        prose += 1
        if "](" in text and _link_chars(text) * 2 >= len(text.lstrip("-*+|0123456789. ")):
            links += 1
        elif text.startswith(("<", ":::", "[![", "![")) or rst and (text.startswith(".. ") or _rst_option(text)):
            markup += 1
        else:
            prose_chars += len(text)
    stub = prose_chars == 0 or (markup > 0 and prose_chars < STUB_CHARS)
    # A page that only points at another ("This command is an alias of `jf`", "This document has moved to ..."):
    # tried as a new user would on a cheat-sheet repo, 600 alias pages of three lines took HOT places.
    pointer = prose_chars < STUB_CHARS and any(words in body.lower() for words in POINTERS)
    return (links >= HUB_MIN_LINKS and links >= HUB_LINK_SHARE * prose) or stub or pointer or _name_table(body)


NAME_TABLE_ROWS = 500  # a page of at least this many table rows ...
NAME_TABLE_WORDS = 0.25  # ... whose rows' words are mostly names (in code spans, `:emoji:` codes, links): a hub


def _name_table(body: str) -> bool:
    """Whether a page is a lookup table of names (an emoji or icon reference: 1,176 rows of `:straight_ruler:`):
    its words are names, not what it is about. Tried as a new user would on a site generator's docs, its emoji
    reference led "the covers come straight off my camera" by `:straight_ruler:` and `:camera:`."""
    rows = [line for line in body.splitlines() if line.lstrip().startswith("|")]
    if len(rows) < NAME_TABLE_ROWS:
        return False
    named = plain = 0
    for row in rows:
        for cell in row.split("|"):
            for word in cell.split():
                if word[:1] in "`:[" or word[-1:] in "`:)" or "](" in word:
                    named += 1
                elif word.isalpha():
                    plain += 1
    return plain < NAME_TABLE_WORDS * (plain + named)


def logs_releases(body: str, unheaded: bool = True) -> bool:
    """Whether a page's headings under its title name releases (`## 0.0.39 (2026-06-25)`, `## [1.0.0] -
    2024-01-01`, `## v1.12`, `v2.20.0 (2026-07-19)` underlined, `### Release 36`), or it has none to say otherwise
    (a list of changes under its title) and `unheaded`."""
    lines = body.splitlines()
    headed = False
    fenced = False
    start = 0
    if lines and lines[0].strip() == "---":  # a front matter's lines are no headings
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
    for i, line in enumerate(lines[start:], start):
        if line.startswith(("```", "~~~")) and is_fence(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("##"):
            heading = line.lstrip("#")
        elif (i + 1 < len(lines) and line.strip() and lines[i + 1].strip()[:3] == "---"
              and not lines[i + 1].strip("- \t")):  # a setext heading (not a table's rule)
            heading = line
        else:
            continue  # the page's title (`# Changelog`) says nothing either way
        headed = True
        words = heading.translate(_BRACKETS).split()
        if any(_is_version(word) or _is_date(word) for word in words) or any(
                (word.lower() == "release" or word.lower() in MONTHS) and after.isdigit()
                or word.isdigit() and after.lower() in MONTHS for word, after in zip(words, words[1:], strict=False)):
            return True  # ... or by number, or a date in words: `### NGINX Plus Release 36`, `## October 31, 2023`
    return unheaded and not headed


_BRACKETS = str.maketrans("()[],", "     ")
MONTHS = frozenset("january february march april may june july august september october november december "
                   "jan feb mar apr jun jul aug sep sept oct nov dec".split())


def _is_date(word: str) -> bool:
    """`2026-06-25`, `2024/10/01`, `2024-10`."""
    return len(word) >= 7 and word[:4].isdigit() and word[4:5] in ("-", "/") and word[5:7].isdigit()


POINTERS = ("an alias of", "has moved to", "have moved to", "has been moved to", "redirects to")


def _rst_option(text: str) -> bool:
    """Whether a line is a reStructuredText directive's option (`:members:`, `:caption: app.py`; not a role,
    :func:`open`, that starts a sentence): with the directive (`.. autoclass:: Flask`) it is markup, and a
    Sphinx page of them (autodoc's) says nothing itself."""
    name, colon, rest = text[1:].partition(":")
    return text[:1] == ":" and bool(colon) and name.replace("-", "").isalnum() and rest[:1] in ("", " ")


def _link_chars(line: str) -> int:
    """Chars of a line inside markdown links `[text](target)`."""
    total = 0
    start = line.find("[")
    while start >= 0:
        mid = line.find("](", start)
        end = line.find(")", mid + 2) if mid >= 0 else -1
        if mid < 0 or end < 0:
            break
        total += end + 1 - start
        start = line.find("[", end)
    return total
