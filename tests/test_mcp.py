"""`ctx mcp` from a real stdio client (the SDK's), raw newline-delimited JSON-RPC, and `ctx mcp install`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import REPO, SAMPLE_CONFIG, SAMPLE_DOCS

pytest.importorskip("mcp")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(SAMPLE_DOCS, tmp_path / "docs-sample")
    (tmp_path / "config.yaml").write_text(SAMPLE_CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def test_every_tool_and_a_resource_from_the_sdks_client(project):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def session() -> dict:
        params = StdioServerParameters(command=sys.executable, args=["-m", "context_router", "mcp"],
                                       env=env(), cwd=str(project))
        out: dict = {}
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            out["init"] = await s.initialize()
            out["tools"] = sorted(t.name for t in (await s.list_tools()).tools)
            for name, args in (("route", {"prompt": "is the kestrel dome closed?"}),
                               ("search", {"query": "weather interlock rain", "k": 2}),
                               ("show", {"path": "systems/kestrel.md", "section": "power"}),
                               ("status", {}), ("explain", {"path": "systems/kestrel.md"}),
                               ("show", {"path": "../config.yaml"})):
                res = await s.call_tool(name, args)
                out[name if name not in out else name + "-bad"] = (res.is_error, res.content[0].text)
            out["templates"] = [t.uri_template for t in (await s.list_resource_templates()).resource_templates]
            out["doc"] = (await s.read_resource("ctx://doc/systems/vault.md")).contents[0].text
        return out

    out = anyio.run(session)
    assert out["init"].server_info.name == "ctx"
    assert out["tools"] == ["explain", "route", "search", "show", "status"]
    assert out["route"][0] is False and "HOT] systems/kestrel.md" in out["route"][1]
    assert json.loads(out["search"][1])["path"] == "systems/kestrel.md"
    assert out["show"] == (False, out["show"][1]) and out["show"][1].startswith("## Power")
    status = {f["path"]: f for f in json.loads(out["status"][1])["files"]}
    assert status["systems/kestrel.md"]["tier"] == "HOT" and status["systems/kestrel.md"]["score"] == 1.0
    assert "keyword:" in out["explain"][1]
    assert out["show-bad"][0] is True and "unknown doc: ../config.yaml" in out["show-bad"][1]
    assert out["templates"] == ["ctx://doc/{+path}"] and out["doc"].startswith("# Vault")


def test_stdout_holds_only_protocol(project):
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "route", "arguments": {"prompt": "vault"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "show", "arguments": {"path": "no.md"}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "context_router", "mcp"], cwd=project, env=env(), text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    by_id: dict = {}
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:  # one request at a time, each answered before the next
                reply = json.loads(proc.stdout.readline())  # every line on stdout is JSON-RPC
                by_id[reply["id"]] = reply
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.stdout.read() == ""  # nothing else was printed
    assert set(by_id) == {1, 2, 3, 4}
    assert len(by_id[2]["result"]["tools"]) == 5
    assert "systems/vault.md" in by_id[3]["result"]["content"][0]["text"]
    assert by_id[4]["result"]["isError"] is True and "unknown doc: no.md" in by_id[4]["result"]["content"][0]["text"]


def test_mcp_install_claude_merges_mcp_json(ctx, tmp_path):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    res = ctx("mcp", "install", "claude")
    assert res.code == 0 and "added the ctx MCP server to" in res.out
    data = json.loads((tmp_path / ".mcp.json").read_text())
    assert data["mcpServers"]["other"] == {"command": "x"}
    assert data["mcpServers"]["ctx"]["args"] == ["mcp"] and data["mcpServers"]["ctx"]["type"] == "stdio"
    assert "already" in ctx("mcp", "install", "claude").out
    (tmp_path / ".mcp.json").write_text("[1]")
    res = ctx("mcp", "install", "claude")
    assert (res.code, res.err) == (2, f"ctx: error: {tmp_path}/.mcp.json does not hold a JSON object\n")
    (tmp_path / ".mcp.json").write_text('{"mcpServers": []}')
    res = ctx("mcp", "install", "claude")
    assert res.code == 2 and res.err.endswith("expected an object with an 'mcpServers' object\n")


def test_without_the_sdk_ctx_mcp_says_how_to_get_it(ctx, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.setitem(sys.modules, "mcp.server", None)
    res = ctx("mcp")
    line = f"{sys.executable} -m pip install 'ctx-router[mcp]'"
    assert (res.code, res.err) == (1, f"ctx: error: ctx mcp needs the MCP SDK: {line}\n")


def test_search_snippets_never_bold_inside_a_link_target_url_or_code(tmp_path, monkeypatch):
    """Tried as a new user would on pydantic's docs: a snippet read
    `[**strict** **mode**](../concepts/**strict**_**mode**.md)`."""
    from context_router.faces.mcp_server import Tools

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "why.md").write_text(
        "Pydantic has a [strict mode](../concepts/strict_mode.md), see https://docs.example/strict_mode "
        "or <a href=\"strict_mode.html\">strict</a>.\n", encoding="utf-8")
    (docs / "how.md").write_text("Set it to `basic` or `strict`: **strict mode**, strict_mode.\n\n```python\n"
                                 "strict = True\n```\n", encoding="utf-8")
    (tmp_path / "config.yaml").write_text("docs: docs\n", encoding="utf-8")
    monkeypatch.setenv("CTX_STATE", str(tmp_path / "state.db"))
    hits = Tools(str(tmp_path / "config.yaml"), None, str(tmp_path)).search("strict mode")
    assert {h["path"]: h["snippet"] for h in hits} == {
        # The index reads a link by its text, as the rendered page shows it: the snippet has no target to bold.
        "why.md": "Pydantic has a [**strict** **mode**], see "
                  "https://docs.example/strict_mode or <a href=\"strict_mode.html\">**strict**</a>.\n",
        "how.md": "Set it to `basic` or `strict`: **strict mode**, strict_mode.\n\n```python\nstrict = True\n```\n"}


def test_a_snippet_cut_inside_code_is_not_bolded_there():
    from context_router.faces.mcp_server import MARKS, bolded

    def marked(text: str, word: str) -> str:
        return text.replace(word, MARKS[0] + word + MARKS[1])

    assert bolded(marked(" ... Type Checking Mode`\n* set `strict` or strict ... ", "strict")) == \
        " ... Type Checking Mode`\n* set `strict` or **strict** ... "
    assert bolded(marked(" ... strict = 1\n```\nstrict ... ", "strict")) == " ... strict = 1\n```\n**strict** ... "
    assert bolded(marked("strict, `strict_mode ... ", "strict")) == "**strict**, `strict_mode ... "


# A form of a word in a doc, and how a snippet that matched the word shows it.
FORMS = {"{}": "**{}**", "[{}](../a/{}_{}.md)": "[**{}**](../a/{}_{}.md)", "`{}`": "`{}`",
         "https://x.dev/{}/{}": "https://x.dev/{}/{}", "<a href=\"{}.html\">{}</a>": "<a href=\"{}.html\">**{}**</a>",
         "**{}**": "**{}**", "[{}][{}]": "[**{}**][{}]", "{}_{}": "{}_{}"}


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.tuples(st.sampled_from(sorted(FORMS)), st.sampled_from(["strict", "mode", "json"])),
                      min_size=1, max_size=12))
def test_bold_markers_only_ever_land_where_bold_can_be(parts):
    """Whatever the snippet: a match is bold in text and in a link's text, never in a link's target, a URL,
    a code span or an HTML tag, nor inside text already bold."""
    import re

    from context_router.faces.mcp_server import MARKS, bolded

    text = " ".join(form.format(word, word, word) for form, word in parts)
    marked = re.sub(r"(?<![a-z])(strict|mode|json)(?![a-z])", lambda m: MARKS[0] + m.group() + MARKS[1], text)
    assert bolded(marked) == " ".join(FORMS[form].format(word, word, word) for form, word in parts)
