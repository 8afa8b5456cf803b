import os
import socket
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_router.errors import DocsError
from context_router.store import globs, index

from .conftest import write_docs

LONG = "# Long\n" + "".join(f"line {i}\n" for i in range(40))


def test_scan_recursive_skips_hidden_and_non_md(tmp_path):
    write_docs(tmp_path, {"a.md": "# A\n", "sub/b.md": "# B\n", ".hidden/c.md": "x", "notes.txt": "x",
                          "sub/.d.md": "x"})
    assert sorted(index.scan(str(tmp_path)).files) == ["a.md", "sub/b.md"]


def test_gitignore_and_ctxignore(tmp_path):
    write_docs(tmp_path, {"a.md": "a", "drafts/b.md": "b", "c.md": "c", "keep/d.md": "d",
                          ".gitignore": "drafts/\n", ".ctxignore": "c.md\n"})
    assert sorted(index.scan(str(tmp_path)).files) == ["a.md", "keep/d.md"]


def test_ignore_answers_are_remembered(tmp_path):
    write_docs(tmp_path, {"a.md": "a", "drafts/b.md": "b", ".gitignore": "drafts/\n"})
    first = index.scan(str(tmp_path))
    assert first.ignore is not None and first.ignore.answers == {"a.md": False, "drafts/": True}
    again = index.scan(str(tmp_path), first.ignore)
    assert again.ignore is None and again.files == first.files  # nothing new to remember
    (tmp_path / ".gitignore").write_text("a.md\n")
    changed = index.scan(str(tmp_path), first.ignore)
    assert sorted(changed.files) == ["drafts/b.md"]  # a changed ignore file is read again
    assert index.scan(str(tmp_path / "drafts")).ignore is None  # no ignore file: nothing to remember


def test_missing_root_is_a_clear_error(tmp_path):
    with pytest.raises(DocsError, match="docs folder not found"):
        index.scan(str(tmp_path / "nope"))
    (tmp_path / "file").write_text("x")
    with pytest.raises(DocsError, match="not a folder"):
        index.scan(str(tmp_path / "file"))


def test_header_stops_at_lines_or_marker():
    header, truncated = index.header_of(LONG, 25)
    assert header.splitlines()[-1] == "line 23" and len(header.splitlines()) == 25 and truncated
    text = "# M\nrole\n" + index.WARM_MARKER + "\nsecret body\n"
    header, truncated = index.header_of(text, 25)
    assert header == "# M\nrole" and truncated
    assert index.header_of("# Short\nbody\n", 25) == ("# Short\nbody", False)
    # Cut inside a code block, it closes the block: the truncation line after it read as code (an orchestrator's
    # task page, its header ending in a ```shell block)
    header, truncated = index.header_of("# Drain\n\n````shell\nkubectl drain n1\nsystemctl stop kubelet\n````\n", 5)
    assert header == "# Drain\n\n````shell\nkubectl drain n1\n````" and truncated


def test_front_matter_parsed_and_stripped():
    text = "---\nkeywords: [Alpha, beta]\nrelated: other.md\npinned: hot\ndecay: 0.9\n---\n# Title\nbody\n"
    doc = index.parse_doc("x.md", (1, len(text)), text, 25)
    assert (doc.title, doc.keywords, doc.related, doc.pinned, doc.decay) == (
        "Title", ("Alpha", "beta"), ("other.md",), "hot", 0.9)
    assert doc.header == "# Title\nbody"
    dotted = index.parse_doc("z.md", (1, 1), "---\nrelated: [./sub/a.md, 'sub\\b.md']\n---\n# Z\n", 25)
    assert dotted.related == ("sub/a.md", "sub/b.md")  # the same path form as config paths
    bad = index.parse_doc("y.md", (1, 1), "---\nkeywords: [\n---\n# T\n", 25)
    assert bad.keywords == () and bad.warnings and "invalid front matter" in bad.warnings[0]


def test_diff_reads_only_changed_files(tmp_path):
    write_docs(tmp_path, {"a.md": "# A\n", "b.md": "# B\n"})
    first = index.scan(str(tmp_path)).files
    changes = index.diff(str(tmp_path), first, {}, 25, 10**6)
    assert sorted(d.path for d in changes.changed) == ["a.md", "b.md"]
    os.utime(tmp_path / "a.md", ns=(1, 1))
    (tmp_path / "b.md").unlink()
    second = index.scan(str(tmp_path)).files
    changes = index.diff(str(tmp_path), second, first, 25, 10**6)
    assert [d.path for d in changes.changed] == ["a.md"] and changes.removed == ("b.md",)


def test_docs_read_whatever_the_deadline_are_bounded_by_their_size_too(tmp_path):
    """`at_least` docs are read past the deadline while they hold AT_LEAST_DOC_BYTES each on average: a
    folder of huge generated pages is not read whole by a turn that promised to stay short."""
    small = {f"s{i}.md": "# S\n\nshort page\n" for i in range(6)}
    big = {f"b{i}.md": "# B\n\n" + "word " * (index.AT_LEAST_DOC_BYTES // 2) for i in range(6)}
    for name, docs in (("small", small), ("big", big)):
        write_docs(tmp_path / name, docs)
        files = index.scan(str(tmp_path / name)).files
        changes = index.diff(str(tmp_path / name), files, {}, 25, 10**7, deadline=0.0, at_least=5)
        read = len(changes.changed)
        # past its deadline from the start: 5 small docs, but only as many big ones as 5 x 20 KB holds
        assert read == (5 if name == "small" else 2) and len(changes.pending) == 6 - read


def test_hostile_files_are_skipped(tmp_path):
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    write_docs(outside, {"secret.md": "TOP SECRET\n", "dir/s2.md": "TOP SECRET 2\n"})
    write_docs(root, {"ok.md": "# Ok\n", "inner/real.md": "# Real\n"})
    (root / "link-out.md").symlink_to(outside / "secret.md")
    (root / "dir-out").symlink_to(outside / "dir")
    (root / "link-in.md").symlink_to(root / "inner" / "real.md")  # an alias: the doc is listed once
    (root / "alias").symlink_to(root / "inner")  # a folder alias, as pages.en -> pages
    write_docs(root, {".hidden/h.md": "# Hidden\n"})
    (root / "shown").symlink_to(root / ".hidden")  # the only way the walk reaches these docs: followed
    os.mkfifo(root / "fifo.md")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "sock.md"))
    (root / "binary.md").write_bytes(b"# Bin\x00\x01\x02")
    (root / "latin1.md").write_bytes(b"# Caf\xe9\n")
    try:
        files = index.scan(str(root)).files
        assert sorted(files) == ["binary.md", "inner/real.md", "latin1.md", "ok.md", "shown/h.md"]
        assert index.read_text(str(root), "link-out.md") is None  # even when asked directly
        assert index.read_text(str(root), "fifo.md") is None
        changes = index.diff(str(root), files, {}, 25, 10**6)
        assert changes.skipped == ("binary.md",)
        latin = next(d for d in changes.changed if d.path == "latin1.md")
        assert latin.title == "Caf\ufffd"
    finally:
        sock.close()


def test_oversize_doc_indexed_by_header(tmp_path):
    write_docs(tmp_path, {"big.md": LONG * 50})
    doc = index.load_doc(str(tmp_path), "big.md", (1, len(LONG) * 50), 25, 1000)
    assert doc is not None and doc.oversize and doc.truncated and doc.title == "Long"


def test_ignore_patterns_with_many_single_stars_match_at_once(tmp_path):
    # Twenty-one `*` around `a`: a backtracking regex takes minutes on an 80-char name that fails to match.
    hostile = "*a" * 20 + "*c.md"
    write_docs(tmp_path, {"a" * 80 + ".md": "a", "ba" * 20 + "c.md": "b", "sub/" + "a" * 200 + "c.md": "c",
                          ".gitignore": hostile + "\n"})
    start = time.monotonic()
    scan = index.scan(str(tmp_path))
    assert time.monotonic() - start < 10  # at once; a backtracking matcher takes minutes
    assert sorted(scan.files) == ["a" * 80 + ".md"] and scan.warnings == ()  # the pattern holds, and is kept


def test_a_path_without_a_patterns_letters_is_told_at_once(monkeypatch):
    """Tried as a new user would (`ctx init .` on a command reference): an ignore file of 50 lines (a folder
    of translations each, `*.de.md`) walked every line for each of 7,400 docs, half of init's time."""
    spec = globs.Spec(["/pages.ar/", "*.de.md", "docs/**/draft-*.md"])

    def walked(*args):
        raise AssertionError("walked")

    monkeypatch.setattr(globs.Pattern, "_from", walked)
    assert not spec.match_file("pages/common/tar.md")
    with pytest.raises(AssertionError):
        spec.match_file("pages.ar/common/tar.md")  # holds the letters: matched in full


GLOB_PARTS = ["a", "b", "*", "?", "/", "**", "[ab]", "[a-b]", "\\*", "!"]


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(st.lists(st.sampled_from(GLOB_PARTS), min_size=1, max_size=7).map("".join),
                      min_size=1, max_size=3),
       paths=st.lists(st.lists(st.sampled_from(["a", "b", "ab", "ba", "a*"]), min_size=1, max_size=5)
                      .map("/".join), min_size=1, max_size=6),
       folder=st.booleans())
def test_ignore_matching_agrees_with_pathspec(lines, paths, folder):
    """The matcher that replaced pathspec answers as pathspec's GitIgnoreSpec does."""
    import pathspec

    try:
        reference = pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # a line pathspec refuses outright; ours drops it, as git does
        return
    ours = globs.Spec(lines)
    for path in paths:
        path += "/" if folder else ""
        assert ours.match_file(path) == reference.match_file(path), (lines, path)


def test_toml_front_matter_without_a_reader_says_the_doc_is_indexed(monkeypatch):
    monkeypatch.setattr(index, "toml", lambda: None)
    meta, body, warning = index.split_front_matter("+++\ntitle = 'T'\n+++\n# T\nbody\n")
    assert meta == {} and body == "# T\nbody\n"
    assert warning == ("TOML front matter not read: this Python has no TOML reader; pip install tomli "
                       "(the doc is indexed without it)")


def test_an_agents_front_matter_that_yaml_rejects_is_read_as_claude_code_reads_it():
    """Tried as a new user would on Claude Code's own plugins: ten agents' `description: ... Examples:
    <example>Context: ...` (an unquoted colon) were warned about and indexed without a name, as untitled."""
    text = ("---\nname: code-reviewer\ndescription: Use this agent to review code. Examples: <example>Context: the "
            "user asks\nuser: \"review my diff\"\n<commentary>\nmodel: opus\ntools: [\"Read\", \"Grep\"]\n---\n\n"
            "You are an expert code reviewer.\n")
    doc = index.parse_doc("agents/code-reviewer.md", (1, len(text)), text, 25)
    assert doc.title == "code-reviewer" and not doc.warnings
    meta, _, warning = index.split_front_matter(text)
    assert warning is None and meta["tools"] == ["Read", "Grep"] and meta["description"].startswith("Use this")
    assert index.split_front_matter("---\ntitle: a: b\n---\nx\n")[0] == {"title": "a: b"}


def test_a_front_matter_value_that_starts_with_a_reserved_mark_is_its_text():
    """Tried as a new user would on a web framework's docs: `title: @sveltejs/kit/hooks` (`@` is reserved in
    YAML) was warned about on every module's page, and the page was indexed without its title."""
    text = "---\ntitle: @sveltejs/kit/hooks\n---\n\n> MODULE: @sveltejs/kit/hooks\n"
    doc = index.parse_doc("98-reference/15-@sveltejs-kit-hooks.md", (1, len(text)), text, 25)
    assert doc.title == "@sveltejs/kit/hooks" and not doc.warnings


@pytest.mark.parametrize("block", ["keywords: [", "s: \"\\xZZ\"", "title: x\n  - bad: [", "a: b\n- c"])
def test_front_matter_broken_as_yaml_of_its_own_is_still_warned_about(block):
    meta, body, warning = index.split_front_matter(f"---\n{block}\n---\n# T\n")
    assert meta == {} and body == "# T\n" and warning and warning.startswith("invalid front matter")


def test_a_pages_script_and_style_blocks_are_not_its_text():
    """Tried as a new user would on a build tool's VitePress docs: "svg raw" made HOT the page whose
    `<script setup>` imported `bundler.svg?raw`. A script shown inside a code block is the page's text."""
    from context_router.store.index import readable

    page = ("<script setup>\nimport bundlerSvg from '../images/bundler.svg?raw'\n</script>\n\n# Why\n\nText.\n"
            "<style scoped>\n.a { color: red }\n</STYLE>\n\n```html\n<script>\nkeep()\n</script>\n```\n")
    out = readable(page, "why.md")
    assert "bundler.svg" not in out and "color: red" not in out and "# Why\n\nText.\n" in out
    assert "<script>\nkeep()\n</script>" in out


def test_underlined_headings_are_read_as_headings(ctx, tmp_path):
    """Tried as a new user would on a workflow engine's monorepo: READMEs headed `Title` over `====` had no title,
    and `ctx show README.md How` (`How` over `---`) found no section. What ctx indexes and prints takes the
    underlined title only (its sections, split so, cost four answers in context on the dev set)."""
    from context_router.store.index import heading_title, readable, setext_as_atx
    from context_router.turn import sections

    page = ("Cassandra schema\n================\n\nIntro.\n\nHow\n---\n\nRun the tool.\n\n---\n\nAfter a rule.\n\n"
            "```\nCode\n---\n```\n- item\n--\n")
    body = readable(page, "README.md")
    assert body.startswith("# Cassandra schema\n\nIntro.\n\nHow\n---\n") and heading_title(body) == "Cassandra schema"
    every = setext_as_atx(body)
    assert every.startswith("# Cassandra schema\n\nIntro.\n\n## How\n\nRun the tool.\n\n---\n\nAfter a rule.")
    assert "```\nCode\n---\n```\n- item\n--\n" in every  # code, and what is no one-line paragraph, stay
    assert sections.titles(every) == ["How"]
    write_docs(tmp_path / "d", {"README.md": page})
    (tmp_path / "config.yaml").write_text("docs: d\n")
    res = ctx("show", "README.md", "How")
    assert res.code == 0 and res.out.startswith("## How\n\nRun the tool."), res.out + res.err


@pytest.mark.parametrize(("page", "read"), [
    # Tried as a new user would on a tracing backend's docs: `{{< admonition type="note" >}}` forty times in one
    # conversation's output. What the shortcodes wrap stays; a shortcode shown in a code block is text.
    ('# Limits\n\n{{< admonition type="note" >}}\nKeep the limit under 5 MB.\n{{< /admonition >}}\n\n'
     '{{% docs/shared source="loki" lookup="x.md" %}}\nSee {{< relref "./a.md" >}} too.\n\n'
     '```\n{{< youtube id >}}\n```\n',
     '# Limits\n\nKeep the limit under 5 MB.\n\nSee {{< relref "./a.md" >}} too.\n\n```\n{{< youtube id >}}\n```\n'),
    # Tried as a new user would on a messaging system's GitBook: 250 `{% tab %}`/`{% endtab %}` lines in one
    # conversation's output. Jekyll's highlight block is a code block; a tag inside a line, or in a code block,
    # is text.
    ('# Consumers\n\n{% tabs %}\n{% tab title="Go" %}\n```go\njs.PullSubscribe()\n```\n{% endtab %}\n'
     '{% endtabs %}\n\n{% hint style="info" %}\nAcks are needed. {% endhint %}\n\n'
     '{% highlight ruby %}\nputs 1\n{% endhighlight %}\n\n```\n{% raw %}\n```\n',
     '# Consumers\n\n```go\njs.PullSubscribe()\n```\n\nAcks are needed. {% endhint %}\n\n```ruby\nputs 1\n```\n\n'
     '```\n{% raw %}\n```\n'),
    # Tried as a new user would on a state library's Docusaurus docs: `:::tip What You'll Learn`, `:::info` and
    # `:::` opened its tutorials' output. A container's title stays as a line; mkdocstrings' `::: module.name`
    # names what the page documents, and stays.
    ("# Thunks\n\n:::tip What You'll Learn\n- thunks\n:::\n\n:::note[Heads up]\nAsync.\n:::\n\n"
     '::: code-group\n```sh\n:::\n```\n:::\n\n::: app.thunks\n',
     "# Thunks\n\nWhat You'll Learn\n- thunks\n\n\nHeads up\nAsync.\n\n\n\n```sh\n:::\n```\n\n\n::: app.thunks\n"),
    # Tried as a new user would on a web framework's Nuxt Content docs: 40 MDC block lines (`::tip{icon=...}`,
    # `::`) in a turn. A C++ or Rust path at a line's start (`::std::move`) and a code block's lines stay.
    ('# Data\n\n::tip{icon="i-lucide-rocket"}\nUse `useFetch`.\n::\n\n::code-group\n```ts\n::\n```\n::\n\n'
     '::read-more{to="/docs/api"}\n::\n\n::std::move is a path.\n',
     '# Data\n\n\nUse `useFetch`.\n\n\n\n```ts\n::\n```\n\n\n\n\n\n::std::move is a path.\n'),
    # Tried as a new user would on a database library's tutorial: a section's part opened with the `///` that
    # closed a tip. Python Markdown's block markers go, their title stays; a code block's `/// file: a.js` and a
    # sentence that starts with slashes stay.
    ('# Engine\n\n/// tip\n\nUse echo.\n\n///\n\n/// details | Why so?\n\nx\n\n///\n\n'
     '```js\n/// file: a.js\n```\n\n/// not a marker.\n',
     '# Engine\n\n\n\nUse echo.\n\n\n\nWhy so?\n\nx\n\n\n\n```js\n/// file: a.js\n```\n\n/// not a marker.\n'),
])
def test_a_line_that_is_one_shortcode_or_liquid_tag_is_not_text(page, read):
    """The site's markup around what a page says (a Hugo shortcode, a GitBook or Jekyll Liquid tag) is left out;
    what it wraps stays."""
    from context_router.store.index import readable

    assert readable(page, "p.md") == read


def test_docusaurus_highlight_comments_are_not_text():
    """Tried as a new user would on a state library's Docusaurus docs: 709 lines like `// highlight-next-line` in
    its code blocks, which the site prints none of. Outside a code block, or with more words, a line stays."""
    from context_router.store.index import readable

    page = ("# Thunks\n\n```ts\n// highlight-next-line\nimport x\n  // highlight-start\n  a()\n  // highlight-end\n"
            "{/* highlight-next-line */}\n# highlight-next-line\n// highlight-next-line, then this\n```\n\n"
            "// highlight-next-line\n")
    assert readable(page, "t.md") == ("# Thunks\n\n```ts\nimport x\n  a()\n// highlight-next-line, then this\n```\n\n"
                                      "// highlight-next-line\n")


def test_link_reference_definitions_are_not_text():
    """Tried as a new user would on an API framework's docs: a turn printed 29 lines like `[cite]: https://...`,
    which markdown shows none of. A footnote is shown; a line that only starts like one is a paragraph."""
    from context_router.store.index import readable

    page = ('# Views\n\nSee [the guide][cite].\n\n[cite]: https://docs.example.com/views/\n'
            '  [img]: ../img/admin.png "The admin"\n[^1]: A footnote.\n[Note]: read this first please.\n\n'
            '```\n[x]: kept.md\n```\n')
    assert readable(page, "v.md") == ('# Views\n\nSee [the guide][cite].\n\n[^1]: A footnote.\n'
                                      '[Note]: read this first please.\n\n```\n[x]: kept.md\n```\n')


def test_a_heading_indented_up_to_three_spaces_is_a_heading(ctx, tmp_path):
    """Tried as a new user would on a messaging system's GitBook: ` ## Dispatch type` was no section, and `ctx show`
    found none. Four spaces make code; in a code block it is text."""
    from context_router.store.index import readable
    from context_router.turn import sections

    page = "# Consumers\n\n ## Dispatch type\n\nPull or push.\n\n    ## code\n\n```\n  ## text\n```\n"
    body = readable(page, "c.md")
    assert sections.titles(body) == ["Dispatch type"] and "    ## code" in body and "  ## text" in body
    write_docs(tmp_path / "d", {"c.md": page})
    (tmp_path / "config.yaml").write_text("docs: d\n")
    res = ctx("show", "c.md", "Dispatch type")
    assert res.code == 0 and res.out.startswith("## Dispatch type\n\nPull or push."), res.out + res.err


def test_a_page_titled_by_a_third_level_heading_is_sectioned_under_it(ctx, tmp_path):
    """Tried as a new user would on a web framework's docs: every page opens with `### Controllers` and is
    sectioned by `####`, so each page was one section, and `ctx show controllers.md "Request object"` found
    none. A page with `##` sections keeps its levels."""
    from context_router.store.index import readable
    from context_router.turn import sections

    page = ("### Controllers\n\nIntro.\n\n#### Routing\n\nRoutes.\n\n#### Request object\n\nThe request.\n\n"
            "```ts\n### not a heading\n```\n")
    body = readable(page, "controllers.md")
    assert body.startswith("# Controllers\n") and sections.titles(body) == ["Routing", "Request object"]
    assert "### not a heading" in body
    assert readable("## Usage\n\n### Install\n", "u.md") == "## Usage\n\n### Install\n"
    assert readable("### One\n\n### Two\n", "t.md") == "### One\n\n### Two\n"  # two at the top: no title
    write_docs(tmp_path / "d", {"controllers.md": page})
    (tmp_path / "config.yaml").write_text("docs: d\n")
    res = ctx("show", "controllers.md", "Request object")
    assert res.code == 0 and res.out.startswith("## Request object\n\nThe request."), res.out + res.err


def test_a_page_sectioned_by_first_level_headings_is_read_a_level_lower(ctx, tmp_path):
    """Tried as a new user would on a policy controller's docs: a page titled in its front matter and sectioned
    by `# ` headings had no section, and `ctx show mutation-background "Mutation Recursion"` found none. A page
    with one `# ` heading, its title, keeps its levels; a `# ` line in a code block is code."""
    from context_router.store.index import readable
    from context_router.turn import sections

    page = "# Mutation Recursion\n\nLoops.\n\n# Mutation Chaining\n\nChains.\n\n## Detail\n\nMore.\n\n```sh\n# c\n```\n"
    body = readable(page, "m.md")
    assert sections.titles(body) == ["Mutation Recursion", "Mutation Chaining", "Detail"] and "\n# c\n" in body
    assert readable("# Title\n\n## A\n\n```\n# not a heading\n```\n", "t.md") == \
        "# Title\n\n## A\n\n```\n# not a heading\n```\n"
    # the title, its `##` sections, and a stray `# ` line of an unfenced example: the levels stay
    stray = "# Configuration\n\n## `<remote_write>`\n\nurl: x\n\n# Tune it\nqueue: 1\n"
    assert readable(stray, "c.md") == stray
    write_docs(tmp_path / "d", {"m.md": "---\ntitle: Mutation\n---\n" + page})
    (tmp_path / "config.yaml").write_text("docs: d\n")
    res = ctx("show", "m.md", "Mutation Chaining")
    assert res.code == 0 and res.out.startswith("## Mutation Chaining\n\nChains."), res.out + res.err
