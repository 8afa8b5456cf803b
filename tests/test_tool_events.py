"""The hosts' after-tool events: the files the agent read or edited lift the docs about them next turn."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from context_router.faces.hooks import run_hook
from context_router.turn import claims

from .conftest import REPO

SHOP = REPO / "bench" / "relevance" / "shop"
FOLLOW_UP = "why does this test fail now?"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    with (root / "config.yaml").open("a", encoding="utf-8") as fh:
        fh.write("rate_limit: {turns_per_minute: 0}\n")
    return root


def hook(host: str, data: dict, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_hook(host, list(args), stdin=io.BytesIO(json.dumps(data).encode()), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def prompt(host: str, root: Path, text: str, session: str = "s-1", *args: str) -> str:
    """The context the host would get for a typed prompt ("" when none)."""
    event = "BeforeAgent" if host == "gemini" else "UserPromptSubmit"
    code, out, err = hook(host, {"session_id": session, "transcript_path": str(root / "t.jsonl"), "cwd": str(root),
                                 "hook_event_name": event, "prompt": text}, *args)
    assert code == 0 and err == "", err
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def claude_tool(root: Path, tool: str, file: str, session: str = "s-1", **extra) -> dict:
    """A Claude Code PostToolUse payload, as the client sends it."""
    path = str(root / file)
    tool_input = {"file_path": path, **extra}
    if tool == "Edit":
        tool_input.update(old_string="a", new_string="b", replace_all=False)
    return {"session_id": session, "transcript_path": str(root / "t.jsonl"), "cwd": str(root),
            "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": tool,
            "tool_input": tool_input, "tool_response": {"filePath": path, "success": True},
            "tool_use_id": "toolu_01"}


def gemini_tool(root: Path, tool: str, file: str, session: str = "s-1") -> dict:
    """A Gemini CLI AfterTool payload."""
    return {"session_id": session, "transcript_path": str(root / "t.json"), "cwd": str(root),
            "hook_event_name": "AfterTool", "timestamp": "2026-12-01T10:00:00.000Z", "tool_name": tool,
            "tool_input": {"file_path": str(root / file)}, "tool_response": {"llmContent": "ok"}}


def codex_tool(root: Path, tool: str, command: str | list[str], session: str = "s-1") -> dict:
    """A Codex CLI PostToolUse payload (apply_patch's patch, or a shell command, in tool_input.command)."""
    return {"session_id": session, "transcript_path": None, "cwd": str(root), "hook_event_name": "PostToolUse",
            "model": "gpt-5-codex", "turn_id": "t1", "tool_name": tool, "tool_use_id": "call_1",
            "tool_input": {"command": command}, "tool_response": "Success."}


def shown(context: str) -> list[str]:
    return [line.split("] ", 1)[1].split(" (score")[0] for line in context.splitlines() if line.startswith("━━━ [")]


def test_an_edit_lifts_the_doc_whose_front_matter_claims_the_file(shop):
    assert prompt("claude", shop, "let's look at the invoice code") != "" or True
    code, out, err = hook("claude", claude_tool(shop, "Edit", "src/billing/invoice.py"))
    assert (code, out, err) == (0, "", "")
    context = prompt("claude", shop, FOLLOW_UP)
    assert "━━━ [🔥 HOT] billing.md" in context


def test_a_read_lifts_the_doc_that_names_the_file(shop):
    prompt("claude", shop, "hello")
    assert hook("claude", claude_tool(shop, "Read", "src/search/parser.py")) == (0, "", "")
    assert "━━━ [🔥 HOT] search.md" in prompt("claude", shop, FOLLOW_UP)


def test_without_the_event_the_same_prompt_does_not(shop):
    prompt("claude", shop, "hello")
    context = prompt("claude", shop, FOLLOW_UP)
    assert "billing.md" not in shown(context) and "search.md" not in shown(context)


def scores(root: Path, session: str = "s-1") -> dict[str, float]:
    from context_router.router import TurnRequest, route

    result = route(TurnRequest("status only", session=session, dry_run=True, fmt="json"), str(root / "config.yaml"))
    return {f["path"]: f["score"] for f in json.loads(result.text)["files"]}


def test_the_lift_decays_like_other_evidence(shop):
    prompt("claude", shop, "hello")
    hook("claude", claude_tool(shop, "Edit", "src/billing/invoice.py"))
    assert "━━━ [🔥 HOT] billing.md" in prompt("claude", shop, FOLLOW_UP)
    later = prompt("claude", shop, "and what else could it be?")
    assert "━━━ [🔥 HOT] billing.md" not in later  # no new event: the lift is not renewed
    # decayed to WARM, still in view: the conversation holds it, so it is named in the closing line, not again
    assert "billing.md (held)" in later and "billing.md" not in shown(later)


def test_the_prompt_decides_hot_when_it_points_elsewhere(shop):
    (shop / "config.yaml").write_text((shop / "config.yaml").read_text() + "keywords:\n  deploy.md: [rollback]\n")
    prompt("claude", shop, "hello")
    hook("claude", claude_tool(shop, "Edit", "src/billing/invoice.py"))
    context = prompt("claude", shop, "how does a rollback work?")
    assert "━━━ [🔥 HOT] deploy.md" in context
    assert "━━━ [🌡️ WARM] billing.md" in context


def test_config_paths_and_cursor_globs_claim_files(shop):
    prompt("claude", shop, "hello")
    hook("claude", claude_tool(shop, "Write", "src/api/routes.py"))
    assert "━━━ [🔥 HOT] api.md" in prompt("claude", shop, FOLLOW_UP)  # config.yaml `paths:`
    hook("claude", claude_tool(shop, "Read", "src/auth/session.py"))
    assert "━━━ [🔥 HOT] auth.md" in prompt("claude", shop, FOLLOW_UP)  # front matter `globs:` as one string


def test_events_are_per_session(shop):
    prompt("claude", shop, "hello", session="a")
    prompt("claude", shop, "hello", session="b")
    hook("claude", claude_tool(shop, "Edit", "src/billing/invoice.py", session="a"))
    assert "billing.md" not in shown(prompt("claude", shop, FOLLOW_UP, session="b"))
    assert "billing.md" in shown(prompt("claude", shop, FOLLOW_UP, session="a"))


def test_gemini_after_tool(shop):
    prompt("gemini", shop, "hello")
    assert hook("gemini", gemini_tool(shop, "replace", "src/billing/invoice.py")) == (0, "", "")
    assert "━━━ [🔥 HOT] billing.md" in prompt("gemini", shop, FOLLOW_UP)


def test_codex_apply_patch_and_shell_reads(shop):
    prompt("codex", shop, "hello")
    patch = ("*** Begin Patch\n*** Update File: src/billing/invoice.py\n@@\n-    lines = []\n+    lines = [] \n"
             "*** End Patch\n")
    assert hook("codex", codex_tool(shop, "apply_patch", patch)) == (0, "", "")
    assert "━━━ [🔥 HOT] billing.md" in prompt("codex", shop, FOLLOW_UP)
    assert hook("codex", codex_tool(shop, "Bash", "sed -n 1,40p src/search/parser.py | head")) == (0, "", "")
    assert "━━━ [🔥 HOT] search.md" in prompt("codex", shop, FOLLOW_UP)
    assert hook("codex", codex_tool(shop, "Bash", ["bash", "-lc", "cat src/auth/session.py"])) == (0, "", "")
    assert "━━━ [🔥 HOT] auth.md" in prompt("codex", shop, FOLLOW_UP)


@pytest.mark.parametrize("tool, tool_input", [
    ("Bash", {"command": "ls"}),  # not a file tool
    ("Read", {}),  # no file
    ("Read", {"file_path": 42}),
    ("Edit", "not an object"),
])
def test_events_without_a_file_note_nothing(shop, isolated_state, tool, tool_input):
    prompt("claude", shop, "hello")
    data = {**claude_tool(shop, "Read", "x"), "tool_name": tool, "tool_input": tool_input}
    assert hook("claude", data) == (0, "", "")
    assert not (isolated_state.parent / "events.db").exists()


@pytest.mark.parametrize("raw", [b'{"hook_event_name": "PostToolUse", "tool_name": ', b'"PostToolUse"',
                                 b'{"hook_event_name": "PostToolUse", "cwd": "/nonexistent/x", "tool_name": "Read",'
                                 b' "tool_input": {"file_path": "/nonexistent/x/a.py"}}'])
def test_a_broken_event_exits_0_and_prints_nothing(raw):
    out, err = io.StringIO(), io.StringIO()
    assert run_hook("claude", [], stdin=io.BytesIO(raw), stdout=out, stderr=err) == 0
    assert out.getvalue() == "" and err.getvalue().count("\n") <= 1


def test_an_event_before_any_turn_writes_nothing(shop, isolated_state):
    assert hook("claude", claude_tool(shop, "Edit", "src/billing/invoice.py")) == (0, "", "")
    assert not isolated_state.parent.exists()  # ctx never ran here: no state folder is made for an event


def test_a_prompt_that_mentions_the_event_name_is_still_a_prompt(shop):
    assert "testing.md" in shown(prompt("claude", shop, "what does PostToolUse do when a test fails?"))


def test_a_damaged_events_file_is_no_evidence_and_is_started_afresh(shop, isolated_state):
    prompt("claude", shop, "hello")
    hook("claude", claude_tool(shop, "Edit", "src/billing/invoice.py"))
    (isolated_state.parent / "events.db").write_bytes(b"not a database" * 100)
    context = prompt("claude", shop, FOLLOW_UP)
    assert context != "" and "billing.md" not in shown(context)
    assert hook("claude", claude_tool(shop, "Read", "src/search/parser.py")) == (0, "", "")
    assert "━━━ [🔥 HOT] search.md" in prompt("claude", shop, FOLLOW_UP)


def test_the_event_path_loads_only_what_it_needs(shop, isolated_state):
    """No router, store, stages, YAML, json or re: an event parses, finds the project, notes, exits."""
    prompt("claude", shop, "hello")
    raw = json.dumps(claude_tool(shop, "Edit", "src/billing/invoice.py")).encode()
    probe = (
        "import io, sys\n"
        "before = set(sys.modules)\n"
        "from context_router.entry import main\n"
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({raw!r}))\n"
        "assert main(['hook', 'claude']) == 0\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "CTX_STATE": str(isolated_state)}
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    loaded = set(res.stdout.split())
    ours = {m for m in loaded if m.startswith("context_router")}
    assert ours <= {"context_router", "context_router.entry", "context_router.faces", "context_router.faces.hooks",
                    "context_router.faces.serve",
                    "context_router.faces.toolhook", "context_router.errors", "context_router.fastjson",
                    "context_router.config", "context_router.records", "context_router.store",
                    "context_router.store.events"}, sorted(ours)
    assert not loaded & {"re", "json", "yaml", "sqlite3", "datetime", "typer", "rich", "numpy"}, sorted(loaded)
    assert "billing.md" in shown(prompt("claude", shop, FOLLOW_UP))  # and the event was noted


@pytest.mark.parametrize("host, event, matcher", [
    ("claude", "PostToolUse", "Read|Edit|MultiEdit|Write|NotebookEdit"),
    ("gemini", "AfterTool", "read_file|read_many_files|write_file|replace"),
    ("codex", "PostToolUse", "apply_patch|Bash"),
])
def test_install_registers_the_after_tool_event(tmp_path, host, event, matcher):
    from context_router.faces.install import hook_path, install_hook, uninstall_hook

    path = hook_path(host, str(tmp_path))
    other = {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-it"}]}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Path(path).write_text(json.dumps({"hooks": {event: [other]}}))
    assert install_hook(host, path, "ctx hook " + host)[0] == "added"
    groups = json.loads(Path(path).read_text())["hooks"][event]
    assert groups[0] == other  # the user's own hook is kept
    ours = [g for g in groups if g.get("matcher") == matcher]
    assert len(ours) == 1 and ours[0]["hooks"][0]["command"] == "ctx hook " + host
    assert ours[0]["hooks"][0].get("async", False) is (host == "claude")  # the one host that need not wait
    before = Path(path).read_text()
    assert install_hook(host, path, "ctx hook " + host)[0] == "unchanged" and Path(path).read_text() == before
    install_hook(host, path, "/usr/bin/ctx hook " + host)
    assert [h["command"] for g in json.loads(Path(path).read_text())["hooks"][event] for h in g["hooks"]] == \
        ["lint-it", "/usr/bin/ctx hook " + host]
    assert uninstall_hook(host, path)
    assert json.loads(Path(path).read_text())["hooks"] == {event: [other]}


@pytest.mark.parametrize("value, message", [
    ("paths: [billing.md]", "paths: must be a mapping, got a list"),
    ("paths: {billing.md: 3}", "paths.billing.md: must be a list of strings, got an integer"),
    ("paths: {billing.md: ['!src/x']}", "paths.billing.md: '!src/x': a doc claims files, it cannot exclude them"),
    ("paths: {billing.md: ['" + "a" * 301 + "']}", "paths.billing.md: a glob is over 300 characters"),
])
def test_config_paths_errors_name_the_key(shop, ctx, value, message):
    (shop / "config.yaml").write_text("docs: docs\n" + value + "\n")
    res = ctx("route", "--config", str(shop / "config.yaml"), "invoices")
    assert res.code == 2
    assert res.err.strip().endswith(message) and res.err.count("\n") == 1, res.err


BILLING_LINE = "The tax of each line is rounded half-even to the cent, then the lines are summed"


def test_a_doc_the_agent_read_is_held_not_sent_again(shop):
    prompt("claude", shop, "hello")
    assert hook("claude", claude_tool(shop, "Read", "docs/billing.md")) == (0, "", "")
    context = prompt("claude", shop, "how are invoice totals rounded?")
    assert "billing.md" in shown(context)
    assert BILLING_LINE not in context and "already in this conversation" in context


def test_a_part_of_a_doc_read_is_not_the_whole(shop):
    prompt("claude", shop, "hello")
    hook("claude", claude_tool(shop, "Read", "docs/billing.md", offset=1, limit=5))
    assert BILLING_LINE in prompt("claude", shop, "how are invoice totals rounded?")


def test_a_host_without_history_is_sent_the_doc_it_read(shop):
    (shop / "config.yaml").write_text((shop / "config.yaml").read_text() + "hosts: {claude: {history: false}}\n")
    prompt("claude", shop, "hello")
    hook("claude", claude_tool(shop, "Read", "docs/billing.md"))
    assert BILLING_LINE in prompt("claude", shop, "how are invoice totals rounded?")


def test_a_doc_changed_since_the_agent_read_it_is_sent(shop):
    prompt("claude", shop, "hello")
    hook("claude", claude_tool(shop, "Read", "docs/billing.md"))
    doc = shop / "docs" / "billing.md"
    doc.write_text(doc.read_text() + "\nRefunds are credit notes.\n")
    assert BILLING_LINE in prompt("claude", shop, "how are invoice totals rounded?")


def replay_figures(ctx, shop: Path, *flags: str) -> dict:
    res = ctx("replay", str(REPO / "bench" / "relevance" / "shop.json"), "--config", str(shop / "config.yaml"),
              "--hook", "claude", "--json", *flags)
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_replay_hears_the_tool_events_of_the_dev_set(shop, ctx):
    heard, deaf = replay_figures(ctx, shop), replay_figures(ctx, shop, "--no-tools")
    assert heard["by_kind"]["followup"]["answer_in_context"] > deaf["by_kind"]["followup"]["answer_in_context"]
    assert heard["total"]["full"] > deaf["total"]["full"]
    ticket = [t for t in heard["turns"] if t["conversation"] == "shop-ticket" and t["turn"] == 2][0]
    assert ticket["full"] == 1.0  # "why does this test fail now?" after the agent's work on the parser


@pytest.mark.parametrize("tools, message", [
    ("5", "'tools' must be a list of {tool, file} objects"),
    ('[{"tool": "Grep", "file": "x"}]', "each of 'tools' needs a 'tool' (one of: Read, Edit, Write) and a 'file'"),
    ('[{"tool": "Read"}]', "each of 'tools' needs a 'tool' (one of: Read, Edit, Write) and a 'file'"),
])
def test_replay_tools_errors(shop, ctx, tools, message):
    conv = shop / "c.json"
    conv.write_text('[{"id": "c", "turns": [{"prompt": "hi", "gold": ["billing.md"], "tools": ' + tools + "}]}]")
    res = ctx("replay", str(conv), "--config", str(shop / "config.yaml"))
    assert res.code == 2 and res.err.strip() == f"ctx: error: c.json: conversation 1, turn 1: {message}", res.err


files_st = st.sampled_from(["src/a.py", "src/b/c.py", "lib/x.ts", "tests/t.py", "d/e/f.go"])
docs_st = st.lists(st.sampled_from(["a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "g.md"]), max_size=4)


@settings(max_examples=150, deadline=None)
@example([("src/a.py", "edit"), ("src/b/c.py", "read"), ("tests/t.py", "read")],
         {"src/b/c.py": ["f.md", "a.md"], "src/a.py": ["d.md", "e.md"]}, {"tests/t.py": ["b.md", "c.md"]}, {},
         frozenset(["a.md"]))  # the prompt's doc lifted past MAX_DOCS, so not lifted: nothing is HOT
@given(st.lists(st.tuples(files_st, st.sampled_from(["read", "edit", "glance"])), max_size=40),
       st.dictionaries(st.sampled_from(["src/a.py", "src/b/c.py", "lib/x.ts"]), docs_st),
       st.dictionaries(st.sampled_from(["src/a.py", "tests/t.py", "d/e/f.go"]), docs_st),
       st.dictionaries(st.sampled_from(["src/b/c.py", "d/e/f.go"]), docs_st),
       st.frozensets(st.sampled_from(["a.md", "z.md"])))
def test_the_lifts_stay_in_bounds(touched, claimed, named, near, prompt_docs):
    """Property: at most MAX_DOCS docs lifted, at most HOT_DOCS to HOT and none when the prompt names a doc
    of its own, every lift within [warm, 1], one per doc, the same answer for the same input."""
    files = claims.recent_files(touched)
    assert len(files) <= claims.MAX_FILES and len({p for p, _ in files}) == len(files)
    sigs = claims.signals(files, claimed, named, near, 0.8, 0.25, prompt_docs)
    assert sigs == claims.signals(files, claimed, named, near, 0.8, 0.25, prompt_docs)
    assert len(sigs) <= claims.MAX_DOCS and len({s.path for s in sigs}) == len(sigs)
    assert all(0.25 <= s.value <= 1.0 and s.kind == "floor" for s in sigs)
    hot = [s for s in sigs if s.value >= 0.8]
    assert len(hot) <= claims.HOT_DOCS
    if prompt_docs - {s.path for s in sigs}:
        assert not hot


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_name_queries_are_phrases_the_text_index_takes(path):
    """Property: whatever the agent's file is called, its queries are FTS5 phrases of words (no syntax)."""
    import sqlite3

    own, folder = claims.name_queries(path)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61')")
    conn.execute("INSERT INTO t VALUES ('src search parser py')")
    for query in own + folder:
        assert query.startswith('"') and query.endswith('"') and '"' not in query[1:-1]
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()


def test_claims_are_from_the_repository_root_when_the_config_sits_deeper(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(SHOP, root)
    (root / ".git").mkdir()
    (root / "docs" / "config.yaml").write_text("docs: .\nrate_limit: {turns_per_minute: 0}\n")
    (root / "config.yaml").unlink()
    option = ("--config", str(root / "docs" / "config.yaml"))  # the hook command names it
    prompt("claude", root, "hello", "s-1", *option)
    hook("claude", claude_tool(root, "Edit", "src/billing/invoice.py"), *option)
    assert "━━━ [🔥 HOT] billing.md" in prompt("claude", root, FOLLOW_UP, "s-1", *option)


def test_parallel_events_lose_nothing(tmp_path):
    """A batch of tool calls fires its hooks at once: every row lands, and a turn takes each once."""
    import threading

    from context_router.store import events

    state = tmp_path / ".ctx" / "state.db"
    state.parent.mkdir()
    results: list[bool] = []

    def writer(n: int) -> None:
        for i in range(20):
            results.append(events.record(str(state), "s", [(f"/p/f{n}-{i}.py", "read")], "/t.jsonl"))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results) and len(results) == 120
    rows = events.take(str(state), "s", consume=True)
    assert sorted(p for p, _, _ in rows) == sorted(f"/p/f{n}-{i}.py" for n in range(6) for i in range(20))
    assert events.take(str(state), "s", consume=True) == []
    assert events.transcripts(str(state)) == {"s": "/t.jsonl"}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["/x.py", "/y.py", "/z.md"]),
                          st.sampled_from(["read", "edit", "glance"])), max_size=30))
def test_take_gives_each_session_its_rows_in_order(tmp_path_factory, rows):
    from context_router.store import events

    state = tmp_path_factory.mktemp("ev") / "state.db"
    for session, path, kind in rows:
        assert events.record(str(state), session, [(path, kind)])
    for session in ("a", "b"):
        assert events.take(str(state), session, consume=False) == \
            [(p, k, None) for s, p, k in rows if s == session]  # (no stamp: the files do not exist)
        events.take(str(state), session, consume=True)
        assert events.take(str(state), session, consume=False) == []
