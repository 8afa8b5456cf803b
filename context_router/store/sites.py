"""The titles a docs site gives the pages that have no `# Title` of their own.

An mkdocs site titles them by its nav (store/mkdocs.py). A book titles them by its SUMMARY.md, the table of
contents mdBook and GitBook build the book from: `- [Installation](ch01-01-installation.md)`. The chapters
of such a book often open at `## `, so without it most of a book's pages have no title to be found by.
Only the files are read, never the tools run.
"""

from __future__ import annotations

import os

from . import index, mkdocs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

SUMMARY = "SUMMARY.md"
BOOK = "book.toml"
MAX_BYTES = 1_000_000  # a real SUMMARY.md or book.toml is a few KB; a bigger one is not read

# A link to a page in a list of contents: `[Title](path.md)` or `[Title](path.md#anchor)`.
_ENTRY = r"\[((?:[^\[\]]|\[[^\[\]]*\])+)\]\(\s*<?([^()\s<>]+?\.md)(?:#[^()\s]*)?>?(?:\s+\"[^\"]*\")?\s*\)"

_ESCAPED = r"\\([!-/:-@\[-`{-~])"  # a backslash escape (CommonMark's, in a link's target too)


def _read(folder: str, name: str) -> str | None:
    """A small file's text, read as a doc is (index.read_bytes: inside the folder, never blocking), or None.
    A stat first: on a turn the file is most often not there, and that costs one call."""
    if not os.path.isfile(os.path.join(folder, name)):
        return None
    data = index.read_bytes(folder, name, limit=MAX_BYTES + 1)
    return data.decode("utf-8", errors="replace") if data is not None and len(data) <= MAX_BYTES else None


def book_src(folder: str) -> str | None:
    """The source folder of the book whose book.toml is in this folder (mdBook's `[book] src`, by default
    `src`), or None when there is no book.toml here."""
    text = _read(folder, BOOK)
    if text is None:
        return None
    src = "src"
    table = ""
    for line in text.splitlines():  # plain string work: a turn checks this file, and never imports re
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            table = line
        elif table == "[book]" and line.partition("=")[0].strip() == "src":
            value = line.partition("=")[2].strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                src = value[1:-1].strip() or src
    return os.path.normpath(os.path.join(folder, src))


GITBOOK = ".gitbook.yaml"


def gitbook_root(folder: str) -> str | None:
    """The folder of the GitBook book in this folder: its `.gitbook.yaml`'s `root` (by default this folder), or
    this folder when it holds a legacy GitBook's `book.json` and SUMMARY.md; None when there is no book here.
    Tried as a new user would on a messaging system's GitBook: `ctx init` took its `docs/` (built HTML, three
    stale pages) for the book at the repo's root. A `.gitbook.yaml` that names no root, and whose summary
    (`structure: summary:`, by default SUMMARY.md) is not there, is a book no longer kept here: tried as a new
    user would on a state library's repo, whose site is a Docusaurus one, `ctx init` took the whole repo."""
    text = _read(folder, GITBOOK)
    if text is None:
        return folder if os.path.isfile(os.path.join(folder, "book.json")) and \
            os.path.isfile(os.path.join(folder, SUMMARY)) else None
    root = ""
    summary = SUMMARY
    for line in text.splitlines():  # plain string work, as book_src
        key, _, value = line.split("#", 1)[0].partition(":")
        if key == "root":
            root = value.strip().strip("\"'")
        elif key.strip() == "summary" and key[:1] == " ":
            summary = value.strip().strip("\"'") or summary
    found = os.path.normpath(os.path.join(folder, root))
    if not os.path.isdir(found) or os.path.relpath(found, folder).startswith(os.pardir):
        found = folder
    return found if root or os.path.isfile(os.path.join(found, summary)) else None


VITEPRESS = ".vitepress"
VITEPRESS_CONFIGS = ("config.ts", "config.mts", "config.js", "config.mjs")


def vitepress_src(folder: str) -> str | None:
    """The source folder of the VitePress site whose `.vitepress/` is in this folder (its config's `srcDir`, by
    default the site's own folder), or None when there is no `.vitepress/` here."""
    if not os.path.isdir(os.path.join(folder, VITEPRESS)):
        return None
    src = "."
    for name in VITEPRESS_CONFIGS:
        text = _read(os.path.join(folder, VITEPRESS), name)
        if text is None:
            continue
        for line in text.splitlines():  # `srcDir: 'src',` as the config's own key (a computed value is not read)
            key, _, value = line.strip().partition(":")
            value = value.strip().rstrip(",").strip()
            quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'`"
            if key.strip().strip("\"'") == "srcDir" and quoted:
                src = value[1:-1].strip() or src
                break
        break
    return os.path.normpath(os.path.join(folder, src))


DOCUSAURUS_CONFIGS = tuple(f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts"))
SITE_FOLDERS = ("website", "www", "site")  # where a project keeps its site beside its code


def docusaurus_docs(folder: str) -> str | None:
    """The docs folder of the Docusaurus site whose config is in this folder: its docs' `path` (the preset's
    `docs: {path: "documentation"}`), when that folder is there; None otherwise (a site whose docs are the
    default `docs/` is found by that name). Tried as a new user would on a database's docs: `ctx init` found
    no docs folder in a site whose docs are in `documentation/`."""
    import re  # `ctx init` only

    for name in DOCUSAURUS_CONFIGS:
        text = _read(folder, name)
        if text is None:
            continue
        start = re.search(r"\bdocs\s*:\s*\{", text)
        if start is None:
            return None
        depth = 0
        for at in range(start.end() - 1, len(text)):  # the `path` key of the docs object itself, not a nested one
            ch = text[at]
            depth += (ch == "{") - (ch == "}")
            if depth == 0:
                return None
            found = re.match(r"path\s*:\s*([\"'`])([^\"'`]+)\1", text[at:at + 300]) if depth == 1 else None
            if found and not (text[at - 1].isalnum() or text[at - 1] == "_"):
                path = os.path.normpath(os.path.join(folder, found.group(2)))
                return path if os.path.isdir(path) else None
    return None


def skips_underscored(docs_root: str) -> bool:
    """Whether the site these docs are built by publishes no page of a file or folder named `_*` (a partial
    another page imports): Docusaurus (its config here or one folder up, or a site beside these docs whose
    config names them: a state library's `website/` publishes `../docs`), Astro's content collections
    (`src/content/docs`), docsify, a GitHub wiki and Quarto (its `_quarto.yml` here or one folder up). Hugo's
    `_index.md` is a page: other sites keep them."""
    root = os.path.abspath(docs_root)
    if root.replace(os.sep, "/").endswith("/src/content/docs") or docsify(root) or github_wiki(root):
        return True
    up = os.path.dirname(root)
    if quarto(root) or quarto(up) or any(os.path.isfile(os.path.join(folder, name)) for folder in (root, up)
                                         for name in DOCUSAURUS_CONFIGS):
        return True
    return any(docusaurus_docs(os.path.join(up, site)) == root for site in SITE_FOLDERS)


QUARTO_CONFIGS = ("_quarto.yml", "_quarto.yaml")


def r_package(folder: str) -> bool:
    """Whether this folder is an R package with docs of its own: its `DESCRIPTION` beside `vignettes/` or a
    pkgdown config. Its site is the folder's README, NEWS and vignettes (the reference is in `man/`, as .Rd)."""
    return os.path.isfile(os.path.join(folder, "DESCRIPTION")) and (
        os.path.isdir(os.path.join(folder, "vignettes"))
        or any(os.path.isfile(os.path.join(folder, name)) for name in ("_pkgdown.yml", "_pkgdown.yaml")))


def quarto(folder: str) -> bool:
    """Whether this folder is a Quarto project's (its `_quarto.yml`): its pages are the folder's own, and it
    renders no file or folder named `_*`."""
    return any(os.path.isfile(os.path.join(folder, name)) for name in QUARTO_CONFIGS)


def sphinx_source(folder: str) -> str | None:
    """The source folder of the Sphinx project here: this folder, or the one folder just inside it, that holds
    a `conf.py` beside an `index` (or `contents`) page; None when there is none. Tried as a new user would on a
    database toolkit's repo: its pages are in `doc/build/` (Sphinx's source, whatever its name), and `ctx init`
    took `doc/`, every page's path starting `build/`."""
    def is_source(path: str) -> bool:
        return os.path.isfile(os.path.join(path, "conf.py")) and any(
            os.path.isfile(os.path.join(path, name)) for name in SPHINX_ROOTS)

    if is_source(folder):
        return folder
    try:
        inner = [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if not name.startswith(".")]
    except OSError:
        return None
    found = [path for path in inner if os.path.isdir(path) and is_source(path)]
    return found[0] if len(found) == 1 else None


SPHINX_ROOTS = ("index.rst", "index.md", "contents.rst")


def sites_inside(docs_root: str) -> list[str]:
    """The folders just inside these docs that hold a Docusaurus site's config (a monorepo's `docs/` or
    `website/`, when the docs folder is the whole repo): their `_*` files are partials, as skips_underscored
    says of a site the docs are."""
    try:
        names = sorted(os.listdir(docs_root))
    except OSError:
        return []
    return [name for name in names if not name.startswith(".") and any(
        os.path.isfile(os.path.join(docs_root, name, config)) for config in DOCUSAURUS_CONFIGS)]


def docsify(docs_root: str) -> bool:
    """Whether these docs are a docsify site's (its `index.html` loads docsify): `_sidebar.md`, `_navbar.md`
    and `_coverpage.md` are its navigation and cover, and `_media/` what pages embed; none is a page. Tried as a
    new user would on docsify's own docs: the sidebar's list of links came HOT for "how do I add a sidebar?",
    and `ctx check` asked four of them for a title."""
    text = _read(docs_root, "index.html")
    return text is not None and "docsify" in text


def github_wiki(docs_root: str) -> bool:
    """Whether these docs are a GitHub wiki's clone: its `Home.md` and a `_Sidebar.md` or `_Footer.md`, which
    GitHub shows beside every page and as no page of its own."""
    return os.path.isfile(os.path.join(docs_root, "Home.md")) and any(
        os.path.isfile(os.path.join(docs_root, name)) for name in ("_Sidebar.md", "_Footer.md"))


def mintlify(docs_root: str) -> bool:
    """Whether these docs are a Mintlify site's: its `mint.json`, or a `docs.json` with a `navigation` (what
    Mintlify publishes a page of). Its `snippets/` are imported by pages and published as none."""
    if os.path.isfile(os.path.join(docs_root, "mint.json")):
        return True
    text = _read(docs_root, "docs.json")
    return text is not None and '"navigation"' in text


def find_summary(docs_root: str) -> tuple[str, str] | None:
    """(the SUMMARY.md that lists these docs, its folder relative to the docs root as a path prefix): the
    docs root's own, else the one in the source folder of a book.toml in the docs root."""
    own = os.path.join(docs_root, SUMMARY)
    if os.path.isfile(own):
        return own, ""
    src = book_src(docs_root)
    if src is not None and os.path.isfile(os.path.join(src, SUMMARY)):
        rel = os.path.relpath(src, docs_root).replace(os.sep, "/")
        if rel != os.pardir and not rel.startswith(os.pardir + "/"):
            return os.path.join(src, SUMMARY), "" if rel == "." else rel + "/"
    return None


def summary_titles(docs_root: str) -> dict[str, str] | None:
    """Doc path (relative to docs_root) -> its title in the book's SUMMARY.md; None when no SUMMARY.md lists
    these docs."""
    found = find_summary(docs_root)
    if found is None:
        return None
    text = _read(*os.path.split(found[0]))
    if text is None:
        return None
    import re  # only when a doc is read, never on a turn that reads none

    prefix = found[1]
    titles: dict[str, str] = {}
    for title, target in re.findall(_ENTRY, text):
        target = re.sub(_ESCAPED, r"\1", target)  # `release\_notes/whats\_new.md`, as GitBook writes a path
        if "://" in target or target.startswith(("/", "mailto:")):
            continue
        page = os.path.normpath(prefix + target).replace(os.sep, "/")
        name = " ".join(title.split())
        if name and not page.startswith("../"):
            titles.setdefault(page, name)
    return titles


def titler(docs_root: str) -> Callable[[str], str]:
    """doc path -> the title the docs' site gives a doc that has none of its own ('' where none does): an
    mkdocs site's (its nav entry, else its file name), else a book's SUMMARY.md entry. Each file is read on
    the first call."""
    mkdocs_title = mkdocs.titler(docs_root)
    book: list[dict[str, str] | None] = []

    def title(rel: str) -> str:
        given = mkdocs_title(rel)
        if given:
            return given
        if not book:
            book.append(summary_titles(docs_root))
        return (book[0] or {}).get(rel, "")

    return title


def signature(docs_root: str) -> tuple[object, ...]:
    """What the site's files are now (path, mtime, size): the index reads its titles again when it changes."""
    found = find_summary(docs_root)
    summary = None
    if found is not None:
        try:
            st = os.stat(found[0])
            summary = (found[0], st.st_mtime_ns, st.st_size)
        except OSError:
            summary = None
    return mkdocs.find(docs_root), summary
