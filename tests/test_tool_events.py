"""The hosts' after-tool events: the files the agent read or edited lift the docs about them next turn."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from context_router.faces.hooks import run_hook

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


def prompt(host: str, root: Path, text: str, session: str = "s-1") -> str:
    """The context the host would get for a typed prompt ("" when none)."""
    event = "BeforeAgent" if host == "gemini" else "UserPromptSubmit"
    code, out, err = hook(host, {"session_id": session, "transcript_path": str(root / "t.jsonl"), "cwd": str(root),
                                 "hook_event_name": event, "prompt": text})
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


def codex_tool(root: Path, tool: str, command: str, session: str = "s-1") -> dict:
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
