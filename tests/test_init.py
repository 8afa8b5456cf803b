"""`ctx init` on a repo as a new user meets it: an mkdocs site, markup in headings, emphasis in prose."""
import json
import os
import shutil

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_router.faces import scaffold
from context_router.records import doc_stem
from context_router.store import index, mkdocs

from .conftest import write_docs


def derived_keywords(folder) -> dict:
    """The derived keywords of the config `ctx init` wrote in this folder."""
    return yaml.safe_load((folder / "config.yaml").read_text())["derived_keywords"]

MKDOCS = """site_name: Shop
docs_dir: pages
theme:
  name: material
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
nav:
  - Welcome: index.md
  - Guides:
      - Getting paid: guides/payments.md
      - guides/refunds.md
      - The API: https://example.com/api
  - About: about/index.md
"""


def mkdocs_site(root) -> None:
    (root / "mkdocs.yml").write_text(MKDOCS, encoding="utf-8")
    write_docs(root / "pages", {
        "index.md": "Welcome to the shop.\n\n```python\n# option 1 -- using the decorator argument:\nx = 1\n```\n",
        "guides/payments.md": "Payments settle daily through the **ledger service**.\n",
        "guides/refunds.md": "Refunds are issued within a week.\n",
        "about/index.md": "---\ntitle: About **us**\n---\nWe sell things.\n",
        "faq.md": "Questions people ask.\n"})


def test_init_then_check_on_an_mkdocs_site_raises_nothing(ctx, tmp_path):
    mkdocs_site(tmp_path)
    res = ctx("init")  # no folder named: mkdocs.yml's docs_dir
    assert res.code == 0, res.err
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert data["docs"] == "pages"
    kws = data["derived_keywords"]
    assert kws["index.md"][0] == "welcome"  # the nav's title, not the code block's comment
    assert kws["guides/payments.md"][0] == "getting paid"
    assert kws["guides/refunds.md"][0] == "refunds"  # in the nav without a title: mkdocs uses the file name
    assert kws["about/index.md"][0] == "about us"  # front matter title, as it reads
    assert kws["faq.md"][0] == "faq"  # in no nav: the file name
    assert not any("option 1" in kw for kws_ in kws.values() for kw in kws_)
    check = ctx("check")
    assert (check.code, check.out) == (0, "ok: config and docs look right\n"), check.out
    status = ctx("status", "--json")
    assert status.code == 0


def test_init_prints_the_next_steps(ctx, tmp_path):
    write_docs(tmp_path / "docs", {"a.md": "# Alpha\n", "b.md": "# Beta\n"})
    res = ctx("init", "docs")
    assert res.code == 0
    lines = res.out.splitlines()
    assert lines[0].startswith("wrote config.yaml (docs: docs; 2 docs with derived keywords")
    assert lines[1:3] == ["indexed 2 docs", "next:"]
    assert [line.split()[:3] for line in lines[3:]] == [
        ["ctx", "check", "check"], ["ctx", "route", '"a'], ["ctx", "hook", "install"]]
    for line in lines[3:5]:  # each step runs as printed
        command = line.strip().split("  ")[0].split(" ", 2)[1:]
        args = [command[0], *(command[1].strip('"').split() if len(command) > 1 else [])]
        assert ctx(*args).code == 0
    res = ctx("init", "docs", "-o", str(tmp_path / "elsewhere" / "ctx.yaml"))
    assert res.code == 0
    target = tmp_path / "elsewhere" / "ctx.yaml"
    assert f"  ctx check --config {target}" in res.out and "hook install" not in res.out
    assert ctx("check", "--config", str(target)).code == 0


def test_init_indexes_the_docs_so_a_hooks_first_turn_reads_them_all(ctx, tmp_path):
    """A hook's turn reads docs for index_budget_ms and serves what is indexed so far; after `ctx init` the
    first prompt is answered from every doc, not from the few read in time."""
    docs = {f"page{i:02}.md": f"# Page {i}\n\n" + "Plain words about the product. " * 40 for i in range(60)}
    docs["page59.md"] += "\nThe zorblax valve opens at dawn.\n"
    write_docs(tmp_path / "docs", docs)
    assert ctx("init", "docs").code == 0
    with open(tmp_path / "config.yaml", "a", encoding="utf-8") as fh:
        fh.write("index_budget_ms: 1\n")  # a turn reads almost nothing itself
    prompt = json.dumps({"prompt": "when does the zorblax valve open?", "session_id": "s1"}).encode()
    res = ctx("hook", "claude", stdin=prompt)
    context = json.loads(res.out)["hookSpecificOutput"]["additionalContext"] if res.out.strip() else ""
    assert "page59.md" in context and "indexed in the background" not in res.out + res.err


def test_init_sends_a_big_folder_to_the_background_indexer(ctx, tmp_path, monkeypatch):
    from context_router.faces import cli
    from context_router.store import background

    from .test_background import indexed, wait_for

    write_docs(tmp_path / "docs", {f"p{i}.md": f"# P{i}\n\nword{i}\n" for i in range(5)})
    monkeypatch.setattr(cli, "INIT_INDEX_DOCS", 3)
    res = ctx("init", "docs")
    assert res.code == 0 and "indexing 5 docs in the background" in res.out
    state = os.environ["CTX_STATE"]
    assert wait_for(lambda: not background.running(os.path.dirname(state)) and indexed(tmp_path / "config.yaml") == 5)


NOISE = {
    "guide.md": "# Guide\n\n## Learn more\n\n## Run the program\n\nWe go **inside** the **one** place, "
                "**getting** it right.\n\n```python\n## returns a dictionary:\nprint(1)\n```\n\n"
                "## Install **sqlmodel**\n\n## Custom JSON schema {#custom-json-schema}\n\n"
                "## <a name=\"retries\"></a>Retry budget\n\n## :simple-slack: Slack channel\n\n"
                "Use **[bind](/docs/bind.md)** to attach. **not be obvious** and **need to send**.\n\n"
                "## Webhook signer\n\nThe **dead letter** queue and **SQLAlchemy**.\n",
    **{f"other{i}.md": f"# Other {i}\n\nmore text to learn and run the program\n" for i in range(4)},
}


def test_init_derives_no_noise(ctx, tmp_path):
    write_docs(tmp_path / "docs", NOISE)
    assert ctx("init", "docs").code == 0
    kws = derived_keywords(tmp_path)["guide.md"]
    assert kws == ["guide", "install sqlmodel", "custom json schema", "retry budget", "slack channel",
                   "webhook signer", "dead letter", "sqlalchemy"]


def test_little_words_and_a_hubs_terms_are_no_keywords(ctx, tmp_path):
    """Tried as a new user would on a cheat-sheet repo of 7,400 command pages: the pages of the shell's `do`, of
    `which`, of `h` were named by keywords `do`, `which`, `h`, and "how do I ..." fired `do` on every turn. On a
    runtime's docs, a release changelog held API names (`writableEnded`) as its own terms and came WARM for API
    questions."""
    write_docs(tmp_path / "docs", {
        "do.md": "# do\n\nA keyword of the shell: runs the commands of a loop.\n",
        "which.md": "# which\n\nLocate a program in the user's path.\n",
        "h.md": "# h\n\nShow a command's help page in the terminal.\n",
        "tar.md": "# tar\n\nArchiving utility: `tar xf archive.tar`.\n\n## {{% heading \"synopsis\" %}}\n\n"
                  "tar [opts]\n",
        "changelogs/CHANGELOG_V12.md": "# Node.js 12 ChangeLog\n\n* `writableEnded` added to the stream API\n"})
    assert ctx("init", "docs").code == 0
    kws = derived_keywords(tmp_path)
    assert "do" not in kws["do.md"] and "which" not in kws["which.md"] and "h" not in kws["h.md"], kws
    assert kws["tar.md"][0] == "tar" and not any("{" in k for k in kws["tar.md"]), kws
    assert kws["changelogs/CHANGELOG_V12.md"] == ["node.js 12 changelog", "changelog v12"], kws
    assert "do.md" not in {f["path"] for f in json.loads(ctx("route", "how do I extract a tar archive?",
                                                           "--format", "json").out)["files"]}


def test_a_heading_every_doc_has_is_no_keyword_however_one_writes_it(ctx, tmp_path):
    """Tried as a new user would on a language's RFCs: every page has the template's headings, and the few that
    write one otherwise ("Reference-level explanations", "Guide level explanation") had it as a keyword."""
    rfc = "# {0}\n\n## Summary\n\nThe {0} change.\n\n## {1}\n\nHow it works.\n"
    write_docs(tmp_path / "docs", {
        **{f"text/000{i}-feature-{i}.md": rfc.format(f"Feature {i}", "Reference-level explanation") for i in range(4)},
        "text/0009-odd.md": rfc.format("Odd one", "Reference-level explanations"),
        "text/0010-other.md": rfc.format("Other one", "reference level explanation")})
    assert ctx("init", "docs").code == 0
    kws = derived_keywords(tmp_path)
    assert not any("reference" in k for k in kws["text/0009-odd.md"] + kws["text/0010-other.md"]), kws


MARKUP = st.sampled_from(["**{}**", "`{}`", "{} {{#anchor-x}}", '<a name="n"></a>{}', ":simple-slack: {}",
                          "[{}](/docs/x.md)", "**[{}](../y.md)**", "*{}*", "_{}_", "{} <small>new</small>",
                          '"{}"', "{}:"])
TERM = st.lists(st.sampled_from(["ledger", "payout", "webhook", "signer", "quota", "tenant", "shard"]),
                min_size=1, max_size=3, unique=True).map(" ".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.tuples(MARKUP, TERM, st.sampled_from(["## ", "### ", "", "# "])), min_size=1,
                      max_size=6))
def test_derived_keywords_never_hold_markup(tmp_path_factory, parts):
    root = tmp_path_factory.mktemp("docs")
    lines = []
    for markup, term, heading in parts:
        lines += [heading + markup.format(term), ""]
    write_docs(root, {"a.md": "\n".join(lines), "b.md": "# B\n", "c.md": "# C\n", "d.md": "# D\n"})
    for kw in scaffold.derive(str(root))["derived_keywords"]["a.md"]:
        assert not set(kw) & set("*`{}<>[]#\"") and ":simple" not in kw and not kw.endswith(":"), kw
        assert kw == " ".join(kw.split()) and kw


@pytest.mark.parametrize("text, plain", [
    ("Install **SQLModel**", "Install SQLModel"),
    ("Custom JSON Schema {#custom-json-schema}", "Custom JSON Schema"),
    ('<a name="x"></a>Validators', "Validators"),
    (":simple-slack: Slack", "Slack"),
    ("[bind](/docs/bind.md) a value", "bind a value"),
    ("`ctx route` and *this* but snake_case_name", "ctx route and this but snake_case_name"),
    ("Status: done", "Status: done"),
    ("<ClientOnly>", "ClientOnly"),  # a title that is a component's tag names the component
    ("`<NuxtLink>` props", "NuxtLink props"),  # a tag in code reads as written
    ("Props <Badge type=\"tip\" text=\"v3\" />", "Props"),
    ("when a < b and c > d", "when a < b and c > d"),  # no tag
    ("--bump &lt;type&gt;", "--bump <type>"),  # an entity reads as its character
    ("~~--global, -g~~", "--global, -g"),  # struck out: its text
    ("`a~~b~~`", "a~~b~~"),
])
def test_plain_inline_reads_a_line_as_it_reads(text, plain):
    assert index.plain_inline(text) == plain


def test_the_mkdocs_nav_is_read_where_it_describes_these_docs(tmp_path):
    mkdocs_site(tmp_path)
    titles = mkdocs.nav_titles(str(tmp_path / "pages"))
    assert titles == {"index.md": "Welcome", "guides/payments.md": "Getting paid", "about/index.md": "About"}
    assert mkdocs.nav_titles(str(tmp_path / "pages" / "guides")) == {"payments.md": "Getting paid"}
    os.makedirs(tmp_path / "other")
    assert mkdocs.nav_titles(str(tmp_path / "other")) is None  # its docs_dir is pages/, not other/
    (tmp_path / "mkdocs.yml").write_text("nav: [unclosed\n", encoding="utf-8")
    assert mkdocs.nav_titles(str(tmp_path / "pages")) is None or mkdocs.nav_titles(str(tmp_path / "pages")) == {}


def test_a_new_nav_titles_the_docs_again(ctx, tmp_path):
    mkdocs_site(tmp_path)
    assert ctx("init").code == 0
    assert ctx("route", "welcome").code == 0
    status = {d["path"]: d for d in json.loads(ctx("status", "--json").out)["files"]}
    assert "index.md" in status
    (tmp_path / "mkdocs.yml").write_text(MKDOCS.replace("Welcome: index.md", "Storefront: index.md"))
    res = ctx("route", "storefront", "--format", "json")
    data = json.loads(res.out)
    assert data["files"][0]["path"] == "index.md"


SUMMARY = """# Summary

[Introduction](ch00-00-introduction.md)

- [Getting Started](ch01-00-getting-started.md)
  - [Installation](ch01-01-installation.md)
  - [Hello, `World`!](ch01-02-hello-world.md#the-program)
- [Ownership](./ch04/ownership.md "the chapter")
- [The Book Online](https://example.com/book.md)
- [Draft]()
"""


def book(root, src="src") -> None:
    """An mdBook: its chapter pages open at `##`; the book's table of contents, SUMMARY.md, titles them."""
    (root / "book.toml").write_text(f'[book]\ntitle = "A Book"\nsrc = "{src}"\n\n[output.html]\nsrc = "no"\n',
                                    encoding="utf-8")
    write_docs(root / src, {
        "SUMMARY.md": SUMMARY,
        "ch00-00-introduction.md": "# Introduction\n\nWhat this book is.\n",
        "ch01-00-getting-started.md": "# Getting Started\n\nLet us start.\n",
        "ch01-01-installation.md": "## Installation\n\nInstall the toolchain with the **installer**.\n",
        "ch01-02-hello-world.md": "## Hello, World!\n\nYour first program prints a greeting.\n",
        "ch04/ownership.md": "## What Is Ownership?\n\nEach value has an owner.\n",
        "notes.md": "No heading here.\n"})


def test_a_books_summary_titles_its_pages(tmp_path):
    book(tmp_path, src="text")
    from context_router.store import sites

    expected = {"ch00-00-introduction.md": "Introduction", "ch01-00-getting-started.md": "Getting Started",
                "ch01-01-installation.md": "Installation", "ch01-02-hello-world.md": "Hello, `World`!",
                "ch04/ownership.md": "Ownership"}
    assert sites.summary_titles(str(tmp_path / "text")) == expected
    # The docs folder the book itself: the pages are under its source folder.
    assert sites.summary_titles(str(tmp_path)) == {f"text/{k}": v for k, v in expected.items()}
    assert sites.summary_titles(str(tmp_path / "text" / "ch04")) is None  # no SUMMARY.md lists these docs
    assert sites.book_src(str(tmp_path)) == str(tmp_path / "text")
    assert sites.book_src(str(tmp_path / "text")) is None


def test_init_then_check_on_a_book_names_every_chapter(ctx, tmp_path):
    """Tried as a new user would on a book's source (mdBook): 85 of its 112 pages open at `## `, and `ctx check`
    warned of each one that it had no title."""
    book(tmp_path)
    res = ctx("init")  # no folder named: book.toml's source folder
    assert res.code == 0, res.err
    assert "unlisted pages left out: notes.md;" in res.out  # the book publishes no page its SUMMARY.md leaves out
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert data["docs"] == "src"
    kws = data["derived_keywords"]
    assert kws["ch01-01-installation.md"][0] == "installation"
    assert kws["ch01-02-hello-world.md"][0] == "hello, world!"
    check = ctx("check")
    assert check.code == 0 and check.out == "ok: config and docs look right\n", check.out
    (tmp_path / "src" / ".ctxignore").write_text("/SUMMARY.md\n")  # routed after all: a page with no title
    check = ctx("check")
    assert check.code == 0
    assert check.out.startswith("warning: notes.md is unlisted by the book's SUMMARY.md (its build publishes none "
                                "of them): list them in "), check.out
    assert check.out.endswith("warning: notes.md: no '# Title' line or front matter `title:`, so only its file name "
                              "names it\nok: 2 warning(s)\n"), check.out
    res = ctx("route", "what is ownership", "--format", "json")
    data = json.loads(res.out)
    assert data["files"][0]["path"] == "ch04/ownership.md"
    (tmp_path / "src" / "SUMMARY.md").write_text(SUMMARY.replace("[Ownership]", "[Borrowing the Keys]"))
    res = ctx("route", "borrowing the keys", "--format", "json")  # a new table of contents titles them again
    assert json.loads(res.out)["files"][0]["path"] == "ch04/ownership.md"


def test_check_names_many_untitled_docs_in_one_line(ctx, tmp_path):
    write_docs(tmp_path / "docs", {f"page{i}.md": f"Text {i}.\n\n## Part {i}\n" for i in range(6)})
    (tmp_path / "config.yaml").write_text("docs: docs\n")
    res = ctx("check")
    assert res.code == 0
    assert res.out == ("warning: 6 docs have no '# Title' line or front matter `title:`, so only their file names "
                       "name them: page0.md, page1.md, page2.md, ... (+3 more)\nok: 1 warning(s)\n"), res.out
    # A numbered record is named by its file, a title of words (a language's RFCs: 618 of 648 were listed)
    write_docs(tmp_path / "docs", {f"page{i}.md": "# Page\n" for i in range(6)})
    write_docs(tmp_path / "docs", {"text/0243-trait-based-exception-handling.md": "- Start Date: 2014\n\nText.\n",
                                   "text/01-intro.md": "Text.\n",
                                   # a snippet others include (a site generator's `_common/`), a Jekyll
                                   # collection's page (its file name titles it)
                                   "_common/locale.md": "---\n---\nThe locale.\n", "_docs/render.md": "Renders.\n"})
    assert ctx("check").out.startswith("warning: text/01-intro.md: no '# Title' line")


def test_check_names_no_untitled_docs_of_a_folder_its_site_titles_by_their_files(ctx, tmp_path):
    """Tried as a new user would on a key-value store's docs: 366 command pages (`commands/acl-cat.md`), which
    its site titles from a data file, were one warning asking for titles. One untitled page among titled ones,
    and a folder of two, are still named."""
    write_docs(tmp_path / "docs", {"index.md": "# Docs\n", "guide/intro.md": "# Intro\n", "guide/setup.md": "Set up.\n",
                                   "notes/a.md": "A.\n", "notes/b.md": "B.\n",
                                   **{f"commands/cmd-{i}.md": f"Command {i}.\n" for i in range(9)},
                                   "commands/index.md": "# Commands\n"})
    (tmp_path / "config.yaml").write_text("docs: docs\n")
    res = ctx("check")
    assert res.code == 0 and "commands/" not in res.out, res.out
    assert res.out.startswith("warning: guide/setup.md: no '# Title' line"), res.out
    assert "notes/a.md: no '# Title'" in res.out and "ok: 3 warning(s)" in res.out


MDX_CONFIG = """---
title: Configuration
---
import Tabs from '@theme/Tabs';
import {
  TabItem,
} from '@theme/TabItem';

The server listens on port 8080 unless the `PORT` variable says otherwise; behind a proxy, set the port
the proxy forwards to, and keep the health check on the same port so the load balancer sees it come up.

<Tabs>
<TabItem value="npm">

```js
import config from './config.js';
export default config;
```

</TabItem>
</Tabs>

export const toc = [
  {value: 'Ports', id: 'ports'},
];

Restart the server after a change.
"""


def test_an_mdx_site_is_read_as_markdown_without_its_imports(ctx, tmp_path):
    """Tried as a new user would on a Docusaurus site: its docs are `.mdx`, and ctx found 0 docs and said ok."""
    write_docs(tmp_path / "docs", {"configuration.mdx": MDX_CONFIG,
                                   "intro.md": "# Intro\n\nWhat this project is, in a few words of prose.\n"})
    res = ctx("init")
    assert res.code == 0, res.err
    kws = derived_keywords(tmp_path)
    assert kws["configuration.mdx"][0] == "configuration"
    assert ctx("check").out == "ok: config and docs look right\n"
    res = ctx("route", "which port does the server listen on", "--format", "json")
    data = json.loads(res.out)
    assert data["files"][0]["path"] == "configuration.mdx"
    shown = data["context"]
    assert "listens on port 8080" in shown and "Restart the server" in shown
    assert "@theme" not in shown and "export const toc" not in shown  # MDX's JavaScript says nothing to a reader
    assert "import config from './config.js';" in shown  # an example in a code block is the doc's text
    show = ctx("show", "configuration.mdx")
    assert show.code == 0 and "@theme" not in show.out and "listens on port 8080" in show.out


@pytest.mark.parametrize("body, read", [
    ("# A\n\n{/* Generated by codegen. Do not edit. */}\n\nText.\n", "# A\n\n\nText.\n"),
    ("Text {/* a note */} here.\n", "Text  here.\n"),
    ("# A\n{/*\nover\nlines */}\nAfter.\n", "# A\nAfter.\n"),
    ("```js\n{/* code */}\n```\n", "```js\n{/* code */}\n```\n"),  # a code block is the doc's text
    ("Text {/* never closed\nmore\n", "Text {/* never closed\nmore\n"),  # as an unclosed `<!--` is
])
def test_an_mdx_docs_comments_are_left_out(body, read):
    """Tried as a new user would on a runtime's Mintlify docs: a thousand generated pages each carried
    `{/* Generated by src/codegen/... Do not edit this section. */}` into what the model read."""
    assert index.body_of(body, "page.mdx") == read


def test_a_pages_own_table_of_contents_is_left_out():
    """Tried as a new user would on a web framework's docs: every page opens with a list of links to its own
    sections, and a cut doc's opening or a WARM doc's header was that list (4,300 chars of a 10,000-char turn)."""
    page = ("# Queues\n\n- [Introduction](#introduction)\n    - [Connections](#connections)\n"
            "1. [Creating Jobs](#creating-jobs)\n\n## Introduction\n\nSee [Horizon](horizon.md) and "
            "[retries](#retries).\n- [Dispatching](#dispatching) is covered below, with [batches](#batches).\n"
            "```md\n- [Kept](#kept)\n```\n")
    assert index.body_of(page, "queues.md") == (
        "# Queues\n\n\n## Introduction\n\nSee [Horizon](horizon.md) and [retries](#retries).\n"
        "- [Dispatching](#dispatching) is covered below, with [batches](#batches).\n```md\n- [Kept](#kept)\n```\n")


def test_without_esm_leaves_markdown_as_it_is():
    body = "Text.\n\nimport A from 'a';\n\n```js\nimport b from 'b';\n```\nexport const x = 1;\n\nEnd.\n"
    assert index.without_esm(body) == "Text.\n\n\n```js\nimport b from 'b';\n```\n\nEnd.\n"
    # Tried as a new user would on a package manager's Docusaurus docs: a `.md` page imports a partial where it
    # shows it (`import ScriptShell from './_scriptShell.mdx'`); Docusaurus reads it as MDX, and so does ctx.
    assert index.body_of(body, "page.md") == index.body_of(body, "page.mdx") == index.without_esm(body)
    prose = "Text.\n\nimport the module from the docs folder, then run it.\n\n```js\nimport b from 'b';\n```\n"
    assert index.body_of(prose, "page.md") == prose  # a markdown doc's lines are its text
    assert index.without_esm("Plain text.\n") == "Plain text.\n"


def test_a_markdown_page_with_an_import_is_read_as_mdx():
    """Docusaurus reads `.md` pages as MDX: a page written for it opens with its `<head>` metadata and its
    imports, or imports a partial where it shows it, which a reader never sees; a markdown page whose text only
    mentions an import keeps it."""
    page = ("---\ntitle: key-auth\n---\n\n<head>\n  <link rel=\"canonical\" href=\"https://example.com/key-auth\" />\n"
            "</head>\n\nimport Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n## Description\n\n"
            "Text.\n\nexport const tabs = 2;\n\n```js\nimport b from 'b';\n```\n")
    assert index.body_of(page, "plugins/key-auth.md") == "## Description\n\nText.\n\n\n```js\nimport b from 'b';\n```\n"
    assert index.body_of("import './setup.css';\n\n# Page\n", "page.md") == "# Page\n"
    assert index.body_of("# Page\n\nimport A from './_a.mdx';\n\n<A />\n", "page.md") == "# Page\n\n\n<A />\n"
    vue = "<script setup>\nimport A from './A.vue'\n</script>\n\n# Page\n\n<A />\n"  # a VitePress page's Vue code
    assert index.body_of(vue, "page.md") == "\n# Page\n\n<A />\n"  # not MDX, and no text of the page
    for kept in ("# Page\n\nimport the module from a file.\n", "import the module first.\n",
                 "<header>\nx\n</header>\n", "<head>\nnever closed\n", "import \n\ntext\n"):
        assert index.body_of(kept, "page.md") == kept


LICENSED = """---
title: Rate limiting
---

<!--
#
# Licensed to the Example Software Foundation (ESF) under one or more
# contributor license agreements.
#
-->

The plugin limits the rate of requests to a route with the leaky bucket method: requests over the rate wait
their turn, and a client that sends too many in a row is told to slow down.

## Attributes

| burst | number | Requests over the rate and under the burst are delayed. |

<!-- Old headings. Do not remove or links may break. -->
<a id="the-burst"></a>

Set `nodelay` to stop the delay.<!-- ignore -->
"""


def test_html_comments_are_not_the_docs_text(ctx, tmp_path):
    """Tried as a new user would on an Apache project's docs: every page opens with its licence in an HTML
    comment, `# Licensed to ...` lines that a rendered page never shows. ctx printed them as the opening of
    every HOT doc and as the whole 25-line WARM header. (Its page has a line of prose: with none, it would be
    a stub of markup, which no evidence but a keyword brings in.)"""
    write_docs(tmp_path / "docs", {"plugins/limit-req.md": LICENSED,
                                   "intro.md": "# Intro\n\nWhat this gateway is, in a few words of prose.\n"})
    assert ctx("init").code == 0
    data = json.loads(ctx("route", "what happens to requests over the burst", "--format", "json").out)
    assert data["files"][0]["path"] == "plugins/limit-req.md"
    shown = data["context"]
    assert "under the burst are delayed" in shown and "Set `nodelay` to stop the delay." in shown
    assert "Licensed" not in shown and "Old headings" not in shown and "<!--" not in shown
    show = ctx("show", "plugins/limit-req.md")
    assert show.code == 0 and "Licensed" not in show.out and "under the burst are delayed" in show.out


def test_without_comments_keeps_code_inline_code_and_the_warm_marker():
    marker = index.WARM_MARKER
    body = (f"Intro.\n{marker}\n<!-- a note\nover lines -->\nText <!-- x --> more.\n```html\n<!-- kept -->\n```\n"
            "Write `<!-- more -->` to cut an excerpt.\n<!-- never closed\n")
    assert index.without_comments(body) == (f"Intro.\n{marker}\nText  more.\n```html\n<!-- kept -->\n```\n"
                                            "Write `<!-- more -->` to cut an excerpt.\n<!-- never closed\n")
    assert index.without_comments("No comment here.\n") == "No comment here.\n"
    assert index.body_of("---\ntitle: A\n---\n<!-- licence -->\nText.\n", "a.md") == "Text.\n"


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.tuples(st.text(alphabet="ab \n#", max_size=30), st.text(alphabet="xy \n#", max_size=30)),
                       max_size=8), tail=st.text(alphabet="ab \n", max_size=30))
def test_closed_comments_leave_the_text_around_them(pieces, tail):
    body = "".join(f"{text}<!--{note}-->" for text, note in pieces) + tail
    kept = index.without_comments(body)
    assert "".join(kept.split()) == "".join(("".join(t for t, _ in pieces) + tail).split())
    assert "x" not in kept and "y" not in kept


def test_a_folder_without_docs_is_said(ctx, tmp_path):
    write_docs(tmp_path / "docs", {"notes.txt": "not markdown\n"})
    res = ctx("init")
    assert res.code == 0
    reads = "ctx reads markdown and reStructuredText files (.md, .mdx, .markdown, .qmd, .Rmd, .rmd, .rst)"
    assert f"warning: no docs in docs: {reads}" in res.err
    res = ctx("check")
    assert res.code == 0
    assert f"warning: no docs in {tmp_path / 'docs'}: {reads}" in res.out


def test_a_hugo_sites_toml_front_matter_is_read(ctx, tmp_path):
    """Hugo and Zola write front matter in TOML between `+++` lines: it titles the page, and is no text of it."""
    write_docs(tmp_path / "docs", {
        "install.md": '+++\ntitle = "Installing the CLI"\nweight = 2\ndate = 2024-05-01\n[params]\nicon = "x"\n+++\n\n'
                      "Download the binary for your platform and put it on your PATH; the installer checks the "
                      "checksum and refuses a binary whose signature does not match the release.\n",
        "broken.md": "+++\ntitle = unquoted\n+++\n\nSome text that the page says about itself.\n",
        # Zola reads it after blank lines too (its generated theme pages start so)
        "themes/ergo.md": '\n+++\ntitle = "Ergo"\ndescription = "a theme"\n+++   \n\nA dark theme for blogs.\n'})
    assert ctx("init").code == 0
    kws = derived_keywords(tmp_path)
    assert kws["install.md"][0] == "installing the cli"
    res = ctx("route", "how do I install the cli binary", "--format", "json")
    data = json.loads(res.out)
    assert data["files"][0]["path"] == "install.md"
    assert "+++" not in data["context"] and "weight = 2" not in data["context"]
    assert kws["themes/ergo.md"][0] == "ergo"
    assert index.body_of((tmp_path / "docs" / "themes" / "ergo.md").read_text(), "themes/ergo.md") == \
        "\nA dark theme for blogs.\n"
    check = ctx("check")
    assert check.code == 0
    assert "warning: broken.md: invalid front matter: Invalid value" in check.out


def test_front_matter_title_names_the_page_before_a_heading_in_it():
    """Tried as a new user would on Zola's docs: a theme page titled "DeepThought" in its front matter has a
    `# Table of Contents` heading halfway down, which became its title and a keyword that made it HOT for any
    prompt about tables of contents."""
    text = '+++\ntitle = "DeepThought"\n+++\n\nA theme.\n\n# Table of Contents\n\n- one\n'
    assert index.parse_doc("themes/deepthought.md", (0, len(text)), text, 25).title == "DeepThought"
    assert index.parse_doc("a.md", (0, 9), "# Heading\n\nText.\n", 25).title == "Heading"
    text = "---\ntitle: ''\n---\n# From the heading\n"
    assert index.parse_doc("b.md", (0, len(text)), text, 25).title == "From the heading"


def test_translation_folders_are_found_by_their_names_and_mirrored_pages():
    pages = ["index.md", "guides/sidebar.md", "guides/i18n.md", "reference/config.md"]
    tree = [*pages, *(f"de/{p}" for p in pages), *(f"pt-br/{p}" for p in pages[:3]), "zh_CN/guides/i18n.md",
            "it/servers.md", "it/laptops.md"]  # an IT department's folder mirrors nothing
    assert scaffold.translations(tree) == ["de", "pt-br", "zh_CN"]
    # Every language in a folder of its own (Hugo's content/en, content/fr): English is kept.
    assert scaffold.translations([*(f"en/{p}" for p in pages), *(f"fr/{p}" for p in pages)]) == ["fr"]
    assert scaffold.translations(pages) == []
    assert scaffold.translations(["go/intro.md", "go/setup.md", "index.md"]) == []  # not a language code
    # Docusaurus: the French pages' paths mirror nothing, the folder they are in says what they are.
    site = ["docs/intro.md", "website/i18n/fr/docusaurus-plugin-content-docs/current/intro.md",
            "website/i18n/pt-BR/docusaurus-plugin-content-blog/launch.md", "guides/it/servers.md"]
    assert scaffold.translations(site) == ["website/i18n/fr", "website/i18n/pt-BR"]
    # Every page in a language folder of its own: English is kept, never every page left out.
    assert scaffold.translations(["locales/en/a.md", "locales/ja/a.md", "locales/ja/b.md"]) == ["locales/ja"]
    assert scaffold.translations(["locales/ja/a.md"]) == []
    # Beside translations that mirror, one whose pages are named in its own language, in the docs' own folders
    # (a shell's `es/book/instalacion.md`); the IT department's folder still stays.
    shell = [*tree, "es/guides/barra.md", "es/guides/idiomas.md", "es/reference/configuracion.md"]
    assert scaffold.translations(shell) == ["de", "es", "pt-br", "zh_CN"]
    # Tried as a new user would on a command reference (`ctx init .`): its `pages.ko/`, `pages.pt_BR/` beside
    # `pages/` held 31,000 of its 38,000 pages. A folder named after another and a language code translates it.
    cheats = ["README.md", "pages/common/tar.md", "pages/linux/apt.md", "pages/osx/brew.md"]
    tree = [*cheats, *(p.replace("pages/", "pages.ko/") for p in cheats[1:]), "pages.pt_BR/common/tar.md",
            "notes.it/servers.md"]  # named so, but mirrors nothing
    assert scaffold.translations(tree) == ["pages.ko", "pages.pt_BR"]
    # Tried as a new user would on a note app's help vaults: a folder a language, every file and folder name
    # translated (`de/Bearbeiten und formatieren/`), so no path mirrors; beside the English one, the folders of
    # about its size are its translations, and a small topic folder named `it` stays.
    english = [f"en/Getting started/{n}.md" for n in ("Create a vault", "Sync your notes", "Link notes")]
    vaults = [*english, "de/Erste Schritte/Einen Tresor erstellen.md", "de/Erste Schritte/Notizen synchronisieren.md",
              "de/Erste Schritte/Notizen verlinken.md", "fr/Prise en main/Créer un coffre.md",
              "fr/Prise en main/Synchroniser vos notes.md", "Release notes/v1.5.md", "Release notes/v1.6.md",
              "Release notes/v1.7.md", "Release notes/v1.8.md", "it/servers.md"]
    assert scaffold.translations(vaults) == ["de", "fr"]
    assert scaffold.translations([*english, "de/Erste Schritte/Einen Tresor erstellen.md"]) == []  # one is no sign
    # A folder below the top whose folders are languages (a Sphinx site's `source/en/`, tried as a new user would
    # on a model hub client's docs: eight languages routed), Chinese among them as `cn/`, a country's code.
    english = [f"source/en/{p}" for p in ("a.md", "b.md", "e.md", "g/c.md", "g/d.md", "g/f.md")]
    sphinx = ["README.md", "dev/release.md", *english, "source/ko/a.md", "source/ko/b.md", "source/de/a.md",
              "source/hi/g/c.md", "source/cn/a.md", "source/cn/g/c.md"]
    assert scaffold.translations(sphinx) == ["source/cn", "source/de", "source/hi", "source/ko"]


def test_init_leaves_pages_translated_beside_their_page_out(ctx, tmp_path):
    """Tried as a new user would on a command reference: `style-guide.de.md` beside `style-guide.md` (Hugo's
    and mkdocs-static-i18n's default layout) came HOT beside the English page."""
    page = "# Style guide\n\nWrite placeholders in double curly braces: `{{path/to/file}}`.\n"
    write_docs(tmp_path / "docs", {"guides/style-guide.md": page, "guides/style-guide.de.md": page,
                                   "guides/style-guide.zh.md": page, "about.en.md": "# About\n\nWho we are.\n",
                                   "about.fr.md": "# About\n\nWho we are, in French.\n",
                                   "notes.it.md": "# IT notes\n\nThe servers.\n"})  # translates no page
    res = ctx("init")
    assert res.code == 0, res.err
    assert "translated pages left out: *.de.md, *.fr.md, *.zh.md" in res.out, res.out
    assert "*.de.md\n*.fr.md\n*.zh.md\n" in (tmp_path / "docs" / ".ctxignore").read_text()
    assert set(derived_keywords(tmp_path)) == {"guides/style-guide.md", "about.en.md", "notes.it.md"}
    data = json.loads(ctx("route", "how are placeholders written in the style guide", "--format", "json").out)
    assert [f["path"] for f in data["files"]][:1] == ["guides/style-guide.md"]
    assert not any(".de." in f["path"] or ".zh." in f["path"] for f in data["files"])
    (tmp_path / "docs" / ".ctxignore").write_text("drafts/\n")  # the user's own: check says what to add
    assert "warning: the docs named `*.de.md`, `*.fr.md`, `*.zh.md` are translations of the pages beside them" \
        in ctx("check").out


def test_init_leaves_a_sites_translations_out(ctx, tmp_path):
    """Tried as a new user would on Starlight's docs: 16 folders of translations, 301 of its 338 pages, put
    French and Chinese pages beside the English ones on English prompts (their code blocks are the same)."""
    page = ("# Overriding components\n\nReplace a built-in component such as the footer with your own: name it in "
            "the `components` option of the config.\n\n```js\ncomponents: { Footer: './src/Footer.astro' }\n```\n")
    write_docs(tmp_path / "docs", {"guides/overrides.md": page, "ja/guides/overrides.md": page,
                                   "fr/guides/overrides.md": page.replace("Replace", "Remplacez"),
                                   "index.md": "# Home\n\nThe docs of a theme.\n"})
    res = ctx("init")
    assert res.code == 0, res.err
    assert "wrote docs/.ctxignore (translations left out: fr/, ja/; delete a line to route that language)" in res.out
    assert "/fr/\n/ja/\n" in (tmp_path / "docs" / ".ctxignore").read_text()
    kws = derived_keywords(tmp_path)
    assert set(kws) == {"guides/overrides.md", "index.md"}
    data = json.loads(ctx("route", "override the footer component", "--format", "json").out)
    assert [f["path"] for f in data["files"]] == ["guides/overrides.md"]
    assert ctx("check").out == "ok: config and docs look right\n"
    # A .ctxignore of the user's own is never rewritten: init says what to add, and check says it too.
    (tmp_path / "docs" / ".ctxignore").write_text("drafts/\n")
    res = ctx("init", "--force")
    assert res.code == 0
    assert "warning: fr/, ja/ hold translations of the docs: list them in docs/.ctxignore (`/fr/`)" in res.err
    assert (tmp_path / "docs" / ".ctxignore").read_text() == "drafts/\n"
    check = ctx("check")
    assert "warning: fr/, ja/ hold translations of the docs" in check.out


def test_version_folders_are_found_by_their_names_and_mirrored_pages():
    pages = ["intro.md", "api/expect.md", "guides/mocks.md"]
    site = [*(f"docs/{p}" for p in pages), *(f"website/versioned_docs/version-29.7/{p}" for p in pages),
            *(f"website/versioned_docs/version-30.0/{p}" for p in pages[:2]), "website/blog/launch.md"]
    assert scaffold.versions(site) == ["website/versioned_docs/version-29.7", "website/versioned_docs/version-30.0"]
    # Every version in a folder of its own, a README beside them: the newest is kept (v10 after v2).
    tree = [*(f"{v}/{p}" for v in ("v1", "v2", "v10") for p in pages), "README.md"]
    assert scaffold.versions(tree) == ["v1", "v2"]
    assert scaffold.versions(["api/v1/users.md", "api/v2/orders.md", "guide.md"]) == []  # two APIs, no copies
    assert scaffold.versions(["2/ownership.md", "3/traits.md", "2/borrowing.md"]) == []  # chapters, no versions
    assert scaffold.versions(pages) == []
    # Docusaurus' versioned_docs holds other versions whatever their pages' paths (a CI engine's repo: four of
    # its seven versions had moved their pages); with no current docs beside them, the newest is kept
    moved = [*(f"docs/current_docs/{p}" for p in pages), "docs/versioned_docs/version-0.21.4/quickstart/ci.md",
             "docs/versioned_docs/version-0.16.3/guides/old.md"]
    assert scaffold.versions(moved) == ["docs/versioned_docs/version-0.16.3", "docs/versioned_docs/version-0.21.4"]
    alone = ["versioned_docs/version-1.0/a.md", *(f"versioned_docs/version-2.0/{p}" for p in pages),
             "README.md"]  # a README is no current docs
    assert scaffold.versions(alone) == ["versioned_docs/version-1.0"]
    # ... and a version a name gives (a formatter's `version-stable`, a copy of `docs/`)
    named = [*(f"docs/{p}" for p in pages), *(f"website/versioned_docs/version-stable/{p}" for p in pages)]
    assert scaffold.versions(named) == ["website/versioned_docs/version-stable"]
    assert scaffold.versions(["docs/version-history.md", "docs/a/version-notes/x.md", *pages]) == []
    # A version beside one that mirrors the current docs is one too, whatever its pages' paths (a gateway's Hugo
    # site: `en/v0.2/` to `en/v0.5/`, an older layout, stayed beside `en/latest/` and its mirrors `en/v1.x/`)
    hugo = [*(f"en/{v}/{p}" for v in ("latest", "v1.0", "v1.1") for p in pages), "en/v0.2/user/old.md"]
    assert scaffold.versions(hugo) == ["en/v0.2", "en/v1.0", "en/v1.1"]
    # A pre-release is a version, older than its release
    assert scaffold._version("version-1.0.0-beta.10") < scaffold._version("version-1.0.0") < \
        scaffold._version("v1.0.1")
    assert scaffold._version("2-col") is None and scaffold._version("1.0-2") is None
    # A web framework's API per major version (`api/3x`, `api/4x`, `api/5x`) beside its guides' (`docs/en/4x`,
    # `docs/en/5x`): the newest of each folder of versions is kept (tried as a new user would: Express 3's and
    # 4's pages were a third of a turn's room)
    majors = [f"api/{v}/api/{p}" for v in ("3x", "4x", "5x") for p in ("request.md", "app.md")] + \
        [f"docs/en/{v}/guide/routing.md" for v in ("4x", "5x")]
    assert scaffold.versions(majors) == ["api/3x", "api/4x", "docs/en/4x"]


def test_translations_in_two_trees_are_both_found():
    """Tried as a new user would (`ctx init .`) on a web framework's Astro site: `src/content/docs/{de,fr,...}` was
    left out and `src/content/pages/{de,fr,...}`, 270 pages, was routed."""
    langs = ["en", "de", "fr", "ja", "es", "zh-cn"]
    paths = [f"src/content/{tree}/{lang}/{page}.md" for tree in ("docs", "pages") for lang in langs
             for page in ("a", "b", "c")]
    assert scaffold.translations(paths) == [f"src/content/{tree}/{lang}" for tree in ("docs", "pages")
                                            for lang in sorted(langs) if lang != "en"]


def test_init_leaves_a_sites_older_versions_out(ctx, tmp_path):
    """Tried as a new user would on a test runner's repo (Docusaurus): the same page HOT once per version, four
    times, took the whole budget."""
    page = "# ES modules\n\nMock an ES module with `jest.unstable_mockModule` before you import it.\n"
    write_docs(tmp_path / "docs", {"docs/esm.md": page, "docs/intro.md": "# Intro\n\nA test runner.\n",
                                   "website/versioned_docs/version-29.7/esm.md": page,
                                   "website/versioned_docs/version-29.7/intro.md": "# Intro\n\nA runner.\n"})
    res = ctx("init")
    assert res.code == 0, res.err
    assert ("wrote docs/.ctxignore (other versions left out: website/versioned_docs/version-29.7/; delete a line to "
            "route that version)") in res.out
    data = json.loads(ctx("route", "how do I mock an ES module?", "--format", "json").out)
    assert [f["path"] for f in data["files"]] == ["docs/esm.md"]
    assert ctx("check").out == "ok: config and docs look right\n"
    (tmp_path / "docs" / ".ctxignore").write_text("drafts/\n")  # the user's own: ctx says what to add
    assert "website/versioned_docs/version-29.7/ hold other versions of the docs" in ctx("init", "--force").err
    assert "website/versioned_docs/version-29.7/ hold other versions of the docs" in ctx("check").out


@pytest.mark.parametrize("files, expected", [
    ({"docs/a.md": "# A\n"}, "docs"),
    ({"src/content/docs/guides/a.mdx": "# A\n", "astro.config.mjs": "export default {};\n"},
     os.path.join("src", "content", "docs")),
    ({"content/posts/a.md": "+++\ntitle = \"A\"\n+++\n", "hugo.toml": "title = 'site'\n"}, "content"),
    ({"content/a.md": "# A\n", "config.toml": "base_url = 'x'\n"}, "content"),  # Zola
    ({"content/a.md": "# A\n"}, "docs"),  # a folder called content, and no site around it: nothing to go by
    ({"src/guide/a.md": "# A\n", ".vitepress/config.ts": "export default {\n  srcDir: 'src',\n}\n"}, "src"),
    ({"guide/a.md": "# A\n", ".vitepress/config.mts": "export default { title: 'x' }\n"}, "."),  # srcDir: the root
    # a site beside the code: a web library's Zola site in www/, a Docusaurus site in website/
    ({"www/content/docs.md": "# A\n", "www/config.toml": "base_url = 'x'\n", "src/a.js": ""},
     os.path.join("www", "content")),
    ({"website/docs/intro.md": "# A\n", "website/docusaurus.config.js": ""}, os.path.join("website", "docs")),
    ({"site/README.md": "# A\n"}, "docs"),  # a folder called site with no site in it: nothing to go by
    ({"doc/book/src/intro.md": "# A\n", "doc/man/cargo.md": "# B\n"}, "doc"),  # a build tool's `doc/`
    # a Docusaurus site whose docs are elsewhere than `docs/` (a database's `documentation/`)
    ({"docusaurus.config.js": 'module.exports = {presets: [["classic", {blog: false, docs: {sidebar: {path: "x"}, '
                              'path: "documentation", editUrl: ({docPath}) => `e/${docPath}`}}]]};\n',
      "documentation/intro.md": "# A\n", "docs/old.md": "# B\n"}, "documentation"),
    # a text editor's book in `book/`, beside a `docs/` of contributor notes: the book's config wins
    ({"book/book.toml": "[book]\n", "book/src/usage.md": "# A\n", "docs/architecture.md": "# B\n"},
     os.path.join("book", "src")),
    ({"website/docusaurus.config.js": "", "website/docs/a.md": "# A\n", "docs/notes.md": "# B\n"},
     os.path.join("website", "docs")),
    # a docs framework's own site in `docs/`: its pages, not its source tree with the translations
    ({"docs/astro.config.mjs": "export default {};\n", "docs/src/content/docs/a.mdx": "# A\n",
      "docs/src/content/docs/fr/a.mdx": "# A\n", "docs/package.json": "{}\n"},
     os.path.join("docs", "src", "content", "docs")),
    ({"docs/.vitepress/config.ts": "export default {}\n", "docs/guide/a.md": "# A\n"}, "docs"),
    # a VuePress site at the root (a shell's docs: `.vuepress/config.js` beside `book/`)
    ({".vuepress/config.js": "module.exports = {}\n", "book/a.md": "# A\n", "README.md": "# R\n"}, "."),
    # a GitBook at the repo's root beside a `docs/` of built pages; one whose `.gitbook.yaml` names its root
    ({".gitbook.yaml": "root: ./\n", "SUMMARY.md": "* [A](a.md)\n", "a.md": "# A\n", "docs/old.md": "# B\n"}, "."),
    ({"book.json": "{}\n", "SUMMARY.md": "* [A](a.md)\n", "a.md": "# A\n", "docs/old.md": "# B\n"}, "."),
    ({".gitbook.yaml": "root: ./content/ # the pages\n", "content/a.md": "# A\n", "docs/old.md": "# B\n"},
     "content"),
    ({".gitbook.yaml": "structure:\n  summary: book/TOC.md\n", "book/TOC.md": "* [A](a.md)\n", "docs/a.md": ""}, "."),
    # a `.gitbook.yaml` left behind (no root, its summary gone) beside a Docusaurus site: a state library's repo
    ({".gitbook.yaml": "structure:\n  summary: docs/README.md\n", "website/docusaurus.config.ts":
      "export default {presets: [['classic', {docs: {path: '../docs'}}]]};\n", "docs/intro.md": "# A\n",
      "CONTRIBUTING.md": "# C\n"}, "docs"),
    # a Hugo site in `docs/` with a config.json: a file-sync tool's pages are its `content/`
    ({"docs/config.json": "{}\n", "docs/content/s3.md": "# S3\n", "docs/README.md": "# Building the site\n"},
     os.path.join("docs", "content")),
    # a Grafana project's pages in `docs/sources/` (its `_index.md` the docs' home), beside design notes in `docs/`
    ({"docs/sources/_index.md": "---\ntitle: Alloy\n---\n", "docs/sources/get-started/a.md": "# A\n",
      "docs/design/1-proposal.md": "# Proposal\n", "docs/Makefile": ""}, os.path.join("docs", "sources")),
    ({"docs/sources/a.md": "# A\n", "docs/b.md": "# B\n"}, "docs"),  # a folder called sources: nothing to go by
    # an Astro site's docs collection beside its config, over the `docs/` that says how the site is built
    ({"astro.config.mjs": "export default {}\n", "src/content/docs/en/guide.md": "# G\n",
      "docs/design-system.md": "# D\n"}, os.path.join("src", "content", "docs")),
    # a Hugo site whose config is a folder (`config/_default/config.toml`, its environments beside it)
    ({"config/_default/config.toml": "title = 'x'\n", "config/production/config.toml": "", "content/a.md": "# A\n",
      "layouts/index.html": ""}, "content"),
    # a monorepo's VitePress site in packages/docs
    ({"packages/docs/.vitepress/config.ts": "export default {}\n", "packages/docs/guide/a.md": "# A\n",
      "packages/router/src/index.ts": ""}, os.path.join("packages", "docs")),
])
def test_init_finds_a_sites_docs_folder(tmp_path, files, expected):
    write_docs(tmp_path, files)
    assert scaffold.default_docs(str(tmp_path)) == expected


def test_init_with_no_docs_folder_says_how_to_name_one(ctx, tmp_path):
    res = ctx("init")
    assert res.code == 2
    assert res.err == ("ctx: error: no docs folder found here (no docs/, doc/, mkdocs.yml, book.toml, .vitepress/, "
                       "src/content/docs, or a Hugo or Zola site's content/): name it, as in `ctx init path/to/docs`\n")
    assert not (tmp_path / "config.yaml").exists()
    # Tried as a new user would on a web framework's site: its pages are in `content/`, with no config beside.
    write_docs(tmp_path, {**{f"content/p{i}.md": f"# P{i}\n" for i in range(4)}, "README.md": "# R\n",
                          "scripts/a.md": "# A\n"})
    res = ctx("init")
    assert res.code == 2 and res.err.endswith("name it, as in `ctx init content` (4 doc files there)\n"), res.err
    # A handbook's pages at its root, beside its README and licence: the root is suggested
    write_docs(tmp_path, {f"page{i}.md": f"# Page {i}\n" for i in range(5)} | {"LICENSE.md": "# MIT\n"})
    res = ctx("init")
    assert res.code == 2 and res.err.endswith("name it, as in `ctx init .` (5 doc files there)\n"), res.err
    # Never a translation of them, though it holds more (`ja/`, `de/` beside the English pages at the root): the
    # root, with every page `ctx init .` routes
    write_docs(tmp_path, {f"{lang}/page{i}.md": f"# Seite {i}\n" for lang in ("ja", "de") for i in range(6)})
    res = ctx("init")
    assert res.code == 2 and res.err.endswith("name it, as in `ctx init .` (10 doc files there)\n"), res.err


def test_a_folder_of_languages_suggests_its_root_and_a_name_with_a_space_is_quoted(ctx, tmp_path):
    # tried as a new user would on a note app's help vault: `en/` and 33 translations at the top, and a folder of
    # release notes bigger than `en/`; `ctx init Release notes` was suggested, which names two folders
    pages = ("Getting started", "Linking notes", "Search", "Sync", "Themes")
    write_docs(tmp_path, {f"{lang}/{p}.md": f"# {p}\n\n{lang}\n" for lang in ("en", "de", "fr", "ja") for p in pages}
               | {f"Release notes/v1.{i}.md": f"# 1.{i}\n" for i in range(8)})
    res = ctx("init")
    assert res.code == 2 and res.err.endswith("name it, as in `ctx init .` (13 doc files there)\n"), res.err
    for lang in ("en", "de", "fr", "ja"):
        shutil.rmtree(tmp_path / lang)
    res = ctx("init")
    assert res.code == 2 and res.err.endswith("name it, as in `ctx init 'Release notes'` (8 doc files there)\n")
    assert ctx("init", "Release notes").code == 0


def test_the_folder_suggested_is_the_one_that_holds_nearly_all_the_pages(tmp_path):
    """Tried as a new user would on a component library's monorepo: `ctx init apps` was suggested for
    `apps/v4/content/docs`, which holds 312 of the 317 markdown files of `apps/`."""
    write_docs(tmp_path, {**{f"apps/web/content/docs/guide/p{i}.mdx": f"# P{i}\n" for i in range(30)},
                          "apps/web/README.md": "# Web\n", "apps/web/content/docs/index.mdx": "# Docs\n"})
    assert scaffold.likeliest_docs(str(tmp_path)) == ("apps/web/content/docs", 31)  # a page of its own: no further
    (tmp_path / "apps/web/content/docs/index.mdx").unlink()
    assert scaffold.likeliest_docs(str(tmp_path)) == ("apps/web/content/docs/guide", 30)


def test_a_sections_index_page_is_named_by_its_folder(ctx, tmp_path):
    """Hugo and Zola call a section's page `_index.md`: seven of them in Zola's docs all had the keyword "index"."""
    write_docs(tmp_path / "content", {
        "deployment/_index.md": '+++\ntitle = "Deployment"\n+++\n\nWhere to put the built site.\n',
        "templates/_index.md": "+++\ntemplate = \"section.html\"\n+++\n\nHow pages are rendered.\n"})
    (tmp_path / "config.toml").write_text("base_url = 'https://example.com'\n")
    assert ctx("init").code == 0
    kws = derived_keywords(tmp_path)
    assert kws["deployment/_index.md"] == ["deployment"]
    assert kws["templates/_index.md"] == ["templates"]


_MDX_LINE = st.sampled_from(["import A from 'a';", "export const x = 1;", "  import nested", "```js", "```", "~~~",
                             "", "Text.", "# Title", "<Tabs>", "export default {", "}", "importance is key"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_MDX_LINE, max_size=30))
def test_without_esm_only_drops_lines_and_is_stable(lines):
    body = "\n".join(lines)
    out = index.without_esm(body)
    kept = out.split("\n") if out else []
    it = iter(body.split("\n"))
    assert all(any(line == other for other in it) for line in kept)  # a subsequence of the lines: nothing added
    assert index.without_esm(out) == out
    if not any(line.startswith(("import ", "export ")) for line in lines):
        assert out == body


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["", "de/", "fr/", "en/", "it/", "guides/", "pt-br/"]),
                          st.sampled_from(["a.md", "b.md", "c/d.md", "e.mdx"])), max_size=25))
def test_translations_are_language_folders_that_mirror(pairs):
    paths = [folder + name for folder, name in pairs]
    found = scaffold.translations(paths)
    assert found == scaffold.translations(list(reversed(paths)))  # the same tree, the same answer
    for folder in found:
        assert scaffold._language(folder) is not None
        assert any(p.startswith(folder + "/") for p in paths)
    kept = [p for p in paths if not p.startswith(tuple(f + "/" for f in found))]
    assert kept or not paths  # one language is always left


def test_dependency_folders_are_never_docs(ctx, tmp_path):
    """Tried as a new user would: `ctx init .` in a project with no .gitignore routed node_modules' READMEs."""
    write_docs(tmp_path, {"README.md": "# My app\n\nRead the guide.\n", "docs/guide.md": "# Guide\n\nHow it works.\n",
                          "node_modules/lodash/README.md": "# Lodash\n\nUtilities.\n",
                          "web/node_modules/react/CHANGELOG.md": "# Changelog\n",
                          "venv/lib/python3.12/site-packages/pkg-1.0.dist-info/LICENSE.md": "# MIT\n"})
    assert sorted(index.scan(str(tmp_path)).files) == ["README.md", "docs/guide.md"]
    assert ctx("init", ".").code == 0
    assert sorted(derived_keywords(tmp_path)) == \
        ["README.md", "docs/guide.md"]
    from context_router.store import observe

    assert not observe.listable(str(tmp_path), str(tmp_path / "node_modules" / "x" / "README.md"))
    assert not observe.listable(str(tmp_path), str(tmp_path / "node_modules"))
    assert observe.listable(str(tmp_path), str(tmp_path / "docs" / "guide.md"))


def test_a_sites_order_numbers_name_nothing(ctx, tmp_path):
    """Nuxt Content sorts its pages by number (`1.getting-started/01.introduction.md`): tried as a new user
    would on such a site, every page's derived keywords held its numbered file name, and a component page
    titled `<ClientOnly>` had no title at all."""
    write_docs(tmp_path / "docs", {
        "1.getting-started/01.introduction.md": "# Introduction\n\nNuxt is a framework.\n",
        "4.api/1.components/1.client-only.md": "---\ntitle: '<ClientOnly>'\n---\n\nRenders on the client.\n",
        "3.guide/6.going-further/index.md": "---\nnavigation: false\nredirect: /guide/going-further/tooling\n---\n",
        "3.guide/tooling.md": "# Tooling\n\n## 1. VS Code Prompt\n\nOpen the devcontainer.\n\n## ⚡️ Live Reload\n\n"
                              "## C++ Bindings\n",
        "404.md": "# Not found\n\nThe page is gone.\n",
    })
    res = ctx("init", "docs")
    assert res.code == 0, res.err
    derived = derived_keywords(tmp_path)
    words = [kw for kws in derived.values() for kw in kws]
    assert not [kw for kw in words if kw[0].isdigit() and kw != "404"], words
    assert "clientonly" in derived["4.api/1.components/1.client-only.md"]
    assert {"vs code prompt", "live reload", "c++ bindings"} <= set(derived["3.guide/tooling.md"])
    check = ctx("check")
    assert check.code == 0 and "no '# Title'" not in check.out  # the redirect stub has no text to be found by


@pytest.mark.parametrize("name, stem", [
    ("01.introduction.md", "introduction"), ("1.getting-started", "getting-started"), ("intro.mdx", "intro"),
    ("404.md", "404"), ("2fa.md", "2fa"), ("1.0-release-notes.md", "1.0-release-notes"), ("v1.2.md", "v1.2"),
    ("20-core-concepts", "core-concepts"), ("01_setup.md", "setup"), ("2023-01-05-launch.md", "2023-01-05-launch"),
    ("ch01-02-hello.md", "ch01-02-hello"),
    # A Notion export's page id (tried as a new user would: every page's derived keywords held its name with it)
    ("Deploy Process 9f8e7d6c5b4a39281706f5e4d3c2b1a0.md", "Deploy Process"),
    ("Engineering 3c5d7e9f1a2b4c6d8e0f1a2b3c4d5e6f", "Engineering"),
    ("release 9f8e7d6c5b4a39281706f5e4d3c2b1a0aa.md", "release 9f8e7d6c5b4a39281706f5e4d3c2b1a0aa"),  # no id: 34
    ("9f8e7d6c5b4a39281706f5e4d3c2b1a0.md", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),  # the id alone names the page
])
def test_a_doc_stem_is_its_name_without_an_order_number(name, stem):
    assert doc_stem(name) == stem


def test_a_repos_test_fixtures_are_left_out(ctx, tmp_path):
    """Tried as a new user would (`ctx init .`) on a Go monorepo: a code generator's fixture READMEs under
    internal/testdata/ were indexed beside the components' own READMEs."""
    write_docs(tmp_path, {
        "README.md": "# Collector\n\nReceives, processes and exports telemetry.\n",
        "processor/batch/README.md": "# Batch processor\n\nBatches spans before export.\n",
        "cmd/gen/internal/testdata/README.md": "# Sample receiver\n\nBatches nothing.\n",
        "web/src/__snapshots__/page.md": "# Snapshot\n",
    })
    assert scaffold.fixtures(["a/testdata/b/c.md", "a/testdata/d.md", "tests/fixtures/x.md", "docs/fix.md",
                              "test/source/_posts/2014-03-03-yaml-with-dots.md", "docs/testing.md"]) == [
        "a/testdata", "test", "tests"]
    res = ctx("init", ".")
    assert res.code == 0, res.err
    assert ("wrote ./.ctxignore (test fixtures left out: cmd/gen/internal/testdata/, web/src/__snapshots__/; "
            "delete a line to route that folder)") in res.out
    derived = derived_keywords(tmp_path)
    assert set(derived) == {"README.md", "processor/batch/README.md"}
    assert ctx("check").out == "ok: config and docs look right\n"
    (tmp_path / ".ctxignore").write_text("drafts/\n")  # the user's own: ctx says what to add
    warning = "cmd/gen/internal/testdata/, web/src/__snapshots__/ hold test fixtures, not docs: list them in"
    assert warning in ctx("init", ".", "--force").err
    assert warning in ctx("check").out


def test_a_docs_folders_tests_pages_are_its_guide_on_testing(ctx, tmp_path):
    """Tried as a new user would on a package manager's `doc/`: its contributor guide's pages on testing
    (`contrib/src/tests/`, "Running Tests", "Writing Tests") were left out as test fixtures, and "how do I write a
    test" showed none of them. A code tree's `tests/` is still its fixtures."""
    write_docs(tmp_path, {
        "src/lib.rs": "pub fn build() {}\n",
        "crates/mdman/tests/compare/expected/formatting.md": "# formatting(1)\n\nExpected output.\n",
        "crates/mdman/tests/compare.rs": "#[test]\nfn compare() {}\n",
        "doc/book/src/guide.md": "# Guide\n\nBuild a package with `cargo build`.\n",
        "doc/contrib/src/index.md": "# Contributing\n\nHow to work on the package manager.\n",
        "doc/contrib/src/tests/index.md": "# Tests\n\nThe test suite is in `tests/testsuite`.\n",
        "doc/contrib/src/tests/writing.md": "# Writing Tests\n\nUse the `project()` builder for a snapshot test.\n",
    })
    assert scaffold.fixtures(["docs/tests/a.md", "crates/x/tests/b.md", "doc/testdata/c.md"]) == [
        "crates/x/tests", "doc/testdata"]
    assert scaffold.fixtures(["contrib/tests/a.md", "x/testdata/b.md"], in_docs=True) == ["x/testdata"]
    res = ctx("init")
    assert res.code == 0 and "docs: doc" in res.out, res.out
    assert "fixtures" not in res.out
    assert "contrib/src/tests/writing.md" in derived_keywords(tmp_path)
    assert "test fixtures left out: crates/mdman/tests/;" in ctx("init", ".", "--force").out
    assert "crates/mdman/tests/compare/expected/formatting.md" not in derived_keywords(tmp_path)
    assert "doc/contrib/src/tests/writing.md" in derived_keywords(tmp_path)


def test_a_test_folder_of_pages_and_pictures_alone_is_pages(ctx, tmp_path):
    """Tried as a new user would (`ctx init .`) on a runtime's docs site: its guide on testing (`runtime/test/`:
    mocking, snapshots, coverage) was left out as test fixtures, and "how do I mock fetch" found nothing. Fixtures
    sit beside the test code that reads them."""
    write_docs(tmp_path, {
        "runtime/index.md": "# Runtime\n\nRun scripts.\n",
        "runtime/test/index.md": "---\ntitle: Testing\n---\n\nWrite tests with the built-in runner.\n",
        "runtime/test/mocking.md": "---\ntitle: Mocking\n---\n\nStub `fetch` with a spy.\n",
        "runtime/test/images/runner.png": "",
        "runtime/test/.DS_Store": "",
        "tools/test/expected.md": "# Expected\n\nThe output a test compares with.\n",
        "tools/test/render_test.ts": "Deno.test('render', () => {});\n",
    })
    res = ctx("init", ".")
    assert res.code == 0 and "test fixtures left out: tools/test/;" in res.out, res.out
    assert "runtime/test/mocking.md" in derived_keywords(tmp_path)
    assert "tools/test/expected.md" not in derived_keywords(tmp_path)
    assert "HOT] runtime/test/mocking.md" in ctx("route", "--dry-run", "how do I stub fetch with a spy").out


def test_a_rule_above_a_readmes_banner_is_no_front_matter(ctx, tmp_path):
    """Tried as a new user would on a repo whose README opens with a rule, a centred banner and another rule:
    everything between the rules was read as front matter, dropped, and warned about."""
    write_docs(tmp_path, {"README.md": "---\n\n<p align=\"center\"><strong>Getting started</strong></p>\n\n---\n\n"
                                       "# Collector\n\nThe collector batches spans.\n",
                          "docs/a.md": "---\ntitle: A page\n---\n\nText.\n"})
    meta, body, warning = index.split_front_matter((tmp_path / "README.md").read_text())
    assert meta == {} and warning is None and "Getting started" in body
    assert index.split_front_matter((tmp_path / "docs/a.md").read_text())[0] == {"title": "A page"}
    assert ctx("init", ".").code == 0
    assert ctx("check").out == "ok: config and docs look right\n"


def test_a_doc_that_opens_with_a_heading_is_titled_by_it(ctx, tmp_path):
    write_docs(tmp_path / "docs", {"internal-architecture.md": "## Internal architecture\n\nHow it starts.\n",
                                   "b.md": "Some text first.\n\n## A part\n"})
    (tmp_path / "config.yaml").write_text("docs: docs\n")
    out = ctx("check").out
    assert "internal-architecture.md: no '# Title'" not in out and "b.md: no '# Title'" in out


def test_markdown_by_its_long_name_is_a_doc(ctx, tmp_path):
    """Tried as a new user would on a static site generator's docs: its 102 posts and its README are
    `.markdown` files, and ctx read none of them."""
    write_docs(tmp_path / "docs", {
        "_docs/incremental.markdown": "---\ntitle: Incremental regeneration\n---\n\n"
                                      "The `--incremental` rebuild of layouts.\n",
        "_docs/usage.md": "# Usage\n\nSee [incremental builds](incremental.markdown).\n",
    })
    res = ctx("init")
    assert res.code == 0, res.err
    cfg = yaml.safe_load((tmp_path / "config.yaml").read_text())
    post = "_docs/incremental.markdown"
    assert post in cfg["derived_keywords"] and cfg["related"]["_docs/usage.md"] == [post]
    data = json.loads(ctx("route", "incremental rebuild of layouts", "--format", "json").out)
    assert data["files"][0]["path"] == post


def test_init_on_a_vitepress_site_reads_its_source_folder(ctx, tmp_path):
    """Tried as a new user would on a framework's VitePress docs (`srcDir: 'src'`): `ctx init` found no docs
    folder, and a page that is one component (`<ThemePage />`) was warned about as untitled."""
    write_docs(tmp_path, {".vitepress/config.ts": "export default defineConfig({\n  srcDir: 'src',\n})\n",
                          "src/guide/reactivity.md": "# Reactivity\n\nUse `ref()` for a reactive value.\n",
                          "src/ecosystem/themes.md": "---\npage: true\n---\n\n<script setup>\nimport ThemePage "
                                                     "from './ThemePage.vue'\n</script>\n\n<ThemePage />\n"})
    res = ctx("init")
    assert res.code == 0, res.err
    assert yaml.safe_load((tmp_path / "config.yaml").read_text())["docs"] == "src"
    assert ctx("check").out == "ok: config and docs look right\n"
    (tmp_path / "src" / "notes.md").write_text("Some text, and no title.\n")
    assert "notes.md: no '# Title' line" in ctx("check").out


def test_a_headings_table_of_contents_label_is_its_keyword(ctx, tmp_path):
    """Tried as a new user would on a theme's mkdocs docs: `### with pip <small>recommended</small> { #with-pip
    data-toc-label="with pip" }` gave the keyword "with pip recommended", and a flag before a heading's text
    (`<!-- md:flag --> – Metadata property`) kept its dash."""
    write_docs(tmp_path / "docs", {
        "customization.md": "# Customization\n\n## Overriding blocks <small>recommended</small> "
                            "{ #overriding-blocks data-toc-label=\"Overriding blocks\" }\n\nExtend a block.\n\n"
                            "## – Metadata property\n\nA page's metadata.\n",
        "reactivity.md": "# Reactivity\n\n## Declaring Reactive State \\*\\* {#declaring}\n\nUse ref().\n",
        "other.md": "# Other\n\nSomething else.\n"})
    assert ctx("init").code == 0
    derived = derived_keywords(tmp_path)
    keywords = derived["customization.md"]
    assert "overriding blocks" in keywords and "metadata property" in keywords
    assert not any("recommended" in k or k.startswith("–") for k in keywords)
    # with no label, a heading's aside in small print is no word of its name
    assert index.plain_inline("### Browser <small>optional</small> { #browser }") == "### Browser"
    assert index.plain_inline("## <small>9.0.0</small>") == "## 9.0.0"  # a heading that is its aside alone
    assert "declaring reactive state" in derived["reactivity.md"]  # a VitePress docs' `\*\*`: an escaped mark


def test_an_attribute_list_over_a_title_leaves_it_the_title(ctx, tmp_path):
    """Tried as a new user would on a CLI library's MyST docs: its landing page opens with `{.hide-header}` over
    `# Welcome to Click` (a page sectioned by `# ` headings), and `ctx check` said it had no title."""
    write_docs(tmp_path / "docs", {
        "index.md": "{.hide-header}\n# Welcome to Click\n\nClick makes command line interfaces.\n\n"
                    "# Documentation\n\n## Tutorials\n\nStart here.\n\n# About Project\n\nThe license.\n",
        "options.md": "# Options\n\nAdd options with a decorator.\n"})
    assert ctx("init").code == 0
    assert ctx("check").out == "ok: config and docs look right\n"
    assert index.heading_title("{: .note}\n## Welcome\n") == "Welcome"


def test_a_file_name_many_docs_share_is_no_keyword(ctx, tmp_path):
    """Tried as a new user would on a framework's docs: its tutorial's fifteen steps are each
    `step-N/description.md`, and each had the keyword "description"; the title stays each step's name."""
    write_docs(tmp_path / "docs", {
        **{f"tutorial/step-{n}/description.md": f"# {title}\n\nStep {n}: {title.lower()}.\n"
           for n, title in enumerate(("Declarative rendering", "Attribute bindings", "Event listeners"), 1)},
        "guide/events.md": "# Event handling\n\nListen with `v-on`.\n"})
    assert ctx("init").code == 0
    derived = derived_keywords(tmp_path)
    assert derived["tutorial/step-3/description.md"] == ["event listeners"]
    assert "events" in derived["guide/events.md"]


def test_a_docs_own_heading_is_a_keyword_beside_its_nav_title(ctx, tmp_path):
    """Tried as a new user would on a JavaScript framework's docs: `title: if` in the front matter (its nav
    label) and `# x-if` in the text; "if", in most of the docs' text, named nothing, so the page had no name."""
    write_docs(tmp_path / "docs", {
        "directives/if.md": "---\ntitle: if\n---\n\n# x-if\n\nAdd and remove an element.\n",
        "directives/show.md": "---\ntitle: show\n---\n\n# x-show\n\nToggle an element's display.\n",
        "intro.md": "---\ntitle: Start here\n---\n\n# Start here\n\nA counter.\n"})
    assert ctx("init").code == 0
    derived = derived_keywords(tmp_path)
    assert derived["directives/if.md"] == ["x-if"]  # "if" alone is a little word, in any prompt
    assert derived["directives/show.md"] == ["x-show"]
    assert derived["intro.md"] == ["start here", "intro"]


def test_check_asks_no_title_of_a_command_its_front_matter_describes(ctx, tmp_path):
    """Tried as a new user would on Claude Code's plugins: a command (`description:` and no `# ` line) is
    named by its file, as Claude Code names it (/code-review): ctx check warned that it had no title."""
    write_docs(tmp_path / ".claude", {"commands/code-review.md": "---\ndescription: Code review a pull request\n"
                                                                 "---\n\nReview the PR with gh pr diff.\n",
                                      "notes.md": "Loose notes, no title.\n"})
    assert ctx("init", ".claude").code == 0
    out = ctx("check").out
    assert "code-review.md" not in out and "notes.md: no '# Title' line" in out


def test_check_asks_no_title_of_a_file_named_in_capitals(ctx, tmp_path):
    """Tried as a new user would (`ctx init .` at a repo's root): its LICENSE.md, which the forge names by its
    file name, was warned about as untitled."""
    write_docs(tmp_path / "docs", {"LICENSE.md": "MIT License\n\nCopyright (c) the authors\n",
                                   "CODE_OF_CONDUCT.md": "Be kind.\n", "notes.md": "Loose notes, no title.\n"})
    assert ctx("init", "docs").code == 0
    out = ctx("check").out
    assert "LICENSE" not in out and "CODE_OF_CONDUCT" not in out and "notes.md: no '# Title' line" in out


def test_a_heading_a_doc_repeats_and_a_bold_list_are_no_keywords(ctx, tmp_path):
    """Tried as a new user would on a package manager's docs: a changelog's `### Added` in every release and a
    lint list's `### Why is this bad?` under every lint were keywords; so were a bold list of values
    (`**true, false, deep**`) and an option's aliases (`### --save-prod, -P, -p` gave "save-prod, -p, -p")."""
    write_docs(tmp_path / "docs", {
        "CHANGELOG.md": "# Changelog\n\n## 1.1\n\n### Added\n\n- x\n\n### Fixed\n\n- y\n\n## 1.0\n\n### Added\n\n"
                        "- z\n\n### Fixed\n\n- w\n",
        "lints.md": "# Lints\n\n## `box_default`\n\n### Why is this bad?\n\nIt allocates.\n\n## `as_ptr`\n\n"
                    "### Why is this bad?\n\nIt dangles.\n",
        "cli/add.md": "# pnpm add\n\n## Options\n\n### --save-prod, -P, -p\n\nSaves to dependencies.\n\n"
                      "### ~~--global, -g~~\n\nGone.\n\n* Type: **true, false, deep**\n",
        "other.md": "# Other\n\nSomething else.\n\n## Does it run offline?\n\nYes.\n"})
    assert ctx("init").code == 0
    derived = derived_keywords(tmp_path)
    assert derived["CHANGELOG.md"] == ["changelog"]
    assert "does it run offline" in derived["other.md"]  # a question heading, as a prompt would say it
    assert "why is this bad?" not in derived["lints.md"] and "box_default" in derived["lints.md"]
    assert derived["cli/add.md"] == ["pnpm add", "add", "save-prod", "global"], derived["cli/add.md"]


def test_init_leaves_out_the_partials_of_a_site_that_publishes_none(ctx, tmp_path):
    """Tried as a new user would on a package manager's Docusaurus docs: nine partials (`settings/_catalogMode.mdx`,
    which pages import) were indexed as pages named by their file names, and one was warned about as untitled."""
    write_docs(tmp_path, {"docusaurus.config.ts": "export default {};\n",
                          "docs/settings.md": "---\ntitle: Settings\n---\n\nimport M from './_mode.mdx'\n\n<M />\n",
                          "docs/_mode.mdx": "Strict or prefer.\n", "docs/_parts/more.md": "More.\n",
                          "docs/intro.md": "# Intro\n\nHello.\n"})
    res = ctx("init")
    assert res.code == 0 and "partials left out: _*" in res.out, res.out
    assert (tmp_path / "docs" / ".ctxignore").read_text().splitlines()[1:] == ["_*"]
    assert sorted(derived_keywords(tmp_path)) == ["intro.md", "settings.md"]
    assert ctx("check").out == "ok: config and docs look right\n"
    (tmp_path / "docs" / ".ctxignore").write_text("# the user's own\n")
    check = ctx("check").out
    assert "the docs named `_*` are partials that pages import" in check and "(`_*`)" in check


def test_init_leaves_out_a_docsify_sites_navigation(ctx, tmp_path):
    """Tried as a new user would on docsify's own docs: `_sidebar.md` (a list of links) came HOT for "how do I
    add a sidebar?", and `ctx check` asked it, `_navbar.md` and two embedded examples for a title."""
    write_docs(tmp_path, {"docs/index.html": "<script>window.$docsify = {loadSidebar: true}</script>\n"
                                             "<script src=\"//cdn.jsdelivr.net/npm/docsify@4\"></script>\n",
                          "docs/_sidebar.md": "- [Quick start](quickstart.md)\n- [Adding pages](adding-pages.md)\n",
                          "docs/_navbar.md": "- [Home](/)\n", "docs/_media/example.md": "An embedded example.\n",
                          "docs/adding-pages.md": "# Adding pages\n\nList every page in `_sidebar.md`: the sidebar "
                                                  "is built from it.\n",
                          "docs/quickstart.md": "# Quick start\n\nRun `docsify init ./docs`.\n"})
    res = ctx("init")
    assert res.code == 0 and "partials left out: _*" in res.out, res.out
    assert sorted(derived_keywords(tmp_path)) == ["adding-pages.md", "quickstart.md"]
    assert ctx("check").out == "ok: config and docs look right\n"
    (tmp_path / "docs" / "index.html").write_text("<html>a plain site</html>\n")  # no docsify: they are pages
    assert "partials" not in scaffold.left_out(["_sidebar.md", "quickstart.md"], str(tmp_path / "docs"))


def test_a_github_wikis_sidebar_and_footer_are_left_out(tmp_path):
    """A GitHub wiki's clone: `_Sidebar.md` and `_Footer.md` are shown beside every page, as no page."""
    write_docs(tmp_path, {"Home.md": "# Welcome\n\nThe project's wiki.\n", "_Sidebar.md": "- [[Home]]\n- [[Setup]]\n",
                          "Setup.md": "# Setup\n\nInstall it.\n"})
    paths = ["Home.md", "_Sidebar.md", "Setup.md"]
    assert scaffold.left_out(paths, str(tmp_path))["partials"] == [scaffold.PARTIALS]
    (tmp_path / "Home.md").unlink()  # no wiki: an underscored page is a page
    assert "partials" not in scaffold.left_out(paths[1:], str(tmp_path))


def test_the_partials_of_a_docusaurus_site_inside_the_docs_are_left_out(ctx, tmp_path):
    """Tried as a new user would (`ctx init .`) on a CI engine's monorepo: its Docusaurus site in `docs/` is no
    folder init took, and twelve `partials/types/_container.mdx` were routed as pages and asked for titles. A
    Hugo section's `_index.md` elsewhere is a page and stays."""
    write_docs(tmp_path, {"README.md": "# Engine\n\nRuns pipelines.\n",
                          "docs/docusaurus.config.ts": "export default {};\n",
                          "docs/current/partials/types/_container.mdx": "A container: an image and a command.\n",
                          "docs/current/containers.mdx": "# Containers\n\n"
                                                         "import C from './partials/types/_container.mdx'\n\n<C />\n",
                          "site/content/_index.md": "---\ntitle: Home\n---\n\nThe engine's site.\n"})
    res = ctx("init", ".")
    assert res.code == 0 and "partials left out: /docs/**/_*" in res.out, res.out
    assert "/docs/**/_*" in (tmp_path / ".ctxignore").read_text().splitlines()
    assert sorted(derived_keywords(tmp_path)) == ["README.md", "docs/current/containers.mdx", "site/content/_index.md"]
    assert ctx("check").out == "ok: config and docs look right\n"
    (tmp_path / ".ctxignore").write_text("# the user's own\n")
    assert "the docs named `/docs/**/_*` are partials that pages import" in ctx("check").out


def test_the_partials_of_a_docusaurus_site_beside_the_docs_are_left_out(tmp_path):
    """Tried as a new user would on a state library's repo: its site in `website/` publishes `../docs`, and
    `docs/components/_Warning.mdx` was indexed as a page (and warned about as untitled)."""
    write_docs(tmp_path, {"website/docusaurus.config.ts": "export default {docs: {path: '../docs'}};\n",
                          "docs/components/_Warning.mdx": "Careful.\n", "docs/intro.md": "# Intro\n"})
    assert scaffold.left_out(["components/_Warning.mdx", "intro.md"], str(tmp_path / "docs"))["partials"] == \
        [scaffold.PARTIALS]
    (tmp_path / "website" / "docusaurus.config.ts").write_text("export default {docs: {path: '../guide'}};\n")
    assert "partials" not in scaffold.left_out(["components/_Warning.mdx", "intro.md"], str(tmp_path / "docs"))


def test_a_hugo_sites_index_pages_are_no_partials(tmp_path):
    write_docs(tmp_path, {"config.toml": "", "content/deploy/_index.md": "# Deploy\n"})
    assert scaffold.left_out(["deploy/_index.md"], str(tmp_path / "content")) == {}


def test_a_doc_with_more_terms_than_room_keeps_the_ones_it_says_most(ctx, tmp_path):
    """Tried as a new user would on a monitoring system's docs: its reference of eighty query functions got the
    first twelve in the page's order (`abs`, `absent`, `ceil`...), none of the ones it is mostly about."""
    names = [f"fn_{chr(97 + i)}" for i in range(16)]
    text = "# Query functions\n\n" + "".join(f"## `{n}()`\n\nReturns {n}.\n\n" for n in names) + \
        "Most queries use `fn_p()`: fn_p over a range, fn_p per second, fn_p again.\n"
    write_docs(tmp_path / "docs", {"functions.md": text, "other.md": "# Other\n\nSomething else.\n"})
    assert ctx("init").code == 0
    keywords = derived_keywords(tmp_path)["functions.md"]
    assert len(keywords) == 12 and keywords[:3] == ["query functions", "functions", "fn_p"], keywords


def test_init_leaves_out_a_sites_blog(ctx, tmp_path):
    """Tried as a new user would on a TUI framework's and a package manager's docs: old release posts
    (`blog/posts/release0-23-0.md`, `blog/releases/11.15.md`) were HOT ahead of the guide that answers."""
    write_docs(tmp_path / "docs", {"guide/buttons.md": "# Buttons\n\nHandle a press with on_button_pressed.\n",
                                   "blog/posts/release0-23-0.md": "# Release 0.23\n\nButtons got a press event.\n",
                                   "blog/index.md": "# Blog\n"})
    res = ctx("init")
    assert res.code == 0 and "blog posts left out: blog/" in res.out, res.out
    assert (tmp_path / "docs" / ".ctxignore").read_text().splitlines()[1:] == ["/blog/"]
    assert sorted(derived_keywords(tmp_path)) == ["guide/buttons.md"]
    assert scaffold.posts(["blog/a.md", "blog/b.md"]) == []  # a docs folder that is all blog keeps it
    assert scaffold.posts(["site/_posts/2020-01-01-launch.md", "docs/a.md"]) == ["site/_posts"]


def test_init_leaves_out_a_mintlify_sites_snippets(ctx, tmp_path):
    """Tried as a new user would on a runtime's Mintlify docs: its `snippets/` (`import Add from
    "/snippets/cli/add.mdx"`), which Mintlify publishes as no page, were routed as fifteen docs."""
    write_docs(tmp_path / "docs", {"docs.json": '{"name": "Run", "navigation": {"pages": ["install"]}}\n',
                                   "install.mdx": "---\ntitle: Install\n---\n\nimport Add from '/snippets/add.mdx'\n\n"
                                                  "<Add />\n\nRun the installer.\n",
                                   "snippets/add.mdx": "Add a package with `run add`.\n"})
    res = ctx("init", "docs")
    assert res.code == 0 and "snippets left out: snippets/" in res.out, res.out
    assert sorted(derived_keywords(tmp_path)) == ["install.mdx"]
    assert scaffold.left_out(["snippets/a.mdx", "b.md"], str(tmp_path)) == {}  # not a Mintlify site


def test_init_finds_a_mintlify_site_at_the_repos_root(ctx, tmp_path):
    """Tried as a new user would (`ctx init`) on a docs platform's own docs, a Mintlify site at the repo's root
    beside its translations: init found no docs folder and suggested `ctx init zh`, the biggest folder, a
    translation. Its pages are the folder's own, beside its docs.json; and their front matter's search keywords
    made `ctx check` print a line for each common word among them (28)."""
    page = "---\ntitle: {0}\nkeywords: [{1}]\n---\n\nHow to use the {0} of your site.\n"
    words = ["api", "app", "auth", "checks", "default", "events", "files", "guides", "list"]
    pages = {f"guide/page-{i}.mdx": page.format(f"Feature {i}", word) for i, word in enumerate(words)}
    write_docs(tmp_path, {"docs.json": '{"name": "Docs", "navigation": {"pages": ["guide/page-0"]}}\n',
                          "README.md": "# Docs\n\nThe site's source.\n", **pages,
                          **{f"zh/guide/page-{i}.mdx": text for i, text in enumerate([*pages.values()] * 2)}})
    res = ctx("init")
    assert res.code == 0, res.err
    assert "docs: ." in res.out and "translations left out: zh/" in res.out, res.out
    out = ctx("check").out
    assert "warning: 9 keywords are common words or in many docs ('api' in guide/page-0.mdx, 'app' in " \
           "guide/page-1.mdx, 'auth' in guide/page-2.mdx, ... (+6 more)), so they are weak" in out, out
    assert out.count("\n") == 2, out  # that line and the count


def test_init_leaves_out_the_pages_other_pages_include(ctx, tmp_path):
    """Tried as a new user would on a text editor's book: its generated command tables, which the commands page
    includes (`{{#include ./generated/typable-cmd.md}}`), were pages of their own beside it, and `ctx check`
    asked them for titles. Their text is read where it is included."""
    write_docs(tmp_path / "book", {"book.toml": "[book]\n",
                                   "src/commands.md": "# Commands\n\n## Typable commands\n\n"
                                                      "{{#include ./generated/typable-cmd.md}}\n",
                                   "src/generated/typable-cmd.md": "| `:reflow` | Hard-wrap the selection. |\n",
                                   "src/SUMMARY.md": "- [Commands](commands.md)\n"})
    res = ctx("init", "book/src")
    assert res.code == 0 and "included pages left out: generated/typable-cmd.md" in res.out, res.out
    assert "the book's contents left out: SUMMARY.md" in res.out  # its titles are read from it, not routed
    ignore = (tmp_path / "book" / "src" / ".ctxignore").read_text()
    assert "/generated/typable-cmd.md\n" in ignore and "/SUMMARY.md\n" in ignore
    assert "generated/typable-cmd.md" not in derived_keywords(tmp_path)
    res = ctx("check")
    assert res.code == 0 and "typable-cmd" not in res.out, res.out
    res = ctx("route", "--dry-run", "reflow")
    assert "HOT] commands.md" in res.out and "`:reflow` | Hard-wrap" in res.out and "Cold: 0" in res.out, res.out


def test_derived_keywords_leave_out_what_names_nothing(ctx, tmp_path):
    """Tried as a new user would on a package manager's and a dataframe library's docs: `dev/changelog.md` was
    "dev" (its folder, one of five docs there), an upgrade guide `releases/1.md` was "1", a contributing page
    titled "Overview" was "overview", and an example's `foo_project` and a cut `read_` were keywords."""
    write_docs(tmp_path / "docs", {
        **{f"dev/{name}.md": f"# {name.title()}\n\nAbout {name}.\n" for name in ("benchmark", "write", "fixtures")},
        "dev/changelog.md": "# Changelog\n\n## 2.0\n\nChanged things.\n",
        "dev/contributing.md": "# Overview\n\nSet up `foo_project` and call `read_` then `read_csv`.\n",
        "releases/1.md": "---\ntitle: '1'\n---\n\nThe first release.\n",
        "skills/pdf-report/SKILL.md": "---\nname: pdf\n---\n\nMake a PDF report.\n"})
    assert ctx("init").code == 0
    derived = derived_keywords(tmp_path)
    assert "dev" not in derived["dev/changelog.md"] and "changelog" in derived["dev/changelog.md"]
    assert derived.get("releases/1.md", []) == []
    contributing = derived["dev/contributing.md"]
    assert "overview" not in contributing and "foo_project" not in contributing and "read_" not in contributing
    assert "read_csv" in contributing and "contributing" in contributing
    assert "pdf report" in derived["skills/pdf-report/SKILL.md"]  # a skill's folder is about its SKILL.md


def test_init_leaves_out_vendored_code(ctx, tmp_path):
    """Tried as a new user would (`ctx init .`) on a tracing backend's Go monorepo: 484 of its 718 docs were
    vendored modules' READMEs and changelogs, and their `yaml/v2/` folders were named other versions."""
    write_docs(tmp_path, {"README.md": "# Tracer\n\nA tracing backend.\n", "docs/tls.md": "# TLS\n\nSet tls.\n",
                          "GOVERNANCE.md": "# Governance\n\nMajority vote.\n", "CODE_OF_CONDUCT.md": "# Conduct\n",
                          "CONTRIBUTING.md": "# Contributing\n\nRun make.\n",
                          "vendor/github.com/x/yaml/v2/README.md": "# yaml v2\n", "vendor/modules.txt": "",
                          "vendor/github.com/x/yaml/v3/README.md": "# yaml v3\n",
                          "operations/jsonnet/vendor/lib/README.md": "# lib\n"})
    res = ctx("init", ".")
    assert res.code == 0 and "vendored code left out: operations/jsonnet/vendor/, vendor/" in res.out, res.out
    assert "other versions" not in res.out
    assert "community files left out: CODE_OF_CONDUCT.md, GOVERNANCE.md" in res.out, res.out
    assert sorted(derived_keywords(tmp_path)) == ["CONTRIBUTING.md", "README.md", "docs/tls.md"]
    # In capitals at any depth; in lower case, a page of its own below the top (a `license` command's page)
    assert scaffold.community(["license.md", "pkg/x/GOVERNANCE.md", "pages/common/license.md",
                               "methods/page/CodeOwners.md", "docs/CODE_OF_CONDUCT.md"]) == \
        ["docs/CODE_OF_CONDUCT.md", "license.md", "pkg/x/GOVERNANCE.md"]
    # a package manager's pages on third-party integrations are docs
    assert scaffold.vendored(["integration/third_party/direnv.md", "index.md"]) == []


def test_init_says_what_markdown_it_left_outside_the_docs_folder(ctx, tmp_path):
    """Tried as a new user would on a workflow engine's monorepo: a plain `ctx init` took `docs/` (26 of its 48
    docs) and said nothing of the package READMEs; `ctx init .` routes them."""
    write_docs(tmp_path, {"docs/a.md": "# A\n", "README.md": "# Engine\n", "service/matching/README.md": "# M\n",
                          "service/history/README.md": "# H\n", "CONTRIBUTING.md": "# C\n",
                          "vendor/x/README.md": "# X\n", "tests/fixtures/project/README.md": "# Fixture\n",
                          # ... nor a site's blog posts (a formatter's 44), as `ctx init .` leaves them out too,
                          "website/blog/2024-01-12-3.2.0.md": "# Prettier 3.2\n",
                          # ... nor the docs' old versions, which mirror the docs taken (a package manager's site:
                          # 521 pages of old versions were counted)
                          "versioned_docs_archived/version-9.x/a.md": "# A\n",
                          "versioned_docs_archived/version-8.x/a.md": "# A\n"})
    res = ctx("init")
    assert res.code == 0, res.err
    assert ("note: 4 more doc files here are outside docs (CONTRIBUTING.md, README.md, "
            "service/history/README.md, ... (+1 more)): `ctx init . --force` routes the whole repo") in res.out
    named = ctx("init", "docs", "--force")
    assert named.code == 0 and "outside" not in named.out  # a folder named on purpose: nothing to say


def test_init_says_when_the_folder_a_sites_config_names_is_not_there(ctx, tmp_path):
    """Tried as a new user would on a language's RFCs: its book.toml names no source, whose default `src/` a
    script builds; init said there was no book.toml."""
    write_docs(tmp_path, {"book.toml": "[book]\ntitle = 'RFCs'\n",
                          **{f"text/{i:04}-x{i}.md": "# X\n" for i in range(4)}})
    res = ctx("init")
    assert res.code == 2 and res.err == ("ctx: error: no docs folder found here (src/, which the site's config here "
                                         "names, is not here: built by a script?): name it, as in `ctx init text` "
                                         "(4 doc files there)\n"), res.err


def test_an_emoji_or_a_symbol_in_a_title_or_heading_is_no_part_of_its_keyword(ctx, tmp_path):
    """Tried as a new user would on a docs framework's site: "Starlight 🌟 Build documentation sites with Astro"
    was a keyword with its star."""
    write_docs(tmp_path / "docs", {"index.md": "# Starlight 🌟 Build docs with Astro\n\nText.\n",
                                   "c.md": "# C++ 🚀\n\nText.\n",
                                   "checks.md": "# Checks\n\n### √ no clock skew detected\n\nText.\n\n"
                                                "### Upgrade → rollback\n\nText.\n"})
    assert ctx("init").code == 0
    derived = derived_keywords(tmp_path)
    assert derived["index.md"][0] == "starlight build docs with astro"
    assert derived["c.md"][0] == "c++"
    # A check mark written as a square root heads each check of a troubleshooting page; an arrow is no word.
    assert "no clock skew detected" in derived["checks.md"] and "upgrade rollback" in derived["checks.md"]


def test_a_link_from_the_sites_root_is_a_related_doc(ctx, tmp_path):
    """Tried as a new user would on a package manager's Docusaurus docs: 200 links like `](/topics/charts.mdx)`
    gave one related pair."""
    write_docs(tmp_path / "docs", {"intro.md": "# Intro\n\nSee [charts](/topics/charts.mdx) and [x](../x.md).\n",
                                   "topics/charts.mdx": "# Charts\n\nBack to [intro](../intro.md#top).\n"})
    assert ctx("init").code == 0
    cfg = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert cfg["related"] == {"intro.md": ["topics/charts.mdx"], "topics/charts.mdx": ["intro.md"]}


def test_a_link_reference_definition_makes_a_related_doc(ctx, tmp_path):
    """Tried as a new user would on an API framework's docs: its pages link each other only by reference
    definitions (`[serializers]: serializers.md`), and no pair was related."""
    write_docs(tmp_path / "docs", {"views.md": "# Views\n\nSee [serializers][s].\n\n[s]: serializers.md#top\n",
                                   "serializers.md": "# Serializers\n\nNo links.\n"})
    assert ctx("init").code == 0
    cfg = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert cfg["related"] == {"views.md": ["serializers.md"]}


def test_init_leaves_out_the_pages_a_books_summary_does_not_list(ctx, tmp_path):
    """Tried as a new user would on a messaging system's GitBook: 73 of its 259 pages were in no SUMMARY.md entry
    (a retired product's `legacy/` pages, a page template, notes on building the book), which the book publishes
    none of, and took 8 of 45 HOT places in a conversation. A folder of unlisted pages is left out as the
    folder; GitBook's escaped paths (`release\\_notes`) are the paths; a SUMMARY.md that lists only some of the
    pages leaves none out."""
    write_docs(tmp_path, {".gitbook.yaml": "root: ./\n", "README.md": "# NATS\n",
                          "SUMMARY.md": "* [Intro](README.md)\n* [Consumers](concepts/consumers.md)\n"
                                        "* [What's new](release\\_notes/whats\\_new.md)\n"
                                        "* [Legacy](https://legacy.example.com/)\n",
                          "concepts/consumers.md": "# Consumers\n", "concepts/acks.md": "# Acks\n",
                          "release_notes/whats_new.md": "# What's new\n",
                          "legacy/stan/acks.md": "# STAN acks\n", "legacy/stan/intro.md": "# STAN\n"})
    res = ctx("init")
    assert res.code == 0, res.err
    assert "unlisted pages left out: concepts/acks.md, legacy/;" in res.out, res.out
    assert (tmp_path / ".ctxignore").read_text().endswith("/concepts/acks.md\n/legacy/\n")
    assert sorted(derived_keywords(tmp_path)) == ["README.md", "concepts/consumers.md", "release_notes/whats_new.md"]
    assert scaffold.unlisted(["a.md", "b.md", "c.md"], {"a.md": "A"}, "SUMMARY.md") == []  # a part listed only


def test_a_heading_with_quoted_words_is_a_keyword_without_its_quotes(ctx, tmp_path):
    """Tried as a new user would on an API framework's docs: `### ModelSerializer 'fields' and 'exclude'` was the
    keyword "modelserializer 'fields' and 'exclude", its last quote cut. An apostrophe in a word stays."""
    write_docs(tmp_path / "docs", {"a.md": "# What's new\n\n### ModelSerializer 'fields' and 'exclude'\n\nText.\n",
                                   "b.md": "# B\n\nOther.\n"})
    assert ctx("init").code == 0
    assert derived_keywords(tmp_path)["a.md"] == ["what's new", "modelserializer fields and exclude"]


def test_init_leaves_out_the_pages_marked_as_drafts(ctx, tmp_path):
    """Tried as a new user would on a router's docs: eleven pages marked `hidden: true` (empty stubs, a styling
    test) were routed, and an empty one ranked second. `draft: true` (Docusaurus, Hugo, Jekyll) and Jekyll's
    `published: false` say the same; `draft: false` does not, nor `published: false` where no Jekyll or Hexo
    config says so (a state library's Gatsby site keeps such pages out of its nav only: its async guide)."""
    write_docs(tmp_path / "nav", {"async.md": "---\ntitle: Async\npublished: false\n---\n\nAsync atoms.\n",
                                  "core.md": "# Core\n\nAtoms.\n"})
    assert "drafts" not in ctx("init", "nav", "-o", "nav.yaml").out
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "_config.yml").write_text("title: A Jekyll site\n")
    write_docs(tmp_path / "docs", {"guide.md": "---\ntitle: Guide\ndraft: false\n---\n\nText.\n",
                                   "stub.md": "---\ntitle: Search params\nhidden: true\n---\n",
                                   "wip.md": "+++\ntitle = 'WIP'\ndraft = true\n+++\n\nSoon.\n",
                                   "old.md": "---\npublished: false\n---\n\n# Old\n"})
    res = ctx("init")
    assert res.code == 0 and "drafts left out: old.md, stub.md, wip.md;" in res.out, res.out
    assert sorted(derived_keywords(tmp_path)) == ["guide.md"]
    # Hugo: a page it does not render (an orchestrator's 339 feature gates' pages, tried as a new user would) and a
    # headless bundle's marker; the bundle's pages stay (others include them: a log store's configuration reference)
    write_docs(tmp_path / "docs", {
        "gates/accelerators.md": "---\ntitle: Accelerators\n_build:\n  list: never\n  render: false\n---\nGone.\n",
        "includes/index.md": "---\nheadless: true\n---\n", "includes/prereqs.md": "You need a cluster to start.\n",
        "gates/live.md": "---\ntitle: Live gate\n_build:\n  list: never\n---\n\nStill rendered.\n"})
    (tmp_path / "docs" / ".ctxignore").unlink()
    res = ctx("init", "--force")
    assert res.code == 0, res.out
    assert "drafts left out: gates/accelerators.md, includes/index.md, old.md, stub.md, ..." in res.out, res.out
    assert sorted(derived_keywords(tmp_path)) == ["gates/live.md", "guide.md", "includes/prereqs.md"]


def test_a_note_apps_help_vaults_are_read_as_the_app_names_their_pages(ctx, tmp_path):
    """Tried as a new user would (`ctx init .`) on a note app's help vaults: a folder a language, every file and
    folder name translated; pages titled by their file names, no `# ` line; 364 release notes named by their
    versions. Init routed all 33 translations, check asked 372 pages for a title, and "how do I make a table?"
    made release notes HOT."""
    sync = ("Obsidian stores notes locally on your device, so you always have access to them, even offline. To "
            "access them on more than one device, set up one of the methods below.\n\n## Third-party services\n\n"
            "iCloud, OneDrive and Google Drive keep a folder the same everywhere.\n")
    tables = ("Advanced syntax for your notes.\n\n## Tables\n\nYou can create a table with vertical bars and "
              "hyphens: the first row holds the column names.\n")
    pages = {"en/Getting started/Sync your notes across devices.md": sync,
             "en/Editing and formatting/Advanced formatting syntax.md": tables,
             "en/Editing and formatting/Callout.md": "Callouts set text apart.\n",
             "de/Erste Schritte/Notizen zwischen Geräten synchronisieren.md": sync,
             "de/Bearbeiten und formatieren/Erweiterte Formatierungssyntax.md": tables,
             "de/Bearbeiten und formatieren/Callout.md": "Callouts heben Text hervor.\n",
             "fr/Prise en main/Synchroniser vos notes.md": sync,
             "fr/Modifier et formater/Syntaxe avancée.md": tables}
    notes = {f"Release notes/v1.{i}.md": f"- Tables: a new table editor in version 1.{i}; make a table from the "
                                          f"command palette.\n- Fixed the graph view.\n" for i in range(5)}
    others = {f"Sandbox/Plugin number {i}.md": f"Plugin {i} adds a pane beside the editor; turn it on in the "
                                                  f"settings.\n" for i in range(12)}
    write_docs(tmp_path, {**pages, **notes, **others})
    res = ctx("init", ".")
    assert res.code == 0 and "translations left out: de/, fr/" in res.out, res.out
    assert ctx("check").out == "ok: config and docs look right\n"
    data = json.loads(ctx("route", "how do I make a table?", "--format", "json").out)
    hot = [f["path"] for f in data["files"] if f["tier"] == "HOT"]
    assert hot == ["en/Editing and formatting/Advanced formatting syntax.md"], data["files"]
    page = "en/Getting started/Sync your notes across devices.md"
    assert index.parse_doc(page, (1, len(sync)), sync, 25).title == "Sync your notes across devices"


def test_a_quarto_sites_pages_are_docs_and_its_partials_are_not(ctx, tmp_path):
    """Tried as a new user would (`ctx init`) on a publishing system's Quarto site: its 545 `.qmd` pages were
    not read at all, and the 129 `.md` files routed were mostly partials (`_*`, which Quarto renders no page
    of) and changelogs. An R package's vignettes (`.Rmd`) are markdown with code cells too."""
    write_docs(tmp_path, {"_quarto.yml": "project:\n  type: website\n",
                          "index.qmd": "---\ntitle: Quarto\n---\n\nSee [HTML basics](guide/html.qmd).\n",
                          "guide/html.qmd": "---\ntitle: HTML basics\n---\n\n## Table of contents\n\n"
                                            "Set `toc: true`.\n\n{{< include _toc-depth.md >}}\n",
                          "guide/_toc-depth.md": "Use `toc-depth` to show deeper headings.\n",
                          "vignettes/intro.Rmd": "---\ntitle: Getting started with the package\n---\n\n"
                                                 "```{r}\nlibrary(pkg)\n```\n"})
    res = ctx("init")
    assert res.code == 0 and "docs: ." in res.out and "partials left out: _*" in res.out, res.out
    assert sorted(derived_keywords(tmp_path)) == ["guide/html.qmd", "index.qmd", "vignettes/intro.Rmd"]
    assert yaml.safe_load((tmp_path / "config.yaml").read_text())["related"] == {"index.qmd": ["guide/html.qmd"]}
    data = json.loads(ctx("route", "how deep does the toc go? toc-depth", "--format", "json").out)
    assert data["files"][0]["path"] == "guide/html.qmd" and "show deeper headings" in data["context"]
    assert ctx("check").out == "ok: config and docs look right\n"


def test_an_r_packages_docs_are_its_readme_news_and_vignettes(ctx, tmp_path):
    """Tried as a new user would (`ctx init`) on a data frame library's R package: no docs folder, and init
    suggested `ctx init tests` (65 testthat snapshots); `ctx init .` routed the snapshots, four reverse-dependency
    check reports, and `README.Rmd` beside the `README.md` knitr renders from it (both HOT for one prompt)."""
    readme = "# dplyr\n\ndplyr is a grammar of data manipulation: `filter()` picks rows by their values.\n"
    write_docs(tmp_path, {"DESCRIPTION": "Package: dplyr\n", "README.Rmd": readme, "README.md": readme,
                          "NEWS.md": "# dplyr 1.1.0\n\n* `join_by()` is new.\n",
                          "vignettes/two-table.Rmd": "---\ntitle: Two-table verbs\n---\n\nJoin two tables.\n",
                          **{f"tests/testthat/_snaps/v{i}.md": f"# verb {i}\n\n    Code\n" for i in range(6)},
                          "revdep/problems.md": "# Problems\n\n*Wow, no problems at all. :)*\n"})
    res = ctx("init")
    assert res.code == 0 and "docs: ." in res.out, res.out
    assert "test fixtures left out: revdep/, tests/" in res.out
    assert "sources of rendered pages left out: README.Rmd" in res.out
    assert sorted(derived_keywords(tmp_path)) == ["NEWS.md", "README.md", "vignettes/two-table.Rmd"]
    assert scaffold.rendered(["README.Rmd", "README.md", "a.qmd", "b.md", "vignettes/c.Rmd"]) == ["README.Rmd"]
    # With no DESCRIPTION, not a package: the folder init suggests is never one of test snapshots.
    for name in ("DESCRIPTION", "config.yaml", ".ctxignore"):
        (tmp_path / name).unlink()
    res = ctx("init")
    assert res.code == 2 and "ctx init tests" not in res.err, res.err


def test_a_sphinx_sites_restructuredtext_pages_are_docs(ctx, tmp_path):
    """Tried as a new user would (`ctx init`) on a web framework's Sphinx docs: its 76 `.rst` pages were read as
    no docs at all ("no docs in docs"). They are read as markdown now: their titles are headings (levels by the
    order the page's styles come in), their literal blocks code blocks, their includes the files they name."""
    write_docs(tmp_path / "docs", {
        "conf.py": "project = 'Flask'\n",
        "index.rst": "Welcome\n=======\n\n.. toctree::\n\n   errorhandling\n   api\n",
        "errorhandling.rst": (".. _errors:\n\nHandling Application Errors\n===========================\n\n"
                              "Applications fail, servers fail.\n\nError Handlers\n--------------\n\n"
                              "Registering\n```````````\n\nRegister handlers with a decorator::\n\n"
                              "    @app.errorhandler(404)\n    # the handler\n    def not_found(e):\n"
                              "        return 'gone', 404\n\n.. include:: _parts/codes.rst\n\n"
                              "Logging\n-------\n\nLog to a file.\n"),
        "_parts/codes.rst": "Any status code from 400 to 599 can be handled.\n",
        "api.rst": "API\n===\n\n.. autoclass:: Flask\n   :members:\n\n.. autofunction:: send_file\n"})
    res = ctx("init")
    assert res.code == 0 and "docs: docs" in res.out, res.out
    assert "errorhandling.rst" in derived_keywords(tmp_path)
    shown = ctx("show", "errorhandling.rst", "Registering").out
    assert shown.startswith("### Registering\n"), shown
    assert "Register handlers with a decorator:\n\n```\n@app.errorhandler(404)\n# the handler\n" in shown
    assert "Any status code from 400 to 599 can be handled." in shown and "include::" not in shown
    assert "Log to a file" not in shown  # the `##` after it is a section of its own
    data = json.loads(ctx("route", "how do I register an error handler for a 404?", "--format", "json").out)
    assert data["files"][0]["path"] == "errorhandling.rst", data["files"]
    assert "# Handling Application Errors" in data["context"] and ".. _errors:" not in data["context"]
    assert ctx("check").out == "ok: config and docs look right\n"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["title", "text", "code"]), st.sampled_from("=-~^"),
                          st.from_regex(r"[A-Za-z][A-Za-z ]{0,20}[a-z]", fullmatch=True)), max_size=12))
def test_restructuredtext_reads_as_its_headings_and_code(pieces):
    """Every title is a heading, at the level of its style's first use; every line of text stays; a literal
    block is fenced, its lines dedented and none of them a heading."""
    from context_router.store import rst
    lines: list[str] = []
    styles: list[str] = []
    want_heads, want_code = [], []
    for kind, mark, words in pieces:
        if kind == "title":
            lines += [words, mark * len(words), ""]
            styles += [mark] if mark not in styles else []
            want_heads.append("#" * (styles.index(mark) + 1) + " " + words)
        elif kind == "text":
            lines += [words + ".", ""]
        else:
            lines += [words + "::", "", "    # " + words, "    x = 1", ""]
            want_code.append("# " + words)
    out = rst.as_markdown("\n".join(lines)).split("\n")
    heads, code, fenced = [], [], False
    for ln in out:
        if ln.startswith("```"):
            fenced = not fenced
        elif ln.startswith("#"):
            (code if fenced else heads).append(ln)
    assert heads == want_heads and code == want_code and not fenced
    for kind, _, words in pieces:
        assert (words + "." if kind == "text" else words + ":" if kind == "code" else "# " + words) in "\n".join(out)


def test_a_restructuredtext_title_may_have_text_right_under_it(ctx, tmp_path):
    """Tried as a new user would on an automation tool's Sphinx docs: its style guide's pages open with a title
    whose underline the text follows at once (a blank line after a title is optional), and `ctx check` said
    they had none. A paragraph's second line over a rule is still no title."""
    from context_router.store import rst
    assert rst.as_markdown("\nTrademark Usage\n---------------\nWhy use the mark?\n\nRules\n^^^^^\n* one\n") == (
        "\n# Trademark Usage\nWhy use the mark?\n\n## Rules\n* one\n")
    assert "# " not in rst.as_markdown("Some text\nmore text\n---------\n")
    write_docs(tmp_path / "docs", {"conf.py": "project = 'x'\n",
                                   "index.rst": "Docs\n====\n\n.. toctree::\n\n   marks\n",
                                   "marks.rst": "\nTrademark Usage\n---------------\nWhy use the mark?\n"})
    assert ctx("init", "docs").code == 0
    assert ctx("check").out == "ok: config and docs look right\n"


def test_a_sphinx_pages_objects_labels_and_nested_code_read_as_a_reader_finds_them(ctx, tmp_path):
    """Tried as a new user would on a type checker's Sphinx docs: its command line page is 147 `.. option::`, its
    config page 89 `.. confval::`, so each was a few huge sections (`ctx show command_line.rst -- --strict`
    found none); `:ref:` targets (`.. _code-union-attr:`) named no section; code blocks inside a directive
    stayed unfenced; `.. comments` were printed."""
    page = (".. Generated comment\n   that goes on.\n\nThe command line\n================\n\n"
            "Strictness\n----------\n\n.. option:: --strict\n\n    Enables all optional checks.\n\n"
            "    .. code-block:: python\n\n        # not a heading\n        x: int = 1\n\n"
            ".. _code-union-attr:\n\nUnion attributes\n----------------\n\nEvery item must have it.\n\n"
            ".. _lxml: https://lxml.de\n")
    write_docs(tmp_path / "docs", {"conf.py": "", "index.rst": "Docs\n====\n\nThe docs.\n",
                                   "command_line.rst": page})
    assert ctx("init").code == 0
    shown = ctx("show", "command_line.rst", "--", "--strict").out
    assert shown == ("#### --strict\n\nEnables all optional checks.\n\n```python\n# not a heading\nx: int = 1\n"
                     "```\n"), shown
    assert ctx("show", "command_line.rst", "code-union-attr").out.startswith("## Union attributes\n")
    whole = ctx("show", "command_line.rst").out
    assert "Generated comment" not in whole and "that goes on" not in whole and "lxml" not in whole, whole


def test_a_sphinx_source_inside_the_docs_folder_is_taken(ctx, tmp_path):
    """Tried as a new user would on a database toolkit's repo: its Sphinx source is `doc/build/` (conf.py and
    index.rst there), and `ctx init` took `doc/`, every page's path starting `build/`; its change fragments
    (`changelog/unreleased_13/6135.rst`) were each asked for a title."""
    write_docs(tmp_path / "doc" / "build", {
        "conf.py": "project = 'db'\n", "index.rst": "Docs\n====\n\n.. toctree::\n\n   pooling\n",
        "pooling.rst": "Connection Pooling\n==================\n\nThe pool keeps connections open.\n",
        "changelog/unreleased_13/6135.rst": ".. change::\n    :tags: bug\n\n    Fixed the pool's timeout.\n"})
    res = ctx("init")
    assert res.code == 0 and "docs: doc/build;" in res.out, res.out
    assert "pooling.rst" in derived_keywords(tmp_path)
    assert ctx("check").out == "ok: config and docs look right\n"


def test_init_writes_ctx_yaml_beside_a_sites_own_config_yaml_and_never_overwrites_it(ctx, tmp_path):
    """Tried as a new user would on a key-value store's Hugo site: its root config.yaml is Hugo's, and `ctx init`
    said it existed and offered `--force` to overwrite it. ctx's config is ctx.yaml beside it now, found as
    config.yaml is; another tool's config named with -o is never overwritten."""
    hugo = "baseURL: /\ntitle: Store\nparams:\n  version: 3.6\n"
    write_docs(tmp_path, {"config.yaml": hugo, "content/en/docs/maintenance.md": "# Maintenance\n\nDefragment "
                                                                                  "the database to reclaim space.\n",
                          "content/en/docs/faq.md": "# FAQ\n\nQuestions.\n", ".git/HEAD": ""})
    res = ctx("init", "content/en")
    assert res.code == 0 and "note: config.yaml here is another tool's config" in res.err, res.err
    assert "wrote ctx.yaml (docs: content/en;" in res.out and "ctx hook install claude" in res.out
    assert (tmp_path / "config.yaml").read_text() == hugo
    assert ctx("check").out == "ok: config and docs look right\n"
    assert "HOT] docs/maintenance.md" in ctx("route", "--dry-run", "defragment the database").out
    res = ctx("init", "content/en")
    assert res.code == 2 and "ctx.yaml already exists (use --force to overwrite)" in res.err
    assert ctx("init", "content/en", "--force").code == 0 and (tmp_path / "config.yaml").read_text() == hugo
    (tmp_path / "site.yaml").write_text(hugo)
    res = ctx("init", "content/en", "-o", "site.yaml", "--force")
    assert res.code == 2 and "site.yaml is another tool's config" in res.err and "never overwrites" in res.err
    assert (tmp_path / "site.yaml").read_text() == hugo


def test_init_takes_the_one_site_in_a_folder_of_any_name(ctx, tmp_path, monkeypatch):
    """Tried as a new user would on a runtime's docs repo: its Hugo site is `daprdocs/` (config.toml beside
    `content/`), and a plain `ctx init` found no docs folder. Two such sites leave the choice to the user."""
    write_docs(tmp_path, {"README.md": "# Docs repo\n", "daprdocs/config.toml": "baseURL = '/'\n",
                          "daprdocs/content/en/concepts/overview.md": "# Overview\n\nSidecars for state.\n",
                          "daprdocs/content/en/concepts/state.md": "# State\n\nKey-value stores.\n",
                          "scripts/build.md": "# Build\n"})
    monkeypatch.chdir(tmp_path)
    res = ctx("init")
    assert res.code == 0 and "docs: daprdocs/content;" in res.out, res.out
    write_docs(tmp_path, {"other/hugo.toml": "", "other/content/a.md": "# A\n"})
    res = ctx("init", "--force")
    assert res.code != 0 and "no docs folder found here" in res.err, res.err


def test_init_leaves_out_a_gallery_of_other_projects_pages(ctx, tmp_path):
    """Tried as a new user would on a static site generator's docs: four of its 129 themes' pages (each a theme's
    README, its repository in the front matter, a blank line before it) were HOT for "how do I add a taxonomy for
    tags", its page on taxonomies WARM. A folder of pages that link one repository each is no gallery."""
    themes = {f"themes/theme{i}/index.md": f'\n+++\ntitle = "theme{i}"\n[extra]\n'
                                            f'repository = "https://github.com/someone{i}/theme{i}.git"\n+++\n\n'
                                            f"# theme{i}\n\nSet taxonomies for tags in config.toml.\n"
              for i in range(12)}
    write_docs(tmp_path / "content", {**themes, "themes/_index.md": "+++\ntemplate = 'themes.html'\n+++\n",
                                      "documentation/taxonomies.md": "+++\ntitle = 'Taxonomies'\n+++\n\n"
                                                                    "Add a taxonomy for tags in config.toml.\n",
                                      **{f"guides/g{i}.md": f"---\ntitle: G{i}\nrepo: https://github.com/org/site\n"
                                                            f"---\n\nA guide.\n" for i in range(12)},
                                      "config.toml": "base_url = '/'\n"})
    res = ctx("init", "content")
    assert res.code == 0 and "other projects' pages left out: themes/;" in res.out, res.out
    derived = derived_keywords(tmp_path)
    assert not any(p.startswith("themes/") for p in derived) and "guides/g0.md" in derived
    assert "HOT] documentation/taxonomies.md" in ctx("route", "--dry-run", "add a taxonomy for tags").out


def test_init_leaves_out_the_pages_that_show_another_page(ctx, tmp_path):
    """Tried as a new user would on a data-fetching library's docs: 77 pages of four frameworks are front matter
    alone, `ref:` the React page their site shows, and were routed as their titles (an empty one HOT). A page
    with text of its own beside its `ref:` (its examples) stays."""
    write_docs(tmp_path, {
        "docs/framework/react/guides/caching.md": "---\ntitle: Caching\n---\n\nData goes stale after staleTime.\n",
        "docs/framework/vue/guides/caching.md": "---\ntitle: Caching\nref: docs/framework/react/guides/caching.md\n"
                                               "replace: { 'React': 'Vue' }\n---\n",
        "docs/framework/vue/guides/polling.md": "---\ntitle: Polling\nref: docs/framework/react/guides/polling.md\n"
                                               "---\n\n[//]: # 'Example1'\n\nuseQuery({ refetchInterval: 5000 })\n",
        "docs/framework/react/guides/polling.md": "---\ntitle: Polling\n---\n\nPoll with refetchInterval.\n",
        "docs/framework/vue/guides/lost.md": "---\ntitle: Lost\nref: docs/framework/react/guides/gone.md\n---\n",
        # a markdown comment alone is no text of its own (the site's copies mark where a framework's part goes)
        "docs/framework/vue/guides/retries.md": "---\ntitle: Retries\nref: docs/framework/react/guides/caching.md\n"
                                               "---\n\n[//]: # 'ReactNative'\n",
    })
    res = ctx("init")
    assert res.code == 0, res.out
    assert "copies left out: framework/vue/guides/caching.md, framework/vue/guides/retries.md;" in res.out, res.out
    derived = derived_keywords(tmp_path)
    assert "framework/vue/guides/caching.md" not in derived and "framework/vue/guides/retries.md" not in derived
    assert {"framework/vue/guides/polling.md", "framework/vue/guides/lost.md"} <= set(derived)
    assert "HOT] framework/react/guides/caching.md" in ctx("route", "--dry-run", "when does caching go stale").out


def test_init_leaves_out_the_shared_content_grafanas_pages_include(ctx, tmp_path):
    """Tried as a new user would on a telemetry collector's Hugo docs: its `tls` block, which 47 component
    pages include (`{{< docs/shared lookup="reference/components/tls-config-block.md" ... >}}`), was a page of its
    own and the component pages held the include line."""
    write_docs(tmp_path / "sources", {
        "shared/index.md": "---\nheadless: true\n---\n",
        "shared/reference/tls-config-block.md": "---\nheadless: true\n---\n\n| `ca_file` | CA to check. |\n",
        "reference/otelcol.exporter.otlp.md": "# otelcol.exporter.otlp\n\n## tls\n\n"
                                              '{{< docs/shared lookup="reference/tls-config-block.md" source="alloy" '
                                              'version="<ALLOY_VERSION>" >}}\n',
        "reference/prometheus.scrape.md": "# prometheus.scrape\n\nScrapes targets.\n"})
    res = ctx("init", "sources")
    assert res.code == 0 and "included pages left out: shared/reference/tls-config-block.md" in res.out, res.out
    res = ctx("route", "--dry-run", "which ca_file does the otlp exporter tls block take")
    assert "HOT] reference/otelcol.exporter.otlp.md" in res.out and "CA to check" in res.out, res.out
    assert "docs/shared" not in res.out
