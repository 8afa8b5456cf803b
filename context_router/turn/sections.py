"""A doc's sections: split at its `##` and `###` headings, found by title, and cut to fit a budget.

A HOT doc larger than what is left of the budget is shown cut: its opening part (title and header), then the
sections that match the turn best, in the doc's own order, and one line that names what was left out and how
to see it (`ctx show PATH [SECTION]`). Pure: the ranking of sections against the turn comes from the caller.
"""

from __future__ import annotations

from ..records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

MAX_LEVEL = 3  # `##` and `###` open sections; deeper headings stay inside theirs
LEFT_OUT_NAMES = 240  # chars of left-out section titles named in the closing line


@record
class Section:
    title: str  # the heading's text; "" for the opening part before the first heading
    level: int  # 2 or 3; 0 for the opening part
    text: str  # the heading line and everything up to the next section


def split(body: str) -> list[Section]:
    """The opening part, then one Section per `##`/`###` heading outside code fences."""
    out: list[Section] = []
    title, level, lines = "", 0, list[str]()
    fenced = False
    for line in body.splitlines():
        if line.startswith("```") or line.startswith("~~~"):
            fenced = not fenced
        depth = len(line) - len(line.lstrip("#"))
        if not fenced and 2 <= depth <= MAX_LEVEL and line[depth:depth + 1] == " ":
            out.append(Section(title, level, "\n".join(lines).strip("\n")))
            title, level, lines = line[depth:].strip(), depth, [line]
        else:
            lines.append(line)
    out.append(Section(title, level, "\n".join(lines).strip("\n")))
    return out


def find(body: str, name: str) -> str | None:
    """The section called `name` (case-insensitive: the exact title first, then the first title that holds
    it), with its subsections; None when there is none."""
    sections = split(body)
    wanted = " ".join(name.lower().split())
    titles = [" ".join(s.title.lower().split()) for s in sections]
    picks = [i for i, t in enumerate(titles) if t and t == wanted] or \
        [i for i, t in enumerate(titles) if t and wanted in t]
    if not picks:
        return None
    first = picks[0]
    end = first + 1
    while end < len(sections) and sections[end].level > sections[first].level:
        end += 1
    return "\n\n".join(s.text for s in sections[first:end])


def titles(body: str) -> list[str]:
    return [s.title for s in split(body) if s.title]


def cut(body: str, room: int, relevance: Mapping[int, float], path: str, header: str) -> str | None:
    """The body cut to at most `room` chars: the opening part (or just the WARM header when the opening part
    is too long), the sections that match the turn (relevance: section number -> score) best first while
    they fit, in the doc's order, and a closing line. None when not even the opening part and line fit."""
    sections = split(body)
    opening = sections[0].text if sections[0].text else header
    rest = sections[1:]
    kept: set[int] = set()
    for j in sorted(relevance, key=lambda j: (-relevance[j], j)):
        if 1 <= j <= len(rest):
            kept.add(j)
            if len(_compose(opening, rest, kept, path)) > room:
                kept.discard(j)
    if not kept:  # nothing matched, or nothing that matched fits: the doc's first sections, in order
        for j in range(1, len(rest) + 1):
            kept.add(j)
            if len(_compose(opening, rest, kept, path)) > room:
                kept.discard(j)
                break
    text = _compose(opening, rest, kept, path)
    if len(text) <= room:
        return text
    text = _compose(header, rest, set(), path)
    return text if len(text) <= room else None


def _compose(opening: str, rest: Sequence[Section], kept: set[int], path: str) -> str:
    parts = [opening]
    skipped: list[str] = []
    for j, section in enumerate(rest, start=1):
        if j in kept:
            parts.append(section.text)
        else:
            skipped.append(section.title)
    if skipped:
        parts.append(_left_out_line(skipped, len(rest), path))
    return "\n\n".join(p for p in parts if p)


def _left_out_line(skipped: Sequence[str], total: int, path: str) -> str:
    names: list[str] = []
    used = 0
    for title in skipped:
        if used + len(title) > LEFT_OUT_NAMES:
            names.append("...")
            break
        names.append(title)
        used += len(title) + 2
    return (f"... [HOT: cut to fit the budget; {len(skipped)} of {total} sections left out: {', '.join(names)}. "
            f"`ctx show {path}` prints the whole doc, `ctx show {path} SECTION` one section] ...")
