import json

from context_router.turn.attention import FileScore
from context_router.turn.render import MarkdownLayout, XmlLayout, to_json
from context_router.turn.tiers import Caps, DocView, candidates, fit, rank

CAPS = Caps(0.8, 4, 0.25, 8)
LAYOUT = MarkdownLayout(lambda p: ("alpha", "beta", p))


def views(n: int, body_len: int = 100, header_len: int = 20) -> dict[str, DocView]:
    return {f"d{i:02}.md": DocView(lambda i=i: f"# D{i}\n" + "x" * body_len, f"# D{i}\n" + "h" * header_len, True)
            for i in range(n)}


def test_rank_is_deterministic_with_tie_breaks():
    scores = {"b.md": FileScore(1.0, 3, 1), "a.md": FileScore(1.0, 3, 1), "c.md": FileScore(1.0, 3, 2),
              "d.md": FileScore(1.0, 2, 5), "e.md": FileScore(0.5)}
    order = [p for p, _ in rank(scores, frozenset({"a.md", "b.md", "c.md"}))]
    assert order == ["c.md", "a.md", "b.md", "d.md", "e.md"]


def test_hot_overflow_shown_as_warm_and_caps_hold():
    scores = {f"d{i:02}.md": FileScore(1.0 if i < 6 else 0.5) for i in range(20)}
    cands = candidates(rank(scores, frozenset()), CAPS)
    assert [c.tier for c in cands] == ["HOT"] * 4 + ["WARM"] * 8
    assert [c.path for c in cands[4:6]] == ["d04.md", "d05.md"]  # the overflow comes first among WARM


def test_markdown_shape():
    cands = candidates(rank({"d00.md": FileScore(1.0), "d01.md": FileScore(0.5)}, frozenset()), CAPS)
    plan = fit(cands, views(2), LAYOUT, 25000, 7, 13)
    lines = plan.output.splitlines()
    assert lines[0].startswith("╔══ ATTENTION STATE [Turn 7] ══") and lines[0].endswith("╗")
    assert lines[1].startswith("║ 🔥 Hot: 1 │ 🌡️ Warm: 1 │ ❄️ Cold: 11 ") and lines[1].endswith(" ║")
    assert lines[2].startswith(f"║ Total chars: {len(plan.output):,} / 25,000 ") and lines[2].endswith(" ║")
    from context_router.turn.render import cells

    assert len({cells(line) for line in lines[:4]}) == 1  # the right border is straight in a terminal
    assert "━━━ [🔥 HOT] d00.md (score: 1.00) ━━━" in lines
    assert "━━━ [🌡️ WARM] d01.md (score: 0.50) ━━━" in lines
    assert lines[-1] == "... [WARM: content truncated, mention alpha, beta to expand] ..."
    assert plan.stats.used == len(plan.output)


def test_hot_that_does_not_fit_is_shown_warm_then_omitted():
    cands = candidates(rank({"d00.md": FileScore(1.0), "d01.md": FileScore(0.9)}, frozenset()), CAPS)
    vs = views(2, body_len=3000, header_len=50)
    plan = fit(cands, vs, LAYOUT, 5000, 1, 2)  # the first HOT doc's share of the budget holds it whole
    assert [(e.path, e.tier) for e in plan.entries] == [("d00.md", "HOT"), ("d01.md", "WARM")]
    even = fit(cands, vs, LAYOUT, 3400, 1, 2)  # it would fit, but not in its share beside the second HOT doc
    assert [(e.path, e.tier) for e in even.entries] == [("d00.md", "WARM"), ("d01.md", "WARM")]
    tiny = fit(cands, vs, LAYOUT, 450, 1, 2, pack=False)
    assert [(e.path, e.tier) for e in tiny.entries] == [("d00.md", "WARM")]
    assert tiny.omitted == ("d01.md",) and len(tiny.output) <= 450
    assert tiny.output.rstrip().endswith("... [left out: d01.md (budget)] ...")


def test_nothing_printed_when_nothing_hot_or_warm():
    plan = fit([], views(3), LAYOUT, 25000, 4, 3)
    assert plan.output == "" and plan.entries == ()
    assert fit(candidates(rank({"d00.md": FileScore(1.0)}, frozenset()), CAPS), views(1), LAYOUT, 10, 1,
               1).output == ""


def test_xml_and_json():
    cands = candidates(rank({"d00.md": FileScore(1.0), "d01.md": FileScore(0.5)}, frozenset()), CAPS)
    xml = fit(cands, views(2), XmlLayout(lambda p: ("alpha",)), 25000, 2, 5).output
    assert xml.startswith("<documents>\n<attention_state turn=\"2\"")
    assert '<document index="1" source="d00.md" tier="HOT" score="1.00">' in xml
    assert '<document index="2" source="d01.md" tier="WARM" score="0.50">' in xml
    assert xml.endswith("</documents>\n")
    plan = fit(cands, views(2), LAYOUT, 25000, 2, 5)
    data = json.loads(to_json(plan, "s1", {"d00.md": ("keyword:alpha",)}))
    assert data["used_chars"] == len(data["context"]) <= data["budget_chars"] == 25000
    assert data["files"][0] == {"path": "d00.md", "tier": "HOT", "score": 1.0, "chars": len(plan.entries[0].text),
                                "reasons": ["keyword:alpha"]}
    assert (data["turn"], data["session"], data["cold_count"], data["omitted"]) == (2, "s1", 3, [])


def test_mass_breaks_ties_and_the_lightest_leaves_first():
    scores = {"a.md": FileScore(0.5), "b.md": FileScore(0.5), "c.md": FileScore(0.9)}
    mass = {"a.md": 0.2, "b.md": 0.7, "c.md": 0.1}
    assert [p for p, _ in rank(scores, frozenset(), mass)] == ["c.md", "b.md", "a.md"]  # score first, then mass
    cands = candidates(rank(scores, frozenset(), mass), CAPS)
    docs = {p: DocView(lambda: "x", "# " + p + "\n" + "h" * 300, True) for p in scores}
    roomy = fit(cands, docs, LAYOUT, 25000, 1, 3, pack=False)
    assert [e.path for e in roomy.entries] == ["c.md", "b.md", "a.md"]
    short = fit(cands, docs, LAYOUT, len(roomy.output) - 100, 1, 3, pack=False)
    assert [e.path for e in short.entries] == ["c.md", "b.md"] and short.omitted == ("a.md",)


def _write(tmp_path, docs: dict[str, str], config: str = "") -> str:
    from .conftest import write_docs

    write_docs(tmp_path / "docs", docs)
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n" + config, encoding="utf-8")
    return str(cfg)


def test_warm_headers_use_what_the_hot_docs_leave(ctx, tmp_path):
    """Twenty docs hit by their own keywords: 4 HOT and all 8 WARM fit in a budget they use a quarter of."""
    docs = {f"d{i:02}.md": f"# Doc {i}\n\n" + "\n".join(f"Line {j} about quokka{i}." for j in range(30))
            for i in range(20)}
    keywords = "".join(f"  d{i:02}.md: [quokka{i}]\n" for i in range(20))
    cfg = _write(tmp_path, docs, "keywords:\n" + keywords)
    prompt = " ".join(f"quokka{i}" for i in range(20))
    data = json.loads(ctx("route", prompt, "-f", "json", "--config", cfg).out)
    tiers = [f["tier"] for f in data["files"]]
    assert tiers.count("HOT") == 4 and tiers.count("WARM") == 8 and data["used_chars"] < 25000


def test_docs_that_share_one_weak_keyword_still_show_their_headers(ctx, tmp_path):
    """Forty 9,000-char docs, eight of which share one derived keyword (as many as WARM shows: a keyword more
    docs share lifts only those the text ranks): no HOT doc wants the room, so the headers get it."""
    docs = {f"p{i:02}.md": f"# Page {i}\n\n" + "\n".join(f"Paragraph {j} of page {i}: " + "lorem ipsum " * 6
                                                         for j in range(120))
            for i in range(40)}
    derived = "".join(f"  p{i:02}.md: [widget]\n" for i in range(8))
    _write(tmp_path, docs, "derived_keywords:\n" + derived)
    res = ctx("hook", "claude", stdin=json.dumps({"prompt": "widget", "session_id": "s1",
                                                   "hook_event_name": "UserPromptSubmit",
                                                   "cwd": str(tmp_path)}).encode())
    assert res.code == 0 and "[🌡️ WARM]" in res.out, res.out
    assert len(res.out) <= 10000 + 2000  # the hook's JSON envelope around at most the host's budget


def big_and_warm(parts: int) -> tuple[list, dict[str, DocView]]:
    """A HOT doc of `parts` 1,400-char parts whose part 3 the turn ranks, and four WARM docs of 900-char headers."""
    from context_router.turn import sections
    from context_router.turn.tiers import Candidate

    body = "# Big\n\nopening\n" + "".join(f"\n## Part {j}\n" + "z" * 1400 + "\n" for j in range(parts))
    big = DocView(lambda: body, "# Big", True, lambda room, sent, hint: sections.cut(body, room, {3: 1.0}, "big.md",
                                                                                    "# Big", sent, hint))
    warm = {f"w{i}.md": DocView(lambda i=i: f"# W{i}\n" + "w" * 900, f"# W{i}\n" + "h" * 900, True)
            for i in range(4)}
    return [Candidate("big.md", 1.0, "HOT"), *(Candidate(p, 0.5, "WARM") for p in warm)], {"big.md": big, **warm}


def test_a_header_held_back_by_the_warm_share_is_not_said_to_be_over_budget():
    """A HOT doc cut to its best parts keeps the headers to their share; a header left out for that is named
    with the share, never as over the budget when the budget has room."""
    cands, docs = big_and_warm(12)
    plan = fit(cands, docs, LAYOUT, 10000, 1, 5, parts={"big.md": {3: 1.0}})
    assert plan.entries[0].cut and len(plan.output) <= 10000
    assert plan.omitted and all(r == "warm share" for r in plan.reasons)
    assert "(budget)" not in plan.output


def test_the_hot_doc_with_the_turns_best_part_is_printed_first():
    """The turn's best sections lead the output, whichever doc holds them: the HOT docs are printed by their best
    part, not by the doc ranking that made them HOT (the WARM headers after them, in rank order)."""
    from context_router.turn.tiers import Candidate

    docs = {**views(3), "w.md": DocView(lambda: "# W\n" + "w" * 50, "# W\n" + "w" * 50, True)}
    cands = [Candidate("d00.md", 1.0, "HOT"), Candidate("d01.md", 1.0, "HOT"), Candidate("w.md", 0.5, "WARM"),
             Candidate("d02.md", 1.0, "HOT")]
    plan = fit(cands, docs, LAYOUT, 25000, 1, 4, relevance={"d00.md": 2.0, "d01.md": 9.0, "d02.md": 5.0},
               parts={"d00.md": {1: 2.0}, "d01.md": {1: 9.0}, "d02.md": {1: 5.0}})
    assert [e.path for e in plan.entries] == ["d01.md", "d02.md", "d00.md", "w.md"]
    # Without the text's ranking (keyword mode), the order is the ranking's.
    plan = fit(cands, docs, LAYOUT, 25000, 1, 4, pack=False)
    assert [e.path for e in plan.entries] == ["d00.md", "d01.md", "w.md", "d02.md"]


def test_a_doc_whose_opening_is_the_turns_best_part_gets_room_for_all_of_it():
    """A README with no `##` sections is all opening: when the turn ranks that opening best, the doc's room
    holds the whole of it (the answer is in its table at the end), not only the opening's first lines."""
    from context_router.turn import sections
    from context_router.turn.tiers import Candidate

    body = "# Schema\n\n" + "Background on the schema tool. " * 30 + "\n\n| version | template |\n|---|---|\n" + \
        "".join(f"| 1.{n} | v00{n} |\n" for n in range(20, 30))
    ranked = {0: 9.0}
    doc = DocView(lambda: body, "# Schema", True,
                  lambda room, sent, hint: sections.cut(body, room, ranked, "readme.md", "# Schema", sent, hint))
    other_body = "# Other\n\nintro\n" + "".join(f"\n## Part {j}\n" + "y" * 900 + "\n" for j in range(12))
    other = DocView(lambda: other_body, "# Other", True, lambda room, sent, hint: sections.cut(
        other_body, room, {j: 5.0 for j in range(1, 13)}, "other.md", "# Other", sent, hint))
    cands = [Candidate("readme.md", 1.0, "HOT"), Candidate("other.md", 1.0, "HOT")]
    plan = fit(cands, {"readme.md": doc, "other.md": other}, LAYOUT, 10000, 1, 2,
               relevance={"readme.md": 9.0, "other.md": 5.0},
               parts={"readme.md": ranked, "other.md": {j: 5.0 for j in range(1, 13)}})
    assert len(plan.output) <= 10000
    assert "| 1.29 | v0029 |" in plan.entries[0].text  # the opening's last line: all of it is shown
    assert plan.entries[1].path == "other.md" and plan.entries[1].cut  # the other doc's parts fill the rest


def test_the_leading_docs_next_part_goes_before_a_weaker_docs_best_part_of_about_its_score():
    """Parts earn room by their score weighed by their doc's best part: the doc that holds the turn's best part
    is where more of the answer is, and a weaker doc's first part also costs its opening."""
    from context_router.turn import sections
    from context_router.turn.tiers import Candidate

    def doc(name: str, ranked: dict[int, float]) -> DocView:
        body = f"# {name}\n\nintro\n" + "".join(f"\n## {name} part {j}\n" + "q" * 1500 + "\n" for j in range(1, 7))
        return DocView(lambda: body, f"# {name}", True,
                       lambda room, sent, hint: sections.cut(body, room, ranked, f"{name}.md", f"# {name}", sent, hint))

    lead, other = {1: 10.0, 2: 8.0}, {1: 8.5}
    cands = [Candidate("a.md", 1.0, "HOT"), Candidate("b.md", 1.0, "HOT")]
    plan = fit(cands, {"a.md": doc("a", lead), "b.md": doc("b", other)}, LAYOUT, 5000, 1, 2,
               relevance={"a.md": 10.0, "b.md": 8.5}, parts={"a.md": lead, "b.md": other})
    assert len(plan.output) <= 5000
    text = plan.output
    assert "## a part 1" in text and "## a part 2" in text  # 8.0 in the leading doc ...
    assert "## b part 1" not in text  # ... before 8.5 in a doc whose best is 85% of the turn's best


def test_a_doc_the_prompt_names_by_keyword_is_shown_beside_docs_whose_parts_rank_higher():
    """Tried as a new user would on a collector's component reference: "I'm replacing our hostPath log mount with
    loki.source.kubernetes ... what labels does it attach?" hit that page's keyword, its WARM line's promise,
    yet two pages whose big examples ranked higher took the HOT room and it was left out. A doc a keyword of this
    prompt hit has room for its opening and best part before the other parts are shared out."""
    from context_router.turn import sections
    from context_router.turn.tiers import Candidate

    def doc(name: str, ranked: dict[int, float]) -> DocView:
        body = f"# {name}\n\nWhat {name} is.\n" + "".join(f"\n## {name} part {j}\n" + "q" * 2500 + "\n"
                                                          for j in range(1, 5))
        return DocView(lambda: body, f"# {name}", True,
                       lambda room, sent, hint: sections.cut(body, room, ranked, f"{name}.md", f"# {name}", sent, hint))

    ranks = {"big1.md": {1: 30.0, 2: 29.0, 3: 28.0}, "big2.md": {1: 29.0, 2: 28.0}, "named.md": {2: 20.0, 3: 5.0}}
    docs = {p: doc(p[:-3], r) for p, r in ranks.items()}
    cands = [Candidate(p, 1.0, "HOT") for p in ranks]
    relevance = {p: max(r.values()) for p, r in ranks.items()}
    before = fit(cands, docs, LAYOUT, 10000, 1, 3, relevance=relevance, parts=ranks)
    assert "named.md" not in [e.path for e in before.entries if e.tier == "HOT"]  # the parts' ranking alone
    plan = fit(cands, docs, LAYOUT, 10000, 1, 3, relevance=relevance, parts=ranks, named=frozenset({"named.md"}))
    assert len(plan.output) <= 10000
    shown = {e.path: e for e in plan.entries}
    assert shown["named.md"].tier == "HOT" and "## named part 2" in shown["named.md"].text  # its best part
    assert "## named part 3" not in shown["named.md"].text
    assert "## big1 part 1" in shown["big1.md"].text  # the turn's best part still leads


def test_a_doc_hot_only_for_one_of_the_turns_best_sections_shows_that_section_through_a_hook():
    """A doc made HOT only by holding one of the prompt's best sections (or kept by the conversation) shows its
    best part in a hook's room, not its next ones: those went to the doc the turn is about, or to nothing
    (replayed: the same answers in context at 1,850 chars a conversation less). With more room (piped) its parts
    are ranked as the others'."""
    from context_router.turn import sections
    from context_router.turn.tiers import Candidate

    def doc(name: str, ranked: dict[int, float]) -> DocView:
        body = f"# {name}\n\nintro\n" + "".join(f"\n## {name} part {j}\n" + "q" * 2000 + "\n" for j in range(1, 5))
        return DocView(lambda: body, f"# {name}", True,
                       lambda room, sent, hint: sections.cut(body, room, ranked, f"{name}.md", f"# {name}", sent, hint))

    ranks = {"best.md": {1: 10.0, 2: 9.0}, "led.md": {1: 9.5, 2: 9.2, 3: 9.1}}
    docs = {p: doc(p[:-3], r) for p, r in ranks.items()}
    cands = [Candidate(p, 1.0, "HOT") for p in ranks]
    relevance = {p: max(r.values()) for p, r in ranks.items()}
    for budget in (10000, 25000):
        before = fit(cands, docs, LAYOUT, budget, 1, 2, relevance=relevance, parts=ranks)
        assert "## led part 2" in before.output
        plan = fit(cands, docs, LAYOUT, budget, 1, 2, relevance=relevance, parts=ranks, one=frozenset({"led.md"}))
        assert len(plan.output) <= budget
        assert "## best part 1" in plan.output and "## best part 2" in plan.output
        assert "## led part 1" in plan.output  # its best section, whichever doc holds it
        assert ("## led part 2" in plan.output) is (budget > 10000)  # its others only with more room than a hook's


def test_a_kept_doc_whose_best_part_the_conversation_holds_shows_its_best_new_part():
    """A doc the conversation keeps earns one part through a hook: one it lacks. Its best part, sent a turn
    before, took that room and printed nothing, and "is there some kind of dry-run ...?" never showed the
    service mesh's "Audit mode" section (its best new part) beside the "already in this conversation" line."""
    from context_router.turn import memory, sections
    from context_router.turn.tiers import Candidate

    body = "# policy\n\nintro\n" + "".join(f"\n## policy part {j}\n" + "q" * (300 if j == 1 else 1500) + "\n"
                                          for j in range(1, 5))
    held = sections.split(body)[1].text
    ranked = {1: 10.0, 3: 9.0}
    known = {memory.unit(memory.PART, held): 1}
    view = DocView(lambda: body, "# policy", True,
                   lambda room, sent, hint: sections.cut(body, room, ranked, "policy.md", "# policy", sent, hint),
                   known=known)
    other = "# best\n\nintro\n" + "".join(f"\n## best part {j}\n" + "q" * 1500 + "\n" for j in range(1, 5))
    best = DocView(lambda: other, "# best", True,
                   lambda room, sent, hint: sections.cut(other, room, {1: 12.0, 2: 11.0, 3: 10.5}, "best.md",
                                                         "# best", sent, hint), known={})
    cands = [Candidate("best.md", 1.0, "HOT"), Candidate("policy.md", 1.0, "HOT")]
    plan = fit(cands, {"best.md": best, "policy.md": view}, LAYOUT, 10000, 2, 2,
               relevance={"best.md": 12.0, "policy.md": 10.0},
               parts={"best.md": {1: 12.0, 2: 11.0, 3: 10.5}, "policy.md": ranked}, one=frozenset({"policy.md"}))
    text = {e.path: e.text for e in plan.entries}["policy.md"]
    assert "## policy part 3" in text  # its best new part
    assert "## policy part 1" not in text and "already in this conversation" in text
    assert len(plan.output) <= 10000


def test_a_section_led_doc_whose_opening_ranks_too_shows_it_whole_and_its_best_part():
    """Tried on a test runner's docs: "how do i update the snapshots" led its snapshot guide to HOT by "Updating
    Snapshots", but the guide's opening ranked too, was shown whole in the room of its shortened start, and
    left no room for the section: the one part went to a smaller, weaker one."""
    from context_router.turn import sections
    from context_router.turn.tiers import Candidate

    body = "# snap\n\n" + "o " * 350 + "\n" + "".join(f"\n## snap part {j}\n" + "q" * (450 if j == 2 else 380) + "\n"
                                                for j in range(1, 5))
    ranked = {0: 19.0, 1: 18.0, 2: 23.0, 3: 19.5}
    view = DocView(lambda: body, "# snap", True,
                   lambda room, sent, hint: sections.cut(body, room, ranked, "snap.md", "# snap", sent, hint))
    other = "# best\n\nintro\n" + "".join(f"\n## best part {j}\n" + "q" * 2500 + "\n" for j in range(1, 5))
    oranks = {1: 24.0, 2: 23.5, 3: 23.2}
    best = DocView(lambda: other, "# best", True,
                   lambda room, sent, hint: sections.cut(other, room, oranks, "best.md", "# best", sent, hint))
    cands = [Candidate("best.md", 1.0, "HOT"), Candidate("snap.md", 1.0, "HOT")]
    plan = fit(cands, {"best.md": best, "snap.md": view}, LAYOUT, 10000, 1, 2,
               relevance={"best.md": 24.0, "snap.md": 23.0}, parts={"best.md": oranks, "snap.md": ranked},
               one=frozenset({"snap.md"}))
    text = {e.path: e.text for e in plan.entries}["snap.md"]
    assert "## snap part 2" in text  # its best part ...
    assert "o " * 340 in text  # ... beside its opening, whole
    assert "## snap part 3" not in text and "## snap part 1" not in text  # and no other
    assert len(plan.output) <= 10000


def test_the_docs_that_earn_one_part_are_those_hot_for_a_section_or_the_conversation_alone():
    from context_router.router import one_part

    causes = {"a.md": ("decay", "lexical:section"), "b.md": ("lexical:section", "keyword"),
              "c.md": ("lexical:best",), "d.md": ("lexical:section",), "e.md": ("decay",),
              "f.md": ("decay", "lexical:kept"), "g.md": ("decay", "lexical:kept", "semantic:0.30")}
    assert one_part(causes) == {"a.md", "d.md", "f.md"}


def test_a_part_too_big_for_the_room_left_earns_the_room_of_a_stretch():
    """A doc whose best part is a whole configuration file in one code block (8,600 chars) gets the room of a
    stretch of it (sections.cut shows its best stretch) when the room left cannot hold the part."""
    from context_router.turn import sections, tiers
    from context_router.turn.tiers import Candidate

    keys = "".join(f"# Setting {i}.\n[ setting_{i}: <int> | default = {i} ]\n\n" for i in range(200))
    big = "# Configuration\n\nThe file.\n\n## Remote write\n\n```yaml\n" + keys + "```\n"
    small = "# Guide\n\nA guide.\n" + "".join(f"\n## Step {j}\n\n" + "s" * 900 + "\n" for j in range(1, 6))
    docs = {"config.md": DocView(lambda: big, "# Configuration", True),
            "guide.md": DocView(lambda: small, "# Guide", True)}
    cands = [Candidate("guide.md", 1.0, "HOT"), Candidate("config.md", 1.0, "HOT")]
    parts = {"guide.md": {j: 9.0 for j in range(1, 6)}, "config.md": {1: 10.0}}
    assert len(sections.split(big)[1].text) > 2 * tiers.STRETCH_CHARS
    rooms = tiers._section_rooms(cands, docs, LAYOUT, len, parts, {"guide.md": 9.0, "config.md": 10.0}, 6000)
    assert tiers.STRETCH_CHARS <= rooms["config.md"] < len(sections.split(big)[1].text)
    assert sum(rooms.values()) <= 6000 and rooms["guide.md"] > 0  # the guide's parts have the rest
    # Named by a keyword of the prompt, it is given its room first: a stretch's, not the whole part's.
    rooms = tiers._section_rooms(cands, docs, LAYOUT, len, parts, {"guide.md": 9.0, "config.md": 10.0}, 6000,
                                 named=frozenset({"config.md"}))
    assert tiers.STRETCH_CHARS <= rooms["config.md"] < 6000 // 2
    assert sum(rooms.values()) <= 6000 and rooms["guide.md"] > 0


def test_a_warm_doc_that_holds_one_of_the_turns_best_parts_shows_it_in_place_of_its_header():
    """The turn's best sections, whichever doc holds them: a WARM doc whose part the turn ranks among its best
    shows that part where its first lines would be; a WARM doc whose parts rank low, or is longer than a header,
    shows its header, as keyword mode always does; one whose parts the conversation holds is not sent again."""
    from context_router.turn import memory, sections
    from context_router.turn.tiers import WARM_PART_CHARS, Candidate

    def doc(name: str, size: int = 600, known: dict[str, int] | None = None) -> DocView:
        body = f"# {name}\n\nWhat {name} is.\n" + "".join(f"\n## {name} part {j}\n" + "p" * size + "\n"
                                                     for j in range(1, 4))
        return DocView(lambda: body, f"# {name}\n\nWhat {name} is.", True, known=known)

    hot_body = "# Hot\n\nintro\n\n## Hot part 1\n" + "h" * 300 + "\n"
    hot = DocView(lambda: hot_body, "# Hot", True)
    cands = [Candidate("hot.md", 1.0, "HOT"), Candidate("a.md", 0.6, "WARM"), Candidate("b.md", 0.5, "WARM")]
    parts = {"hot.md": {1: 10.0}, "a.md": {2: 8.0, 1: 2.0}, "b.md": {3: 2.0}}
    views = {"hot.md": hot, "a.md": doc("a"), "b.md": doc("b")}
    plan = fit(cands, views, LAYOUT, 10000, 1, 3, relevance={"hot.md": 10.0}, parts=parts)
    a, b = plan.entries[1], plan.entries[2]
    assert a.tier == "WARM" and "## a part 2" in a.text and "What a is." not in a.text
    assert "mention" in a.text  # the hint to expand it stays
    assert "What b is." in b.text and "## b part 3" not in b.text  # 2.0 is under half of the turn's best
    # The conversation holds a's part: the doc is held, neither the part nor its header is sent again.
    held = sections.split(views["a.md"].body() or "")[2].text
    views["a.md"] = doc("a", known={memory.unit(memory.PART, held): 1})
    plan = fit(cands, views, LAYOUT, 10000, 2, 3, relevance={"hot.md": 10.0}, parts=parts)
    assert [e.path for e in plan.entries] == ["hot.md", "b.md"] and "What a is." not in plan.output
    assert dict(zip(plan.omitted, plan.reasons, strict=True))["a.md"] == "held"
    # A part longer than a header, and keyword mode: the header.
    views["a.md"] = doc("a", size=WARM_PART_CHARS + 10)
    assert "What a is." in fit(cands, views, LAYOUT, 10000, 1, 3, relevance={"hot.md": 10.0},
                               parts=parts).entries[1].text
    views["a.md"] = doc("a")
    assert "What a is." in fit(cands, views, LAYOUT, 10000, 1, 3, pack=False, parts=parts).entries[1].text


def test_with_a_pipes_room_a_header_held_back_for_the_hot_docs_gets_what_they_left():
    """Piped (more room than a hook's), a WARM doc held back to the headers' share while a HOT doc was cut is
    shown after all when the HOT docs left room; through a hook's budget it stays left out."""
    cands, docs = big_and_warm(30)
    hook = fit(cands, docs, LAYOUT, 10000, 1, 5, parts={"big.md": {3: 1.0}})
    assert "warm share" in hook.reasons
    piped = fit(cands, docs, LAYOUT, 25000, 1, 5, parts={"big.md": {3: 1.0}})
    assert "warm share" not in piped.reasons and len(piped.output) <= 25000
    assert {e.path for e in piped.entries} == set(docs)


def test_a_tables_padding_is_printed_as_one_space_outside_code():
    """Tried as a new user would on a build tool's docs: 9,300 of its CLI page's 16,500 chars were the spaces
    that line its table's columns up. The block prints the row without them, in every layout."""
    from context_router.turn.render import XmlLayout, unpadded

    page = ("| Option              | Description        |\n|:--------------------|-------------------:|\n"
            "| `--port <port>`     | Specify port       |\n\n  | indented  |  row  |\n\n```\n| code   | kept |\n```")
    want = ("| Option | Description |\n|:---|---:|\n| `--port <port>` | Specify port |\n\n  | indented | row |\n\n"
            "```\n| code   | kept |\n```")
    assert unpadded(page) == want
    assert LAYOUT.hot(1, "cli.md", 1.0, page).endswith(want)
    assert want in LAYOUT.warm(1, "cli.md", 0.5, page, False)
    assert "| Option | Description |" in XmlLayout(lambda p: ()).hot(1, "cli.md", 1.0, page)
    plain = "No table here.\n\nTwo  spaces stay in prose."
    assert unpadded(plain) == plain


def test_a_page_with_nothing_to_read_takes_no_place():
    """Tried as a new user would on two sites' docs: a home page that is one component (`<HomeSponsors />`),
    HOT by its name, and a 404 page of front matter only, each took one of the four HOT places."""
    from context_router.turn.sections import blank
    from context_router.turn.tiers import Candidate

    assert blank("") and blank("\n<HomeSponsors />\n\n<Live/>\n{% include 'x' %}\n")
    assert not blank("# Home\n") and not blank("<Badge />\nText.\n")
    docs = {"index.md": DocView(lambda: "\n<HomeSponsors />\n", "<HomeSponsors />", False),
            "404.md": DocView(lambda: "", "", False), **views(2)}
    cands = [Candidate("index.md", 1.0, "HOT"), Candidate("404.md", 1.0, "WARM"), Candidate("d00.md", 1.0, "HOT"),
             Candidate("d01.md", 0.5, "WARM")]
    plan = fit(cands, docs, LAYOUT, 10000, 1, 4)
    assert [e.path for e in plan.entries] == ["d00.md", "d01.md"] and "HomeSponsors" not in plan.output


def test_a_warm_line_does_not_ask_for_a_readmes_path():
    """Tried as a new user would on a messaging system's GitBook: a README's keyword is its path in lower case,
    and its WARM line said `mention nats-concepts/jetstream/readme.md to expand`."""
    from context_router.turn.render import _truncation_line

    path = "concepts/jetstream/README.md"
    assert _truncation_line([path.lower()], path) == f"... [WARM: content truncated: `ctx show {path}`] ..."
    assert _truncation_line([path.lower(), "streams"], path) == (
        "... [WARM: content truncated, mention streams to expand] ...")
