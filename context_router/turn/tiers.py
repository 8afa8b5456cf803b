"""The tier plan under the budget. Pure: the text of each block comes from a Layout and a content reader.

Ranking is deterministic (score, hit this turn, keyword hits, most recent hit, path). HOT candidates beyond
the HOT cap are shown as WARM; a HOT file that no longer fits in full is shown as WARM if its header fits;
whatever still does not fit is omitted and named in one closing line as far as the budget allows. The whole
output, box and closing line included, never exceeds the budget.
"""

from __future__ import annotations

from ..records import record, replace
from . import memory
from .sections import STRETCH_FROM, alone, blank, opening_of, show_command
from .sections import split as split_sections

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Protocol

    from .attention import FileScore
    from .sections import Cut, Section

    class Layout(Protocol):
        def box(self, stats: Stats) -> str: ...
        def hot(self, index: int, path: str, score: float, body: str) -> str: ...
        def warm(self, index: int, path: str, score: float, header: str, truncated: bool) -> str: ...
        def closing(self, names: Sequence[str], more: int) -> str: ...
        def compose(self, box: str, blocks: Sequence[str], closing: str | None) -> str: ...



HOT = "HOT"
WARM = "WARM"


@record
class Caps:
    hot_threshold: float
    hot_max: int
    warm_threshold: float
    warm_max: int


@record
class Candidate:
    path: str
    score: float
    tier: str


@record
class Entry:
    path: str
    tier: str
    score: float
    text: str  # the rendered block
    cut: bool = False  # a HOT doc cut to fit the budget
    units: tuple[str, ...] = ()  # what of the doc this block sends (memory.unit keys)
    repeat: int = 0  # the turn the conversation was sent this block, when it is named instead of sent again
    saved: int = 0  # chars of what the conversation holds and this block names instead of sending again


@record
class Stats:
    turn: int
    hot: int
    warm: int
    cold: int
    used: int
    budget: int
    intent: str | None = None
    notes: tuple[str, ...] = ()  # one-line notices shown under the box (expired or suspended pins)
    repeated: int | None = None  # docs named instead of sent again (None: the output has no memory)
    about: bool = True  # the box says what the docs are (render.ABOUT): once a conversation that keeps it


@record
class Plan:
    entries: tuple[Entry, ...]
    omitted: tuple[str, ...]  # docs at or above the WARM line that are not shown, in rank order
    stats: Stats
    output: str
    # why each omitted doc is not shown: "budget", "warm share", "held" (a WARM doc whose header the
    # conversation holds), "cap" or "intent"
    reasons: tuple[str, ...] = ()


@record
class DocView:
    """What the planner needs of a doc to render it."""

    body: Callable[[], str | None]  # the whole file, read on demand (None: gone or unreadable)
    header: str
    truncated: bool
    # the body cut to at most this many chars, without the parts already sent (part -> turn) (sections.cut)
    cut: Callable[[int, Mapping[int, int], bool], Cut | None] | None = None  # (room, sent, hint) -> the doc cut
    known: Mapping[str, int] | None = None  # unit -> turn of what the conversation holds (None: no memory)


def rank(scores: Mapping[str, FileScore], hit: frozenset[str], mass: Mapping[str, float] | None = None,
         relevance: Mapping[str, float] | None = None) -> list[tuple[str, FileScore]]:
    """Score, hit this turn, keyword hits, relevance to the conversation (the text's rank), mass (semantic
    layer; heavier first), most recent hit, path."""
    weight = mass or {}
    rel = relevance or {}
    return sorted(scores.items(), key=lambda kv: (-kv[1].score, kv[0] not in hit, -kv[1].hits,
                                                 -rel.get(kv[0], 0.0), -weight.get(kv[0], 0.0),
                                                 -kv[1].last_hit_turn, kv[0]))


def candidates(ranked: Sequence[tuple[str, FileScore]], caps: Caps) -> list[Candidate]:
    out: list[Candidate] = []
    n_hot = n_warm = 0
    for path, fs in ranked:
        if fs.score >= caps.hot_threshold and n_hot < caps.hot_max:
            out.append(Candidate(path, fs.score, HOT))
            n_hot += 1
        elif fs.score >= caps.warm_threshold and n_warm < caps.warm_max:
            out.append(Candidate(path, fs.score, WARM))  # HOT overflow is shown as WARM, not hidden
            n_warm += 1
    return out


def over_caps(ranked: Sequence[tuple[str, FileScore]], caps: Caps, cands: Sequence[Candidate]) -> list[str]:
    """Docs at or above the WARM line that the caps left out, in rank order."""
    shown = {c.path for c in cands}
    return [p for p, fs in ranked if fs.score >= caps.warm_threshold and p not in shown]


def _separator_cost(layout: Layout) -> int:
    return len(layout.compose("", [""], None)) - len(layout.compose("", [], None))


def utf16_units(text: str) -> int:
    """The length a JavaScript host counts: UTF-16 code units (a character past U+FFFF counts two). Counted
    from the UTF-8 bytes, where each such character, and only such a one, starts with a byte F0-F4: the UTF-16
    codec is a module of its own, and importing it cost a hook turn 0.3 ms (the box's 🔥 is past U+FFFF)."""
    if text.isascii():
        return len(text)
    data = text.encode("utf-8", "surrogatepass")
    return len(text) + sum(data.count(lead) for lead in _ASTRAL_LEADS)


_ASTRAL_LEADS = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")


def utf8_bytes(text: str) -> int:
    """The length a host that counts bytes sees: UTF-8 bytes (an accented letter counts two, an emoji four)."""
    return len(text.encode("utf-8"))


def fit(cands: Sequence[Candidate], views: Mapping[str, DocView], layout: Layout, budget: int, turn: int,
        n_docs: int, intent: str | None = None, notes: tuple[str, ...] = (),
        capped: Sequence[tuple[str, str]] = (), measure: Callable[[str], int] = len,
        relevance: Mapping[str, float] | None = None, pack: bool = True,
        parts: Mapping[str, Mapping[int, float]] | None = None, named: frozenset[str] = frozenset(),
        about: bool = True, one: frozenset[str] = frozenset()) -> Plan:
    """Place the candidates, in rank order, inside `budget` characters as `measure` counts them (len, or
    utf16_units or utf8_bytes for a host that counts those). capped: (path, reason) of the docs that qualified but the
    caps left out; they are named with the ones the budget leaves out. relevance: how well each doc answers
    the conversation; the HOT docs share the budget in that order (else in rank order). pack: HOT docs share
    the budget and WARM headers get WARM_SHARE of it; else (keyword mode, as claude-cognitive) each doc takes
    what it needs of what is left, in rank order. named: the docs this prompt's keywords hit; each has room for
    its opening and its best part before the other parts are shared out. about: the box says what the docs are
    (the conversation does not hold it yet). one: the HOT docs with thin evidence (a section leader, a doc the
    conversation keeps); in a hook's room each earns its best part, not its others (_section_rooms)."""
    if pack and relevance:
        # The HOT docs are printed by their best part, best first: the turn's best sections lead the output,
        # whichever doc holds them (the caps and tiers were settled by rank before).
        hot = sorted((c for c in cands if c.tier == HOT), key=lambda c: -relevance.get(c.path, 0.0))
        warm = [c for c in cands if c.tier != HOT]
        if bar(budget) < 1.0:
            # With more room than a hook's, the WARM docs come by their best part too: the room shows their
            # parts, not only their headers (piped, thirteen plain folders: the answer shown 79.5% -> 79.9%,
            # six folders up and three down). A hook's WARM docs keep their attention order: this one put two
            # answers fewer in context through the hook.
            warm.sort(key=lambda c: -relevance.get(c.path, 0.0))
        cands = [*hot, *warm]
    sep = _separator_cost(layout)
    # Reserve room for the box at its widest: every count and the total at their largest.
    remembers = any(v.known is not None for v in views.values())
    widest = layout.box(Stats(turn, n_docs, n_docs, n_docs, budget, budget, intent, notes,
                              n_docs if remembers else None))
    remaining = budget - measure(layout.compose(widest, [], None))
    entries: list[Entry] = []
    omitted: list[str] = []
    why: list[str] = []  # why each of `omitted` is left out
    warm_used = 0
    cut = False  # a HOT doc placed so far is cut to its best parts
    pool = remaining - sep * len(cands) - _reserve([c for c in cands if c.tier != HOT], views, budget)
    top = max((v for ranked in (parts or {}).values() for v in ranked.values()), default=0.0)
    # The conversation was told how to see the rest of a cut doc (on a doc of this turn's; else it is told again).
    hinted = any(v.known and memory.HINT in v.known for v in views.values())
    rooms = None
    if pack:
        share = PART_SHARE * bar(budget)
        rooms = (_section_rooms(cands, views, layout, measure, parts, relevance or {}, pool, share, named,
                                one if bar(budget) >= 1.0 else frozenset()) if parts
                 else _rooms(cands, views, layout, measure, relevance or {}, pool))
    placed: dict[str, int] = {}  # the parts this turn's blocks print, by content (memory.unit)
    for i, cand in enumerate(cands):
        view = views.get(cand.path)
        if view is None or blank(view.body() or ""):
            continue  # gone, or a page with nothing to read (`<HomeSponsors />`, front matter only)
        if placed and view.known is not None:
            # A part another doc printed above, word for word (a generated command reference's inherited
            # options, a flag's text copied into every page that takes it), is held as the conversation's.
            view = replace(view, known={**placed, **view.known})
        index = len(entries) + 1
        block = None
        if cand.tier == HOT:
            body = view.body()
            if body is None:
                continue
            later = cands[i + 1:]
            room = remaining - sep - _reserve([c for c in later if c.tier != HOT], views, budget)
            if rooms is not None:
                room = min(rooms.get(cand.path, 0), room)
            block = _hot(layout, index, cand, view, body, room, measure, hint=not cut and not hinted)
        if block is None:
            block = _warm(layout, index, cand, view, (parts or {}).get(cand.path) if pack else None, top, turn)
            if pack and block.repeat:  # the conversation holds its header: a line naming it again adds nothing
                omitted.append(cand.path)
                why.append("held")
                continue
            cost = measure(block.text) + sep
            # Headers are what the model may ask for next, not the answer: they get their share while a HOT doc
            # is still to be placed or was cut to its best parts; else what the HOT docs left is theirs.
            held_back = pack and (cut or any(c.tier == HOT for c in cands[i + 1:]))
            if cost > remaining or (held_back and warm_used + cost > budget * WARM_SHARE):
                omitted.append(cand.path)
                why.append("budget" if cost > remaining else "warm share")
                continue
            warm_used += cost
        entries.append(block)
        placed.update((u, turn) for u in block.units if u.startswith(memory.PART))
        cut = cut or block.cut
        remaining -= measure(block.text) + sep

    if pack and bar(budget) < 1.0 and "warm share" in why:
        remaining = _after_the_hot(cands, views, layout, measure, parts, top, entries, omitted, why, remaining, sep)
    reasons = why + [r for _, r in capped]
    omitted += [p for p, _ in capped]
    # Packed for the answer, the closing line names what it can in a few hundred chars, then counts the rest.
    room = min(remaining - sep, CLOSING_CHARS) if pack else remaining - sep
    closing = _closing(layout, omitted, reasons, room, measure) if omitted and entries else None
    return _compose(layout, entries, omitted, reasons, closing, turn, n_docs, budget, intent, notes, measure,
                    remembers, about)


def _after_the_hot(cands: Sequence[Candidate], views: Mapping[str, DocView], layout: Layout,
                   measure: Callable[[str], int], parts: Mapping[str, Mapping[int, float]] | None, top: float,
                   entries: list[Entry], omitted: list[str], why: list[str], remaining: int, sep: int) -> int:
    """With more room than a hook's, the WARM docs held back to their share while HOT docs were placed get
    what the HOT docs left, in rank order (the closing line's room kept): a doc that answers is not left out of
    a turn that ends with its budget unused (piped, thirteen plain folders: the answer shown 80.1% -> 80.9%, at
    10% more chars; through a hook's 10,000 chars it cost 28% more chars a conversation, not done there).
    Updates entries, omitted and why in place; returns what is left."""
    by_path = {c.path: c for c in cands}
    for k, path in enumerate(omitted):
        if why[k] != "warm share":
            continue
        block = _warm(layout, len(entries) + 1, by_path[path], views[path], (parts or {}).get(path), top)
        if block.repeat:  # the conversation holds its header
            why[k] = "held"
            continue
        cost = measure(block.text) + sep
        if cost <= remaining - CLOSING_CHARS:
            entries.append(block)
            remaining -= cost
            why[k] = ""
    omitted[:] = [p for p, r in zip(omitted, why, strict=True) if r]
    why[:] = [r for r in why if r]
    return remaining


def _hot(layout: Layout, index: int, cand: Candidate, view: DocView, body: str, room: int,
         measure: Callable[[str], int], hint: bool = True) -> Entry | None:
    """The HOT block: the whole doc when it fits its room, else cut; with a memory, only what the conversation
    lacks (a doc it holds unchanged is named in one line). None: not even a cut fits (shown as WARM). hint: a
    cut says how to see the rest (the turn's first cut doc)."""
    whole = memory.unit(memory.WHOLE, body)
    known = view.known
    split = split_sections(body) if known is not None else []
    parts = [memory.unit(memory.PART, s.text) for s in split]
    # A cut doc shows its opening shortened (opening_of): that is the unit the conversation holds of it.
    opening = memory.unit(memory.PART, opening_of(split[0].text)) if split and split[0].text else ""
    if known is not None and whole in known:
        return Entry(cand.path, HOT, cand.score, layout.hot(index, cand.path, cand.score,
                                                             memory.already(known[whole], "the whole doc is")),
                     repeat=known[whole], saved=len(body))
    sent = {j: known[h] for j, h in enumerate(parts) if known is not None and h in known}
    if known is not None and 0 not in sent and opening in known:
        sent[0] = known[opening]
    text = layout.hot(index, cand.path, cand.score, body)
    if not sent and measure(text) <= room:
        return Entry(cand.path, HOT, cand.score, text,
                     units=tuple(u for u in (whole, *parts, opening, memory.unit(memory.HEADER, view.header)) if u)
                     if known is not None else ())
    changed = [t for k, t in (known or {}).items() if k.startswith(memory.WHOLE)]
    note = f"... [changed on disk since it was sent at turn {max(changed)}] ...\n" if changed else ""
    done = _cut(layout, index, cand, view, room - measure(note), measure, sent, note, hint)
    if done is None:
        return None
    text, kept = done
    units = tuple(u for u in (opening if j == 0 else parts[j] for j in sorted(kept) if j < len(parts)) if u)
    if known is not None and hint and f"`{show_command(cand.path)}" in text:
        units += (memory.HINT,)
    return Entry(cand.path, HOT, cand.score, text, True, units,
                 saved=sum(len(split[j].text) for j in sent if j < len(split)))


def _warm(layout: Layout, index: int, cand: Candidate, view: DocView, ranked: Mapping[int, float] | None = None,
          top: float = 0.0, now: int = 0) -> Entry:
    """The WARM block: the doc's part that the turn ranked among its best (ranked: part -> score; top: the
    turn's best part's), when the conversation does not hold it; else the doc's header, or one line when the
    conversation holds it, the whole doc or some of its parts (a cut sent them: the model has the doc's best;
    now: this turn, whose blocks above sent what it holds of `now`)."""
    section = _best_part(view, ranked or {}, top)
    if section is not None:
        unit = memory.unit(memory.PART, section.text)
        if view.known is None or unit not in view.known:
            text = layout.warm(index, cand.path, cand.score, alone(section, under=True), True)
            return Entry(cand.path, WARM, cand.score, text, units=(unit,) if view.known is not None else ())
    if view.known is not None:
        header = memory.unit(memory.HEADER, view.header)
        body = view.body()
        keys = [header]
        split = split_sections(body) if body is not None else []
        if body is not None:
            # A HOT block before showed the doc's opening (whole, or shortened as a cut shows it): that is what
            # its header would say again.
            opening = split[0].text if split else ""
            keys += [memory.unit(memory.WHOLE, body)]
            keys += [memory.unit(memory.PART, t) for t in (opening, opening_of(opening)) if t]
        held = next(((view.known[key], "its header is") for key in keys if key in view.known), None)
        if held is None:  # a cut sent some of its parts: the model has the doc's best, the header adds little
            parts = [view.known[k] for k in (memory.unit(memory.PART, s.text) for s in split[1:]) if k in view.known]
            held = (max(parts), "some of its parts are") if parts else None
        if held is not None:
            return Entry(cand.path, WARM, cand.score, layout.warm(index, cand.path, cand.score, memory.already(
                *held, now), False), repeat=held[0], saved=len(view.header))
        return Entry(cand.path, WARM, cand.score,
                     layout.warm(index, cand.path, cand.score, view.header, view.truncated), units=(header,))
    return Entry(cand.path, WARM, cand.score, layout.warm(index, cand.path, cand.score, view.header, view.truncated))


WARM_PART_SHARE = 0.3  # a WARM doc whose best part scores at least this share of the turn's best part shows that
# part where its first lines would be: the turn's best sections, whichever doc holds them (replayed on the ten
# plain folders: piped 79.7% -> 80.7% at 800 chars a conversation less; through the hook 77.0% -> 77.6% at 1,600
# more; 0.5: 80.4% / 77.4%, 0.7: 80.2% / 77.2%; leave-one-corpus-out over 0.3/0.5/0.7/off picks 0.3 on 14 of 15)
WARM_PART_CHARS = 1500  # ... when it is no longer than this: a WARM block stays the size of a header


def _best_part(view: DocView, ranked: Mapping[int, float], top: float) -> Section | None:
    """The WARM doc's part to show in place of its header: its best ranked part, when that is among the turn's
    best parts and about a header's size. The opening is its header already."""
    if not ranked or top <= 0:
        return None
    j, score = max(ranked.items(), key=lambda kv: (kv[1], -kv[0]))
    if j <= 0 or score < WARM_PART_SHARE * top:
        return None
    body = view.body()
    split = split_sections(body) if body is not None else []
    return split[j] if j < len(split) and len(split[j].text) <= WARM_PART_CHARS else None


def _reserve(later: Sequence[Candidate], views: Mapping[str, DocView], budget: int) -> int:
    """Room the HOT docs leave for the WARM headers after them: their size, at most WARM_SHARE of the budget."""
    headers = sum(len(views[c.path].header) + HEADER_OVERHEAD for c in later if c.path in views)
    return min(headers, int(budget * WARM_SHARE))


HEADER_OVERHEAD = 120  # a block's banner and truncation line, roughly
WARM_SHARE = 0.1  # of the budget for the WARM headers: kept for them while HOT docs are placed, and no more
# The room of each HOT doc, in rank order, relative to the next: the budget goes to the sections that answer
# the turn in the best docs before the whole pages of the fourth.
HOT_WEIGHTS = (1.0, 0.35, 0.2, 0.15)
CLOSING_CHARS = 80  # the closing line's names of left-out docs, with the semantic layer on: one or two, then the
# count (leave-one-corpus-out over 80/120/200 picked 80 on every corpus: the same answers in context, 960 chars a
# conversation less than 200 on eight plain folders; 400 cost 1,100 more than 200 and put no answer in context)


def _rooms(cands: Sequence[Candidate], views: Mapping[str, DocView], layout: Layout,
           measure: Callable[[str], int], relevance: Mapping[str, float], pool: int) -> dict[str, int]:
    """The room of each HOT doc: in order of relevance (then rank), its weight's share of what the docs before
    it left of `pool`; a doc smaller than its share is shown whole and leaves the rest to the ones after it."""
    hot = [(i, c) for i, c in enumerate(cands) if c.tier == HOT and c.path in views]
    order = sorted(hot, key=lambda ic: (-relevance.get(ic[1].path, 0.0), ic[0]))
    weights = [HOT_WEIGHTS[min(k, len(HOT_WEIGHTS) - 1)] for k in range(len(order))]
    rooms: dict[str, int] = {}
    left = max(0, pool)
    for k, (i, cand) in enumerate(order):
        room = int(left * weights[k] / sum(weights[k:]))
        view = views[cand.path]
        body = view.body()
        if body is None:
            need = 0
        elif view.known is not None and memory.unit(memory.WHOLE, body) in view.known:
            need = measure(layout.hot(i + 1, cand.path, cand.score, memory.already(0, "the whole doc is")))
        else:
            need = measure(layout.hot(i + 1, cand.path, cand.score, body))
        rooms[cand.path] = room
        left -= min(room, need)
    return rooms


SMALL_SHARE = 0.5  # of the HOT docs' room: a HOT doc this small is shown whole when there is room, a bigger one
# by its best parts
PART_SHARE = 0.25  # a part scoring at least this share of the turn's best part earns room in its HOT doc (x bar())
BAR_ROOM = 10000  # the budget the parts' bars (PART_SHARE, sections.PART_FLOOR) were set at: a hook's
DOC_PRIOR = 1.0  # replayed at 10,000 chars on nine plain folders: 0 79.8% in context at 59,900 chars a conversation,
# 0.5 79.7% at 59,100, 1 79.9% at 58,700 (noise 57.1% -> 54.9%), 2 78.4% at 57,200; leave-one-corpus-out picks 1 on 12
# of 14 folds
CUT_OVERHEAD = 420  # chars a cut doc costs beyond its parts: the banner's line, the left-out line, the joins
STRETCH_CHARS = 1500  # the room of a stretch of a part too big for the room left (over sections.STRETCH_FROM)


def bar(budget: int) -> float:
    """How far the parts' bars fall for a turn with more room than a hook's: a part half as good as the best
    earns its place in 25,000 chars, not in 10,000 (piped, thirteen plain folders: the answer shown 77.7% ->
    78.3%, and 79.2% with more leaders, lexical.leaders; bars at 0: 78.4% at 3% more chars)."""
    return min(1.0, BAR_ROOM / budget) if budget > 0 else 1.0


def _section_rooms(cands: Sequence[Candidate], views: Mapping[str, DocView], layout: Layout,
                   measure: Callable[[str], int], parts: Mapping[str, Mapping[int, float]],
                   relevance: Mapping[str, float], pool: int, share: float = PART_SHARE,
                   named: frozenset[str] = frozenset(), one: frozenset[str] = frozenset()) -> dict[str, int]:
    """The room of each HOT doc, from the turn's best parts across all of them (those at least `share` of the
    best): the parts are taken best first, whichever doc holds them, while they fit in `pool` (a doc's first
    part also pays for its opening and its lines); a doc is shown whole when it is small, or when its whole
    costs no more than the parts it earned.
    A HOT doc with no ranked part but its opening (a keyword or a pin made it HOT) gets room for its opening and
    first part, and a doc a keyword of this prompt hit (`named`) room for its opening and best part before any
    doc's parts are shared out: the prompt named the page, and its WARM line promised that naming it shows it.
    A doc in `one` earns room for its best part alone."""
    hot = [(i, c) for i, c in enumerate(cands) if c.tier == HOT and c.path in views]
    order = sorted(hot, key=lambda ic: (-relevance.get(ic[1].path, 0.0), ic[0]))
    whole: dict[str, int] = {}
    fixed: dict[str, int] = {}
    sizes: dict[str, list[int]] = {}
    rooms: dict[str, int] = {}
    left = max(0, pool)
    small = SMALL_SHARE * left
    items: list[tuple[float, int, str, int]] = []
    paid: set[tuple[str, int]] = set()  # (doc, part) whose room a doc was given before the parts are shared out
    stretched: set[str] = set()  # the docs given room for a stretch of a part too big for the room
    for rank_, (i, cand) in enumerate(order):
        view = views[cand.path]
        body = view.body()
        if body is None:
            continue
        if view.known is not None and memory.unit(memory.WHOLE, body) in view.known:
            need = measure(layout.hot(i + 1, cand.path, cand.score, memory.already(0, "the whole doc is")))
            rooms[cand.path] = need
            left -= need
            continue
        whole[cand.path] = measure(layout.hot(i + 1, cand.path, cand.score, body))
        split = split_sections(body)
        sizes[cand.path] = [len(s.text) + 2 for s in split]
        opening = len(opening_of(split[0].text)) if split and split[0].text else len(view.header)
        fixed[cand.path] = measure(layout.hot(i + 1, cand.path, cand.score, "")) + opening + CUT_OVERHEAD
        # The opening is ranked as a part too: when it answers, it is shown whole, and costs what it adds to the
        # shortened opening the doc's first part pays for.
        ranked = {j: v for j, v in parts.get(cand.path, {}).items() if 0 <= j < len(split) and v > 0}
        if cand.path in one and view.known:  # its one part is one the conversation lacks: a held one prints nothing
            ranked = {j: v for j, v in ranked.items() if memory.unit(memory.PART, split[j].text) not in view.known}
        if split and 0 in ranked:
            sizes[cand.path][0] = max(0, sizes[cand.path][0] - opening)
        if cand.path in named or not any(j > 0 for j in ranked):
            best = max((j for j in ranked if j > 0), key=ranked.__getitem__, default=1)
            size = sizes[cand.path][best] if best < len(split) else 0
            room = min(whole[cand.path], _part_room(size, fixed[cand.path], left, cand.path, stretched))
            rooms[cand.path] = room
            left -= room
            paid.add((cand.path, best))
        items += [(v, rank_, cand.path, j) for j, v in ranked.items()]
    top = max((v for v, _, _, _ in items), default=0.0)
    lead: dict[str, float] = {}  # each doc's best part, as a share of the turn's best
    for v, _, path, _ in items:
        lead[path] = max(lead.get(path, 0.0), v / top)
    # A part's place in line is its score weighed by its doc's lead (to the power DOC_PRIOR): the doc with the
    # turn's best part is where more of the answer is, and a weaker doc's parts also cost its opening.
    # A doc in `one` earns one part beside its opening (which, when the turn ranks it, is shown whole).
    earned = {path for path, j in paid if j > 0}
    for v, _, path, j in sorted(items, key=lambda t: (-t[0] * lead[t[2]] ** DOC_PRIOR, t[1], t[3])):
        if v < share * top or (path, j) in paid or (path in one and j > 0 and path in earned):
            continue
        cost = _part_room(sizes[path][j], 0 if path in rooms else fixed[path], left, path, stretched)
        if cost <= left:
            rooms[path] = rooms.get(path, 0) + cost
            left -= cost
            earned.update((path,) if j > 0 else ())
    for _, cand in order:  # small docs, or docs whose parts cost their whole anyway, are shown whole
        path = cand.path
        if path not in whole:
            continue
        extra = whole[path] - rooms.get(path, 0)
        if extra <= left and (whole[path] <= small or extra <= 0):
            rooms[path] = whole[path]
            left -= max(0, extra)
    return rooms


def _part_room(size: int, extra: int, left: int, path: str, stretched: set[str]) -> int:
    """The room a part of `size` chars costs its doc, with `extra` (its opening and lines, for the doc's first):
    a part too big for the room left (a reference's whole configuration file in one code block), once a doc,
    costs the room of its best stretch, which sections.cut shows (the doc is added to `stretched`)."""
    if size + extra > left and size > STRETCH_FROM and path not in stretched:
        stretched.add(path)
        return STRETCH_CHARS + extra
    return size + extra


def _cut(layout: Layout, index: int, cand: Candidate, view: DocView, room: int, measure: Callable[[str], int],
         sent: Mapping[int, int], note: str = "", hint: bool = True) -> tuple[str, frozenset[int]] | None:
    """(the HOT block with the doc cut to fit `room` as `measure` counts, the parts it printed), or None when
    it cannot be cut that small. The cut counts characters: where the measure counts more, cut again with the
    difference off."""
    if view.cut is None:
        return None
    frame = measure(layout.hot(index, cand.path, cand.score, "")) + measure(note)
    room -= measure(layout.hot(index, cand.path, cand.score, ""))
    for _ in range(3):
        done = view.cut(room, sent, hint) if room > 0 else None
        if done is None:
            return None
        text = layout.hot(index, cand.path, cand.score, note + done.text)
        # The text as the block holds it: a layout may escape it and so lengthen it (xml's CDATA).
        over = measure(text) - frame - room
        if over <= 0:
            return text, done.parts
        room -= over
    return None


def _closing(layout: Layout, omitted: Sequence[str], reasons: Sequence[str], room: int,
             measure: Callable[[str], int]) -> str | None:
    """The longest closing line that names omitted files (with why) and fits in `room`."""
    named = [f"{p} ({r})" for p, r in zip(omitted, reasons, strict=True)]

    def line(k: int) -> str:
        return layout.closing(named[:k], len(named) - k)

    # The line grows with every name it lists: search for the most that fit (hundreds may be left out).
    lo, hi = 0, len(named)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if measure(line(mid)) <= room:
            lo = mid
        else:
            hi = mid - 1
    for k in range(lo, -1, -1):  # the first that fits, should one more name ever make it shorter
        if measure(line(k)) <= room:
            return line(k)
    return None


def _compose(layout: Layout, entries: list[Entry], omitted: list[str], reasons: list[str], closing: str | None,
             turn: int, n_docs: int, budget: int, intent: str | None, notes: tuple[str, ...],
             measure: Callable[[str], int] = len, remembers: bool = False, about: bool = True) -> Plan:
    if not entries and not notes:  # nothing to show and no note (an expired or suspended pin) to pass on
        return Plan((), tuple(omitted), Stats(turn, 0, 0, n_docs, 0, budget, intent, notes), "", tuple(reasons))
    n_hot = sum(1 for e in entries if e.tier == HOT)
    n_warm = len(entries) - n_hot
    cold = max(0, n_docs - len(entries))
    blocks = [e.text for e in entries]
    used = 0
    # "Total chars" counts the box itself: settle it in a few passes (the digit count can only grow).
    for _ in range(4):
        stats = Stats(turn, n_hot, n_warm, cold, used, budget, intent, notes,
                      sum(1 for e in entries if e.repeat) if remembers else None, about)
        output = layout.compose(layout.box(stats), blocks, closing)
        if measure(output) == used:
            break
        used = measure(output)
    if measure(output) > budget and not entries:
        return Plan((), tuple(omitted), Stats(turn, 0, 0, n_docs, 0, budget, intent, notes), "", tuple(reasons))
    if measure(output) > budget:  # cannot happen with the reserve above, but the ceiling is absolute
        dropped = entries.pop().path
        return _compose(layout, entries, [dropped, *omitted], ["budget", *reasons], None, turn, n_docs, budget,
                        intent, notes, measure, remembers, about)
    return Plan(tuple(entries), tuple(omitted), replace(stats, used=measure(output)), output, tuple(reasons))
