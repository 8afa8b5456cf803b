"""`ctx mcp`: the router, the text index and the docs over the Model Context Protocol (stdio), with the
official Python SDK (`mcp`, version 2: its server class is `MCPServer`).

Each call opens the workspace as a CLI command does, so hook turns and MCP calls share one state safely.
Errors come back as MCP tool errors with ctx's one-line message; nothing but protocol is written to stdout
(warnings go to stderr).
"""

from __future__ import annotations

import functools
import os
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
                                                 lexical.FIELD_WEIGHTS, max(1, min(k, 50)))
            return [{"path": p, "score": round(s, 3), "snippet": snippet} for p, s, snippet in rows]

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
