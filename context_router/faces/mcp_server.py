"""`ctx mcp`: the router, the text index and the docs over the Model Context Protocol (stdio), with the
official Python SDK (`mcp`, version 2: its server class is `MCPServer`).

Each call opens the workspace as a CLI command does, so hook turns and MCP calls share one state safely.
Errors come back as MCP tool errors with ctx's one-line message; nothing but protocol is written to stdout
(warnings go to stderr).
"""

from __future__ import annotations

import functools
import os
import re
import sys
from typing import Any

from .. import __version__
from ..errors import CtxError
from ..router import TurnRequest, run_turn
from ..turn import lexical
from ..turn.words import content_words
from ..workspace import Workspace, refresh, with_workspace
from . import report

MAX_DOC_RESOURCES = 500  # docs listed one by one as resources; past that, the template alone
DEFAULT_SESSION = "mcp"


def _warn(message: str) -> None:
    print(f"ctx: {message}", file=sys.stderr)


# The index marks each match with characters of the private use area, which no doc is expected to hold;
# bolded() turns them into markdown's ** where bold can be.
MARKS = ("\ue000", "\ue001")
# Where a ** would not be bold but would change the text: a link's target, a URL, a code span, an HTML tag.
_LITERAL = re.compile(r"(`+)[^`\n]+?\1|\]\([^)\s]*\)?|\]\[[^\]]*\]?|<?[a-z][a-z0-9+.-]*://[^\s<>)\]]*|</?[A-Za-z][^>]*>?"
                      r"|^\s*\[[^\]]+\]:\s*\S+|\*\*[^*\n]+\*\*", re.MULTILINE)  # (and text already bold)
_JOINERS = frozenset("_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_FENCE = re.compile(r"^[ \t]*(?:`{3,}(?![^`\n]*`)|~~~)", re.MULTILINE)  # fences.is_fence


def bolded(snippet: str) -> str:
    """A snippet with its matches in bold, except where bold markers would land inside a link's target, a
    URL, a code span or block or an HTML tag (`[strict mode](../concepts/strict_mode.md)` keeps its target),
    or inside text already bold."""
    text, spans = "", []
    for piece in re.split("(\ue000[^\ue001]*\ue001)", snippet):
        if piece.startswith(MARKS[0]) and piece.endswith(MARKS[1]):
            spans.append((len(text), len(text) + len(piece) - 2))
            piece = piece[1:-1]
        text += piece.replace(MARKS[0], "").replace(MARKS[1], "")
    literal = [m.span() for m in _LITERAL.finditer(text)]
    # A snippet cut inside a code span (the index writes " ... " where it cut): the odd backtick of its first
    # line closes one, that of its last line opens one.
    lines = text.split("\n")
    if text.startswith(" ... ") and lines[0].count("`") % 2:
        literal.append((0, text.index("`")))
    if text.endswith(" ... ") and lines[-1].count("`") % 2 and (len(lines) > 1 or not text.startswith(" ... ")):
        literal.append((text.rindex("`"), len(text)))
    fences = [m.start() for m in _FENCE.finditer(text)]
    if len(fences) % 2 and text.startswith(" ... "):  # cut after a block's opening fence: it closes one
        fences.insert(0, 0)
    if len(fences) % 2:
        fences.append(len(text))
    literal += list(zip(fences[::2], fences[1::2], strict=True))
    out, at = [], 0
    for start, end in spans:
        # (inside an identifier, `strict_mode`, markers would split it)
        joined = text[start - 1:start] in _JOINERS and start > 0 or text[end:end + 1] in _JOINERS and end < len(text)
        if start < end and not joined and not any(a < end and start < b for a, b in literal):
            out += [text[at:start], "**", text[start:end], "**"]
            at = end
    return "".join(out) + text[at:]


class Tools:
    """The MCP tools as plain methods over a config and docs folder (testable without a transport)."""

    def __init__(self, config: str | None, docs: str | None, cwd: str):
        self.config, self.docs, self.cwd = config, docs, cwd

    def _run(self, fn: Any) -> Any:
        return with_workspace(fn, self.config, self.docs, self.cwd, _warn)

    def route(self, prompt: str, session: str = DEFAULT_SESSION) -> str:
        result = self._run(lambda ws: run_turn(ws, TurnRequest(prompt, session=session), _warn))
        return result.text or "(nothing is HOT or WARM for this prompt)"

    def search(self, query: str, k: int = 5) -> list[dict[str, Any]]:
        words = content_words(query)[:lexical.MAX_TERMS]
        if not words:
            return []

        def find(ws: Workspace) -> list[dict[str, Any]]:
            with ws.store.transaction():
                refresh(ws, seconds=ws.config.index_budget_ms / 1000)
                rows = ws.store.lexical_snippets(" OR ".join('"' + w.replace('"', "") + '"' for w in words),
                                                 lexical.FIELD_WEIGHTS, max(1, min(k, 50)), MARKS)
            return [{"path": p, "score": round(s, 3), "snippet": bolded(snippet)} for p, s, snippet in rows]

        return self._run(find)  # type: ignore[no-any-return]

    def show(self, path: str, section: str | None = None) -> str:
        return self._run(lambda ws: report.show(ws, path, section))  # type: ignore[no-any-return]

    def status(self, session: str = DEFAULT_SESSION) -> dict[str, Any]:
        return self._run(lambda ws: report.status(ws, session).to_dict())  # type: ignore[no-any-return]

    def explain(self, path: str, session: str = DEFAULT_SESSION) -> str:
        from .views import explanation

        return explanation(self._run(lambda ws: report.explain(ws, session, path)))

    def doc_paths(self) -> list[str]:
        def paths(ws: Workspace) -> list[str]:
            with ws.store.transaction():
                refresh(ws, seconds=ws.config.index_budget_ms / 1000)
                return sorted(ws.store.docs())

        return self._run(paths)  # type: ignore[no-any-return]


def build(config: str | None, docs: str | None, cwd: str | None = None) -> Any:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError

    tools = Tools(config, docs, cwd or os.getcwd())
    server = MCPServer("ctx", version=__version__, log_level="WARNING", instructions=(
        "ctx routes the docs of this repository into the conversation. Call `route` with the user's prompt "
        "for the docs this turn needs (whole or as headers, inside a character budget); `search` to find docs "
        "by their text; `show` to read a doc or one of its sections (a cut doc names the sections it left "
        "out); `status` and `explain` for the attention scores."))

    def guarded(fn: Any) -> Any:
        """ctx's one-line errors as MCP tool errors (wraps keeps the signature the SDK reads arguments from)."""
        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except CtxError as exc:
                raise ToolError(str(exc)) from None

        return call

    @server.tool(description="One ctx turn: update the attention scores from the prompt and return the docs "
                             "this turn needs (HOT in full, WARM as headers) inside the budget.")
    @guarded
    def route(prompt: str, session: str = DEFAULT_SESSION) -> str:
        return tools.route(prompt, session)

    @server.tool(description="Rank the docs by their text (BM25 over path, title, headings and body) and "
                             "return the best k with a snippet each.")
    @guarded
    def search(query: str, k: int = 5) -> list[dict[str, Any]]:
        return tools.search(query, k)

    @server.tool(description="A doc's text, or one section of it (its heading, case-insensitive).")
    @guarded
    def show(path: str, section: str | None = None) -> str:
        return tools.show(path, section)

    @server.tool(description="The session's attention scores: each doc's score, tier and last hit.")
    @guarded
    def status(session: str = DEFAULT_SESSION) -> dict[str, Any]:
        return tools.status(session)

    @server.tool(description="A doc's score turn by turn, with what changed it.")
    @guarded
    def explain(path: str, session: str = DEFAULT_SESSION) -> str:
        return tools.explain(path, session)

    @server.resource("ctx://doc/{+path}", description="A doc of this repository's docs folder.",
                     mime_type="text/markdown")
    def doc(path: str) -> str:
        try:
            return tools.show(path)
        except CtxError as exc:
            raise ResourceError(str(exc)) from None

    try:
        paths = tools.doc_paths()
    except CtxError as exc:
        _warn(f"warning: {exc}")
        paths = []
    for path in paths[:MAX_DOC_RESOURCES]:
        server.resource(f"ctx://doc/{path}", name=path, mime_type="text/markdown")(_reader(tools, path))
    return server


def _reader(tools: Tools, path: str) -> Any:
    """A resource handler without parameters (the SDK maps parameters to URI variables) for one doc."""
    def read() -> str:
        return tools.show(path)

    return read


def serve(config: str | None, docs: str | None) -> None:
    build(config, docs).run("stdio")
