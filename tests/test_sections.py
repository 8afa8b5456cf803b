"""Sections as the unit of evidence and of output: the part of a big page that answers the turn reaches the
model; keywords nobody chose and hub pages do not win a turn on their own."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from context_router.turn import lexical, sections, tiers

from .conftest import write_docs

FILLER = ("This paragraph describes general behaviour of the product in some detail so that the section has "
          "a realistic length and many ordinary words about settings and options and defaults. ")


def big_reference(n: int = 30) -> str:
    """A 40,000-char reference page: many sections, one of which holds the answer deep inside."""
    parts = ["# Server reference", "", "The server's every directive.", ""]
    for i in range(n):
        parts += [f"## Directive number {i}", "", FILLER * 8, ""]
        if i == 17:
            parts += ["### Sticky sessions", "", FILLER * 4, "",
                      "Sticky sessions use the cookie named lb_affinity, hashed with the shared secret.", "",
                      FILLER * 4, ""]
    return "\n".join(parts)


def project(tmp_path: Path, docs: dict[str, str], config: str = "") -> None:
    write_docs(tmp_path / "docs", docs)
    (tmp_path / "config.yaml").write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n" + config,
                                          encoding="utf-8")


def route(ctx, prompt: str, *args: str) -> dict:
    res = ctx("route", prompt, "--format", "json", *args)
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_the_answer_section_of_a_big_page_reaches_the_hook_budget(ctx, tmp_path):
    project(tmp_path, {"reference.md": big_reference(), **OTHERS})
    assert len(big_reference()) > 40_000
    data = route(ctx, "how do sticky sessions pick the affinity cookie?", "--budget", "10000")
    ref = next(f for f in data["files"] if f["path"] == "reference.md")
    assert ref["tier"] == "HOT" and ref.get("cut") is True
    assert "Sticky sessions use the cookie named lb_affinity" in data["context"]
    assert "`ctx show reference.md SECTION`" in data["context"] and data["used_chars"] <= 10000


OTHERS = {f"guide-{i}.md": f"# Guide {i}\n\n" + FILLER * 6 + "\n" for i in range(6)}


def test_a_follow_up_asks_about_the_part_the_conversation_is_on(ctx, tmp_path):
    project(tmp_path, {"reference.md": big_reference(), **OTHERS})
    route(ctx, "sticky sessions affinity cookie", "--budget", "6000")
    data = route(ctx, "and which secret hashes it?", "--budget", "6000")
    assert "hashed with the shared secret" in data["context"]


def test_the_section_index_follows_an_edit(ctx, tmp_path):
    project(tmp_path, {"reference.md": big_reference(), **OTHERS})
    route(ctx, "directive number", "--budget", "8000")
    text = big_reference().replace("## Directive number 25", "## Directive number 25\n\nQuokka tuning lives here.")
    (tmp_path / "docs" / "reference.md").write_text(text, encoding="utf-8")
    data = route(ctx, "quokka tuning", "--budget", "8000")
    assert "Quokka tuning lives here." in data["context"]


def test_keywords_ctx_init_derived_are_evidence_not_a_verdict(ctx, tmp_path):
    project(tmp_path, {"credentials.md": "# Credentials\n\n## Git\n\nStore tokens in the keychain.\n",
                       "commits.md": "# Commits\n\nWrite commit messages in the imperative mood, then push.\n",
                       **{f"n{i}.md": f"# Note {i}\n\nnothing here\n" for i in range(4)}})
    (tmp_path / "config.yaml").unlink()
    assert ctx("init", "docs").code == 0
    config = (tmp_path / "config.yaml").read_text()
    assert "derived_keywords:" in config and "- git" in config
    data = route(ctx, "how should I word the message when I commit it to git?")
    tiers = {f["path"]: f["tier"] for f in data["files"]}
    assert tiers.get("commits.md") == "HOT" and data["files"][0]["path"] == "commits.md"
    cred = next(f for f in data["files"] if f["path"] == "credentials.md")
    # "git" is a heading ctx init derived: evidence only, never a verdict of its own (a section of the doc
    # that matches the prompt may still be shown, after the best one)
    assert any(r.startswith("weak-keyword:git") for r in cred["reasons"])
    assert "keyword:git" not in cred["reasons"]


def test_a_curated_keyword_is_still_a_verdict(ctx, tmp_path):
    project(tmp_path, {"credentials.md": "# Credentials\n\nStore tokens in the keychain.\n",
                       "commits.md": "# Commits\n\nWrite commit messages in the imperative mood.\n"},
            "keywords: {credentials.md: [git]}\n")
    data = route(ctx, "how should I word the message when I commit it to git?")
    assert {f["path"]: f["tier"] for f in data["files"]}["credentials.md"] == "HOT"


def test_a_one_word_name_common_in_a_big_folder_is_weak(ctx, tmp_path):
    docs = {f"page-{i}.md": f"# Page {i}\n\nRun the install step before page {i} works.\n" for i in range(40)}
    docs["install.md"] = "# Install\n\nDownload the binary.\n"
    docs["caching.md"] = "# Caching\n\nThe install cache lives in the home folder; clear it with purge.\n"
    project(tmp_path, docs)
    data = route(ctx, "where does the install cache live?")
    tiers = {f["path"]: f["tier"] for f in data["files"]}
    assert tiers.get("install.md") != "HOT" and tiers.get("caching.md") == "HOT"


def test_a_hub_page_is_not_hot_on_breadth(ctx, tmp_path):
    pages = {f"topic-{i}.md": f"# Topic {i}\n\n" + FILLER + f"\nThe zebra{i} knob sets the rate.\n"
             for i in range(8)}
    hub = "# Index\n\n" + "\n".join(f"- [Topic {i}](topic-{i}.md): zebra{i} knob rate" for i in range(8)) + "\n"
    project(tmp_path, {**pages, "index.md": hub})
    data = route(ctx, "what does the zebra3 knob set, the rate?")
    tiers = {f["path"]: f["tier"] for f in data["files"]}
    assert tiers.get("index.md") != "HOT" and tiers.get("topic-3.md") == "HOT"
    assert sections.is_hub("index.md", hub) and not sections.is_hub("topic-3.md", pages["topic-3.md"])


def test_a_sphinx_table_of_contents_is_a_hub():
    """Tried as a new user would on a web framework's Sphinx docs: its `index.rst`, a welcome paragraph and a
    toctree of 29 pages, was HOT for "how do I test a view that needs a logged in user" by the entries `testing`
    and `views`, as a page that links them all."""
    entries = "\n".join(f"   {name}" for name in ("installation", "quickstart", "tutorial/index", "templating",
                                                   "testing", "views", "blueprints", "cli"))
    index = (".. rst-class:: hide-header\n\n# Welcome to Flask\n\nWelcome to Flask's documentation, a lightweight "
             "WSGI web application framework.\nIt is designed to make getting started quick and easy, with the "
             "ability to scale up to complex applications.\n\n## User's Guide\n\nFlask provides configuration and "
             "conventions, with sensible defaults, to get started.\nThis section explains the parts of Flask.\n\n"
             f".. toctree::\n   :maxdepth: 2\n\n{entries}\n\n## API Reference\n\n"
             ".. toctree::\n   :maxdepth: 2\n\n   api\n")
    assert sections.is_hub("index.rst", index)
    guide = ("# Testing Flask Applications\n\nFlask provides utilities for testing an application.\n\n"
             ".. code-block:: python\n\n   def test_request(client):\n       response = client.get('/')\n\n"
             "The client makes requests to the application without running a live server. Fixtures set up the "
             "application and its database once for each test, and tear them down after it.\n\n"
             ".. toctree::\n   :hidden:\n\n   fixtures\n")
    assert not sections.is_hub("testing.rst", guide)
    assert not sections.is_hub("toctree.md", "# Toctree\n\n" + "\n".join(f"   item {i}" for i in range(9)) + "\n")


def test_changelogs_are_hubs():
    for path in ("CHANGELOG.md", "CHANGELOG-API.md", "docs/release-notes-2.0.md", "changelog_v1.md",
                 "docs/change_log.md", "docs/breaking-changes.md", "release_notes/whats_new.md"):
        assert sections.is_hub(path, "# Changes\n\nFixed a bug in the exporter's retry loop.\n"), path
    assert not sections.is_hub("changelogger.md", "# Changelogger\n\nA tool that writes changelogs for you.\n")
    # A log's name is a hub when its headings name releases (or it has none under its title); a page about a
    # feature of that name is not: a release tool's `customization/publish/changelog.md`, a test runner's
    # `releases.md` (its release cycle), a database's `history.md` (how the project started).
    for path, body in (("CHANGELOG.md", "# Changelog\n\n## Unreleased\n\n- x\n\n## [1.0.0] - 2024-01-01\n"),
                       ("docs/release-notes.md", "---\ntitle: Notes\n---\n\n## 0.0.39 (2026-06-25)\n\n### Fixes\n"),
                       ("CHANGELOG.md", "Changes by Version\n=====\n\nv2.20.0 (2026-07-19)\n-----\n\n- z\n"),
                       ("docs/releases.md", "# Releases\n\n## v1.12\n\n### Breaking changes\n"),
                       # a web server's releases by number (182,000 chars, HOT for "enable http/3 with quic")
                       ("nginx/releases.md", "---\ntitle: Releases\n---\n\n## New release model {#intro}\n\n"
                        "Text.\n\n### NGINX Plus Release 36 (R36) {#r36}\n\n- HTTP/3 fixes\n"),
                       ("archive/changelog-2023.md", "---\ntitle: 2023\n---\n\n## October 31, 2023\n\n- QUIC\n"),
                       ("CHANGELOG.md", "# Changelog\n\n## 4 March 2024\n\n- Fixed.\n")):
        assert sections.is_hub(path, body), body
    for path, body in (("customization/publish/changelog.md", "---\ntitle: Changelog\n---\n\nHow the release "
                        "notes are written.\n\n```yaml\nchangelog:\n  sort: asc\n```\n\n## Enhance with AI\n\nUse.\n"),
                       ("releases.md", "# Releases\n\n## Release Cycle\n\nA major every year.\n\n"
                        "## Supported Versions\n\n| Version | Supported |\n|---|---|\n| 3.x | yes |\n"),
                       ("history.md", "---\ntitle: History\ndescription: How it started\n---\n\nIt was forked in "
                        "2024.\n\nEarly works\n-----------\n\nAt the time he was known for a port scanner.\n")):
        assert not sections.is_hub(path, body), body
    # a changelog folder's own page (a theme's `changelog/index.md`, 216 releases); not another folder's index
    for path in ("changelog/index.md", "insiders/changelog/index.md", "release-notes/_index.md"):
        assert sections.is_hub(path, "# Changelog\n\n### 9.5.0\n\nAdded the blog plugin's authors.\n"), path
    assert not sections.is_hub("setup/index.md", "# Setup\n\nHow to set the site up: colors, fonts, search.\n")
    # a release's page in a releases folder, by its headings (a firewall's `releases/about-4.2.md`); not a page
    # there about releasing
    assert sections.is_hub("releases/about-4.2.md", "---\ntitle: About 4.2\n---\n\n## Release 4.2\n\n### New\n")
    assert not sections.is_hub("releases/process.md", "# How we release\n\nEvery month, from the main branch.\n")
    assert not sections.is_hub("releases/process.md", "# How we release\n\n## Cadence\n\nMonthly.\n")
    assert not sections.is_hub("changelog.md", "# Changelog\n\n## May the output vary\n\nHow it is written.\n")
    # One release's notes, named by its version in a folder of them (a note app's help vault: 364 of them).
    note = "- Tables: a new editor for markdown tables.\n- Fixed a crash when closing the graph.\n"
    for path in ("Release notes/v1.5.6.md", "Release notes/Mobile/v0.0.11.md", "changelog/2.0.md",
                 "releases/v2.md", "release_notes/1.2.0-beta.1.md", "docs/changelog/2024-10-sidebar.mdx",
                 # a change's fragment, named by its ticket (a database toolkit's; towncrier's)
                 "doc/changelog/unreleased_13/6135.rst", "newsfragments/1234.bugfix.md", "changelog.d/567.md",
                 "doc/source/whatsnew/v2.2.0.rst", "changelog_unreleased/typescript/19688.md"):
        assert sections.is_release_notes(path) and sections.is_hub(path, note), path
    for path in ("v1.2.md", "docs/v2-upgrade.md", "releases/upgrading.md", "upgrading/2.4-2.5.md",
                 "guides/2024-10-sidebar.md", "tutorial/101.md", "changelog/12.md", "changes/1234.a.b.md"):
        assert not sections.is_release_notes(path) and not sections.is_hub(path, note), path


def test_a_lookup_table_of_names_is_a_hub():
    """Tried as a new user would on a site generator's docs: its emoji reference, 1,176 rows of `:straight_ruler:`,
    led "the covers come straight off my camera" by the names in its rows. A table of that many rows whose words are
    mostly names (code spans, `:emoji:` codes, links) is a hub; a long reference table that describes what it
    lists, and a short table of names, are pages."""
    row = "| [top](#objects) | :straight_ruler: | `:straight_ruler:` | :camera: | `:camera:` | [top](#toc) |\n"
    assert sections.is_hub("quick-reference/emojis.md", "# Emojis\n\n| | ico | code |\n|-|-|-|\n" + row * 600)
    assert not sections.is_hub("emojis.md", "# Emojis\n\n" + row * 40)
    described = "| `--flag-name` | string | The address the server listens on for incoming requests. |\n"
    assert not sections.is_hub("reference.md", "# Flags\n\n" + described * 600)


def test_a_page_that_points_at_another_is_a_hub():
    """A cheat-sheet repo's 600 alias pages of three lines took HOT places; a moved page's stub says as little."""
    alias = ("# jfrog\n\n> This command is an alias of `jf`.\n\n- View documentation for the original command:\n\n"
             "`tldr jf`\n")
    assert sections.is_hub("pages/common/jfrog.md", alias)
    assert sections.is_hub("orm/classical.rst", "This document has moved to :doc:`queryguide/inheritance`\n")
    long = "# Ownership\n\n" + "Each value has an owner; when it goes out of scope it is dropped. " * 5
    assert not sections.is_hub("ownership.md", long + "The value has moved to another variable.\n")


def test_a_long_section_is_cut_into_parts_that_keep_the_text():
    body = big_reference(3)
    parts = sections.split(body)
    assert all(len(p.text) <= sections.PART_CHARS + len(FILLER * 8) for p in parts)
    assert "\n\n".join(p.text for p in parts).replace("\n", "") == body.strip("\n").replace("\n", "")
    assert sections.find(body, "Directive number 1") is not None
    assert sections.titles(body) == [f"Directive number {i}" for i in range(3)]


section_body = st.tuples(st.sampled_from(["# T\n", ""]), st.lists(st.tuples(
    st.sampled_from(["", "## A", "### B", "## C c"]), st.text(alphabet="xyz |\n`~", max_size=900)), max_size=12)).map(
    lambda t: t[0] + "\n".join(f"{h}\n{x}" for h, x in t[1]))


@settings(max_examples=150, deadline=None)
@example(body="\n```", room=71, relevance={}, sent={})  # only the rest of the opening left out: named, not "1 of 1"
@given(body=section_body, room=st.integers(0, 6000),
       relevance=st.dictionaries(st.integers(0, 40), st.floats(0, 10), max_size=8),
       sent=st.dictionaries(st.integers(0, 40), st.integers(1, 9), max_size=6))
def test_a_cut_fits_its_room_quotes_the_doc_and_skips_what_was_sent(body, room, relevance, sent):
    done = sections.cut(body, room, relevance, "p.md", "# T", sent)
    if done is None:
        return
    assert len(done.text) <= room
    parts = sections.split(body)
    assert not done.parts & set(sent)  # a part the conversation holds is never printed again
    for j in done.parts:
        assert parts[j].text in done.text or j == 0
    for block in done.text.split("\n\n"):
        if not block.startswith("... [") and "(part)\n" not in block:
            # ... or the header's start, printed when not even the opening fits
            assert block.strip("\n") in body or block in sections.opening_of(body) or block in "# T"


def test_a_held_best_part_does_not_let_weak_parts_fill_the_room():
    """The conversation holds the doc's best part: the parts that scored far below it are not printed in its
    place; a part that scored near it is, and so is its best new part."""
    body = "# T\n\nWhat the page is.\n\n" + "".join(f"## S{i}\n\n" + FILLER * 3 + "\n\n" for i in range(6))
    relevance = {1: 10.0, 2: 8.0, 3: 3.0, 4: 3.0, 5: 3.0}
    done = sections.cut(body, 9000, relevance, "t.md", "# T", sent={1: 3})
    assert done is not None and done.parts - {0} == {2}
    assert "## S1\n" in done.text and "## S2\n" not in done.text and "## S0\n" not in done.text  # part j: S{j-1}
    # Its best new part is printed however weak beside what the conversation holds; the next is not.
    done = sections.cut(body, 9000, {1: 10.0, 2: 2.0, 3: 1.5}, "t.md", "# T", sent={1: 3})
    assert done is not None and done.parts - {0} == {2}


def test_a_doc_that_opens_with_a_section_prints_it_once():
    """No opening before the first `##`: the cut does not stand its header (which starts with the first
    sections) in for one, or those sections would be printed twice."""
    body = "## Overview\n\n" + "Overview words. " * 30 + "\n\n## Cuda\n\n" + "Cuda words here. " * 30 + \
        "\n\n## Other\n\n" + "Other words. " * 200
    header = "\n".join(body.splitlines()[:25])
    done = sections.cut(body, 3000, {2: 1.0}, "p.md", header)
    assert done is not None and done.text.count("## Cuda") == 1 and "## Overview" not in done.text


@settings(max_examples=150, deadline=None)
@given(sizes=st.lists(st.integers(0, 5000), min_size=1, max_size=8), opening=st.integers(0, 5000),
       room=st.integers(300, 9000), matches=st.lists(st.integers(1, 30), max_size=4))
def test_the_cut_notice_counts_sections_as_the_doc_has_them(sizes, opening, room, matches):
    """'(N of M sections)' not shown: N never above M, no empty name, a section named once."""
    para = ("word " * 40 + "\n\n")
    body = "# T\n\n" + para * (opening // 200) + "".join(f"\n## S{i}\n\n" + para * (n // 200)
                                                      for i, n in enumerate(sizes))
    done = sections.cut(body, room, {j: 1.0 for j in matches}, "t.md", "# T")
    if done is None or "[cut; not shown: " not in done.text:
        return
    line = next(ln for ln in done.text.splitlines() if "[cut; not shown: " in ln)
    names = line.split("[cut; not shown: ")[1].removesuffix(": `ctx show t.md SECTION`] ...")
    if names.endswith(": `ctx show t.md`] ..."):  # only the rest of the opening: the whole doc shows it
        names = names.removesuffix(": `ctx show t.md`] ...")
        assert names.startswith("the rest of the opening")
    shown = {ln[3:].removesuffix(" (part)") for ln in done.text.splitlines() if ln.startswith("## S")}
    if names.endswith(" sections)") or names.endswith(" sections"):  # names and the count, or the count alone
        names, _, counts = names.removesuffix(")").removesuffix(" sections").rpartition(" (")
        left, total = (int(x) for x in counts.split(" of "))
        assert left <= total <= len(sizes) + 1
        if not names:
            return
    listed = [n for n in names.split(", ") if n != "..."]
    assert "" not in listed and len(listed) == len(set(listed))
    assert "the rest of the opening" not in listed[:-1]  # the doc's own sections are named first
    named = set(listed) - {"the rest of the opening"}  # shown in part or not: the text cannot tell
    # a section shown in part is not named as not shown; when only such are left out, "the rest of" them is
    rests = {n for n in named if n.startswith("the rest of ")}
    assert not (named - rests) & shown
    assert not rests or not named - rests and {n.removeprefix("the rest of ") for n in rests} <= shown


WORD_ST = st.text(alphabet="abcdefghijklmnopqrstuvwxyzé0123456789", min_size=1, max_size=8)
MARKUP = ["{}", "**{}**", "*{}*", "_{}_", "`{}`", "[{}](../a/{}.md)", "[{}][ref]", "<b>{}</b>", "~~{}~~"]


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.tuples(WORD_ST, st.sampled_from(MARKUP)), min_size=1, max_size=6),
       other=st.lists(WORD_ST, min_size=1, max_size=4))
def test_a_section_is_found_as_its_heading_reads_and_by_its_slug(words, other):
    """Whatever markup a heading's words carry, the words as they read and the heading's slug find it."""
    heading = " ".join(m.format(w, w) for w, m in words)
    body = f"# T\n\nintro\n\n## {' '.join(other)} zz\n\nother\n\n## {heading}\n\nthe text\n"
    plain = " ".join(w for w, _ in words)
    assume(plain not in f"{' '.join(other)} zz")  # the other heading must not read as this one
    for name in (plain, plain.upper(), "-".join(w for w, _ in words), heading):
        found = sections.find(body, name)
        assert found is not None and found.startswith(f"## {heading}\n"), name


def test_no_part_ends_inside_an_indented_code_block():
    """Tried as a new user would on mkdocs docs: a part began in the middle of an example shown in a tab
    (`=== "Tab"` holds a fence indented four spaces), the code cut from the lines that explain it."""
    code = "\n".join(f"    value_{i} = compute({i})\n" for i in range(120))  # blank lines inside the fence
    body = ("# T\n\n## Validators\n\n" + "Some words. " * 90 + "\n\n=== \"Tab\"\n\n    ```python\n" + code
            + "    ```\n\n" + "After the example. " * 60 + "\n")
    parts = [s for s in sections.split(body) if s.title == "Validators"]
    assert len(parts) > 1
    for part in parts:
        fences = sum(1 for line in part.text.splitlines() if line.lstrip().startswith("```"))
        assert fences % 2 == 0, part.text[:200]


def test_an_opening_that_answers_the_turn_is_shown_whole_not_only_its_start():
    """A page's opening often says what the page is in its last lines, after a tip box and a warning: when the
    turn's ranking puts the opening among its parts, the cut shows all of it."""
    preamble = "::: tip Sample\n" + "[link](https://example.com/a-long-link-target) " * 12 + "\n:::\n\n"
    body = ("# Test Projects\n\n" + preamble + "Projects run several configurations in one process, for monorepos.\n"
            + "".join(f"\n## Part {j}\n\n" + "filler words here. " * 60 + "\n" for j in range(6)))
    asked = sections.cut(body, 4000, {0: 1.0, 3: 0.8}, "p.md", "# Test Projects")
    assert asked is not None and "for monorepos." in asked.text and "## Part 2" in asked.text  # part 3: the third
    elsewhere = sections.cut(body, 4000, {3: 1.0}, "p.md", "# Test Projects")
    assert elsewhere is not None and "for monorepos." not in elsewhere.text  # the opening's start only
    assert "not shown: 6 of 7 sections" in elsewhere.text  # the rest of the opening is among what is not shown


def test_a_section_shown_in_part_is_not_named_as_not_shown():
    """Its `(part)` heading says what it is; the line names the sections the model has not seen at all that the
    turn ranked (the others are counted), and the partly shown ones only when nothing else is left out."""
    para = "word " * 150 + "\n\n"
    body = "# T\n\nintro\n\n## Big\n\n" + para * 6 + "## Other\n\n" + para * 2
    parts = sections.split(body)
    second = next(j for j, s in enumerate(parts) if s.title == "Big" and s.part == 1)
    done = sections.cut(body, 2500, {second: 1.0}, "t.md", "# T")
    assert done is not None and "## Big (part)" in done.text
    assert "[cut; not shown: 1 of 2 sections: `ctx show t.md SECTION`] ..." in done.text  # Other: not ranked
    other = next(j for j, s in enumerate(parts) if s.title == "Other")
    ranked = sections.cut(body, 2500, {second: 1.0, other: 0.9}, "t.md", "# T")  # ranked, and no room for it
    assert ranked is not None and "[cut; not shown: Other (1 of 2 sections)" in ranked.text
    only = sections.cut("# T\n\nintro\n\n## Big\n\n" + para * 6, 2500, {second: 1.0}, "t.md", "# T")
    assert only is not None and "[cut; not shown: the rest of Big: `ctx show t.md SECTION`] ..." in only.text
    # A section the conversation holds a part of is partly shown too: not named both as held and as not shown.
    held = sections.cut(body, 2500, {other: 1.0}, "t.md", "# T", {second: 2})
    assert held is not None and "already in this conversation (turn 2): 1 section]" in held.text
    assert "not shown: the rest of Big" in held.text and "not shown: Big" not in held.text


def test_a_section_held_in_part_goes_on_where_the_part_stopped():
    """Tried as a new user would on a file-sync tool's docs: a turn showed a part of a section, the next asked
    for what its following paragraph says, and no word of that prompt ranked it. The held part ranks among the
    doc's best again: the conversation is on that section, and its next part is printed; the line of what the
    conversation holds says it holds a part of it, not the section, and names only what the turn ranks."""
    para = "word " * 150 + "\n\n"
    body = "# T\n\nintro\n\n## Big\n\n" + para * 6 + "## Other\n\n" + para * 2
    parts = sections.split(body)
    big = [j for j, s in enumerate(parts) if s.title == "Big"]
    other = next(j for j, s in enumerate(parts) if s.title == "Other")
    done = sections.cut(body, 2500, {big[0]: 2.0, other: 1.0}, "t.md", "# T", {big[0]: 4})
    assert done is not None and big[1] in done.parts and big[2] not in done.parts
    assert "## Big (part)" in done.text and "already in this conversation (turn 4): Big (part)" in done.text
    # A held part the turn does not rank among the doc's best lifts nothing, and is counted, not named.
    done = sections.cut(body, 2500, {big[0]: 0.1, other: 1.0}, "t.md", "# T", {big[0]: 4})
    assert done is not None and big[1] not in done.parts and other in done.parts
    assert "already in this conversation (turn 4): 1 section]" in done.text
    done = sections.cut(body, 2500, {big[0]: 2.0, other: 1.0}, "t.md", "# T", {big[0]: 4, 0: 2})
    assert done is not None and "already in this conversation (turns 2, 4): Big (part), 1 more section]" in done.text
    # When the conversation holds every part of the section but the last, it is named as held whole once printed.
    done = sections.cut(body, 2500, {big[1]: 2.0}, "t.md", "# T", {big[0]: 3, big[1]: 4})
    assert done is not None and big[2] in done.parts
    assert "already in this conversation (turns 3, 4): Big]" in done.text


def plugin_page() -> str:
    """A gateway plugin's reference page: a 4,000-char table of options, then examples that repeat them."""
    rows = [f"| option_{i} | string | False | | | {FILLER[:220]} |" for i in range(12)]
    rows.insert(7, "| nodelay | boolean | False | false | | If true, do not delay requests within the burst "
                   "threshold. |")
    lines = ["# Rate limiting", "", "Limits the rate of requests to a route.", "", "## Attributes", "",
             "| Name | Type | Required | Default | Valid values | Description |", "|---|---|---|---|---|---|",
             *rows, ""]
    for i in range(6):
        lines += [f"### Example {i}", "", f"Set `rate` and `burst`, and `nodelay` to {i % 2 == 0}:", "", "```json",
                  '{"limit-req": {"rate": 1, "burst": 2, "nodelay": true, "rejected_code": 429}}', "```", "",
                  FILLER * 3, ""]
    return "\n".join(lines)


def test_a_long_table_is_cut_between_its_rows_and_the_answering_row_is_shown(ctx, tmp_path):
    """Tried as a new user would on an API gateway's reference docs: the row that answers sat in one 4,000-char
    `## Attributes` part, which lost its room to the examples that repeat the option's name."""
    page = plugin_page()
    parts = sections.split(page)
    table = [p for p in parts if p.title == "Attributes"]
    assert len(table) > 1 and all(len(p.text) <= sections.PART_CHARS + 400 for p in table)
    assert all(p.lead for p in table[1:])  # they go on with the table
    header = "| Name | Type | Required | Default | Valid values | Description |\n|---|---|---|---|---|---|"
    assert {p.lead for p in table[1:]} == {header}  # printed above a part's rows when it is shown alone
    whole = page[page.index("| Name |"):page.index("\n\n### Example 0")]
    assert whole in sections.find(page, "Attributes")  # `ctx show` prints the table whole
    project(tmp_path, {"plugins/limit-req.md": page, **OTHERS})
    data = route(ctx, "what does nodelay do for requests within the burst?", "--budget", "2500")
    assert "If true, do not delay requests within the burst threshold." in data["context"]
    assert data["used_chars"] <= 2500


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.text(alphabet="xyz ", min_size=1, max_size=300), min_size=1, max_size=40))
def test_a_table_cut_between_its_rows_reads_back_whole(rows):
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| {r} |" for r in rows)
    body = f"# Page\n\nIntro.\n\n## Options\n\n{table}\n"
    parts = [p for p in sections.split(body) if p.title == "Options"]
    assert all(p.lead == "| a | b |\n|---|---|" for p in parts[1:])
    assert sections.find(body, "Options") == f"## Options\n\n{table}"
    done = sections.cut(body, 100_000, {j: 1.0 for j in range(1, len(parts) + 1)}, "p.md", "# Page", {})
    assert done is not None and table in done.text  # every part shown: one table, as the doc has it
    last = len(parts)  # (part numbers count the opening: the table's last part is the section's last)
    alone = sections.cut(body, 100_000, {last: 1.0}, "p.md", "# Page", {})
    assert alone is not None and parts[-1].text in alone.text
    if len(parts) > 1:  # a part shown without the one before it opens with its table's header rows
        assert f"## Options (part)\n| a | b |\n|---|---|\n{parts[-1].text}" in alone.text


def test_a_turn_with_more_room_lowers_the_parts_bar_and_shows_more_leaders(ctx, tmp_path):
    """Piped (25,000 chars) a part half as good as the doc's best is shown beside it, and the best sections of
    five docs make them HOT; a hook's 10,000 keeps the bar and four leaders."""
    assert tiers.bar(10_000) == tiers.bar(4_000) == 1.0 and tiers.bar(25_000) == 0.4
    assert lexical.leaders(10_000) == 4 and lexical.leaders(25_000) == 5
    body = "# T\n\nWhat the page is.\n\n" + "".join(f"## S{i}\n\n" + FILLER * 3 + "\n\n" for i in range(4))
    relevance = {1: 10.0, 2: 2.0}
    assert sections.cut(body, 9000, relevance, "t.md", "# T").parts - {0} == {1}
    assert sections.cut(body, 9000, relevance, "t.md", "# T", floor=sections.PART_FLOOR * 0.4).parts - {0} == {1, 2}
    docs = {f"tool-{i}.md": f"# Tool {i}\n\n" + FILLER * 4 + f"\n\n## Rollback\n\nTool {i} rolls the canary "
            "release back with a rollback.\n" for i in range(6)}
    project(tmp_path, {**docs, **OTHERS}, "tiers:\n  hot: {threshold: 0.8, max_files: 6}\n")

    def hot(budget: str) -> int:
        data = route(ctx, "how do I roll a canary release back with a rollback?", "--budget", budget, "--dry-run")
        return sum(f["tier"] == "HOT" for f in data["files"])

    assert hot("10000") == 4 and hot("25000") == 5


def test_a_cut_names_sections_as_their_site_shows_them():
    """Tried as a new user would on a framework's VitePress docs: the cut line named `computed() {#computed}`
    and `Declaring Reactive State \\*`, the heading's anchor and escapes, not its name."""
    body = "# Reactivity\n\nThe core.\n\n" + "".join(
        f"## {title}\n\n{FILLER * 3}\n\n" for title in ("ref() {#ref}", "computed() {#computed}",
                                                        "Declaring Reactive State \\* {#declaring}",
                                                        "Watchers { .api }"))
    done = sections.cut(body, 900, {1: 5.0, 2: 4.0, 3: 4.0, 4: 4.0}, "core.md", "# Reactivity")
    assert done is not None
    line = next(ln for ln in done.text.splitlines() if ln.startswith("... [cut; not shown: "))
    assert "computed(), Declaring Reactive State *" in line and "{" not in line and "\\" not in line
    # Named are the ranked ones that did not fit; "..." says they are some of those counted.
    done = sections.cut(body, 900, {1: 5.0, 2: 4.0}, "core.md", "# Reactivity")
    assert done is not None and "[cut; not shown: computed(), ... (3 of 4 sections)" in done.text
    # a component's self-closing tag is no word of the name (a web framework's option headings open with a
    # badge); a type's angle brackets and a tag in code stay
    badges = "# JWT\n\nThe middleware.\n\n" + "".join(
        f"### {title}\n\n{FILLER * 3}\n\n" for title in ('<Badge type="danger" text="required" /> secret',
                                                        "`Vec<T>` and <Badge /> cookie", "`<Foo />` headerName"))
    done = sections.cut(badges, 900, {1: 5.0, 2: 4.0, 3: 4.0}, "jwt.md", "# JWT")
    assert done is not None and "[cut; not shown: `Vec<T>` and cookie, `<Foo />` headerName (2 of 3 sections)" \
        in done.text, done.text


LINTS = ("# Lints\n\nEvery lint.\n\n## `box_default`\n\nWhat it does.\n\n### Why is this bad?\n\nIt allocates.\n\n"
         "## `as_ptr`\n\nIt does.\n\n### Why is this bad?\n\nIt dangles.\n\n### Example\n\n`x.as_ptr()`\n")


def test_a_repeated_subheading_is_shown_under_its_section():
    """Tried as a new user would on a build tool's book: a lint list's `### Why is this bad?` sections were
    shown one after another with no lint named above them."""
    done = sections.cut(LINTS, 2000, {2: 1.0, 4: 0.9, 5: 0.8}, "lints.md", "# Lints")
    assert done is not None
    text = done.text
    assert text.index("## `box_default`") < text.index("It allocates") < text.index("## `as_ptr`") \
        < text.index("It dangles") < text.index("### Example")
    assert text.count("## `as_ptr`") == 1  # once over the two sections under it
    alone = [s for s in sections.split(LINTS) if s.title == "Example"][0]
    assert sections.alone(alone, under=True) == alone.text  # a title of its own needs no heading above it
    why = [s for s in sections.split(LINTS) if s.title == "Why is this bad?"][1]
    assert sections.alone(why, under=True).startswith("## `as_ptr`\n\n### Why is this bad?")


@settings(max_examples=200, deadline=None)
@given(blocks=st.lists(st.tuples(st.booleans(), st.integers(1, 60)), min_size=1, max_size=6))
def test_an_opening_never_ends_inside_a_code_block(blocks):
    """Tried as a new user would on a runtime's docs: an opening cut at its 600 chars stopped inside a
    ```ts block, and everything after it, the next doc's banner too, read as code."""
    text = "\n\n".join(("```ts\n" + "const x = 1;\n" * n + "```") if code else ("Some words. " * n)
                       for code, n in blocks)
    opening = sections.opening_of(text)
    assert sum(1 for line in opening.splitlines() if line.lstrip().startswith("```")) % 2 == 0
    assert opening.strip()


def test_the_openings_later_part_and_a_doc_of_only_an_opening_read_right():
    """A part of a doc's opening shown alone carries no empty `  (part)` heading; a cut doc that has nothing
    left out but the rest of its opening says to see the whole doc (`ctx show PATH`: no SECTION names it)."""
    body = "Intro.\n\n" + ("word " * 150 + "\n\n") * 6
    parts = sections.split(body)
    assert parts[2].level == 0 and parts[2].part == 2
    assert sections.alone(parts[2]) == parts[2].text
    done = sections.cut(body, 2500, {2: 1.0}, "t.md", "Intro.")
    assert done is not None and " (part)" not in done.text
    assert done.text.endswith("[cut; not shown: the rest of the opening: `ctx show t.md`] ...")
    # Cut to its first lines, it says the same: not "(1 of 1 sections)", which reads as if nothing were shown.
    done = sections.cut(body, 1500, {}, "t.md", "Intro.")
    assert done is not None and done.text.endswith("[cut; not shown: the rest of the opening: `ctx show t.md`] ...")


def test_a_part_whose_section_goes_on_unshown_says_so():
    """Tried as a new user would: a section's first part was shown with its heading and no mark, and read as
    the whole section; a cut opening stopped inside a sentence. Both end with `[...]`."""
    body = "# T\n\n" + "An opening line that goes on\nand on across lines. " * 20 + "\n\n## Big\n\n" + \
        ("word " * 150 + "\n\n") * 6 + "## Other\n\nother\n"
    parts = sections.split(body)
    first = next(j for j, s in enumerate(parts) if s.title == "Big" and s.part == 0)
    done = sections.cut(body, 3000, {first: 1.0}, "t.md", "# T")
    assert done is not None
    shown = done.text.split("\n\n")
    assert shown[1].endswith(" " + sections.GOES_ON)  # the opening, cut inside its paragraph
    at = done.text.index("## Big")
    assert "\n" + sections.GOES_ON in done.text[at:]
    whole = sections.cut(body, 100000, {first: 1.0, first + 1: 1.0, first + 2: 1.0, first + 3: 1.0}, "t.md", "# T")
    assert whole is not None and "\n" + sections.GOES_ON not in whole.text


def test_no_part_opens_inside_an_indented_code_block():
    """Tried as a new user would on an API framework's docs, whose examples are indented four spaces: 17 parts in
    a conversation opened on a line of a method's body, without the heading and the rule above it. In a doc
    with fences, indented lines are a tab's or a box's paragraphs, and parts may end between them."""
    method = "    def validate_title(self, value):\n        return value\n\n"
    body = "# T\n\n## Validation\n\n" + "Rule. " * 200 + "\n\n    class S(Serializer):\n\n" + method * 40 + "\nAfter.\n"
    parts = [p.text for p in sections.split(body)]
    assert len(parts) == 4 and parts[2].startswith("    class S(Serializer):")  # the example whole
    assert parts[2].count("def validate_title") == 40 and parts[3] == "After."
    tabs = "## Tabs\n\n```py\nx = 1\n```\n\n" + "=== \"Python\"\n\n" + ("    " + "word " * 60 + "\n\n") * 8
    assert len(sections.split(tabs)) > 1


def test_a_part_too_big_for_the_room_shows_its_best_stretch_as_code():
    """Tried as a new user would on a monitoring system's configuration reference: `<remote_write>` is one
    8,600-char YAML block, a part no hook turn's room holds, so "which queue_config settings control
    concurrency?" never showed `max_shards`. A matching part too big for the room shows its best stretch,
    ranked as the turn ranks text, inside the block's fences; it is not counted as sent."""
    keys = "".join(f"# Setting number {i} of the remote endpoint.\n[ setting_{i}: <int> | default = {i} ]\n\n"
                   for i in range(120))
    body = ("# Configuration\n\nThe file.\n\n### `<remote_write>`\n\nWrite relabeling first.\n\n```yaml\n" + keys
            + "# Maximum number of shards, i.e. amount of concurrency.\n[ max_shards: <int> | default = 50 ]\n\n"
            + keys + "```\n\nThere is a list of integrations.\n")
    parts = sections.split(body)
    big = next(j for j, s in enumerate(parts) if "max_shards" in s.text)
    assert len(parts[big].text) > sections.STRETCH_FROM

    def rank(texts):  # the turn's ranking of pieces of text: here, how often they say "concurrency"
        return {i: float(t.count("concurrency")) for i, t in enumerate(texts) if "concurrency" in t}

    done = sections.cut(body, 3000, {big: 9.0}, "configuration.md", "# Configuration", rank=rank)
    assert done is not None and len(done.text) <= 3000
    assert "### `<remote_write>` (part)\n```yaml\n# Maximum number of shards" in done.text
    stretch = done.text[done.text.index("```yaml"):]
    assert stretch.count("```") == 2 and "[...]" in stretch  # fenced, and said to go on
    assert big not in done.parts  # not all of it was sent
    without = sections.cut(body, 3000, {big: 9.0}, "configuration.md", "# Configuration")
    assert without is not None and "max_shards" not in without.text


def test_an_opening_too_big_for_the_room_that_answers_shows_its_start_its_best_stretch_and_the_parts():
    """Tried as a new user would on a release tool's docs: a packaging page opens with one YAML block of every
    option (22,000 chars, before its first heading); "where does it read the signing key's passphrase from?"
    ranked its opening and its "Signing key passphrases" section, and the turn showed the page's first lines
    alone: the opening was taken whole first, found too big, and nothing else was kept. Now the best part is
    shown, and the opening's start with its best stretch (at most OPENING_STRETCH, fenced, not counted as sent)."""
    keys = "".join(f"# Option number {i} of the packager.\nsetting_{i}: {i}\n\n" for i in range(300))
    body = ("# nfpm\n\nGoReleaser can build packages.\n\nAvailable options:\n\n```yaml\n" + keys
            + "# The key's passphrase comes from the environment.\nkey_file: key.gpg\n\n" + keys + "```\n\n"
            "## Signing key passphrases\n\nThe passphrase is read from `$NFPM_PASSPHRASE`.\n\n## Termux\n\nOther.\n")
    assert len(sections.split(body)[0].text) > 8000

    def rank(texts):  # the turn's ranking of pieces of text: here, how often they say "passphrase"
        return {i: float(t.count("passphrase")) for i, t in enumerate(texts) if "passphrase" in t}

    done = sections.cut(body, 3000, {0: 5.0, 1: 9.0}, "nfpm.md", "# nfpm", rank=rank)
    assert done is not None and len(done.text) <= 3000
    assert "Available options:" in done.text and "$NFPM_PASSPHRASE" in done.text
    stretch = done.text[done.text.index("```yaml"):done.text.index("## Signing")]
    assert "key_file: key.gpg" in stretch and stretch.count("```") == 2
    assert len(stretch) <= sections.OPENING_STRETCH + 20
    assert 1 in done.parts and 0 not in done.parts  # the opening was not all sent
    # Without a ranking of text, as before a section query: the best part beside the opening's start.
    plain = sections.cut(body, 3000, {0: 5.0, 1: 9.0}, "nfpm.md", "# nfpm")
    assert plain is not None and "$NFPM_PASSPHRASE" in plain.text


def test_a_stretch_is_picked_by_this_prompts_words_before_the_conversations(ctx, tmp_path):
    """Tried on a monitoring system's configuration reference: after "which protobuf_message should remote write
    use?", "which queue_config settings control concurrency and batch size?" showed the protobuf setting's
    paragraph of `<remote_write>` again (the earlier prompt's words ranked it as this one's), not `queue_config`."""
    keys = "".join(f"# Setting number {i} of the endpoint.\n[ setting_{i}: <int> | default = {i} ]\n\n"
                   for i in range(60))
    block = ("# The protobuf message to use when writing to the remote write endpoint, remote write 1.0 or 2.0.\n"
             "[ protobuf_message: <string> | default = prometheus.WriteRequest ]\n\n" + keys
             + "queue_config:\n  # Maximum number of shards, i.e. amount of concurrency.\n  [ max_shards: <int> ]\n"
             "  # Maximum number of samples per send: the batch size.\n  [ max_samples_per_send: <int> ]\n\n" + keys)
    body = ("# Configuration\n\nThe file.\n\n### `<remote_write>`\n\nWrite relabeling first.\n\n```yaml\n" + block
            + "```\n\nThere is a list of integrations.\n")
    project(tmp_path, {"configuration.md": body, **OTHERS})
    first = route(ctx, "which protobuf_message should remote write use?", "--budget", "3000", "--session", "s")
    assert "protobuf_message: <string>" in first["context"]
    data = route(ctx, "which queue_config settings control concurrency and batch size?", "--budget", "3000",
                 "--session", "s")
    assert "max_shards" in data["context"] and len(data["context"]) <= 3000


def test_the_show_command_a_cut_doc_names_runs_as_a_shell_splits_it(ctx, tmp_path):
    """Tried as a new user would on a note app's help vault: the line said `ctx show en/Getting
    started/Download and install Obsidian.md SECTION`, which a model runs as five arguments."""
    import shlex

    page = "# Download and install\n\nGet the app.\n\n" + "".join(f"## Install on system{i}\n\n{FILLER}\n\n"
                                                                for i in range(20))
    project(tmp_path, {"en/Getting started/Download and install.md": page, **OTHERS})
    data = route(ctx, "install on system3", "--budget", "3000")
    line = next(line for line in data["context"].splitlines() if "`ctx show" in line)
    command = line.split("`")[1]
    assert command == "ctx show 'en/Getting started/Download and install.md' SECTION", line
    words = shlex.split(command.replace("SECTION", "'Install on system5'"))
    res = ctx(*words[1:])
    assert res.code == 0 and res.out.startswith("## Install on system5"), res.err
    # Typed unquoted, the path's words and the section's are told apart by the doc they name.
    res = ctx("show", "en/Getting", "started/Download", "and", "install.md", "Install", "on", "system5")
    assert res.code == 0 and res.out.startswith("## Install on system5"), res.err
    res = ctx("show", "en/Getting", "started/Download")
    assert res.code == 2 and res.err.startswith("ctx: error: unknown doc: en/Getting "), res.err
    assert sections.show_command("it's.md") == "ctx show 'it'\"'\"'s.md'"
    assert shlex.split(sections.show_command("it's.md")) == ["ctx", "show", "it's.md"]
    assert sections.show_command("guides/a-b_c.md", True) == "ctx show guides/a-b_c.md SECTION"


def test_a_names_line_names_a_first_title_too_long_for_it():
    """A changelog's sentence of a heading, longer than the line's room, was named "..." and the line read
    "not shown: ..., ... (83 of 84 sections)": its first words are named now."""
    title = "Session.merge resolves pending conflicts the same as persistent objects do"
    line = sections._left_out_line([title, "Other"], 84, "migration_11.rst", False, {title})
    assert line.startswith("... [cut; not shown: Session.merge resolves pending conflicts") and ": ..., ..." not in line
    assert len(sections._names_line("[", [title], "]", 20)) <= 20 + 2 + len(" ...")


def test_overloads_are_one_section_and_a_templates_empty_headings_stay_apart():
    """An API's two signatures, headed one right on the other, are one section (`ctx show api/http.md
    http.request` printed the first heading alone); a template's headings with nothing under them are not."""
    body = ("# HTTP\n\n## `http.request(options)`\n\n## `http.request(url[, options])`\n\n* `timeout` the socket "
            "timeout.\n\n## Breaking Changes\n\n## API Changes\n\nNone.\n")
    parts = sections.split(body)
    assert [(s.title, s.level) for s in parts[1:]] == [("`http.request(options)`", 2), ("Breaking Changes", 2),
                                                         ("API Changes", 2)]
    assert "## `http.request(url[, options])`" in parts[1].text and "socket timeout" in parts[1].text


def matchers_page() -> str:
    """A page whose sections all say "path" and "matcher": its "Path matchers" section has no word of its own."""
    common = "Every path matcher in a site block is read in order, and a path matcher may be named. " * 6
    parts = ["# Matchers", "", "How requests are matched.", ""]
    for title, text in (("Wildcard matchers", "A star matches every request; a trailing star matches a prefix."),
                        ("Named matchers", "A named set may hold a star too, beside its header rules."),
                        ("Path matchers", "Matching is exact by default, not by prefix."),
                        ("Header matchers", "A header rule may hold a star for any value.")):
        parts += [f"### {title}", "", common, "", text, "", common, ""]
    return "\n".join(parts)


def test_a_section_the_prompt_names_by_its_heading_is_shown_though_its_words_are_everywhere(ctx, tmp_path):
    # tried as a new user would on a web server's docs: "path" and "matcher" were in most of its pages and
    # sections, so they ranked no section, and the turn showed the sections that said "star"
    others = {f"site-{i}.md": f"# Site {i}\n\nEach path matcher of site {i} is listed here.\n" for i in range(6)}
    project(tmp_path, {"matchers.md": matchers_page(), **others})
    data = route(ctx, "does my path matcher need a star at the end?", "--budget", "4000")
    page = next(f for f in data["files"] if f["path"] == "matchers.md")
    assert page["tier"] == "HOT" and page.get("cut") is True
    assert "Matching is exact by default" in data["context"]
    # one word is a topic, not a name: "header" alone does not bring in "Header matchers"
    assert sections.named_parts(sections.split(matchers_page()), sections.heading_words("a header")) == []
    assert sections.heading_words("Path matchers") <= sections.heading_words("my path matcher")
    assert sections.heading_words("+layout.svelte") == {"layout.svelte"}  # a dotted name is said whole
    # a heading's attribute list is no word of it (Hugo's and Python Markdown's `{#anchor}`)
    anchored = sections.split("# UDP\n\n## Active UDP health checks {#hc_active}\n\nSend probes.\n")
    assert sections.named_parts(anchored, sections.said_in("how do active udp health checks work")) == [1]


def test_a_long_prompt_names_headings_by_its_first_words_only():
    # a pasted page of words names no heading by chance: only its first words are read, as the text's query
    pasted = " ".join(f"word{i}" for i in range(sections.PROMPT_WORDS)) + " path matcher"
    assert sections.named_parts(sections.split(matchers_page()), sections.said_in(pasted)) == []
    assert sections.named_parts(sections.split(matchers_page()), sections.said_in("path matcher " + pasted)) == [3]
