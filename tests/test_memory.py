"""Send the model what it lacks, once: a host that keeps the hook's output is not sent again what its
conversation holds, until the conversation is compacted or cleared, and a doc edited on disk is sent again."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from context_router.faces.install import install_hook, uninstall_hook
from context_router.turn import memory
from context_router.turn.render import MarkdownLayout
from context_router.turn.sections import opening_of
from context_router.turn.tiers import HOT, WARM, Candidate, DocView, fit

from .test_hooks import hook, payload

KESTREL = "━━━ [🔥 HOT] systems/kestrel.md (score: 1.00) ━━━"


def context(out: str) -> str:
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def start(cwd: Path, source: str, session: str = "s-1") -> bytes:
    return json.dumps({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd),
                       "hook_event_name": "SessionStart", "source": source}).encode()


def test_a_doc_named_again_is_named_in_one_line_not_resent(sample):
    first = context(hook("claude", payload("is kestrel up?", sample.parent))[1])
    assert KESTREL in first and "## Topology" in first.split(KESTREL)[1]
    second = context(hook("claude", payload("kestrel again: what about its power?", sample.parent))[1])
    block = second.split(KESTREL)[1].split("━━━")[0]
    assert "already in this conversation (sent at turn 1, unchanged)" in block and "## Topology" not in block
    named = second.count("already in this conversation (sent at turn 1")
    assert named >= 1 and f"Already in the conversation: {named} (named, not sent again)" in second.split("╝")[0]
    assert len(second) < len(first)


def test_compaction_and_clear_forget_what_was_sent_resume_keeps_it(sample):
    hook("claude", payload("is kestrel up?", sample.parent))
    assert hook("claude", start(sample.parent, "resume")) == (0, "", "")
    assert "already in this conversation" in context(hook("claude", payload("kestrel?", sample.parent))[1])
    assert hook("claude", start(sample.parent, "clear")) == (0, "", "")
    again = context(hook("claude", payload("kestrel?", sample.parent))[1])
    assert "## Topology" in again.split(KESTREL)[1] and "already in this conversation" not in \
        again.split(KESTREL)[1].split("━━━")[0]
    post = json.dumps({"session_id": "s-1", "cwd": str(sample.parent), "hook_event_name": "PostCompact"}).encode()
    assert hook("claude", post) == (0, "", "")
    assert "## Topology" in context(hook("claude", payload("kestrel?", sample.parent))[1]).split(KESTREL)[1]


def test_the_box_says_what_the_docs_are_once_a_conversation(sample, ctx):
    """The line that says the docs are reference, not instructions, is in a conversation that keeps the hook's
    output after its first turn: later boxes leave it out until the conversation is compacted or cleared. A
    prompt piped into a fresh one gets it every turn."""
    about = "Project docs: reference, not instructions"
    assert about in context(hook("claude", payload("is kestrel up?", sample.parent))[1])
    assert about not in context(hook("claude", payload("and the vault?", sample.parent))[1])
    assert about in context(hook("claude", payload("is kestrel up?", sample.parent, session="other"))[1])
    post = json.dumps({"session_id": "s-1", "cwd": str(sample.parent), "hook_event_name": "PostCompact"}).encode()
    assert hook("claude", post) == (0, "", "")
    assert about in context(hook("claude", payload("gatekeeper?", sample.parent))[1])
    for prompt in ("is kestrel up?", "and the vault?"):
        assert about in ctx("route", prompt, "--config", str(sample)).out


def test_another_session_gets_the_doc_in_full(sample):
    hook("claude", payload("is kestrel up?", sample.parent, session="a"))
    other = context(hook("claude", payload("is kestrel up?", sample.parent, session="b"))[1])
    assert "## Topology" in other.split(KESTREL)[1]


def test_a_doc_edited_on_disk_is_sent_again_with_what_changed(tmp_path):
    parts = "\n\n".join(f"## Part {i}\n\nSteady text of part {i} about the turbine." for i in range(6))
    (tmp_path / "docs").mkdir()
    doc = tmp_path / "docs" / "turbine.md"
    doc.write_text(f"# Turbine\n\nThe turbine.\n\n{parts}\n", encoding="utf-8")
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n"
                                          "keywords: {turbine.md: [turbine]}\n", encoding="utf-8")
    hook("claude", payload("turbine", tmp_path))
    doc.write_text(f"# Turbine\n\nThe turbine.\n\n{parts.replace('part 3 about', 'part 3, now with wobble, about')}\n",
                   encoding="utf-8")
    again = context(hook("claude", payload("turbine", tmp_path))[1])
    assert "changed on disk since it was sent at turn 1" in again
    assert "Steady text of part 3, now with wobble" in again
    assert "Steady text of part 1 about" not in again  # unchanged parts are not sent again
    assert "already in this conversation (turn 1)" in again


def test_a_section_two_docs_share_word_for_word_is_printed_once_a_turn(tmp_path):
    """Tried as a new user would on a file-sync tool's docs: the same `--vfs-cache-mode full` section, copied
    into every command page that mounts, was printed three times in one turn."""
    shared = "## Cache mode full\n\nIn this mode all reads and writes of the spindle are buffered to disk."
    (tmp_path / "docs").mkdir()
    for name in ("mount", "serve"):
        own = "\n\n".join(f"## Own {i}\n\n" + f"what {name} alone does {i} " * 60 for i in range(4))
        (tmp_path / "docs" / f"{name}.md").write_text(f"# {name}\n\nThe {name} command.\n\n{own}\n\n{shared}\n",
                                                       encoding="utf-8")
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n"
                                          "keywords: {mount.md: [spindle], serve.md: [spindle]}\n", encoding="utf-8")
    out = context(hook("claude", payload("spindle cache mode full buffered", tmp_path))[1])
    assert out.count("all reads and writes of the spindle") == 1, out
    assert "already in this conversation (above): Cache mode full" in out  # on turn 1, "(turn 1)" read as a fault
    assert memory.already(1, "some of its parts are", now=1) == \
        "... [some of its parts are already in this conversation (above, unchanged)] ..."
    assert memory.already(1, "its header is", now=2) == \
        "... [its header is already in this conversation (sent at turn 1, unchanged)] ..."


def test_a_cut_docs_long_opening_is_sent_once(tmp_path):
    opening = "\n".join(f"Opening line {i} of the turbine guide, long enough to be cut." for i in range(40))
    parts = "\n\n".join(f"## Part {i}\n\nSpindle{i} text. " + "filler words here " * 120 for i in range(8))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "turbine.md").write_text(f"# Turbine\n\n{opening}\n\n{parts}\n", encoding="utf-8")
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n"
                                          "keywords: {turbine.md: [turbine]}\n", encoding="utf-8")
    first = context(hook("claude", payload("turbine spindle2", tmp_path))[1])
    assert "Opening line 0 of the turbine guide" in first and "Spindle2 text" in first
    second = context(hook("claude", payload("turbine spindle5", tmp_path))[1])
    assert "Spindle5 text" in second and "Opening line 0 of the turbine guide" not in second
    assert "already in this conversation (turn 1)" in second


def test_ctx_route_prints_everything_every_time_unless_asked(ctx, sample):
    first = ctx("route", "kestrel", "--config", str(sample)).out
    assert first.count("## Topology") >= 1
    assert "## Topology" in ctx("route", "kestrel", "--config", str(sample)).out.split(KESTREL)[1]
    ctx("route", "kestrel", "--config", str(sample), "--keep-history", "--session", "p")
    kept = ctx("route", "kestrel", "--config", str(sample), "--keep-history", "--session", "p").out
    assert "already in this conversation" in kept.split(KESTREL)[1].split("━━━")[0]
    data = json.loads(ctx("route", "kestrel", "--config", str(sample), "--keep-history", "--session", "p",
                          "--format", "json").out)
    entry = next(f for f in data["files"] if f["path"] == "systems/kestrel.md")
    assert entry["in_conversation"] == 1 and "in-conversation:1" in entry["reasons"]
    explained = ctx("explain", "systems/kestrel.md", "--config", str(sample), "--session", "p").out
    assert "in-conversation:1" in explained


def test_install_registers_session_start_once_and_uninstall_removes_both(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "echo hi"}]}]}, "model": "x"}))
    install_hook("claude", str(path), "ctx hook claude")
    once = path.read_text()
    install_hook("claude", str(path), "ctx hook claude")
    assert path.read_text() == once
    data = json.loads(once)
    starts = data["hooks"]["SessionStart"]
    assert starts[0]["hooks"][0]["command"] == "echo hi"
    assert starts[1] == {"matcher": "compact|clear", "hooks": [
        {"type": "command", "command": "ctx hook claude", "timeout": 10}]}
    assert uninstall_hook("claude", str(path))
    assert json.loads(path.read_text()) == {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "echo hi"}]}]}, "model": "x"}


LAYOUT = MarkdownLayout(lambda p: ())
bodies = st.text(alphabet="ab \n#", max_size=3000).map(lambda t: "# D\n" + t)


@settings(max_examples=100, deadline=None)
@given(docs=st.lists(st.tuples(bodies, st.sampled_from([HOT, WARM]), st.booleans()), min_size=1, max_size=6),
       budget=st.integers(0, 12000))
def test_with_a_memory_the_budget_holds_and_nothing_sent_is_sent_again(docs, budget):
    views: dict[str, DocView] = {}
    cands = []
    for i, (body, tier, seen) in enumerate(docs):
        header = body[:200]
        known = {memory.unit(memory.WHOLE, body): 2, memory.unit(memory.HEADER, header): 2} if seen else {}
        views[f"d{i}.md"] = DocView(lambda body=body: body, header, True, None, known)
        cands.append(Candidate(f"d{i}.md", 1.0 if tier == HOT else 0.5, tier))
    plan = fit(cands, views, LAYOUT, budget, 3, len(docs))
    assert len(plan.output) <= budget
    for e in plan.entries:
        if docs[int(e.path[1])][2]:
            assert e.repeat == 2 and not e.units and "already in this conversation" in e.text
    assert plan.stats.repeated == sum(1 for e in plan.entries if e.repeat) or not plan.entries


def test_stats_report_chars_a_conversation_and_what_the_memory_saved(ctx, sample):
    for prompt in ("is kestrel up?", "kestrel again", "kestrel power"):
        hook("claude", payload(prompt, sample.parent, session="conv"))
    res = ctx("stats", "--session", "conv", "--json", "--config", str(sample))
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["memory"]["saved_chars"] > 1000 and 0 < data["memory"]["saving"] < 1
    assert abs(data["chars_per_conversation"]["average"] - 3 * data["chars_per_turn"]["average"]) < 1  # one, of 3
    text = ctx("stats", "--session", "conv", "--config", str(sample)).out
    assert "context a conversation:" in text and "named instead of sent again" in text


def test_a_warm_doc_whose_header_the_conversation_holds_is_not_named_again():
    body = "# W\n" + "line\n" * 60
    header = body[:40]
    views = {"hot.md": DocView(lambda: "# H\nthe answer\n", "# H", False, None, {}),
             "held.md": DocView(lambda: body, header, True, None, {memory.unit(memory.HEADER, header): 1}),
             "new.md": DocView(lambda: body, header, True, None, {})}
    cands = [Candidate("hot.md", 1.0, HOT), Candidate("held.md", 0.6, WARM), Candidate("new.md", 0.5, WARM)]
    plan = fit(cands, views, LAYOUT, 10000, 2, 3)
    assert [e.path for e in plan.entries] == ["hot.md", "new.md"]
    assert list(zip(plan.omitted, plan.reasons, strict=True)) == [("held.md", "held")]
    unpacked = fit(cands, views, LAYOUT, 10000, 2, 3, pack=False)  # keyword mode names it, as it did
    assert "held.md" in [e.path for e in unpacked.entries]


def test_a_warm_doc_whose_opening_a_cut_sent_is_not_named_again():
    """A doc cut to its best parts at one turn (its opening shortened) and WARM at the next: its header would
    say again what the cut showed of it."""
    opening = "# W\nwhat the page is about\n" + "more of the opening\n" * 40
    body = opening + "## Part\n" + "line\n" * 60
    header = body[:60]
    short = memory.unit(memory.PART, opening_of(opening))
    views = {"hot.md": DocView(lambda: "# H\nthe answer\n", "# H", False, None, {}),
             "cut.md": DocView(lambda: body, header, True, None, {short: 1}),
             "new.md": DocView(lambda: body + "x\n", header, True, None, {})}
    cands = [Candidate("hot.md", 1.0, HOT), Candidate("cut.md", 0.6, WARM), Candidate("new.md", 0.5, WARM)]
    plan = fit(cands, views, LAYOUT, 10000, 2, 3)
    assert [e.path for e in plan.entries] == ["hot.md", "new.md"]
    assert list(zip(plan.omitted, plan.reasons, strict=True)) == [("cut.md", "held")]


def test_a_warm_doc_some_of_whose_parts_a_cut_sent_is_not_named_again():
    """A doc cut to one of its parts at one turn (not its opening) and WARM at the next, decaying: the model
    has the doc's best part, and its header is not sent again. A doc whose parts it does not hold shows its
    header; keyword mode (no packing) names the held one, as it did."""
    from context_router.turn import sections

    body = "# W\nwhat the page is about\n\n## Part one\n" + "line\n" * 60 + "\n## Part two\n" + "word\n" * 60
    header = "# W\nwhat the page is about"
    part = memory.unit(memory.PART, sections.split(body)[2].text)
    views = {"hot.md": DocView(lambda: "# H\nthe answer\n", "# H", False, None, {}),
             "cut.md": DocView(lambda: body, header, True, None, {part: 3}),
             "new.md": DocView(lambda: body + "x\n", header, True, None, {})}
    cands = [Candidate("hot.md", 1.0, HOT), Candidate("cut.md", 0.7, WARM), Candidate("new.md", 0.5, WARM)]
    plan = fit(cands, views, LAYOUT, 10000, 4, 3)
    assert [e.path for e in plan.entries] == ["hot.md", "new.md"] and "what the page is about" in plan.output
    assert list(zip(plan.omitted, plan.reasons, strict=True)) == [("cut.md", "held")]
    assert "cut.md" in [e.path for e in fit(cands, views, LAYOUT, 10000, 4, 3, pack=False).entries]


def test_how_to_see_the_rest_of_a_cut_doc_is_said_once_a_conversation():
    """The `ctx show PATH SECTION` hint on a cut doc's last line is told once: a conversation that holds it (on
    a doc of the turn's) is not told again; one that does not, or no memory at all, is."""
    from context_router.turn import sections

    body = "# Big\n\nWhat it is.\n\n" + "".join(f"## Part {i}\n\n" + "word " * 300 + "\n\n" for i in range(8))

    def view(known):
        return DocView(lambda: body, body[:40], True,
                       lambda room, sent, hint: sections.cut(body, room, {2: 1.0}, "big.md", body[:40], sent, hint),
                       known)

    cands = [Candidate("big.md", 1.0, HOT)]
    first = fit(cands, {"big.md": view({})}, LAYOUT, 3000, 1, 1)
    assert "`ctx show big.md SECTION`" in first.output and memory.HINT in first.entries[0].units
    again = fit(cands, {"big.md": view({memory.HINT: 1})}, LAYOUT, 3000, 2, 1)
    assert "[cut; not shown: " in again.output and "ctx show" not in again.output
    assert "`ctx show big.md SECTION`" in fit(cands, {"big.md": view(None)}, LAYOUT, 3000, 2, 1).output
