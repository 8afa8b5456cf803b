"""The evidence a turn needs: text (lexical), follow-ups, weak and generic keywords, co-activation, big docs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_router.store import index
from context_router.turn import keywords, lexical, sections, words
from context_router.turn.render import MarkdownLayout
from context_router.turn.tiers import HOT, Candidate, DocView, fit

from .conftest import write_docs

FILLER = "\n".join(f"Line {i} of general notes about the project and its daily routine." for i in range(12))

DOCS = {
    "systems/harbor.md": "# Harbor\n\nThe ingest host. The `DebounceHandler` batches file events for 200 ms before "
                         "the indexer runs.\n\n## Disks\n\nTwo mirrored SSDs hold the spool.\n" + FILLER,
    "modules/billing.md": "# Billing\n\nInvoices go out on the first of the month. Refunds are issued through the "
                          "payment processor within five working days; a refund over 500 needs approval.\n" + FILLER,
    "modules/search.md": "# Search\n\nThe search module ranks results with a tuned scorer and caches popular "
                         "queries for ten minutes.\n\n## Testing\n\nRun the relevance suite before a release.\n"
                         + FILLER,
    "modules/alerts.md": "# Alerts\n\nPages the on-call engineer when an error budget burns too fast.\n" + FILLER,
    "integrations/harbor-to-search.md": "# Harbor to search\n\nHarbor pushes new documents to the search "
                                        "indexer over a queue.\n" + FILLER,
}


def project(tmp_path: Path, docs: dict[str, str] = DOCS, config: str = "") -> Path:
    write_docs(tmp_path / "docs", docs)
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n" + config, encoding="utf-8")
    return cfg


def turn(ctx, cfg: Path, prompt: str, *extra: str) -> dict:
    res = ctx("route", prompt, "--format", "json", "--config", str(cfg), *extra)
    assert res.code == 0, res.err
    return json.loads(res.out)


def tiers_of(data: dict) -> dict[str, str]:
    return {f["path"]: f["tier"] for f in data["files"]}


def test_a_paraphrase_with_no_keyword_makes_the_matching_doc_hot(ctx, tmp_path):
    cfg = project(tmp_path)
    data = turn(ctx, cfg, "how long until a customer gets their money back after a refund?")
    assert tiers_of(data).get("modules/billing.md") == HOT
    billing = next(f for f in data["files"] if f["path"] == "modules/billing.md")
    assert any(r.startswith("lexical:") for r in billing["reasons"])


def test_identifiers_split_and_inflections_meet(ctx, tmp_path):
    cfg = project(tmp_path)
    assert tiers_of(turn(ctx, cfg, "what is the debouncing window of file events?")).get("systems/harbor.md") == HOT


def test_a_hyphened_name_with_a_one_letter_part_is_searched_as_it_is_written(ctx, tmp_path):
    """Tried as a new user would on a framework's docs: "v-if and v-show" left the prompt no word at all (a
    letter, a stop word), and the last topic's docs stayed."""
    docs = {"conditional.md": "# Conditional rendering\n\n`v-if` renders a block; `v-show` only toggles its "
                              "display.\n" + FILLER,
            "lists.md": "# List rendering\n\nRender a list with `v-for` and a key.\n" + FILLER,
            "watchers.md": "# Watchers\n\nWatch a deep reactive object; the callback gets the old value.\n"
                           + FILLER}
    cfg = project(tmp_path, docs)
    assert tiers_of(turn(ctx, cfg, "how do I watch a deep reactive object?")).get("watchers.md") == HOT
    now = tiers_of(turn(ctx, cfg, "what's the difference between v-if and v-show"))
    assert now.get("conditional.md") == HOT and "lists.md" not in now


def test_a_dotted_name_is_searched_as_it_is_written(ctx, tmp_path):
    """Tried as a new user would on a runtime's API reference: "what options does http.request accept?" searched
    only "accept" (its other words are in half the pages) and showed a contributor guide's "Accepting
    modifications"; and the section of `http.request`, two headings for its two signatures, was empty."""
    # Each page's every section says "options", "HTTP" and "request" (never one after the other): too many
    # sections for the words to rank them (lexical.SECTION_EXTRA).
    calls = "".join(f"## `call{i}()`\n\nTakes options for the HTTP server, and the request goes on.\n\n"
                    for i in range(130))
    docs = {"api/http.md": "# HTTP\n\n" + calls + "## `http.request(options[, callback])`\n\n"
                           "## `http.request(url[, options][, callback])`\n\n<!-- YAML\nadded: v0.3.6\n-->\n\n"
                           "* `timeout` {number} the socket timeout.\n",
            "contributing/guide.md": "# Collaborator guide\n\n" + calls + "## Accepting modifications\n\n"
                                     "Accept a change after review.\n",
            **{f"api/m{i}.md": f"# Module {i}\n\n{calls}" for i in range(7)}}
    cfg = project(tmp_path, docs)
    assert "http request" in words.content_words("what options does http.request accept?")
    data = turn(ctx, cfg, "what options does http.request accept?", "--budget", "6000")
    assert "the socket timeout" in data["context"], data["context"]
    assert words.dotted("fs.mkdir(path,") == "fs mkdir" and words.dotted("v1.2.3") is None
    shown = ctx("show", "api/http.md", "http.request", "--config", cfg).out
    assert "## `http.request(url[, options][, callback])`" in shown and "the socket timeout" in shown, shown


def test_a_verb_and_its_particle_find_the_word_the_docs_write(ctx, tmp_path):
    """Tried as a new user would on a database's docs: "how do I back up my database?" sent the permission
    pages (a revoke's "back") and left out the "Backup and restore" guide; "backup" found it."""
    docs = {"operations/backup.md": "# Backup and restore\n\nTake a backup with a snapshot of the disk.\n" + FILLER,
            "security/revoke.md": "# REVOKE\n\nTake the permission back from a user: the database keeps the "
                                  "grant until then.\n" + FILLER,
            "ingest.md": "# Ingestion\n\nWrite rows into the database over HTTP.\n" + FILLER}
    cfg = project(tmp_path, docs)
    data = turn(ctx, cfg, "how do I back up my database?")
    assert data["files"][0]["path"] == "operations/backup.md", data["files"]
    assert words.content_words("set up login, then log in, and time out")[-2:] == ["setup", "timeout"]
    assert "blowsup" in words.content_words("it blows up") and "upup" not in words.content_words("up up")


def test_a_developers_short_word_finds_the_word_the_docs_write(ctx, tmp_path):
    """Tried as a new user would on a router's docs: "how do I make a route param optional?" found nothing;
    the page says "parameter"."""
    docs = {"guide/matching-syntax.md": "# Routes' Matching Syntax\n\n## Optional parameters\n\nMark a parameter "
                                        "as optional with the `?` modifier.\n" + FILLER,
            "guide/history.md": "# History modes\n\nMake the route history use HTML5 mode.\n" + FILLER,
            "guide/lazy.md": "# Lazy loading routes\n\nMake each route a chunk loaded on demand.\n" + FILLER}
    cfg = project(tmp_path, docs)
    data = turn(ctx, cfg, "how do I make a route param optional?")
    assert data["files"][0]["path"] == "guide/matching-syntax.md", data["files"]
    assert words.content_words("pass the env and deps")[-2:] == ["environment", "dependencies"]
    assert words.content_words("env environment").count("environment") == 1  # said already: once


def test_a_prompt_that_points_at_the_docs_asks_for_its_subject(ctx, tmp_path):
    """Tried as a new user would on a service mesh's docs: "where are the docs for retries" ranked first a short
    page that says "see the docs" and left the retries page out."""
    docs = {"features/retries.md": "# Retries and timeouts\n\nFailed requests are retried three times with "
                                   "backoff; a retry budget caps them.\n" + FILLER + "\n" + FILLER,
            "features/profiles.md": "# Profiles\n\nOlder per-route settings; see the docs on retries.\n",
            "features/tap.md": "# Tap\n\nWatch live requests, see the docs.\n" + FILLER,
            **{f"features/{name}.md": f"# {name.title()}\n\nHow the mesh handles {name}.\n" + FILLER
               for name in ("egress", "ingress", "multicluster", "tracing", "policy")}}
    cfg = project(tmp_path, docs)
    data = turn(ctx, cfg, "where are the docs for retries")
    assert [f["path"] for f in data["files"]][:1] == ["features/retries.md"], data["files"]
    assert words.content_words("what do the docs say about retries")[-1:] == ["retries"]
    assert words.content_words("is that in the docs?") == []
    # The docs as a subject stay: a docs site, a docs writer, building the docs.
    assert "docs" in words.content_words("our docs site is fully static")
    assert "docs" in words.content_words("how do I build the docs locally")


def test_the_inflections_of_stop_words_rank_nothing(ctx, tmp_path):
    """A labelled turn: "the card ... seems to slow itself down when it gets hot" ranked first the one page
    whose text says "gets" (an archive job that "gets retried")."""
    docs = {"modules/archive.md": "# Archive\n\nA failed upload gets retried after a minute.\n" + FILLER,
            "systems/rig.md": "# Rig\n\nThe card runs slow when hot; the fan curve was raised.\n" + FILLER}
    cfg = project(tmp_path, docs)
    assert words.content_words("it gets slow and seems stuck, getting worse")[:2] == ["slow", "stuck"]
    data = turn(ctx, cfg, "the card seems to get slow when it gets hot")
    assert [f["path"] for f in data["files"]][:1] == ["systems/rig.md"], data["files"]
    assert "modules/archive.md" not in tiers_of(data)


def test_a_follow_up_keeps_its_doc_and_a_new_topic_lets_it_decay(ctx, tmp_path):
    cfg = project(tmp_path)
    assert tiers_of(turn(ctx, cfg, "refunds over 500 need an approval from whom?"))["modules/billing.md"] == HOT
    follow = turn(ctx, cfg, "ok, and what if that fails?")
    assert tiers_of(follow).get("modules/billing.md") == HOT
    other = turn(ctx, cfg, "which engineer gets paged when the error budget burns?")
    assert tiers_of(other).get("modules/alerts.md") == HOT
    status = json.loads(ctx("status", "--json", "--config", str(cfg)).out)
    scores = {f["path"]: f["score"] for f in status["files"]}
    assert scores["modules/billing.md"] < 0.8


def test_explain_names_the_lexical_cause(ctx, tmp_path):
    cfg = project(tmp_path)
    turn(ctx, cfg, "how long until a customer gets their money back after a refund?")
    out = ctx("explain", "modules/billing.md", "--config", str(cfg)).out
    assert "lexical:" in out


def test_keyword_mode_has_no_text_evidence(ctx, tmp_path):
    cfg = project(tmp_path, config="semantic: {enabled: false}\n")
    assert turn(ctx, cfg, "how long until a customer gets their money back after a refund?")["files"] == []


def test_links_are_read_by_their_text_not_their_target(ctx, tmp_path):
    # An emoji table whose every row links back to its table of contents is no page about tables of contents.
    rows = "\n".join(f"| :smile{i}: | `:smile{i}:` | [top](#table-of-contents) |" for i in range(60))
    docs = {"emojis.md": "# Emojis\n\n| icon | code | |\n|---|---|---|\n" + rows + "\n",
            "toc.md": "# Page outline\n\nThe outline lists the headings of a page as a table of contents; long "
                      "pages render it above the text.\n" + FILLER,
            "intro.md": "# Intro\n\nRead the [outline guide][guide] first.\n\n[guide]: https://example.com/"
                        "table-of-contents-for-long-pages\n" + FILLER}
    cfg = project(tmp_path, docs)
    data = turn(ctx, cfg, "how do I render a table of contents on long pages?")
    assert tiers_of(data).get("toc.md") == HOT
    assert tiers_of(data).get("emojis.md") is None and tiers_of(data).get("intro.md") is None


@pytest.mark.parametrize(("text", "read"), [
    ("see [top](#table-of-contents) now", "see [top] now"),
    ('![logo](img/a.png "The logo") and [x](https://a.example/(paren))', "![logo] and [x]"),
    ("[guide]: https://example.com/guide\nNext line", "Next line"),
    ("   [guide]: <https://example.com>", ""),
    ("[^1]: a footnote stays", "[^1]: a footnote stays"),
    ("[an open](link", "[an open](link"),
    ("plain text", "plain text"),
])
def test_readable_text_drops_link_targets(text, read):
    assert lexical.readable(text) == read


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="[]():# \nab.-!^\"", max_size=80))
def test_readable_text_only_takes_out_and_keeps_the_words_it_reads(text):
    read = lexical.readable(text)
    assert len(read) <= len(text)
    if "](" not in text and "]:" not in text:
        assert read == text
    # What a reader reads survives: the words outside any link target or definition line.
    kept = [line for line in text.split("\n") if "](" not in line and "]:" not in line]
    assert all(line in read.split("\n") for line in kept)


def test_generic_file_names_do_not_all_answer_to_their_name(ctx, tmp_path):
    docs = {f"skills/{name}/SKILL.md": f"---\nname: {name}\n---\n# {name.title()}\n\nSteps for {name}.\n"
            for name in ("pdf-report", "changelog", "terraform-plan")}
    cfg = project(tmp_path, docs)
    data = turn(ctx, cfg, "which skill should I use?")
    assert not [p for p, t in tiers_of(data).items() if t == HOT]
    assert tiers_of(turn(ctx, cfg, "write the changelog"))["skills/changelog/SKILL.md"] == HOT


def test_a_weak_keyword_lifts_but_does_not_make_hot(ctx, tmp_path):
    docs = {"a.md": "# Alpha\n\nAlpha things.\n", "b.md": "# Beta\n\nBeta things.\n", "c.md": "# Gamma\n\nGamma.\n"}
    cfg = project(tmp_path, docs, "keywords: {a.md: [service], b.md: [beta]}\n")
    data = turn(ctx, cfg, "restart the service")
    assert tiers_of(data)["a.md"] == "WARM"
    assert "weak-keyword:service" in data["files"][0]["reasons"]
    assert tiers_of(turn(ctx, cfg, "beta please"))["b.md"] == HOT


def test_a_title_the_docs_all_say_lifts_nothing_unless_you_chose_it(ctx, tmp_path):
    # A site generator's docs: five method pages titled "Site", and "site" in the text of every page.
    docs = {f"methods/{kind}/site.md": f"# Site\n\nThe {kind} object's site.\n" for kind in
            ("page", "shortcode", "global", "menu", "taxonomy")}
    docs |= {f"topics/t{i:02}.md": f"# Topic {i}\n\nHow the site handles topic {i}.\n" for i in range(40)}
    docs["topics/languages.md"] = "# Languages\n\nA multilingual site lists each language and its weight.\n"
    cfg = project(tmp_path, docs)
    data = turn(ctx, cfg, "how do I add a second language to my site?")
    assert tiers_of(data).get("topics/languages.md") == HOT
    assert not [f for f in data["files"] if any(r.startswith("weak-keyword:site") for r in f["reasons"])]
    chosen = project(tmp_path / "chosen", docs, "keywords: {methods/page/site.md: [site]}\n")
    lifted = turn(ctx, chosen, "how do I add a second language to my site?")
    assert [f["path"] for f in lifted["files"] if "weak-keyword:site" in f["reasons"]] == ["methods/page/site.md"]


def test_a_doc_named_after_the_verb_a_prompt_asks_with_is_not_hot_on_it(ctx, tmp_path):
    docs = {"functions/add.md": "# Add\n\nAdds two numbers: `math.Add 1 2` is 3.\n",
            "templates/404.md": "# Custom 404 page\n\nCreate a 404 template in the root of the layouts folder.\n"}
    cfg = project(tmp_path, docs)
    data = turn(ctx, cfg, "how do I add a custom 404 page?")
    assert tiers_of(data)["templates/404.md"] == HOT and tiers_of(data).get("functions/add.md") != HOT
    assert tiers_of(turn(ctx, cfg, "what does math.Add return for two numbers?"))["functions/add.md"] == HOT


def test_a_doc_named_after_a_stopword_is_not_hot_on_any_sentence(ctx, tmp_path):
    docs = {"in.md": "# in\n\nRun a command in a given directory.\n", "tar.md": "# tar\n\nArchive files.\n"}
    cfg = project(tmp_path, docs)
    data = turn(ctx, cfg, "what is in the tar archive")
    assert tiers_of(data)["tar.md"] == HOT and tiers_of(data).get("in.md") != HOT


def test_coactivation_warms_without_printing_whole(ctx, tmp_path):
    # (words no near word links: "alpha" is near "beta", whose section would lead its doc on the text alone)
    docs = {"a.md": "# Quokka\n\nQuokka.\n", "b.md": "# Ledger\n\nLedger.\n"}
    related = "related: {a.md: [b.md]}\ncoactivation: 0.7\n"
    cfg = project(tmp_path, docs, related)
    turn(ctx, cfg, "quokka")
    second = turn(ctx, cfg, "quokka again")  # b: 0.7 -> 0.49 + 0.7, capped below HOT
    assert tiers_of(second) == {"a.md": HOT, "b.md": "WARM"}
    cfg_kw = project(tmp_path / "kw", docs, related + "semantic: {enabled: false}\n")
    turn(ctx, cfg_kw, "quokka")
    assert tiers_of(turn(ctx, cfg_kw, "quokka again"))["b.md"] == HOT  # claude-cognitive's rule in keyword mode


def big_doc() -> str:
    parts = ["# Manual\n\n> **Role**: everything about the service\n"]
    for i in range(30):
        topic = "certificate rotation" if i == 21 else f"topic number {i}"
        parts.append(f"## Part {i}: {topic}\n\n" + f"Details of {topic}. " * 60)
    return "\n".join(parts)


def test_a_hot_doc_too_big_for_the_budget_is_cut_to_the_sections_that_match(ctx, tmp_path):
    cfg = project(tmp_path, {"manual.md": big_doc(), "other.md": "# Other\n\nSomething else.\n"})
    data = turn(ctx, cfg, "manual: how does certificate rotation work?", "--budget", "6000")
    assert data["used_chars"] <= 6000
    entry = data["files"][0]
    assert (entry["path"], entry["tier"], entry.get("cut")) == ("manual.md", HOT, True)
    assert "## Part 21: certificate rotation" in data["context"]
    assert "[cut; not shown: " in data["context"] and "ctx show manual.md" in data["context"]
    assert "manual.md" not in data["omitted"]


def test_show_prints_a_doc_or_a_section(ctx, tmp_path):
    cfg = project(tmp_path, {"manual.md": big_doc()})
    res = ctx("show", "manual.md", "part 21: certificate rotation", "--config", str(cfg))
    assert res.code == 0 and res.out.startswith("## Part 21: certificate rotation") and "Part 22" not in res.out
    whole = ctx("show", "docs/manual.md", "--config", str(cfg))  # the path the shell completes
    assert whole.code == 0 and "## Part 29" in whole.out


MARKED = ("# Guide\n\nintro\n\n## Create a **FastAPI** Dependency\n\nthe dependency\n\n"
          "## The `model_config` attribute\n\nconfig text\n\n"
          "## Using [strict mode](../concepts/strict_mode.md)\n\nstrict text\n\n"
          "## Custom JSON Schema {#custom-json-schema}\n\nschema text\n\n"
          "### Customizing with `__get_pydantic_core_schema__` <a name=\"core-schema\"></a>\n\ncore text\n\n"
          "## Étape _finale_\n\nfin\n")


@pytest.mark.parametrize(("name", "start"), [
    ("Create a FastAPI Dependency", "## Create a **FastAPI** Dependency"),
    ("create a **fastapi** dependency", "## Create a **FastAPI** Dependency"),
    ("create-a-fastapi-dependency", "## Create a **FastAPI** Dependency"),
    ("The model_config attribute", "## The `model_config` attribute"),
    ("the-model_config-attribute", "## The `model_config` attribute"),
    ("Using strict mode", "## Using [strict mode]"),
    ("custom json schema", "## Custom JSON Schema {#custom-json-schema}"),
    ("#custom-json-schema", "## Custom JSON Schema {#custom-json-schema}"),
    ("customizing with __get_pydantic_core_schema__", "### Customizing with `__get_pydantic_core_schema__`"),
    ("core-schema", "### Customizing with `__get_pydantic_core_schema__`"),
    ("etape-finale", "## Étape _finale_"),
    ("étape-finale", "## Étape _finale_"),
])
def test_show_finds_a_section_as_its_heading_reads_or_by_its_slug(ctx, tmp_path, name, start):
    """Tried as a new user would on mkdocs docs: `ctx show PATH "Create a FastAPI Dependency"` failed; only
    the heading with its `**` markup worked."""
    cfg = project(tmp_path, {"guide.md": MARKED})
    res = ctx("show", "guide.md", name, "--config", str(cfg))
    assert res.code == 0 and res.out.startswith(start), res.err
    assert res.out.count("\n## ") == 0  # that section alone (with its subsections)


def test_an_unknown_section_lists_the_close_matches(ctx, tmp_path):
    cfg = project(tmp_path, {"guide.md": MARKED})
    res = ctx("show", "guide.md", "Create a FastAPI Dependncy", "--config", str(cfg))
    assert res.code == 2 and res.out == "" and res.err.count("\n") == 1
    assert res.err == ("ctx: error: no section 'Create a FastAPI Dependncy' in guide.md "
                       "(close matches: 'Create a FastAPI Dependency')\n")
    # One word of a heading, misspelt (tried as a new user would: "overides" for "Dependency Overrides")
    word = ctx("show", "guide.md", "Dependncy", "--config", str(cfg))
    assert word.code == 2 and "(close matches: 'Create a FastAPI Dependency')" in word.err, word.err
    far = ctx("show", "guide.md", "zebra", "--config", str(cfg))
    assert far.code == 2 and far.err.count("\n") == 1
    assert "(sections: Create a FastAPI Dependency, The model_config attribute, Using strict mode" in far.err


def test_a_name_with_no_section_of_its_own_shows_the_section_that_mentions_it_most(ctx, tmp_path):
    """Tried as a new user would on a monitoring system's configuration reference: `queue_config` is a key
    documented inside `<remote_write>`, and `ctx show ... queue_config` failed with unrelated close matches."""
    ref = ("# Configuration\n\nThe file.\n\n## `<scrape_config>`\n\nscrape_interval: 1m\n\n"
           "## `<remote_write>`\n\nurl: <string>\n\n# Tune queue_config\nqueue_config:\n  capacity: 10000\n\n"
           "### `<queue_config>` notes\n\nThe queue.\n\n## `<tracing>`\n\nqueue_config is not here.\n")
    cfg = project(tmp_path, {"configuration.md": ref})
    res = ctx("show", "configuration.md", "capacity", "--config", str(cfg))
    assert res.code == 0, res.err
    assert res.out.startswith("... [no section is called 'capacity'; the one that mentions it most: "
                              "`<remote_write>`] ...\n\n## `<remote_write>`\n")
    assert "### `<queue_config>` notes" in res.out and "<tracing>" not in res.out  # with its subsections
    assert ctx("show", "configuration.md", "zebra", "--config", str(cfg)).code == 2


def test_a_section_named_twice_is_asked_for_by_its_level(ctx, tmp_path):
    """Tried as a new user would on a cheat-sheet repo's style guide: `### Paths` (Windows') and `#### Paths` (the
    placeholder rules, which answered); `ctx show style.md Paths` showed the first and said nothing of the other,
    and `"#### Paths"` found the first too."""
    cfg = project(tmp_path, {"style.md": "# Style\n\n## Placeholders\n\n#### Paths\n\nUse {{path/to/file}}.\n\n"
                                         "## Windows\n\n### Paths\n\nUse backslashes.\n"})
    res = ctx("show", "style.md", "Paths", "--config", str(cfg))
    assert res.out == ("### Paths\n\nUse backslashes.\n\n... [also called 'Paths': "
                       "`ctx show style.md '#### Paths'`] ...\n"), res.out
    res = ctx("show", "style.md", "#### Paths", "--config", str(cfg))
    assert res.code == 0 and res.out == "#### Paths\n\nUse {{path/to/file}}.\n", res.out


def test_show_takes_what_the_output_prints_and_a_records_number(ctx, tmp_path):
    """Tried as a new user would on a language's RFCs and a package manager's docs: the line under a cut doc,
    `ctx show PATH SECTION` run as printed, showed whatever section mentions "section"; a heading copied with the
    "(part)" a turn prints after it was no section; `ctx show 3058` (RFCs, decision records go by number) was an
    unknown doc."""
    cfg = project(tmp_path, {"text/3058-try-trait-v2.md": "# Try trait v2\n\n## Summary\n\nThe try trait.\n\n"
                                                          "## Motivation\n\nErrors, in a section.\n",
                             "text/0243-trait-based-exception-handling.md": "# Exceptions\n\n## Summary\n\nThe ?.\n"})
    assert ctx("route", "try trait", "--config", str(cfg)).code == 0
    res = ctx("show", "text/3058-try-trait-v2.md", "SECTION", "--config", str(cfg))
    assert res.code == 0 and res.out == ("... [text/3058-try-trait-v2.md has 2 sections: Summary, Motivation; "
                                         "`ctx show text/3058-try-trait-v2.md NAME` shows one] ...\n"), res.out
    res = ctx("show", "3058", "Motivation (part)", "--config", str(cfg))
    assert res.code == 0 and res.out.startswith("## Motivation\n"), res.err
    assert ctx("show", "RFC 243", "--config", str(cfg)).out.startswith("# Exceptions")
    assert ctx("explain", "adr-243", "--config", str(cfg)).out.startswith("text/0243-trait-based")
    assert ctx("show", "PEP 9", "--config", str(cfg)).code == 2


def test_show_errors(ctx, tmp_path):
    cfg = project(tmp_path, {"manual.md": big_doc()})
    (tmp_path / "secret.md").write_text("# Secret\n")
    for args, message in (
            (["show", "nope.md"], "error: unknown doc: nope.md"),
            (["show", "../secret.md"], "error: unknown doc: ../secret.md"),
            (["show", "../secret"], "error: unknown doc: ../secret"),  # nor without its extension
            (["show", "manual.md", "no such part"], "error: no section 'no such part' in manual.md (sections: Part 0")):
        res = ctx(*args, "--config", str(cfg))
        assert res.code == 2 and res.out == "" and message in res.err and res.err.count("\n") == 1
    # A doc named as its site names it, without its extension (tried as a new user would: `ctx show guards`)
    res = ctx("show", "manual", "--config", str(cfg))
    assert res.code == 0 and res.out == ctx("show", "manual.md", "--config", str(cfg)).out


def test_show_finds_a_doc_by_its_file_name_when_one_doc_has_it(ctx, tmp_path):
    """Tried as a new user would on an API framework's docs: `ctx show throttling.md` was an unknown doc, the one
    doc so named being `api-guide/throttling.md`. A name several docs have is an error that names them."""
    cfg = project(tmp_path, {"api-guide/throttling.md": "# Throttling\n\nRates.\n",
                             "api-guide/index.md": "# API\n", "tutorial/index.md": "# Tutorial\n"})
    assert ctx("route", "anything", "--config", str(cfg)).code == 0  # the docs are indexed
    for name in ("throttling.md", "throttling"):
        res = ctx("show", name, "--config", str(cfg))
        assert res.code == 0 and res.out.startswith("# Throttling"), res.err
    res = ctx("explain", "throttling", "--config", str(cfg))
    assert res.code == 0 and "api-guide/throttling.md" in res.out, res.err
    res = ctx("show", "index.md", "--config", str(cfg))
    assert res.code == 2 and res.err == ("ctx: error: index.md names 2 docs: api-guide/index.md, tutorial/index.md "
                                         "(say which)\n")


def test_show_takes_a_headings_words_unquoted(ctx, tmp_path):
    """Tried as a new user would on a router's docs: `ctx show PATH root error boundary` (unquoted) was
    "unexpected extra argument(s)"."""
    cfg = project(tmp_path, {"guide.md": MARKED})
    res = ctx("show", "guide.md", "create", "a", "FastAPI", "dependency", "--config", str(cfg))
    assert res.code == 0 and res.out.startswith("## Create a **FastAPI** Dependency"), res.err


def test_show_finds_a_deeper_heading_as_its_reader_sees_it(ctx, tmp_path):
    """Tried as a new user would on an API framework's docs: `ctx show serializers.md "Field-level validation"`
    (a `####` heading) printed the `###` section that mentions it most. The deeper section runs to the next
    heading at its level or above; a misspelt one is among the close matches."""
    page = ("# Serializers\n\n## Validation\n\nIntro.\n\n#### Field-level validation\n\nAdd `validate_<field>`.\n\n"
            "##### Example\n\nCode.\n\n#### Object-level validation\n\nAdd `validate`.\n\n## Saving\n\nSave.\n")
    cfg = project(tmp_path, {"serializers.md": page})
    res = ctx("show", "serializers.md", "field-level-validation", "--config", str(cfg))
    assert res.code == 0 and res.out == ("#### Field-level validation\n\nAdd `validate_<field>`.\n\n##### Example\n\n"
                                         "Code.\n"), res.out + res.err
    res = ctx("show", "serializers.md", "Object-level validaton", "--config", str(cfg))
    assert res.code == 2 and "close matches: 'Object-level validation'" in res.err, res.err


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 800), min_size=0, max_size=12), room=st.integers(0, 6000),
       matches=st.lists(st.integers(0, 12), max_size=5))
def test_a_cut_never_exceeds_its_room(sizes, room, matches):
    body = "# T\n\nopening\n" + "".join(f"\n## S{i}\n" + "x" * n + "\n" for i, n in enumerate(sizes))
    done = sections.cut(body, room, {j: 1.0 for j in matches}, "t.md", "# T")
    text = done.text if done is not None else None
    assert text is None or len(text) <= room
    if text is not None and "[cut; not shown: " not in text:  # nothing was left out: every section is there
        assert all(f"## S{i}" in text for i in range(len(sizes)))


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 9000), min_size=1, max_size=6), budget=st.integers(0, 12000))
def test_a_plan_with_cut_docs_never_exceeds_the_budget(sizes, budget):
    bodies = {f"d{i}.md": "# D\n" + "".join(f"\n## S{j}\n" + "y" * (n // 8) for j in range(8))
              for i, n in enumerate(sizes)}
    views = {p: DocView(lambda b=b: b, "# D", True,
                        lambda room, sent, hint, p=p, b=b: sections.cut(b, room, {2: 1.0}, p, "# D", sent, hint))
             for p, b in bodies.items()}
    cands = [Candidate(p, 1.0, HOT) for p in bodies]
    plan = fit(cands, views, MarkdownLayout(lambda p: ()), budget, 1, len(bodies))
    assert len(plan.output) <= budget
    assert all(e.tier == HOT for e in plan.entries if e.cut)
    cut_lines = [ln for ln in plan.output.splitlines() if ln.startswith("... [cut; not shown: ")]
    assert sum("`ctx show " in ln for ln in cut_lines) == (1 if cut_lines else 0)  # said once, on the first
    assert not cut_lines or "`ctx show " in cut_lines[0]


def test_a_follow_up_that_names_nothing_keeps_the_conversations_doc(ctx, tmp_path):
    cfg = project(tmp_path)
    assert tiers_of(turn(ctx, cfg, "refunds over 500 need an approval from whom?"))["modules/billing.md"] == HOT
    follow = turn(ctx, cfg, "ok, and then?")
    billing = next(f for f in follow["files"] if f["path"] == "modules/billing.md")
    assert billing["tier"] == HOT and {"lexical:best", "lexical:kept"} & set(billing["reasons"])


def test_a_follow_up_in_words_many_docs_use_keeps_the_conversations_doc(ctx, tmp_path):
    """"ok whats the exact command" names no topic: its one known word is in a quarter of the docs, so its own
    ranking (the doc that says "command" most) is no evidence against the doc the conversation is on."""
    docs = {**{f"tools/t{i:02}.md": f"# Tool {i}\n\nRun `tool{i}` to start it{' by its command' if i < 2 else ''}.\n"
               + FILLER for i in range(10)},
            "tools/cli.md": "# CLI\n\nEvery command, command by command: the command line.\n" + FILLER,
            "ops/rollback.md": "# Rollback\n\nWhen the canary's 5xx rate stays over 1% for ten minutes, roll the "
                               "release back with `deploy undo --to previous`.\n" + FILLER}
    cfg = project(tmp_path, docs)
    assert tiers_of(turn(ctx, cfg, "canary 5xx rate is high, do we roll back?"))["ops/rollback.md"] == HOT
    follow = turn(ctx, cfg, "ok whats the exact command")
    rollback = next(f for f in follow["files"] if f["path"] == "ops/rollback.md")
    assert rollback["tier"] == HOT and "lexical:kept" in rollback["reasons"]
    assert "deploy undo --to previous" in follow["context"]


def test_a_prompt_names_a_topic_by_a_word_few_docs_hold():
    counts = {"command": 30, "exact": 12, "rollback": 2, "absent": 0}
    assert lexical.names_topic(["exact", "rollback"], counts, 200)  # in 1% of the docs
    assert not lexical.names_topic(["whats", "exact", "command", "absent"], counts, 200)  # 6% and 15%, or none
    assert lexical.names_topic(["only"], {"only": 1}, 5)  # a word of one doc always does


def test_a_prompt_on_a_new_topic_ranks_its_own_docs_before_the_conversations():
    """The conversation's last prompts weigh less when this one names a topic: its best doc leads the turn
    (and gets its room first), while a follow-up that names none keeps the conversation's doc ahead."""
    docs = {"old.md": 7.0, "new.md": 10.0}
    secs = {("new.md", 1): 10.0, ("old.md", 1): 6.0}
    memory = {"rankings": [{"old.md": 2.0}], "sections": [{("old.md", 1): 10.0}], "words": [["math"]]}

    def relevance(topical: bool) -> dict[str, float]:
        return lexical.step(["directives"], docs, secs, frozenset(), memory, 0.8, 0.25, frozenset({"old.md"}),
                            topical).relevance

    assert relevance(True)["new.md"] > relevance(True)["old.md"]
    assert relevance(False)["old.md"] > relevance(False)["new.md"]


def test_a_kept_doc_earns_its_place_again_from_the_prompts_own_ranking(ctx, tmp_path):
    """A prompt whose words point elsewhere moves the budget within one turn: the doc the conversation was
    on is no longer held HOT by the conversation's ranking alone."""
    cfg = project(tmp_path)
    assert tiers_of(turn(ctx, cfg, "refunds over 500 need an approval from whom?"))["modules/billing.md"] == HOT
    follow = turn(ctx, cfg, "ok, how would I test that before a release?")
    assert tiers_of(follow)["modules/search.md"] == HOT
    billing = next(f for f in follow["files"] if f["path"] == "modules/billing.md")
    assert billing["tier"] != HOT and "lexical:kept" not in billing["reasons"]


def test_a_number_inside_a_name_is_no_evidence_for_a_doc_whose_path_has_it(ctx, tmp_path):
    write_docs(tmp_path / "docs", {
        **{f"borealis/bx-{i:03}.md": f"# Borealis station\n\nAn aurora camera on the ridge, unit {'ab'[i % 2]}.\n"
           for i in range(1, 25)},
        "plotting/figures.md": "# Plotting\n\nThe plotting library draws the figures; its renderer crashes on an "
                               "empty canvas.\n",
        "plotting/colours.md": "# Colours\n\nColour maps for the figures.\n"})
    cfg = tmp_path / "config.yaml"
    cfg.write_text("docs: docs\nrate_limit: {turns_per_minute: 0}\n")

    def shown(prompt: str, session: str) -> list[str]:
        res = ctx("route", prompt, "-f", "json", "--session", session, "--config", str(cfg))
        return [f["path"] for f in json.loads(res.out)["files"]] if res.out else []

    for prompt in ("why does gdplot018 crash?", "and gdplot018 again", "gdplot018 crash"):
        assert not [p for p in shown(prompt, "s1") if p.startswith("borealis/")], prompt
    assert shown("what is on bx-018?", "s2")[0] == "borealis/bx-018.md"  # the name written as the path has it
    assert shown("is bx018 up?", "s3")[0] == "borealis/bx-018.md"


def test_digits_split_off_an_identifier_are_no_query_word():
    from context_router.turn.lexical import fields
    from context_router.turn.words import content_words

    assert content_words("gdplot018 crashed") == ["gdplot018", "gdplot", "crashed"]
    assert content_words("is bx-018 on port 8040?") == ["bx", "018", "bx018", "port", "8040"]
    assert content_words("the 24h reminder") == ["24h", "24", "reminder"]  # a quantity keeps its number
    assert content_words("how do field validators work?") == ["field", "validators"]
    assert fields("borealis/bx-018.md", "Station", "")[0] == "borealis bx bx018"
    assert fields("runs/gdplot018.md", "Run", "see gdplot018")[3] == "see gdplot018\ngdplot"


def test_the_words_a_warm_header_names_make_its_doc_hot(ctx, tmp_path):
    """The WARM line promises only what ctx does: each word it names, said in a new conversation, makes that
    doc HOT; a derived keyword (evidence only) or one shared by several docs is not named."""
    docs = {f"pages/p{i}.md": f"# Page {i}\n\n" + "\n".join(f"Routine line {j} of page {i}." for j in range(40))
            for i in range(6)}
    docs["other.md"] = "# Crossings\n\nThe zebra crossing lights blink amber at night.\n"
    cfg = project(tmp_path, docs, "keywords:\n  pages/p1.md: [quokka tuning, shared thing]\n"
                                  "  pages/p2.md: [shared thing]\n  pages/p3.md: [shared thing]\n"
                                  "derived_keywords:\n  pages/p1.md: [field validators]\n")
    assert tiers_of(turn(ctx, cfg, "quokka tuning"))["pages/p1.md"] == HOT
    data = turn(ctx, cfg, "why do the zebra crossing lights blink?")
    assert tiers_of(data).get("pages/p1.md") == "WARM"
    block = data["context"].split("] pages/p1.md ")[1]
    line = next(ln for ln in block.splitlines() if ln.startswith("... [WARM: content truncated, mention "))
    named = line.removeprefix("... [WARM: content truncated, mention ").removesuffix(" to expand] ...").split(", ")
    assert "quokka tuning" in named and "field validators" not in named and "shared thing" not in named
    for word in named:
        again = turn(ctx, cfg, f"tell me about {word}", "--session", f"s-{word}")
        assert tiers_of(again).get("pages/p1.md") == HOT, word


CLINIC = {**DOCS, "modules/clinic.md": "# Clinic\n\nThe doctor on duty signs each prescription before noon.\n" + FILLER}


def test_a_word_the_docs_lack_reaches_the_doc_by_a_near_word_they_hold(ctx, tmp_path, monkeypatch):
    from context_router.store import near

    cfg = project(tmp_path, CLINIC)
    data = turn(ctx, cfg, "where is the physician?", "--session", "a")  # the docs say "doctor", never "physician"
    clinic = next(f for f in data["files"] if f["path"] == "modules/clinic.md")
    assert clinic["tier"] == HOT and any(r.startswith("lexical:") for r in clinic["reasons"])
    monkeypatch.setattr(near, "PATH", str(tmp_path / "no-such.db"))
    assert "modules/clinic.md" not in tiers_of(turn(ctx, cfg, "where is the physician?", "--session", "b"))


def test_near_words_are_taken_for_rare_words_only_and_only_those_the_docs_hold():
    from context_router.turn import lexical

    counts = {"physician": 0, "doctor": 3, "surgeon": 0, "medical": 40, "nurse": 2, "ward": 5}
    rare = lexical.rare_words(["physician", "ward"], counts)
    assert rare == ["physician"]
    many = [f"word{i}" for i in range(10)]  # a turn's lookups stay bounded however many rare words it says
    assert lexical.rare_words(many, {}) == many[:lexical.NEAR_RARE]
    near = {"physician": ("surgeon", "doctor", "medical", "ward", "nurse", "clinic")}
    # surgeon: in no doc; medical: in more than half of the 50 docs; ward: the prompt says it
    assert lexical.near_words(rare, ["physician", "ward"], near, counts, 50) == ["doctor", "nurse"]
    assert lexical.near_words(rare, ["physician"], near, counts, 100) == ["doctor", "medical"]
    assert lexical.lighter({"a.md": 2.0}, {"a.md": 1.0, "b.md": 4.0}) == {"a.md": 2.5, "b.md": 2.0}


def test_the_near_table_missing_or_damaged_gives_no_near_words(tmp_path):
    import sqlite3

    from context_router.store import near

    assert near.near(["physician"], path=str(tmp_path / "none.db")) == {}
    (tmp_path / "bad.db").write_bytes(b"not a database at all" * 100)
    assert near.near(["physician"], path=str(tmp_path / "bad.db")) == {}
    good = tmp_path / "good.db"
    conn = sqlite3.connect(good)
    conn.execute("CREATE TABLE near (word TEXT PRIMARY KEY, near TEXT NOT NULL) WITHOUT ROWID")
    conn.execute("INSERT INTO near VALUES ('physician', 'doctor surgeon')")
    conn.commit()
    conn.close()
    assert near.near(["physician", "car"], path=str(good)) == {"physician": ("doctor", "surgeon")}
    assert near.near(["physician"], 1, path=str(good)) == {"physician": ("doctor",)}
    assert near.near(["physician"]) and "doctor" in near.near(["physician"])["physician"]  # the shipped table


def _validation_library() -> dict[str, str]:
    """Six pages that each say "validators" once in their opening, and one page with a section about them."""
    docs = {f"concepts/page{i}.md": f"# Page {i}\n\nTopic {i}. Validators run on every model.\n\n"
            + "".join(f"## Part {i}{j}\n\nNotes on subject {i}{j} and its options.\n\n" for j in range(6))
            for i in range(6)}
    docs["concepts/checks.md"] = ("# Checks\n\nAn overview.\n\n## Ordering\n\nThe order of checks.\n\n"
                                  "## Field validators\n\nA field validator is a class method that takes the "
                                  "raw value and returns it cleaned, or raises.\n\n## Errors\n\nHow errors read.\n")
    return docs


def test_a_word_most_docs_hold_still_ranks_the_sections_that_are_about_it(ctx, tmp_path, isolated_state):
    # "validators" is in every doc (no weight in the docs' ranking) but in few sections: the section about it
    # leads its doc, and the turn shows that section
    cfg = project(tmp_path, _validation_library())
    data = turn(ctx, cfg, "validators")
    assert tiers_of(data).get("concepts/checks.md") == HOT
    assert "takes the raw value" in data["context"]
    store = sqlite3.connect(isolated_state)
    counts = dict(store.execute("SELECT word, sections FROM sec_df"))
    assert counts == {"": 46, "validators": 7, " upto": lexical.SECTION_EXTRA + 1}



def test_the_sections_query_adds_words_most_docs_hold_within_its_budget(monkeypatch):
    from context_router.turn import lexical

    monkeypatch.setattr(lexical, "SECTION_EXTRA", 100)
    docs = {"rare": 2, "valid": 90, "logs": 100, "check": 100}
    secs = {"valid": 60, "logs": 100, "check": 100}  # of 400 sections
    assert lexical.common_words(["rare", "valid", "logs", "check", "absent"], docs, 100) == ["valid", "logs", "check"]
    # the rarest first, as far as the budget goes: "logs" would read 100 more sections, over the 40 left
    assert lexical.sections_query(["rare", "logs", "valid", "check"], docs, 100, secs, 400) == '"rare" OR "valid"'
    assert lexical.sections_query(["logs"], docs, 100, {"logs": 300}, 400) is None  # in most sections too


def test_with_more_room_than_a_hooks_the_warm_docs_come_by_their_best_part():
    """Piped (25,000 chars), a WARM doc whose part the turn ranks high comes before one its attention score
    put first; through a hook (10,000) the WARM docs keep their attention order."""
    bodies = {"hot.md": "# Hot\n\nThe answer's page.\n",
              "kept.md": "# Kept\n\n" + "A line of the last topic's page.\n" * 40,
              "part.md": "# Part\n\n" + "A line of the page whose part answers.\n" * 40}
    views = {p: DocView(lambda b=b: b, "\n".join(b.splitlines()[:25]), True) for p, b in bodies.items()}
    cands = [Candidate("hot.md", 1.0, HOT), Candidate("kept.md", 0.7, "WARM"), Candidate("part.md", 0.6, "WARM")]
    relevance = {"hot.md": 9.0, "kept.md": 1.0, "part.md": 6.0}

    def warm_order(budget: int) -> list[str]:
        plan = fit(cands, views, MarkdownLayout(lambda p: ()), budget, 1, 3, relevance=relevance)
        return [e.path for e in plan.entries if e.tier == "WARM"]

    assert warm_order(25000) == ["part.md", "kept.md"]
    assert warm_order(10000) == ["kept.md", "part.md"]


def test_a_warm_line_never_asks_for_the_words_the_prompt_said(ctx, tmp_path):
    """Tried as a new user would on a tracing backend's design records: a proposal the prompt named ("Parquet")
    was WARM past HOT's cap and its line said `mention ... parquet ... to expand`. Said already, it says how to
    read the doc instead."""
    long = "\n".join(f"Line {i} about storage blocks and their format." for i in range(40))
    names = ["parquet", "avro", "orc", "arrow", "protobuf"]
    docs = {f"{n}.md": f"# Design {n}\n\n{long}\n" for n in names}
    cfg = project(tmp_path, docs, "keywords:\n" + "".join(f"  {n}.md: [{n} blocks]\n" for n in names))
    data = turn(ctx, cfg, "parquet blocks, avro blocks, orc blocks, arrow blocks, protobuf blocks: why?")
    warm = [f["path"] for f in data["files"] if f["tier"] == "WARM"]
    assert len(warm) == 1, data["files"]  # past HOT's cap of four
    name = warm[0].removesuffix(".md")
    assert f"mention {name} blocks" not in data["context"] and f"`ctx show {warm[0]}`" in data["context"]


def test_a_thank_you_routes_nothing(ctx, tmp_path):
    """Tried as a new user would on a shell's docs: "thanks, that worked!" printed 8,600 chars of the pages on
    working with tables, matched on "worked"."""
    cfg = project(tmp_path, {"tables.md": "# Working with tables\n\nIt worked: the table is sorted.\n" + FILLER,
                             "other.md": "# Other\n\nMore.\n" + FILLER})
    assert words.content_words("thanks, that worked! perfect") == []
    assert turn(ctx, cfg, "thanks, that worked!")["files"] == []


def test_what_is_left_of_a_contraction_is_no_word_of_the_prompt(ctx, tmp_path):
    """Tried as a new user would on an API framework's docs: "a title that doesn't mention django" matched the
    heading "Doesn't HTML5 support PUT and DELETE forms?", which took a HOT place."""
    assert words.content_words("a title that doesn't mention django, I won't, they'll") == [
        "title", "mention", "django"]
    cfg = project(tmp_path, {"forms.md": "# Browser enhancements\n\n## Doesn't HTML5 support PUT?\n\nNo.\n" + FILLER,
                             "titles.md": "# Titles\n\nA title must mention the project.\n" + FILLER})
    assert [f["path"] for f in turn(ctx, cfg, "why doesn't the title mention it?")["files"]] == ["titles.md"]


def test_a_thank_you_lifts_nothing_by_its_vector(ctx, sample):
    """The prompt's vector leaves out the words that name no topic: "thanks" had lifted a vault page to WARM
    on the sample docs."""
    shown = turn(ctx, sample, "thanks, that worked!", "--dry-run")["files"]
    assert [f["path"] for f in shown] == ["overview.md"]  # the sample's pinned page, and nothing else
    assert turn(ctx, sample, "the vault backup, thanks", "--dry-run")["files"][0]["path"] == "systems/vault.md"


def test_in_a_small_folder_a_word_two_docs_hold_names_a_new_topic_and_the_old_page_goes(ctx, tmp_path):
    """Tried as a new user would on an HTTP client's 22 pages: after a turn on timeouts, "my requests through a
    socks proxy fail" kept the timeout pages HOT. "socks" is in two pages, and only a word in one page named a
    topic (5% of 22 docs is one), so the conversation's ranking held the room."""
    docs = {
        "timeouts.md": "# Timeouts\n\n## Connect timeout\n\nSet the connect timeout with `Timeout(connect=5.0)`.\n",
        "extensions.md": "# Extensions\n\n## Timeout extension\n\nA request's `timeout` extension sets its connect "
                         "timeout. Requests sent through a proxy take it too.\n",
        "proxies.md": "# Proxies\n\n## SOCKS\n\nA SOCKS proxy needs the socks extra: `pip install httpx[socks]`.\n",
        "third.md": "# Third party packages\n\n## httpx-socks\n\nSOCKS proxy support for older versions.\n",
    }
    docs |= {f"topic{i:02}.md": f"# Topic {i}\n\n## Sending requests {i}\n\nHow requests handle case {i}.\n"
             for i in range(16)}
    cfg = project(tmp_path, docs)
    first = turn(ctx, cfg, "how do I set a connect timeout on requests?", "--budget", "10000")
    assert tiers_of(first).get("timeouts.md") == HOT
    switched = turn(ctx, cfg, "my requests through a socks proxy fail", "--budget", "10000")
    assert tiers_of(switched).get("proxies.md") == HOT
    assert tiers_of(switched).get("timeouts.md") != HOT


def test_while_one_doc_holds_the_best_sections_the_next_best_lead_too():
    """Tried as a new user would on a note app's help vault: "can I sync my vault between my phone and laptop
    without paying?" showed its backups page alone (its section 22.5), in a tenth of the room, and left out the
    sync pages (14.2, 13.4: below LEADER_SHARE of the best)."""
    secs = {("backup.md", 2): 22.5, ("sync-settings.md", 12): 14.2, ("sync-devices.md", 12): 13.4,
            ("release.md", 1): 8.0}
    assert lexical._section_leaders(secs, frozenset()) == ["backup.md", "sync-settings.md"]
    assert lexical._section_leaders(secs, frozenset({"sync-settings.md"})) == ["backup.md", "sync-devices.md"]
    # two docs within LEADER_SHARE of the best: the room is not sparse, and the others do not lead
    close = {**secs, ("restore.md", 3): 20.0}
    assert lexical._section_leaders(close, frozenset()) == ["backup.md", "restore.md"]
    # nothing near the best: it leads alone
    assert lexical._section_leaders({("a.md", 0): 10.0, ("b.md", 0): 3.9}, frozenset()) == ["a.md"]


def test_a_hub_page_is_not_warm_on_breadth():
    """A changelog that mentions every topic ranks for every prompt: the text ranking makes it neither HOT nor
    WARM (tried as a new user would on a collector's monorepo: its 295,000-char changelog was WARM on most
    turns). A page the text ranks as well that is no hub is WARM."""
    docs = {"batch.md": 10.0, "CHANGELOG.md": 9.0, "queue.md": 8.5}
    secs = {("batch.md", 1): 10.0, ("CHANGELOG.md", 4): 6.5, ("queue.md", 1): 3.5}
    turn = lexical.step(["batch", "timeout"], docs, secs, frozenset({"CHANGELOG.md"}), {}, 0.8, 0.25)
    why = {s.path: s.cause for s in turn.signals}
    assert why["batch.md"] == "lexical:best" and why["queue.md"].startswith("lexical:0.")
    assert "CHANGELOG.md" not in why
    unmarked = lexical.step(["batch", "timeout"], docs, secs, frozenset(), {}, 0.8, 0.25)
    assert "CHANGELOG.md" in {s.path for s in unmarked.signals}


def test_a_prompt_about_the_project_itself_shows_its_landing_page(ctx, tmp_path):
    """Tried as a new user would on four docs folders (and it is `ctx doctor`'s test prompt): "what does this
    project do?" made HOT the pages that say "project" most, a contributing guide and a list of people."""
    people = "# People\n\n" + "\n".join(f"- Maintainer {i} of the project, on its core team." for i in range(30))
    docs = {**DOCS, "README.md": "# Wharf, the Harbor suite\n\nWharf ingests files, indexes them, makes them "
                                 "searchable: an ingest host, a search module, billing for the hosted plan.\n" + FILLER,
            "people.md": people,
            "contributing.md": "# Contributing\n\nFork the project, branch, and open a pull request to the project. "
                               "The project's tests run on every pull request to the project.\n"}
    cfg = project(tmp_path, docs)
    for prompt in ("what does this project do?", "give me an overview of the repo"):
        data = turn(ctx, cfg, prompt, "--session", prompt[:4])
        assert [(f["path"], f["tier"]) for f in data["files"]] == [("README.md", HOT)], prompt
        assert data["files"][0]["reasons"] == [f"keyword:{'this project' if 'project' in prompt else 'the repo'}"]
    # The project named: its one word is a word of the landing page's title, which every page may say
    data = turn(ctx, cfg, "what is wharf?", "--session", "name")
    assert [(f["path"], f["tier"]) for f in data["files"]] == [("README.md", HOT)]
    assert data["files"][0]["reasons"] == ["keyword:wharf"]
    assert words.sole_word("what is wharf?") == "wharf" and words.sole_word("what is wharf billing?") == \
        "wharf billing" and words.sole_word("what is the wharf billing refund flow?") is None
    # a name of two words, both in the landing page's title (a router's: "what is react router")
    assert words.names_the_project("react router", "React Router Home", 0.0)
    assert not words.names_the_project("react hooks", "React Router Home", 0.9)
    assert words.names_the_project("wharf", "Wharf suite", 0.1) and words.names_the_project("httpx", "Intro", 0.9)
    assert not words.names_the_project("billing", "Wharf", 0.1)
    # A topic asked of it is searched as ever; "project" is no word of it
    assert words.content_words("what is the architecture of this project?") == ["architecture"]
    assert words.about_the_project("what is the architecture of this project?") is None
    assert words.about_the_project("how do I add a new project in pixi?") is None  # no project pointed at
    assert words.about_the_project("can you summarize this repository for me?") == "this repository"
    assert words.content_words("how do I add a new project") == ["add", "new", "project"]
    # A landing page is at the top of the docs, and no stub (a redirect)
    assert words.landing_page({"guides/README.md": 900, "index.md": 900, "README.md": 900}) == "README.md"
    assert words.landing_page({"_index.md": 93, "overview.md": 400}) == "overview.md"
    assert words.landing_page({"_index.md": 93}) is None
    assert words.landing_page({"Home.md": 900, "Setup.md": 900}) == "Home.md"  # a wiki's
    # a site whose home page is its template's stub: its getting-started page says what the project is
    assert words.landing_page({"index.md": 163, "getting-started.md": 5000, "upgrade.md": 900}) == "getting-started.md"
    # A site with a folder for each language, the others left out: the English folder's (a web framework's
    # Starlight docs showed nothing for "what does this project do?")
    assert words.landing_page({"en/getting-started.mdx": 5000, "en/guides/index.mdx": 900}) == \
        "en/getting-started.mdx"
    assert words.landing_page({"en/intro.md": 900, "README.md": 900}) == "README.md"
    assert "en/index.mdx" in words.landing_candidates()


def test_a_home_page_of_front_matter_or_a_component_still_answers_what_the_project_is(ctx, tmp_path):
    """Tried as a new user would on two sites' docs (`ctx doctor`'s test turn showed nothing): a state library's
    home page holds its text in its front matter (`hero`, `features`), a test runner's is one component
    (`<Home />`) and its guide's index says what the project is."""
    home = ("---\npageType: home\nhero:\n  text: Bear necessities for state\n  tagline: A tiny store.\nfeatures:\n"
            "  - title: Minimal API\n    details: One hook.\n  - title: No details\n  - title: Safe under concurrency\n"
            "    details: Built to avoid zombie children and tearing while renders stay predictable.\n---\n")
    cfg = project(tmp_path / "a", {**DOCS, "index.md": home})
    data = turn(ctx, cfg, "what does this project do?")
    assert [(f["path"], f["tier"]) for f in data["files"]] == [("index.md", HOT)]
    assert "Bear necessities for state\n\nA tiny store.\n\n## Features\n\n- **Minimal API**: One hook.\n" \
           "- **No details**\n- **Safe under concurrency**: Built" in data["context"], data["context"]
    # its words are the page's text, in the index too
    assert "index.md" in {f["path"] for f in turn(ctx, cfg, "bear necessities", "--session", "b")["files"]}
    vitepress = "---\nlayout: home\ntitle: Vite test\n---\n\n<script setup>\nimport Home from './Home.vue'\n" \
                "</script>\n\n<Home />\n" + "\n" * 200
    cfg = project(tmp_path / "b", {**DOCS, "index.md": vitepress,
                                   "guide/index.md": "# Getting started\n\nVite test is a test runner.\n" + FILLER})
    data = turn(ctx, cfg, "what does this project do?")
    assert [(f["path"], f["tier"]) for f in data["files"]] == [("guide/index.md", HOT)], data["files"]
    assert index.no_text("<Home />\n\n") and not index.no_text("<b>Vite</b> test")
    # a splash page's hero leads its body (a docs theme's page opened with its cards)
    splash = {"title": "Theme", "hero": {"title": "Make docs shine", "tagline": "Fast and accessible."}}
    assert index.home_body(splash, "<CardGrid>cards</CardGrid>\n") == \
        "Make docs shine\n\nFast and accessible.\n\n<CardGrid>cards</CardGrid>\n"
    assert index.home_body({"title": "Theme"}, "\n") == "# Theme\n"
    # a site generator's home page: a title and a description, no body
    hugo = {"title": "The fastest framework", "description": "Hugo builds websites."}
    assert index.home_body(hugo, "\n") == "# The fastest framework\n\nHugo builds websites.\n"
    assert index.home_body(hugo, "Its own text.\n") == "Its own text.\n"


def _tokens_by_character(text: str) -> list[str]:
    out, start = [], -1
    for i, ch in enumerate(text):
        if ch.isalnum() or ch == "_":
            start = i if start < 0 else start
        elif start >= 0:
            out.append(text[start:i])
            start = -1
    return out + ([text[start:]] if start >= 0 else [])


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab_1 -.\n\t'é数\u2014\u2019\u00a0\u2003\u00b2\u0301\U0001f600")),
               max_size=40))
def test_words_are_the_runs_of_word_characters(text):
    """A doc's words, split fast, are exactly its maximal runs of letters, digits and `_` (as `re`'s \\w+)."""
    assert words.tokens_of(text) == _tokens_by_character(text)


def test_chinese_and_japanese_docs_are_searched_by_their_pairs_of_characters(ctx, tmp_path):
    """Tried as a new user would on Chinese docs: the tokenizer keeps a sentence without spaces as one word, so
    "怎么配置注册中心的超时？" found no doc, nor did any prompt in Chinese."""
    docs = {"registry.md": "# 注册中心\n\n如何配置注册中心：在配置文件中设置地址和端口。\n\n"
                           "## 超时\n\n请求超时默认为三秒。\n",
            "deploy.md": "# 部署\n\n使用容器部署服务，并设置副本数量。\n",
            "install.md": "# インストール\n\nコマンドでインストールします。設定ファイルは不要です。\n",
            **{f"other{i}.md": f"# 其他{i}\n\n这里是关于日志和监控的说明。\n" for i in range(4)}}
    cfg = project(tmp_path, docs)
    for prompt, page in (("怎么配置注册中心的超时？", "registry.md"), ("请求超时是多少", "registry.md"),
                         ("怎么用容器部署？", "deploy.md"), ("インストールの方法は？", "install.md")):
        data = turn(ctx, cfg, prompt, "--session", prompt[:3])
        assert [f["path"] for f in data["files"] if f["tier"] == HOT][:1] == [page], (prompt, data["files"])
    assert words.content_words("配置 Dubbo注册中心") == ["配置", "dubbo", "注册", "册中", "中心"]
    # A keyword in Chinese (the page's title) fires inside a prompt's run of characters, as a word would
    assert keywords.fired(["注册中心", "中心配置", "registry"], "怎么配置注册中心的超时？") == ["注册中心"]
    assert words.bigrams("注册abc") == ["注册", "abc"] and words.bigrams("abc") == []


@given(st.text(alphabet=st.sampled_from(list("ab1_ 注册中心の設定é-")), max_size=30))
def test_pairs_of_characters_are_neighbours_in_a_run_of_chinese_or_japanese(token):
    found = words.bigrams(token)
    assert len(found) == len(set(found)) and all(word in token for word in found)
    if not any(words.unspaced(ch) for ch in token):
        assert found == []
    else:  # every neighbouring pair of the runs is there, and every other run whole
        for i in range(len(token) - 1):
            if words.unspaced(token[i]) and words.unspaced(token[i + 1]):
                assert token[i:i + 2] in found
        runs = "".join(" " if words.unspaced(ch) else ch for ch in token).split()
        assert set(runs) == {w for w in found if not words.unspaced(w[0])}


def test_a_stretch_ranks_only_the_pieces_that_hold_a_query_word_when_there_are_many():
    """A part of a megabyte (one YAML block of 28,000 paragraphs) cost a turn 0.26 s to rank whole for its best
    stretch. Of more than RANK_PIECES pieces, those that hold the start of a query word are ranked (a stem's start:
    "passphrases" finds "passphrase"); of fewer, all."""
    from context_router.turn import lexical

    few = ["a", "b", "passphrase here"]
    assert lexical.narrowed(few, ['"passphrases"']) == [0, 1, 2]
    many = [f"setting_{i}: {i}" for i in range(lexical.RANK_PIECES)] + ["The Passphrase comes from the env."]
    assert lexical.narrowed(many, [None, '"passphrases" OR "signing"']) == [lexical.RANK_PIECES]
