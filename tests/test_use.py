"""What the model used of what ctx sent, from Claude Code's JSONL transcript (`ctx stats`, `use`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_router.faces.transcript import NOTHING, read_claude
from context_router.faces.use import Answers

from .test_tool_events import BILLING_LINE, FOLLOW_UP, claude_tool, hook, prompt, shop  # noqa: F401

SESSION = "0b6e2a4c-6f0e-4a35-9f59-2f3c1d0e8a11"


def record(kind: str, content, **extra) -> str:
    role = "assistant" if kind == "assistant" else "user"
    return json.dumps({"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/repo",
                       "sessionId": SESSION, "version": "2.1.12", "gitBranch": "main", "type": kind,
                       "message": {"role": role, "content": content, **extra}, "uuid": "u-1",
                       "timestamp": "2026-12-01T10:00:00.000Z"})


def answer(text: str) -> str:
    return record("assistant", [{"type": "text", "text": text}], model="claude-sonnet-4-5", id="msg_1",
                  stop_reason="end_turn")


def read_call(path: Path) -> str:
    return record("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Read",
                                 "input": {"file_path": str(path)}}], model="claude-sonnet-4-5", id="msg_2")


def test_stats_json_tells_used_unused_and_opened_unsent(shop, ctx):  # noqa: F811
    transcript = shop / "t.jsonl"
    prompt("claude", shop, "how are invoice totals rounded?", session=SESSION)
    hook("claude", claude_tool(shop, "Read", "src/billing/tax.py", session=SESSION))  # names the transcript
    prompt("claude", shop, FOLLOW_UP, session=SESSION)  # sends testing.md, which the answer never quotes
    transcript.write_text("\n".join([
        json.dumps({"type": "summary", "summary": "Invoice rounding", "leafUuid": "u-0"}),
        record("user", "how are invoice totals rounded?"),
        read_call(shop / "docs" / "deploy.md"),  # a doc ctx never sent
        record("user", [{"tool_use_id": "toolu_1", "type": "tool_result", "content": "..."}]),
        "{half a line",
        answer(f"Per the docs: {BILLING_LINE.lower()}, so the sum is never rounded."),
    ]) + "\n")
    res = ctx("stats", "--session", SESSION, "--json", "--config", str(shop / "config.yaml"))
    assert res.code == 0, res.err
    use = json.loads(res.out)["use"]
    assert use["sessions"] == 1
    assert {"path": "billing.md", "sections": ["Totals and rounding"]} in use["used"]
    assert "testing.md" in use["unused"] and "billing.md" not in use["unused"]
    assert use["opened_unsent"] == ["deploy.md"]
    assert use["docs"][0]["sent"] == 1
    text = ctx("stats", "--session", SESSION, "--config", str(shop / "config.yaml"))
    assert "what the model used (1 session(s) with a transcript)" in text.out
    assert "opened by the agent, never sent: deploy.md" in text.out


def test_a_doc_named_by_its_path_is_used(shop, ctx):  # noqa: F811
    prompt("claude", shop, "how are invoice totals rounded?", session=SESSION)
    hook("claude", claude_tool(shop, "Read", "src/billing/tax.py", session=SESSION))
    (shop / "t.jsonl").write_text(answer("See docs/billing.md for the rule.") + "\n")
    use = json.loads(ctx("stats", "--session", SESSION, "--json", "--config", str(shop / "config.yaml")).out)["use"]
    assert {"path": "billing.md", "sections": []} in use["used"]


@pytest.mark.parametrize("content", [None, b"", b"\x00\xff" * 1000, b"[1, 2]\n\"text\"\n{}\n",
                                     b'{"type": "assistant", "message": {"content": 5}}\n'])
def test_missing_or_malformed_transcripts_cost_nothing(shop, ctx, content):  # noqa: F811
    prompt("claude", shop, "how are invoice totals rounded?", session=SESSION)
    hook("claude", claude_tool(shop, "Read", "src/billing/tax.py", session=SESSION))
    if content is not None:
        (shop / "t.jsonl").write_bytes(content)
    res = ctx("stats", "--session", SESSION, "--json", "--config", str(shop / "config.yaml"))
    assert res.code == 0 and res.err == ""
    assert json.loads(res.out)["use"] == {"sessions": 0, "used": [], "unused": [], "opened_unsent": [], "docs": []}


def test_a_huge_transcript_is_read_from_its_end_only(tmp_path):
    path = tmp_path / "t.jsonl"
    early = answer("an early answer that falls outside the window")
    late = answer("the latest answer")
    with path.open("w") as fh:
        fh.write(early + "\n" + ("x" * 5000 + "\n") * 20 + late + "\n")
    got = read_claude(str(path), limit=4096)
    assert got.answers == ("the latest answer",)  # the cut first line and the huge lines are passed over


def test_a_folder_or_nothing_is_no_transcript(tmp_path):
    assert read_claude(str(tmp_path)) is NOTHING and read_claude(None) is NOTHING
    assert read_claude(str(tmp_path / "gone.jsonl")) is NOTHING


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abcdefgh ", min_size=1, max_size=60), min_size=1, max_size=8))
def test_a_line_the_answer_holds_is_quoted(lines):
    """Property: every line of enough words that the answer contains verbatim counts as quoted."""
    answers = Answers(["Intro. " + " ".join(lines) + " The end."])
    for line in lines:
        n = len(line.split())
        if n >= 8 or (n >= 5 and len(line.strip()) >= 30):
            assert answers.quotes(line)
