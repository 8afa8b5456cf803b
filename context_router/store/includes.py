"""The text a docs site puts into a page where the page says so, read as the site's build reads it.

A page may hold only a line that names another file: mkdocs' snippets (`--8<-- "CONTRIBUTING.md"`,
`--8<-- "docs/source_files/pixi.toml:minimal"`), mdBook's `{{#include ./generated/commands.md}}` (and
`{{#rustdoc_include}}`), VitePress' `<!--@include: ./parts/basics.md-->` and its code import
`<<< ./example.yaml#content`, Quarto's `{{< include _setup.qmd >}}`, Sphinx's `.. include:: intro.rst` and MyST
```` ```{include} ../CHANGES.md ````; and Hugo's `{{< param "PRODUCT_NAME" >}}`, the value the page's front matter
or a `cascade:` in the `_index.md` of a folder above it sets, and Grafana's `{{< docs/shared lookup="..." >}}`,
a file of the docs' `shared/` folder, and the file a Hugo site's include shortcode names
(`{{% g_include file="includes/repository.md" %}}`). The model is shown what the reader sees: the file,
or its named part, in place of the line. A path that does not resolve inside the site (the folder of its
mkdocs.yml, book.toml, `.vitepress`, `_quarto.yml` or Sphinx's `conf.py`, else the docs) keeps its line, as the
site would fail on it. Tried as a new user would: a contributing page was its one include line, and a how-to's
example code was a list of include lines.

Plain string work: the hook path never imports re. Only the files are read, never the tools run.
"""

from __future__ import annotations

import os
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Read = Callable[[str, str, "int | None"], "bytes | None"]  # (root, rel, limit) -> bytes (index.read_bytes)

SNIPPET = "--8<--"  # mkdocs (pymdownx.snippets)
BOOK = ("{{#include ", "{{#rustdoc_include ")  # mdBook
VITEPRESS = "<!--@include:"
CODE_IMPORT = "<<< "  # VitePress: a code file as a code block
PARAM = ("{{< param ", "{{% param ")  # Hugo: a front matter value (the page's, or cascaded from a section's)
QUARTO = "{{< include "  # Quarto: `{{< include _setup.qmd >}}`, from the page's folder (`/...`: the project's)
RST = ".. include::"  # reStructuredText (Sphinx): `.. include:: /_parts/intro.rst`, as Quarto's
MYST = ("```{include}", ":::{include}")  # MyST markdown (Sphinx): a directive's block, its options, its fence
SHARED = ("{{< docs/shared ", "{{% docs/shared ")  # Grafana's Hugo docs: `lookup="tls-block.md"` in `shared/`
HUGO = ("{{<", "{{%")  # a Hugo shortcode; one named for including (`g_include`, `readfile`):
HUGO_NAMES = ("include", "readfile")  # `{{% g_include file="includes/repository.md" %}}`, `{{< include "x.md" >}}`
HUGO_FOLDERS = ("includes", "_includes")  # where a site's include shortcode reads a bare name from
MAX_DEPTH = 3  # an included page's own includes, so deep
MAX_CHARS = 1_000_000  # a page is not grown past this by its includes
MAX_UP = 4  # folders above the docs to look in for the site's root (stopping at the repository root)
SITE_MARKS = ("mkdocs.yml", "mkdocs.yaml", "book.toml", ".vitepress", "_quarto.yml", "_quarto.yaml", "conf.py",
              "hugo.yaml", "hugo.toml", "hugo.json")


def has_includes(text: str) -> bool:
    """Whether the text may name a file to include (a cheap test: most pages name none)."""
    return (SNIPPET in text or VITEPRESS in text or QUARTO in text or RST in text or "{include}" in text
            or "docs/shared " in text or (("{{<" in text or "{{%" in text) and any(n in text for n in HUGO_NAMES))
            or any(m in text for m in BOOK) or _has_params(text) or text.startswith(CODE_IMPORT)
            or "\n" + CODE_IMPORT in text)


def _has_params(text: str) -> bool:
    return "param " in text and any(m in text for m in PARAM)


def expand(text: str, docs_root: str, rel: str, read: Read) -> str:
    """The page's text with each include line replaced by what it names (as far as it resolves)."""
    if not has_includes(text):
        return text
    if _has_params(text):
        text = with_params(text, docs_root, rel)
        if not has_includes(text):
            return text
    site = site_root(docs_root)
    return _expand(text, docs_root, site, os.path.dirname(os.path.join(docs_root, rel)), read, 0)


def named(text: str, docs_root: str, rel: str, read: Read) -> list[str]:
    """The real paths of the files the page's include lines name, as far as they resolve (what expand reads)."""
    seen: list[str] = []

    def reading(root: str, name: str, limit: int | None) -> bytes | None:
        seen.append(os.path.join(root, name))
        return read(root, name, limit)

    expand(text, docs_root, rel, reading)
    return seen


def with_params(text: str, docs_root: str, rel: str) -> str:
    """The page's text with each `{{< param "NAME" >}}` (or `{{% ... %}}`) as the value Hugo gives it: the
    page's own front matter (a top-level key, or under `params:`), else the `cascade:` of the nearest
    `_index.md` above it that sets it, up to the docs' folder (keys in any case). One it cannot find stays.
    Tried as a new user would on a telemetry collector's Hugo docs: 1,981 of them, `{{< param "PRODUCT_NAME" >}}`
    where the page reads "Alloy", 25 in one turn's output and in the names of the sections it left out."""
    found: dict[str, str] = {}
    own = _front_matter_values(text, ("params",), top=True)
    folder = os.path.dirname(rel.replace("\\", "/"))
    chain: list[str] = []
    while True:
        chain.append(folder)
        if not folder or os.path.dirname(folder) == folder:  # the docs' root, or a path's own root (`/`)
            break
        folder = os.path.dirname(folder)
    for name in reversed(chain):  # the docs' root first, the nearest last: the nearest wins
        found.update(_cascade(os.path.join(docs_root, name, "_index.md")))
    found.update(own)
    out: list[str] = []
    start = 0
    while True:
        at = min((k for k in (text.find(m, start) for m in PARAM) if k >= 0), default=-1)
        if at < 0:
            break
        end = text.find("}}", at)
        if end < 0:
            break
        key = text[at + len(PARAM[0]):end].strip(" %>").strip("\"'").casefold()
        value = found.get(key)
        out.append(text[start:at] + (value if value is not None else text[at:end + 2]))
        start = end + 2
    return "".join(out) + text[start:]


def _cascade(path: str) -> dict[str, str]:
    """The `cascade:` values of a section's `_index.md` (nothing when there is none, or it is not a file)."""
    try:
        stat = os.stat(path)
    except OSError:
        return {}
    return _cascade_of(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _cascade_of(path: str, mtime: int, size: int) -> dict[str, str]:
    try:
        with open(path, "rb") as fh:
            head = fh.read(16384).decode("utf-8", errors="replace")
    except OSError:
        return {}
    return _front_matter_values(head, ("cascade", "cascade.params"))


def _front_matter_values(text: str, blocks: tuple[str, ...], top: bool = False) -> dict[str, str]:
    """`KEY: value` lines of a YAML front matter: under the named blocks (`cascade`, `cascade.params`: a
    block in a block), and with top, at its top level. Read as lines: a turn that prints a page never imports
    a YAML parser."""
    if not text.startswith("---"):
        return {}
    lines = text.split("\n")[1:]
    values: dict[str, str] = {}
    path: list[tuple[int, str]] = []  # the blocks the line is in, with their indents
    for line in lines:
        if line.strip() in ("---", "..."):
            break
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        while path and path[-1][0] >= indent:
            path.pop()
        key, sep, value = line.strip().partition(":")
        if not sep or key.startswith("- "):
            continue
        value = value.split(" #", 1)[0].strip()
        where = ".".join(k for _, k in path)
        if not value:
            path.append((indent, key.strip()))
        elif (where in blocks or (top and not path)) and value[:1] not in "[{|>&*":
            values[key.strip().strip("\"'").casefold()] = value.strip("\"'")
    return values


def site_root(docs_root: str) -> str:
    """The folder the site's build runs from: the nearest folder at or above the docs (up to MAX_UP, stopping
    at the repository root) holding its mkdocs.yml, book.toml or `.vitepress`; else the docs' own folder."""
    return marked_folder(docs_root, SITE_MARKS) or os.path.realpath(docs_root)


def marked_folder(docs_root: str, marks: tuple[str, ...]) -> str | None:
    """The nearest folder at or above the docs (up to MAX_UP, stopping at the repository root) that holds one of
    these files or folders, or None."""
    folder = os.path.realpath(docs_root)
    for _ in range(MAX_UP + 1):
        if any(os.path.exists(os.path.join(folder, mark)) for mark in marks):
            return folder
        if os.path.isdir(os.path.join(folder, ".git")) or os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    return None


def _expand(text: str, docs_root: str, site: str, here: str, read: Read, depth: int) -> str:
    out: list[str] = []
    block: list[str] | None = None  # the paths of a snippets block (`--8<--` alone on its line, then paths)
    myst: list[str] = []  # the lines of a MyST include directive read so far (its fence, then its options)
    size = 0
    for line in text.split("\n"):
        bare = line.strip()
        if myst:
            myst.append(line)
            if bare == myst[0].strip()[:3]:  # its closing fence: the file in place of the block
                found = _included(myst[0].strip()[len(MYST[0]):].strip(), docs_root, site, here, read, depth)
                out += [found] if found is not None else myst
                myst = []
            continue
        if bare.startswith(MYST):
            myst = [line]
            continue
        if block is not None:
            if bare == SNIPPET:
                for path in block:
                    out.append(_snippet(path, line[:len(line) - len(line.lstrip())], docs_root, site, here, read,
                                        depth) or path)
                block = None
            elif bare and not bare.startswith(";"):
                block.append(bare)
            continue
        new = line
        if bare == SNIPPET:
            block = []
            continue
        if bare.startswith(SNIPPET + " "):
            new = _snippet(bare[len(SNIPPET):].strip(), line[:len(line) - len(line.lstrip())], docs_root, site,
                           here, read, depth) or line
        elif any(m in line for m in BOOK):
            new = _book(line, docs_root, site, here, read, depth)
        elif bare.startswith(VITEPRESS) and bare.endswith("-->"):
            new = _vitepress(bare[len(VITEPRESS):-3].strip(), docs_root, site, here, read, depth) or line
        elif bare.startswith(CODE_IMPORT):
            new = _code_import(bare[len(CODE_IMPORT):].strip(), docs_root, site, here, read) or line
        elif bare.startswith(QUARTO) and bare.endswith(">}}"):
            new = (_included(bare[len(QUARTO):-3].strip(), docs_root, site, here, read, depth)
                   or _hugo(bare, docs_root, site, here, read, depth) or line)
        elif line.startswith(RST):
            new = _included(bare[len(RST):].strip(), docs_root, site, here, read, depth) or line
        elif bare.startswith(SHARED) and bare.endswith("}}"):
            new = _shared(bare, docs_root, site, here, read, depth) or line
        elif bare.startswith(HUGO) and bare.endswith("}}"):
            new = _hugo(bare, docs_root, site, here, read, depth) or line
        size += len(new) + 1
        if size > MAX_CHARS:
            new = line
        out.append(new)
    if block is not None:  # an unclosed block: its lines as they were
        out += [SNIPPET, *block]
    return "\n".join(out + myst)


def _included(arg: str, docs_root: str, site: str, here: str, read: Read, depth: int) -> str | None:
    """A Quarto or Sphinx include: the file, from the page's folder, or from the project's (its `_quarto.yml`,
    Sphinx's `conf.py`) when the name starts with `/`, else from the nearest folder above the page that holds it
    (a `conf.py` that builds several projects, each its folder's: tried as a new user would on a docs host's own
    docs, `.. include:: /shared/admonition-rtd-business.rst` is `user/shared/`); its own includes read in turn."""
    name = arg.strip("\"'")
    found = _resolve(name[1:], [site, *_up_to(here, site)], site, read) if name.startswith("/") else \
        _resolve(name, [here], site, read)
    if found is None:
        return None
    path, text = found
    if depth < MAX_DEPTH:
        text = _expand(text, docs_root, site, os.path.dirname(path), read, depth + 1)
    return text.rstrip("\n")


def _shared(line: str, docs_root: str, site: str, here: str, read: Read, depth: int) -> str | None:
    """Grafana's `{{< docs/shared lookup="reference/tls-block.md" source="alloy" version="<ALLOY_VERSION>" >}}`:
    the file `lookup` names in the `shared/` folder of the docs' version, the nearest at or above the page (a
    versioned site keeps one per version), without its front matter (a headless bundle's). Tried as a new user
    would on a load tester's Hugo docs: its JavaScript API's module pages were their titles alone."""
    at = line.find("lookup=")
    if at < 0 or line[at + 7:at + 8] not in "\"'":
        return None
    quote = line[at + 7]
    end = line.find(quote, at + 8)
    if end < 0:
        return None
    found = _resolve(line[at + 8:end], [os.path.join(f, "shared") for f in _up_to(here, docs_root)], site, read)
    if found is None:
        return None
    path, text = found
    text = _without_front_matter(text)
    if depth < MAX_DEPTH:
        text = _expand(text, docs_root, site, os.path.dirname(path), read, depth + 1)
    return text.strip("\n")


def _hugo(line: str, docs_root: str, site: str, here: str, read: Read, depth: int) -> str | None:
    """A Hugo shortcode named for including a file (`{{% g_include file="includes/repository.md" %}}`,
    `{{< readfile file="/examples/config.yaml" >}}`, `{{< include "task-prereqs.md" >}}`): the file its `file=`
    (or `path=`, or first quoted) argument names, from the page's folder or one above it up to the docs, or
    an `includes/` folder of one of those (a name that starts with `/`: from the docs, a folder above the page
    or the site's root, the folder of its hugo.yaml; a page's name may leave out its `.md`, as Hugo's GetPage
    takes it), without its front matter, or as a code block (`code="true" lang="yaml"`). A
    site's shortcodes are its own templates, so the name is the sign. Tried as a new user would on a release
    tool's Hugo docs: its publish pages' repository and pull request options were their shortcode lines, and
    the four partials they name were routed as pages of their own, titled by their file names."""
    inner = line[3:-3].strip() if line[2:3] in "<%" and line[-3:-2] in ">%" else ""
    name, _, args = inner.partition(" ")
    if not any(n in name.casefold() for n in HUGO_NAMES):
        return None
    arg = _named_arg(args, ("file", "path")) or _named_arg(args, ("",))
    if not arg:
        return None
    up = _up_to(here, docs_root)
    if arg.startswith("/"):  # from the content's root: a language's (`content/en/`) is a folder above the page
        arg = arg.lstrip("/")
        bases = [docs_root, *reversed(up), site]
    else:
        bases = [f for folder in up for f in (folder, *(os.path.join(folder, n) for n in HUGO_FOLDERS))]
    # A page's path, as Hugo's GetPage takes it, may leave out its `.md` or name its bundle's folder.
    found = next((f for f in (_resolve(candidate, bases, site, read) for candidate in (
        arg, f"{arg}.md", f"{arg}/index.md", f"{arg}/_index.md")) if f is not None), None)
    if found is None:
        return None
    path, text = found
    if _named_arg(args, ("code",)) == "true":  # readfile's code="true" lang="yaml": the file as a code block
        fence = "````" if "```" in text else "```"
        return f"{fence}{_named_arg(args, ('lang',)) or ''}\n{text.rstrip()}\n{fence}"
    text = _without_front_matter(text)
    if depth < MAX_DEPTH:
        text = _expand(text, docs_root, site, os.path.dirname(path), read, depth + 1)
    return text.strip("\n")


def _named_arg(args: str, keys: tuple[str, ...]) -> str | None:
    """The quoted value of a shortcode's `key="..."` argument (key "": its first quoted value)."""
    for key in keys:  # `file=`, not `profile=`: a key starts the argument
        at = (f" {args}".find(f" {key}=") if key else
              min((i for i in (args.find('"'), args.find("'")) if i >= 0), default=-1))
        if at < 0:
            continue
        at += len(key) + 1 if key else 0
        quote = args[at:at + 1]
        if quote not in ("\"", "'"):
            continue
        end = args.find(quote, at + 1)
        if end > at + 1:
            return args[at + 1:end].strip()
    return None


def _without_front_matter(text: str) -> str:
    """The text after its front matter (a headless bundle's, an included part's), to the closing line's end."""
    close = text.find("\n---", 3) if text.startswith("---") else -1
    if close < 0:
        return text
    after = text.find("\n", close + 4)
    return text[after + 1:] if after >= 0 else ""


def _up_to(here: str, top: str) -> list[str]:
    """The page's folder and those above it, nearest first, up to `top` (the page's alone when it is outside)."""
    folder, top = os.path.realpath(here), os.path.realpath(top)
    out = [folder]
    while folder != top and folder.startswith(top + os.sep):
        folder = os.path.dirname(folder)
        out.append(folder)
    return out


def _bound(site: str) -> str:
    """The folder a site's includes may read from: the site's; a Sphinx project's repository (the folder of its
    `.git`, at most MAX_UP above), whose pages include the files beside the code (`.. include:: ../README.rst`,
    ```{include} ../CHANGES.md```: tried as a new user would on a code formatter's docs, the changelog page was
    its include line)."""
    if not os.path.isfile(os.path.join(site, "conf.py")):
        return site
    folder = site
    for _ in range(MAX_UP):
        if os.path.isdir(os.path.join(folder, ".git")) or os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    return folder if os.path.isdir(os.path.join(folder, ".git")) else site


def _read(path: str, site: str, read: Read) -> str | None:
    """A file's text, when it lies inside the site (index.read_bytes refuses anything else) and outside hidden
    files and folders (`.env`, `.git/`, `.aws/`: a page that names one would put a secret in the prompt)."""
    real = os.path.realpath(path)
    site = _bound(site)
    if not real.startswith(site + os.sep):
        return None
    rel = os.path.relpath(real, site)
    if any(part.startswith(".") for part in rel.split(os.sep)):
        return None
    data = read(site, rel, MAX_CHARS)
    if data is None or b"\0" in data[:1024]:
        return None
    return data.decode("utf-8", errors="replace")


def _resolve(name: str, bases: list[str], site: str, read: Read) -> tuple[str, str] | None:
    """(the file's path, its text) of the first base that holds `name`."""
    if not name or os.path.isabs(name) or "://" in name:
        return None
    for base in bases:
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(path):
            text = _read(path, site, read)
            if text is not None:
                return path, text
    return None


def _split_spec(name: str, bases: list[str]) -> tuple[str, str]:
    """`file.py:section` or `file.md:3:10` -> (file, spec); a name that is a file itself has no spec."""
    if any(os.path.isfile(os.path.join(base, name)) for base in bases):
        return name, ""
    slash = name.rfind("/")
    colon = name.find(":", slash + 1)
    return (name[:colon], name[colon + 1:]) if colon > 0 else (name, "")


def _snippet(arg: str, indent: str, docs_root: str, site: str, here: str, read: Read, depth: int) -> str | None:
    """An mkdocs snippet: `"path"`, `"path:section"` or `"path:start:end"` (quoted; a block's paths are bare),
    read from the site's root, the docs or the page's folder; each line indented as the include line was."""
    if arg[:1] in "\"'" and arg.endswith(arg[:1]) and len(arg) >= 2:
        arg = arg[1:-1].strip()
    elif arg.startswith(("\"", "'")):
        return None
    bases = [*snippet_bases(site, read), docs_root, here]
    name, spec = _split_spec(arg, bases)
    found = _resolve(name, bases, site, read)
    if found is None:
        return None
    path, text = found
    if spec:
        part = _part(text, spec, ("--8<-- [start:", "--8<-- [end:"), "]")
        if part is None:
            return None
        text = part
    text = "\n".join(line for line in text.split("\n") if "--8<-- [start:" not in line and "--8<-- [end:" not in line)
    if depth < MAX_DEPTH:
        text = _expand(text, docs_root, site, os.path.dirname(path), read, depth + 1)
    return "\n".join(indent + line if line else line for line in text.rstrip("\n").split("\n"))


@lru_cache(maxsize=8)
def snippet_bases(site: str, read: Read) -> tuple[str, ...]:
    """The folders mkdocs' snippets are read from: the `base_path` of `pymdownx.snippets` in the site's
    mkdocs.yml (`base_path: [".", "docs/source/src/"]`, a dataframe library's examples), else the site's
    folder. Read as lines, not YAML: a turn that prints an include never imports a YAML parser."""
    for name in MKDOCS:
        data = read(site, name, MAX_CHARS) if os.path.isfile(os.path.join(site, name)) else None
        if data is None:
            continue
        lines = data.decode("utf-8", errors="replace").split("\n")
        at = next((i for i, line in enumerate(lines) if line.strip().startswith("base_path:")), None)
        if at is None:
            break
        value = lines[at].split(":", 1)[1].split(" #", 1)[0].strip()
        if value:
            found = [v.strip().strip("\"'") for v in value.strip("[]").split(",")]
        else:  # a block list under it
            indent = len(lines[at]) - len(lines[at].lstrip())
            found = []
            for line in lines[at + 1:]:
                bare = line.strip()
                if not bare.startswith("- ") or len(line) - len(line.lstrip()) < indent:
                    break
                found.append(bare[2:].split(" #", 1)[0].strip().strip("\"'"))
        paths = tuple(os.path.normpath(os.path.join(site, v)) for v in found if v)
        return paths or (site,)
    return (site,)


MKDOCS = ("mkdocs.yml", "mkdocs.yaml")


def _book(line: str, docs_root: str, site: str, here: str, read: Read, depth: int) -> str:
    """A line with mdBook includes (`{{#include file.rs}}`, `{{#include file.rs:anchor}}`,
    `{{#include file.rs:2:10}}`), each read from the page's folder."""
    for mark in BOOK:
        start = line.find(mark)
        while start >= 0:
            end = line.find("}}", start)
            if end < 0:
                break
            arg = line[start + len(mark):end].strip()
            name, spec = _split_spec(arg, [here])
            found = _resolve(name, [here], site, read)
            text = found[1] if found else None
            if text is not None and spec:
                text = _part(text, spec, ("ANCHOR: ", "ANCHOR_END: "), "")
            if text is None:
                start = line.find(mark, end)
                continue
            text = "\n".join(ln for ln in text.rstrip("\n").split("\n") if "ANCHOR:" not in ln
                             and "ANCHOR_END:" not in ln)
            if depth < MAX_DEPTH and found:
                text = _expand(text, docs_root, site, os.path.dirname(found[0]), read, depth + 1)
            line = line[:start] + text + line[end + 2:]
            start = line.find(mark, start + len(text))
    return line


def _vitepress(arg: str, docs_root: str, site: str, here: str, read: Read, depth: int) -> str | None:
    """`<!--@include: ./parts/basics.md-->`, `...md#region`, `...md{3,10}`: from the page's folder, or the
    docs' (`@/`)."""
    arg, spec = _vitepress_spec(arg)
    found = _resolve(arg[2:] if arg.startswith("@/") else arg, [docs_root if arg.startswith("@/") else here],
                     site, read)
    if found is None:
        return None
    text = _region(found[1], spec) if spec else found[1]
    if text is None:
        return None
    return _expand(text.rstrip("\n"), docs_root, site, os.path.dirname(found[0]), read, depth + 1) \
        if depth < MAX_DEPTH else text.rstrip("\n")


def _code_import(arg: str, docs_root: str, site: str, here: str, read: Read) -> str | None:
    """`<<< ./example.yaml#content [label]` or `<<< @/snippets/a.js{2}`: the code file as a fenced block."""
    arg = arg.split(" [", 1)[0].strip()
    arg, spec = _vitepress_spec(arg)
    found = _resolve(arg[2:] if arg.startswith("@/") else arg, [docs_root if arg.startswith("@/") else here],
                     site, read)
    if found is None:
        return None
    text = _region(found[1], spec) if spec.startswith("#") else found[1]
    if text is None:
        return None
    lang = os.path.splitext(found[0])[1].lstrip(".")
    fence = "````" if "```" in text else "```"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _vitepress_spec(arg: str) -> tuple[str, str]:
    """(path, `#region` or `{range}`) of a VitePress include's argument."""
    brace = arg.find("{")
    if brace > 0 and arg.endswith("}"):
        arg, spec = arg[:brace], arg[brace:]
        if "#" in arg:
            arg, _, region = arg.partition("#")
            return arg, "#" + region
        return arg, spec
    if "#" in arg:
        arg, _, region = arg.partition("#")
        return arg, "#" + region
    return arg, ""


def _region(text: str, spec: str) -> str | None:
    """A VitePress region (`#name`: between `#region name` and `#endregion`) or line range (`{3,10}`)."""
    if spec.startswith("#"):
        name = spec[1:]
        lines = text.split("\n")
        start = next((i for i, ln in enumerate(lines) if "#region " + name in ln
                      and ln.split("#region ", 1)[1].split()[:1] == [name]), None)
        if start is None:
            return None
        end = next((i for i in range(start + 1, len(lines)) if "#endregion" in lines[i]), len(lines))
        return "\n".join(ln for ln in lines[start + 1:end] if "#region" not in ln and "#endregion" not in ln)
    inner = spec.strip("{}")
    first, _, last = inner.partition(",")
    return _lines(text, first.strip(), last.strip() if "," in inner else None)


def _part(text: str, spec: str, marks: tuple[str, str], close: str) -> str | None:
    """The part of a file a spec names: `name` (between the start and end marks for it) or `start:end` lines
    (1-based, inclusive; either may be empty)."""
    first, _, last = spec.partition(":")
    if first.isdigit() or (not first and last.isdigit()):
        return _lines(text, first, last if ":" in spec else first)
    lines = text.split("\n")
    begin, finish = marks[0] + spec + close, marks[1] + spec + close
    start = next((i for i, ln in enumerate(lines) if _marks(ln, begin, close)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if _marks(lines[i], finish, close)), len(lines))
    return "\n".join(lines[start + 1:end])


def _marks(line: str, mark: str, close: str) -> bool:
    """Whether a line carries the mark (mdBook's `ANCHOR: name` ends at the name: `ANCHOR: names` is another)."""
    at = line.find(mark)
    if at < 0:
        return False
    rest = line[at + len(mark):]
    return bool(close) or not rest[:1].isalnum() and rest[:1] not in ("_", "-")


def _lines(text: str, first: str, last: str | None) -> str | None:
    """Lines first..last (1-based, inclusive; an empty first is 1, an empty or None last the end)."""
    if (first and not first.isdigit()) or (last and not last.isdigit()):
        return None
    lines = text.split("\n")
    a = int(first) - 1 if first else 0
    b = int(last) if last else len(lines)
    return "\n".join(lines[max(0, a):b])
