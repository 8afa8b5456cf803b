"""`ctx init`: write a config.yaml for a docs folder, or convert claude-cognitive's keywords.json."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from .. import config as config_mod
from ..errors import DocsError, InputError
from ..records import DOC_SUFFIXES, is_doc_file
from ..store import globs, includes, index, mkdocs, sites
from ..store.files import write_atomic
from ..turn.keywords import WEAK_OWNERS
from ..turn.sections import is_hub
from ..turn.words import FILLER, GENERIC_NAMES, STOPWORDS, doc_name, doc_stem

_DOC = r"\.(?:mdx?|markdown|qmd|[Rr]md)"  # a link to a doc (records.DOC_SUFFIXES)
_LINK = re.compile(rf"\]\(([^)#\s]+{_DOC})(?:#[^)]*)?\)")
# A link reference definition (`[serializers]: serializers.md`), which markdown prints none of (the body leaves
# them out, index.without_link_definitions): an API framework's docs link their pages only so.
_LINK_DEFINITION = re.compile(rf"(?m)^ {{0,3}}\[[^\]^][^\]]*\]:[ \t]*<?([^\s>#]+{_DOC})(?:#\S*)?>?")


_WORD = re.compile(r"[\w.-]*\w")  # a word of a doc's text as a term is spelled: `avg_over_time`, `tls.cert`
MAX_KEYWORDS = 12  # per doc: a doc's names and its most telling terms, not its vocabulary
COMMON_SHARE = 0.25  # a one-word term in the text of more docs than this share names none of them
_CODE_SPAN = re.compile(r"`([A-Za-z_][A-Za-z0-9_.-]{3,40})`")
# Bold that opens and closes at word edges: `**l**ess than **or**` holds no bold "ess than".
_BOLD = re.compile(r"(?<![\w*])\*\*(?=\S)([^*\n:]{3,80}?)(?<=\S)\*\*(?![\w*:])")
_HEADING = re.compile(r"^#{2,3} +(.+?) *#*$", re.MULTILINE)
_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*[A-Z_][A-Za-z0-9_]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*")
# A fence and its block (a backtick fence's info string holds no backtick: fences.is_fence)
_FENCE = re.compile(r"^ {0,3}(`{3,}(?![^`\n]*`)|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)",
                    re.MULTILINE | re.DOTALL)
_NAMED = re.compile(r"[A-Za-z][a-z0-9]*[A-Z0-9_]|[A-Z]{2}")  # SQLAlchemy, FastAPI, UUID, http2, snake_case

# Words that say what a sentence does, not what a doc is about: a derived phrase needs a word besides these
# ("learn more", "run the program", "review the results" name nothing; "create the engine" names the engine).
VAGUE = frozenset("""
about above after again ahead already also another around basic basics before below best better big case cases
check choose click come comes complete completed conclusion continue create created creating detail details done
easy end example examples explain explained fine first following full getting going good great help here idea
important info information inside instead intro introduction last later learn learning let look looks more new
next note notes notice now old open option options others output part parts print program quick quickly read
ready recap remember result results review run running same see short simple simply small start started step
steps still sure tip tips try trying understand usage version versions warning way ways what whole work working
works
""".split())


def derive(docs_root: str, max_bytes: int = 2_000_000,
           progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Keywords from what people type about each doc, and related docs from the links between docs.

    A doc's keywords: its title (and its `# ` heading where that differs), its name (its folder's name for a
    generic file name such as SKILL.md), then the terms that are its own: headings, identifiers in code spans
    and bold terms that no other doc has, minus words common across the docs."""
    scan = index.scan(docs_root)
    out = left_out(scan.files, docs_root)
    files = {rel: st for rel, st in scan.files.items() if not is_left_out(rel, out)}
    site_title = sites.titler(docs_root)  # an mkdocs site's pages are titled by its nav, a book's by its SUMMARY.md
    bodies: dict[str, str] = {}
    targets: dict[str, list[str]] = {}  # what a doc links to
    titles: dict[str, str] = {}
    headed: dict[str, str] = {}  # the `# ` heading, where the front matter or the site titles the doc otherwise
    for n, (rel, st) in enumerate(sorted(files.items()), start=1):
        if progress is not None:
            progress(n, len(files))
        text = index.read_doc(docs_root, rel, limit=max_bytes)
        if text is None:
            continue
        bodies[rel] = index.body_of(text, rel)
        targets[rel] = _LINK.findall(bodies[rel]) + _LINK_DEFINITION.findall(text)
        titles[rel] = index.parse_doc(rel, st, text, 25, titles=site_title).title
        heading = index.heading_title(bodies[rel])
        if heading.lower() != titles[rel].lower() and len(heading.split()) <= 4:
            headed[rel] = heading
    terms = {rel: _terms(body) for rel, body in bodies.items()}
    owners: Counter[str] = Counter()  # how many docs have each term, however they write it (_owner_key)
    for found in terms.values():
        owners.update({_owner_key(term) for term in found})
    # How many docs' text holds each word, counted once: asking it of every doc for each term was a fifth of
    # `ctx init`'s time on 7,400 docs.
    holders = Counter(w for body in bodies.values() for w in set(body.lower().split()))
    n_docs = len(bodies)
    # A file name that many docs share (a tutorial's step-1/description.md, step-2/description.md...) names none.
    names = {rel: doc_name(rel).replace("-", " ").replace("_", " ") for rel in bodies}
    # A generic file name (CHANGELOG.md) is named by its folder where the folder is about it (a skill's folder,
    # a package's); a folder of many docs is not (a package manager's `dev/changelog.md` was "dev").
    in_folder = Counter(os.path.dirname(rel) for rel in bodies)
    names = {rel: name if doc_stem(os.path.basename(rel)).lower() not in GENERIC_NAMES
             or in_folder[os.path.dirname(rel)] <= GENERIC_FOLDER_DOCS else "" for rel, name in names.items()}
    shared = Counter(names.values())
    keywords: dict[str, list[str]] = {}
    related: dict[str, list[str]] = {}
    for rel, body in bodies.items():
        words: list[str] = []
        # A hub's terms are other pages' (a changelog's `writableEnded`, the stream reference's; an index's link
        # texts): tried as a new user would on a runtime's docs, release changelogs came WARM for API questions.
        own = [] if is_hub(rel, body) else [
            t for t in terms[rel] if owners[_owner_key(t)] == 1 and _names_something(t, holders, n_docs)]
        if len(own) > MAX_KEYWORDS:
            # More terms than room: the ones the doc says most (a reference of eighty functions is about `rate`
            # more than about `abs`, the first in its order); then in its order.
            low = body.lower()
            counted = Counter(_WORD.findall(low))
            own.sort(key=lambda t: -(low.count(t.lower()) if " " in t else counted[t.lower()]))
        name = names[rel] if shared[names[rel]] < WEAK_OWNERS else ""
        for word in (_bare(titles[rel]), _bare(headed.get(rel, "")), name, *own):
            # An emoji inside a title ("Starlight 🌟 Build documentation sites") is no word a prompt says.
            word = " ".join("".join(" " if _pictograph(ch) else ch for ch in word.lower()).split())
            if word and word not in words and not _common(word, holders, n_docs) and not _poor(word):
                words.append(word)
        keywords[rel] = words[:MAX_KEYWORDS]
        base = os.path.dirname(rel)
        links = []
        for target in targets[rel]:
            # A link from the site's root (`/topics/charts.mdx`, as Docusaurus and VitePress resolve it) is from
            # the docs folder: tried as a new user would, a package manager's 200 such links gave one related pair.
            resolved = os.path.normpath(target[1:] if target.startswith("/") else os.path.join(base, target))
            resolved = resolved.replace(os.sep, "/")
            if resolved in bodies and resolved != rel and resolved not in links:
                links.append(resolved)
        if links:
            related[rel] = links
    # Nobody chose these: a hit is evidence for the doc, not a verdict (move a phrase to `keywords` to make it one).
    return {"derived_keywords": keywords, "related": related, "_left_out": out}


# ISO 639-1 codes: a folder named so (`de`, `pt-br`, `zh_CN`, `zh-hans`) may hold a translation of the docs.
LANGUAGES = frozenset("""
af am ar as az be bg bn bo br bs ca cs cy da de dz el en eo es et eu fa fi fo fr fy ga gd gl gu ha he hi hr
ht hu hy id ig is it ja jv ka kk km kn ko ku ky la lb lo lt lv mg mi mk ml mn mr ms mt my nb ne nl nn no oc
or pa pl ps pt qu ro ru rw sa sd si sk sl sn so sq sr st su sv sw ta te tg th tk tl tr tt ug uk ur uz vi xh
yi yo zh zu
""".split())
# Languages some sites name by a country (a model hub client's docs: `cn/` beside `en/`, `ko/`, `de/`)
COUNTRY_NAMED = {"cn": "zh", "jp": "ja", "kr": "ko", "tw": "zh"}
SIBLING_LANGUAGES = 2  # translations found by their paths that make the other language folders beside them ones
MIRROR_SHARE = 0.5  # a language folder whose pages have a same-path page in the kept docs this often mirrors them
# Folders whose language folders hold translations whatever their pages' paths (translations())
I18N_FOLDERS = frozenset({"i18n", "l10n", "locale", "locales", "translations"})


def _language(folder: str) -> str | None:
    """The language a folder's name is the code of (`pt-br` -> `pt`; `pages.ko` -> `ko`: a translation of the
    folder `pages`), or None."""
    name = folder.lower().replace("_", "-").rpartition(".")[2]
    code, _, region = name.partition("-")
    code = COUNTRY_NAMED.get(code, code) if not region else code
    if code in LANGUAGES and (not region or (region.isalpha() and 2 <= len(region) <= 4)):
        return code
    return None


def _mirrored(top: str, rest: str) -> str:
    """The path a page of the language folder `top` translates: `rest` in the docs' own folder, or in the
    folder `top` is named after (tldr's `pages.ko/common/tar.md` translates `pages/common/tar.md`)."""
    base = top.rpartition(".")[0]
    return f"{base}/{rest}" if base else rest


def translations(paths: Iterable[str]) -> list[str]:
    """The top folders of a docs tree that hold translations of its pages (Starlight's `fr/`, Hugo's
    `content/de/`): folders named by a language code whose pages mostly mirror the kept docs' paths. The kept
    docs are the ones outside such folders; when there are next to none (every language in its own folder),
    the English folder's, else the biggest one's. A topic folder that happens to be called `it` or `id`
    mirrors nothing and stays. A language folder inside a folder of translations (`i18n/fr/`, at any depth) is
    one whatever its pages' paths: Docusaurus keeps the French `docs/intro.md` as
    `i18n/fr/docusaurus-plugin-content-docs/current/intro.md`, which mirrors no path of the docs."""
    by_folder: dict[str, set[str]] = {}
    outside: set[str] = set()
    named: set[str] = set()  # language folders in a folder of translations: no mirror needed
    listed = list(paths)
    for path in listed:
        top, sep, rest = path.partition("/")
        parts = path.split("/")
        at = next((i for i in range(1, len(parts) - 1) if parts[i - 1].lower() in I18N_FOLDERS and
                   _language(parts[i])), None)
        if at is not None:
            named.add("/".join(parts[:at + 1]))
        elif sep and _language(top):
            by_folder.setdefault(top, set()).add(_mirrored(top, rest))
        else:
            outside.add(path)
    if named and not outside and not by_folder:  # every page is in one (`locales/en/`, `locales/ja/`): keep one
        sizes = {f: sum(p.startswith(f + "/") for p in listed) for f in named}
        named.discard(max(named, key=lambda f: (_language(f.rsplit("/", 1)[-1]) == "en", sizes[f], f)))
    if not by_folder:
        return sorted(named | set(_deeper_translations(listed)))
    kept, base = "", outside
    main = max(by_folder, key=lambda f: (_language(f) == "en", len(by_folder[f]), f))
    # Next to no page outside the main language's folder (a few beside 52 English pages): every language has a
    # folder; the smallest translation (two pages) is no measure of it.
    if len(outside) < len(by_folder[main]) * MIRROR_SHARE:
        kept, base = main, by_folder[main]
    mirrors = {f for f, pages in by_folder.items() if f != kept and len(pages & base) >= MIRROR_SHARE * len(pages)}
    english = [f for f in by_folder if _language(f) == "en"]
    if len(mirrors) < SIBLING_LANGUAGES and english:
        # Beside an English folder, language folders of about its size translate it, though every file and
        # folder name is translated and no path mirrors (an Obsidian vault a language: `de/Bearbeiten und
        # formatieren/`). Tried as a new user would on a note app's help vaults: 33 translations of its 173
        # English pages, all routed.
        size = len(by_folder[english[0]])
        alike = {f for f, pages in by_folder.items()
                 if f not in english and f != kept and MIRROR_SHARE * size <= len(pages) <= size / MIRROR_SHARE}
        if len(alike) >= SIBLING_LANGUAGES:
            mirrors |= alike
    if len(mirrors) >= SIBLING_LANGUAGES:
        # Beside several translations, a language folder whose pages are named in its own language but sit in
        # the docs' own folders (`es/book/instalacion.md` beside `book/installation.md`) is one too. Tried as a
        # new user would on a shell's docs: `es/` and `pt-BR/` were routed beside seven folders left out, and
        # took the first HOT places for "how do I install it?".
        folders = {p.rsplit("/", 1)[0] for p in base if "/" in p}
        for f, pages in by_folder.items():
            inner = [p.rsplit("/", 1)[0] for p in pages if "/" in p]
            if f != kept and inner and sum(d in folders for d in inner) >= MIRROR_SHARE * len(pages):
                mirrors.add(f)
    return sorted(named | mirrors)


def _deeper_translations(paths: list[str]) -> list[str]:
    """The translations in a folder below the top whose folders are languages, English among them (a Sphinx
    site's `source/en/`, `source/ko/`): found in it as at the top. Tried as a new user would on a model hub
    client's docs: its Korean, German, Chinese and five more folders in `docs/source/` were routed beside English."""
    parents: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts)):
            if _language(parts[i]):
                parents.setdefault("/".join(parts[:i]), set()).add(parts[i])
    found = sorted((p for p, langs in parents.items() if "en" in map(_language, langs)
                    and len(langs) > SIBLING_LANGUAGES), key=lambda p: (p.count("/"), p))
    out: list[str] = []
    taken: list[str] = []
    for parent in found:  # each such folder, outermost first (an Astro site's `content/docs/` and `content/pages/`:
        # tried as a new user would, init left out the first one's translations, and 270 pages of the other's)
        if any(parent.startswith(t + "/") for t in taken):
            continue
        taken.append(parent)
        prefix = parent + "/"
        out += [prefix + f for f in translations([p[len(prefix):] for p in paths if p.startswith(prefix)])]
    return sorted(out)


def translated(paths: Iterable[str]) -> list[str]:
    """The name patterns of pages translated beside the page they translate (`style-guide.de.md` beside
    `style-guide.md` or `style-guide.en.md`: Hugo's and mkdocs-static-i18n's default), one for each language and
    suffix (`*.de.md`) most of whose pages have theirs beside them. English is kept. Tried as a new user would
    on a command reference: its style guide's German page came HOT beside the English one."""
    listed = set(paths)
    mirrored: dict[str, list[bool]] = {}
    for path in listed:
        folder, _, name = path.rpartition("/")
        suffix = next((s for s in DOC_SUFFIXES if name.endswith(s)), "")
        stem, dot, code = name[:len(name) - len(suffix)].rpartition(".")
        if not suffix or not dot or not stem or _language(code) in (None, "en"):
            continue
        base = f"{folder}/{stem}" if folder else stem
        mirrored.setdefault(f"*.{code}{suffix}", []).append(
            any(base + lang + s in listed for lang in ("", ".en") for s in DOC_SUFFIXES))
    return sorted(p for p, found in mirrored.items() if sum(found) >= MIRROR_SHARE * len(found))


def _version(name: str) -> tuple[int, ...] | None:
    """The version a folder's name is (`version-30.4`, `v2`, `v1.2`, `2.0`, `1.x`, `5x`: x counts as -1; a pre-release,
    `version-1.0.0-beta.10`, comes before its release), or None. A bare number (`2/`, a chapter) is no version."""
    low = name.lower()
    if low[-1:] == "x" and low[:-1].isdigit():  # `4x/`, `5x/`: a web framework's API per major version
        return int(low[:-1]), -1, 0
    bare = low.removeprefix("version-").removeprefix("version_").removeprefix("v")
    core, dash, pre = bare.partition("-")
    if dash and not (pre[:1].isalpha() and pre.replace(".", "").isalnum()):
        return None
    parts = core.split(".")
    if not core or (len(parts) == 1 and bare == low) or not parts[0].isdigit():
        return None
    if not all(p.isdigit() or p == "x" for p in parts[1:]):
        return None
    return (*(int(p) if p.isdigit() else -1 for p in parts), -1 if dash else 0)  # a release after its betas


# The folders whose version folders are other versions by name: `versioned_docs/version-29.7/`, and one a
# version names (`version-stable/`: tried as a new user would on a formatter's repo, `ctx init .` routed each
# page twice, once from `docs/` and once from its last release's copy)
VERSION_FOLDERS = frozenset({"versioned_docs"})


def versions(paths: Iterable[str]) -> list[str]:
    """The folders of a docs tree that hold another version of its pages (Docusaurus'
    `versioned_docs/version-29.7/` beside `docs/`): folders named as a version whose pages mostly have a page
    of the same path among the kept docs. The kept docs are the ones outside such folders; when no version
    mirrors them (they are a README or two), the newest version's. Tried as a new user would on a test
    runner's repo: a question about ES modules made the same page HOT four times, once per version, and they
    took the whole budget."""
    by_folder: dict[str, set[str]] = {}
    outside: set[str] = set()
    for path in paths:
        parts = path.split("/")
        at = next((i for i, part in enumerate(parts[:-1]) if _version(part) is not None or (
            i and parts[i - 1] in VERSION_FOLDERS and part.startswith("version-"))), None)
        if at is None:
            outside.add(path)
        else:
            by_folder.setdefault("/".join(parts[:at + 1]), set()).add("/".join(parts[at + 1:]))
    older = _mirrors(by_folder, outside)
    # Beside the current docs, a version in Docusaurus' `versioned_docs/` is one whatever its pages' paths: tried
    # as a new user would (`ctx init .`) on a CI engine's repo, four of its seven versions had moved their pages
    # and were routed beside the current ones (1,200 pages of 1,400).
    named = {f for f in by_folder if f.rpartition("/")[0].rpartition("/")[2] in VERSION_FOLDERS}
    if named and len(outside) >= MIRROR_SHARE * max(len(pages) for pages in by_folder.values()):
        older = sorted({*older, *named})  # current docs beside them, not a README or two
    # ... and so is a version beside one that mirrors the current docs, whatever its pages' paths: tried as a new
    # user would on a gateway's Hugo site, `en/v1.0/` to `en/v1.9/` were left out beside `en/latest/`, and
    # `en/v0.2/` to `en/v0.5/` (an older layout) stayed, which `ctx check` then called other versions.
    beside = {f.rpartition("/")[0] for f in older}
    older = sorted({*older, *(f for f in by_folder if f.rpartition("/")[0] in beside)})
    if older or len(by_folder) < 2:
        return older
    # The newest version of each folder of versions is kept (a web framework's `api/3x`, `api/4x`, `api/5x` beside
    # its guides' `docs/en/4x`, `docs/en/5x`: tried as a new user would, a third of a turn's room was Express 3's
    # and 4's pages).
    groups: dict[str, list[str]] = {}
    for folder in by_folder:
        groups.setdefault(folder.rpartition("/")[0], []).append(folder)
    out = set(named)
    for folders in groups.values():
        newest = max(folders, key=lambda f: (_version(f.rsplit("/", 1)[-1]) or (), f))
        out.update(_mirrors({f: by_folder[f] for f in folders if f != newest}, by_folder[newest]))
        out.discard(newest)
    return sorted(out)


def _mirrors(folders: Mapping[str, set[str]], kept: Iterable[str]) -> list[str]:
    """The folders (name -> their pages' paths inside them) whose pages mostly mirror a kept page: one whose
    path ends with theirs (`docs/a/b.md` mirrors a version's `a/b.md`)."""
    tails = {"/".join(p.split("/")[i:]) for p in kept for i in range(p.count("/") + 1)}
    return sorted(f for f, pages in folders.items() if len(pages & tails) >= MIRROR_SHARE * len(pages))


def _terms(body: str) -> list[str]:
    """Headings, identifiers in code spans and bold terms, in the doc's order, as they read (no markup), and
    nothing from code blocks (a `# comment` there is no heading)."""
    prose = _FENCE.sub("\n", body)
    out: list[str] = []
    headings = [_alias(_bare(heading)) for heading in _HEADING.findall(prose)]
    # A heading the doc repeats is its layout, not a name (a changelog's `### Added` in every release, a lint
    # list's `### Why is this bad?` under every lint).
    seen = Counter(h.lower() for h in headings)
    out += [h for h in headings if 1 <= len(h.split()) <= 4 and seen[h.lower()] == 1]
    out += [span for span in _CODE_SPAN.findall(prose) if _IDENTIFIER.fullmatch(span)]
    for bold in _BOLD.findall(prose):
        plain = _bare(bold)
        words = plain.lower().split()
        # Bold is mostly emphasis: one word ("the **one** place", "**inside**") unless it is a name
        # (SQLAlchemy), a phrase only when it is a name too, with no little words ("**not be obvious**").
        # A list (`**true, false, deep**`) names nothing.
        if "," in plain:
            continue
        if len(words) == 1 and _NAMED.search(plain) or 1 < len(words) <= 3 and not any(
                w in STOPWORDS or w in FILLER for w in words):
            out.append(plain)
    return [term for term in out if term and not any(c in term for c in '"=<>{}')]  # code, not a name


def _owner_key(term: str) -> str:
    """A heading's words as any doc may write them: case, dashes and a plural aside. Tried as a new user would on
    a language's RFCs, whose every page has the template's headings: the few written otherwise ("Reference-level
    explanations", "Guide level explanation") were each one page's keyword. An identifier is its own (`startTime`
    is not a Go struct's `StartTime`: merged, a tracing backend's storage README lost the keyword that answered)."""
    if " " not in term:
        return term
    words = term.lower().replace("-", " ").replace("_", " ").split()
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words)


def _alias(name: str) -> str:
    """A command line option's heading as its name: `save-prod, -P, -p` is `save-prod`."""
    first, comma, rest = name.partition(",")
    if comma and all(alias.strip().startswith("-") for alias in rest.split(",")):
        return first.strip()
    return name


_QUOTES = re.compile(r"(?<!\w)[\"'“‘]|[\"'”’](?!\w)")


def _bare(text: str) -> str:
    """A heading or bold term as it reads: no markup, no quotes, marks (`*`) or closing colon around it, no step number
    (`### 1. VS Code Prompt`) and no emoji before or after it (`# 🚀 Get Started`)."""
    plain = _STEP.sub("", index.plain_inline(text).replace("()", ""))
    # Quotes around a word inside it too (`ModelSerializer 'fields' and 'exclude'` was a keyword without the last
    # one); an apostrophe in a word stays ("what's").
    plain = _QUOTES.sub("", plain)
    start, end = 0, len(plain)
    while start < end and _is_symbol(plain[start]):
        start += 1
    while end > start and _is_symbol(plain[end - 1]):
        end -= 1
    return plain[start:end].strip(" \t\"'“”‘’:;,.*?").strip()


def _is_symbol(ch: str) -> bool:
    """Whether a character at a name's edge is no part of it: a space, a dash (`– Metadata property`), an emoji or
    a pictograph (not `+` of `C++`), or the selector and joiner that build an emoji."""
    import unicodedata

    return ch.isspace() or _pictograph(ch) or unicodedata.category(ch) == "Pd"


def _pictograph(ch: str) -> bool:
    """An emoji or pictograph, the selector and joiner that build one, or another symbol no prompt types: a
    check mark written `√` (a service mesh's troubleshooting page heads each check `### √ no clock skew
    detected`, and every one was a keyword with it), an arrow. ASCII symbols stay: the `+` of `C++`."""
    import unicodedata

    return ch in "\ufe0f\u200d" or (not ch.isascii() and unicodedata.category(ch) in ("So", "Sm"))


_STEP = re.compile(r"^\s*\d+[.)]\s+")


def _names_something(term: str, holders: Mapping[str, int], n_docs: int) -> bool:
    """Whether a derived term has a word that names something: a word besides the stop, filler, vague and
    common ones, that the text of at most a quarter of the docs holds."""
    from ..turn.keywords import COMMON_WORDS

    plain = {*STOPWORDS, *FILLER, *VAGUE, *COMMON_WORDS}
    content = [w for w in term.lower().split() if w.strip("()[]\"'.,-").isalnum() or "_" in w or "-" in w]
    content = [w.strip("()[]\"'.,") for w in content]
    telling = [w for w in content if len(w) > 1 and w not in plain and any(c.isalpha() for c in w)]
    if not telling:
        return False
    return n_docs < 4 or any(not _common(w, holders, n_docs) for w in telling)


GENERIC_FOLDER_DOCS = 3  # a folder of at most this many docs is about its generic file (SKILL.md, README.md)
# Titles that many sites give a page each, naming no topic of their own ("Overview", "Goals")
GENERIC_TITLES = frozenset("""
contents design goal goals index overview readme reference references summary
""".split()) | {"table of contents"}
PLACEHOLDERS = frozenset({"foo", "bar", "baz", "qux", "quux", "foobar"})  # an example's made-up names


def _poor(word: str) -> bool:
    """A derived keyword that names nothing a prompt would say of its doc: a number ("1", a guide's file name),
    a cut identifier (`read_`), a generic title ("overview", "table of contents"), an example's made-up name
    (`foo_project`), little words only (a command page's name `do`, `which`, `h`: "how do I ..." fired `do`
    on every turn, tried as a new user would on a cheat-sheet repo of 7,400 command pages), or a site's markup
    (an orchestrator's 113 pages headed `## {{% heading "synopsis" %}}`). Tried as a new user would on a
    dataframe library's and a package manager's docs."""
    parts = word.replace("_", " ").replace("-", " ").split()
    return (not any(ch.isalpha() for ch in word) or word.endswith(("_", ".", "-")) or word in GENERIC_TITLES
            or all(p in STOPWORDS or p in FILLER or len(p) == 1 for p in word.split())
            or any(mark in word for mark in ("{{", "{%", "<", ">"))  # a heading that is a site's shortcode
            or (all(p in GENERIC_TITLES or p in STOPWORDS for p in parts) and any(p in GENERIC_TITLES for p in parts))
            or any(p in PLACEHOLDERS for p in parts))


def _common(word: str, holders: Mapping[str, int], n_docs: int) -> bool:
    """A one-word term that the text of many docs holds (`holders`: word -> how many): it would name them all."""
    if " " in word or n_docs < 4:
        return False
    return holders.get(word, 0) > COMMON_SHARE * n_docs


# claude-cognitive's own decay rates per folder; the converted config keeps them unless the file sets its own.
CLAUDE_COGNITIVE_DECAY = {"systems/": 0.85, "integrations/": 0.80, "docs/": 0.75}
CLAUDE_COGNITIVE_DEFAULT_DECAY = 0.70


def from_claude_cognitive(path: str) -> dict[str, Any]:
    """Convert claude-cognitive's keywords.json, whose paths are relative to the project (`.claude/x.md`) or
    to the docs folder (`x.md`), into config keys relative to the docs folder (the file's own folder).

    `_dead` lists (key, closest doc or None) for every path that names no doc."""
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            data = json.loads(fh.read())
    except FileNotFoundError:
        raise InputError(f"file not found: {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object with 'keywords'")
    docs_root = os.path.dirname(os.path.abspath(path))
    known = set(index.scan(docs_root).files)
    prefix = os.path.basename(docs_root) + "/"
    dead: dict[str, str | None] = {}

    def resolve(key: str) -> str:
        rel = index.doc_path(str(key))
        if rel not in known and rel.startswith(prefix) and rel[len(prefix):] in known:
            rel = rel[len(prefix):]
        if rel not in known:
            import difflib

            close = difflib.get_close_matches(rel.removeprefix(prefix), sorted(known), n=1, cutoff=0.5)
            dead[str(key)] = close[0] if close else None
        return rel

    unknown = set(data) - {"keywords", "co_activation", "pinned", "decay_rates"}
    out: dict[str, Any] = {}
    for key, target in (("keywords", "keywords"), ("co_activation", "related")):
        value = data.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
            raise InputError(f"{path}: '{key}' must map paths to lists")
        converted: dict[str, list[str]] = {}
        for p, v in value.items():
            items = [resolve(x) for x in v] if key == "co_activation" else [str(x) for x in v]
            converted.setdefault(resolve(p), []).extend(items)
        out[target] = converted
    pinned = data.get("pinned", [])
    if not isinstance(pinned, list):
        raise InputError(f"{path}: 'pinned' must be a list of paths")
    # Claude Code loads CLAUDE.md itself, so ctx does not index it (index.HOST_LOADED): a pin of it says nothing.
    out["pinned"] = [resolve(p) for p in pinned if index.doc_path(str(p)).rsplit("/", 1)[-1] not in index.HOST_LOADED]
    out["decay"] = _decay(data.get("decay_rates"), path)
    out["_unknown"] = sorted(unknown)
    out["_dead"] = sorted(dead.items())
    return out


def _decay(rates: Any, path: str) -> dict[str, Any]:
    """claude-cognitive's decay rates as `decay`: the file's own `decay_rates` map when it has one."""
    if rates is None:
        return {"default": CLAUDE_COGNITIVE_DEFAULT_DECAY, "prefixes": dict(CLAUDE_COGNITIVE_DECAY)}
    if not isinstance(rates, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                              for v in rates.values()):
        raise InputError(f"{path}: 'decay_rates' must map folders to numbers")
    prefixes = {(k if k.endswith("/") else k + "/"): float(v) for k, v in rates.items() if k != "default"}
    return {"default": float(rates.get("default", CLAUDE_COGNITIVE_DEFAULT_DECAY)), "prefixes": prefixes}


def default_docs(cwd: str) -> str:
    """The docs folder `ctx init` describes when given none: the `docs_dir` of an mkdocs.yml here, else the
    source folder of a book.toml here (mdBook), else the docs `path` of a Docusaurus config here, else `docs` or
    `doc` if it is here, else a VitePress site's source (the `srcDir` of its `.vitepress/config`, by default the
    folder itself; a VuePress, Mintlify or Quarto site's and an R package's, the folder itself), else the content
    folder of an Astro Starlight site (`src/content/docs`) or of a Hugo or Zola site (`content`, beside its
    config); else the same in a site folder here (`website/`, `www/`, `site/`: a project whose site sits beside
    its code); else `docs` (which `ctx init` then says it did not find). A site's config (an mkdocs.yml, a
    book.toml, a Docusaurus config, an Astro config beside `src/content/docs`), here or in a site folder (`book/`
    too), comes before a plain `docs/` here:
    tried as a new user would on a text editor's repo, whose book is in `book/`, the four contributor notes in
    `docs/` were taken for its docs."""
    folders = (cwd, *(os.path.join(cwd, name) for name in SITE_FOLDERS))
    for folder in (*folders, os.path.join(cwd, BOOK_FOLDER)):
        found = _configured_docs(folder)
        if found:
            return os.path.relpath(found, cwd)
    for folder in folders:
        found = _site_docs(folder)
        if found:
            # A `docs/` that is a site's own folder (a Starlight site's `docs/astro.config.mjs` beside
            # `docs/src/content/docs`): the site's docs, not its source tree. Tried as a new user would on a
            # docs framework's repo: 300 of the 340 docs taken were translations under `docs/src/`.
            inner = _configured_docs(found) or _site_docs(found, plain=False)
            return os.path.relpath(inner or found, cwd)
    # A site in a folder of any name, when it is the only one: tried as a new user would on a runtime's docs repo,
    # whose Hugo site is `daprdocs/` (its config.toml beside `content/`), `ctx init` found no docs folder.
    named = [found for folder in _top_folders(cwd)
             if (found := _configured_docs(folder) or _site_docs(folder, plain=False)) and os.path.isdir(found)]
    return os.path.relpath(named[0], cwd) if len(named) == 1 else "docs"


def _top_folders(cwd: str) -> list[str]:
    """The folders here a site may sit in: not hidden, not a package manager's or a build's."""
    try:
        names = sorted(os.listdir(cwd))
    except OSError:
        return []
    return [os.path.join(cwd, n) for n in names if not n.startswith((".", "_")) and n not in NOT_SITES
            and os.path.isdir(os.path.join(cwd, n))]


NOT_SITES = frozenset({"node_modules", "vendor", "build", "dist", "target", "venv"})


def likeliest_docs(cwd: str) -> tuple[str, int] | None:
    """(the folder here that holds the most markdown files, how many), of those holding at least three; None if
    none does. Tried as a new user would on a web framework's docs site, whose pages are in `content/` with no
    site config beside them: `ctx init` said it found no docs folder and suggested `path/to/docs`."""
    try:
        files = index.scan(cwd).files
    except DocsError:
        return None
    # Never a translation nor test fixtures: tried as a new user would, `ctx init zh` was suggested on a docs
    # site at a repo's root, `ctx init tests` on an R package (its test snapshots).
    langs = translations(files)
    gone = tuple(f + "/" for f in (*vendored(files), *langs, *fixtures(files)))
    if any("/" not in lang for lang in langs):
        # Language folders at the top (`de/`, `fr/` beside `en/`): the docs are here, and `ctx init .` leaves the
        # translations out. Tried as a new user would on a note app's help vault, `ctx init "Release notes"`
        # was suggested, its biggest folder.
        n = sum(1 for rel in files
                if not rel.startswith(gone) and ("/" in rel or doc_stem(rel).lower() not in TOP_FILES))
        return (".", n) if n >= 3 else None
    counts = Counter(rel.split("/", 1)[0] for rel in files if "/" in rel and not rel.startswith(gone))
    # The markdown at the top, beside a README and the community files every repo has: tried as a new user would
    # on a company handbook (sixteen pages at its root, no folder), `ctx init` suggested `path/to/docs`.
    counts["."] = sum(1 for rel in files if "/" not in rel and doc_stem(rel).lower() not in TOP_FILES)
    best = max(counts.items(), key=lambda kv: (kv[1], kv[0] == "docs"), default=None)
    if best is None or best[1] < 3:
        return None
    folder, n = best
    # Down the folders that hold nearly all of it and no page of their own (a README aside): tried as a new user
    # would on a component library's monorepo, `ctx init apps` was suggested for `apps/v4/content/docs`, 312 of
    # the 317 markdown files of `apps/`.
    kept = [rel[len(folder) + 1:] for rel in files if rel.startswith(folder + "/") and not rel.startswith(gone)]
    while folder != ".":
        if any("/" not in rel and doc_stem(rel).lower() not in TOP_FILES for rel in kept):
            break
        top = Counter(rel.split("/", 1)[0] for rel in kept if "/" in rel).most_common(1)
        if not top or top[0][1] < DESCEND_SHARE * n:
            break
        inner = top[0][0]
        folder, n = f"{folder}/{inner}", top[0][1]
        kept = [rel[len(inner) + 1:] for rel in kept if rel.startswith(inner + "/")]
    return folder, n


DESCEND_SHARE = 0.95  # a folder's share of its parent's markdown files that makes it the one suggested


def outside(cwd: str, docs: str) -> list[str]:
    """The markdown files here (as `ctx init .` would read them, vendored code aside) that are not in the docs
    folder `ctx init` took: a monorepo's package READMEs and design notes. Tried as a new user would on a
    workflow engine's monorepo: a plain `ctx init` took `docs/` (26 of its 48 docs) and said nothing of the
    rest. Empty when the docs are the whole folder."""
    root = os.path.realpath(cwd)
    inside = os.path.realpath(docs)
    if inside == root or not inside.startswith(root + os.sep):
        return []
    try:
        files = index.scan(root).files
    except DocsError:
        return []
    prefix = os.path.relpath(inside, root).replace(os.sep, "/") + "/"
    # ... as `ctx init .` would leave them (what their paths say: vendored code, translations, old versions,
    # fixtures, blogs...): a package manager's 28 test fixtures' READMEs were counted, a formatter's 44 blog posts
    # and 24 pages of its last version
    # (the docs taken among them: another version is found by the pages it mirrors; a package manager's site
    # counted the 521 pages of its old versions)
    found = left_out(files)
    return sorted(rel for rel in files if not rel.startswith(prefix) and not is_left_out(rel, found))


SITE_FOLDERS = (*sites.SITE_FOLDERS, os.path.join("packages", "docs"))  # beside the code; a monorepo's
BOOK_FOLDER = "book"  # an mdBook beside the code: its book.toml in `book/`


def _configured_docs(folder: str) -> str | None:
    """The docs a site's config in this folder names (an mkdocs.yml, a book.toml, a GitBook's, a Docusaurus
    config), or None."""
    if not os.path.isdir(folder):
        return None
    path = mkdocs.in_folder(folder)
    if path is not None:
        return mkdocs.docs_dir(path, mkdocs.read(path))
    found = sites.book_src(folder) or sites.gitbook_root(folder) or sites.docusaurus_docs(folder)
    if found is None and any(os.path.isfile(os.path.join(folder, name)) for name in sites.DOCUSAURUS_CONFIGS):
        found = os.path.join(folder, "docs") if os.path.isdir(os.path.join(folder, "docs")) else None  # its default
    content = os.path.join(folder, "src", "content", "docs")
    if found is None and os.path.isdir(content) and any(
            os.path.isfile(os.path.join(folder, f"astro.config.{ext}")) for ext in ASTRO_CONFIGS):
        # An Astro site's docs collection beside its config, before a plain `docs/` here: tried as a new user
        # would on a web framework's site, `ctx init` took its `docs/` (five notes on how the site is built)
        # over `src/content/docs`, the framework's guides in eleven languages.
        found = content
    return found


ASTRO_CONFIGS = ("mjs", "ts", "js", "mts", "cjs")


def _site_docs(folder: str, plain: bool = True) -> str | None:
    """The docs of the site in this folder without a config that names them (default_docs), or None. plain:
    a `docs/` or `doc/` folder here counts."""
    if not os.path.isdir(folder):
        return None
    for name in ("docs", "doc") if plain else ():  # `doc/`: many Go and Rust projects' name for it
        if os.path.isdir(os.path.join(folder, name)):
            return os.path.join(folder, name)
    src = sites.vitepress_src(folder)
    if src is not None:
        return src
    if os.path.isdir(os.path.join(folder, ".vuepress")):  # VuePress: the site's pages are the folder's own
        return folder
    if sites.mintlify(folder) or sites.quarto(folder) or sites.r_package(folder):
        return folder  # the pages are the folder's own, beside its config (an R package's: README, vignettes)
    if (src := sites.sphinx_source(folder)) is not None:
        return src  # a Sphinx project's source: the folder, or its one folder (`doc/build/`, `docs/source/`)
    if os.path.isdir(os.path.join(folder, "src", "content", "docs")):
        return os.path.join(folder, "src", "content", "docs")
    if os.path.isdir(os.path.join(folder, "content")) and any(
            os.path.isfile(os.path.join(folder, *at, name)) for at in ((), HUGO_CONFIG_DIR) for name in SITE_CONFIGS):
        return os.path.join(folder, "content")
    if os.path.isfile(os.path.join(folder, *HUGO_SOURCES)):
        return os.path.join(folder, HUGO_SOURCES[0])
    return None


# Grafana's projects keep their pages in `docs/sources/` (its `_index.md` the docs' home), which a site built
# elsewhere mounts; `docs/` also holds design notes and build files. Tried as a new user would on a telemetry
# collector's repo: `ctx init` took `docs/`, its 28 design and developer notes among the 402 pages.
HUGO_SOURCES = ("sources", "_index.md")


# A Hugo site's config (hugo.* since Hugo 0.110, config.* before), or a Zola site's (config.toml). Tried as a
# new user would on a file-sync tool's repo, whose Hugo site is `docs/` with a config.json: `ctx init` took
# `docs/` (the site's build notes and its content) for the docs.
SITE_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.json", "config.toml", "config.yaml", "config.json")
# ... or in Hugo's config folder, `config/_default/` (its environments beside it): tried as a new user would on a
# web server's documentation repo, `ctx init` found no docs folder beside its `content/` of 1,252 pages.
HUGO_CONFIG_DIR = ("config", "_default")


def next_steps(target: str, cwd: str) -> list[str]:
    """What to run after `ctx init`: the commands, with `--config` where they would not find this config."""
    found = config_mod.discover(None, cwd)
    here = found is not None and os.path.realpath(found) == os.path.realpath(target)
    opt = "" if here else f" --config {target}"
    steps = [(f"ctx check{opt}", "check the config against the docs"),
             (f'ctx route{opt} "a question about your docs"', "see what a turn gives the model")]
    if here:
        steps.append(("ctx hook install claude", "a turn on every prompt in Claude Code (or gemini, codex, cline)"))
    width = max(len(cmd) for cmd, _ in steps)
    return ["next:", *(f"  {cmd:<{width}}  {why}" for cmd, why in steps)]


IGNORE_FILE = ".ctxignore"


def folders_named(folders: Sequence[str], kind: str = "") -> str:
    """`da/, de/, es/, fa/, ... (16 folders)`; the partials' pattern (`_*`)."""
    pages = kind in FILES or kind in PATTERNS  # files, not folders (`unlisted`: and folders, as `folder/`)
    noun = "patterns" if kind in PATTERNS else \
        ("pages and folders" if any(f.endswith("/") for f in folders) else "pages") if pages else "folders"
    more = f", ... ({len(folders)} {noun})" if len(folders) > 4 else ""
    return ", ".join(f if pages else f + "/" for f in folders[:4]) + more


# The folders `ctx init` leaves out, by kind: (what its line calls them, what they hold, what deleting a line
# routes; what to list them for, when the user's own ignore file does not).
LEFT_OUT = {
    "vendored": ("vendored code left out", "vendored code (other projects' docs)", "folder", "to leave them out"),
    "translations": ("translations left out", "translations of the docs", "language", "to route one language"),
    "translated": ("translated pages left out", "translations of the pages beside them", "language",
                   "to route one language"),
    "versions": ("other versions left out", "other versions of the docs (the same pages again)", "version",
                 "to route one version"),
    "fixtures": ("test fixtures left out", "test fixtures, not docs", "folder", "to leave them out"),
    "partials": ("partials left out", "partials that pages import (the site publishes no page of them)",
                 "partial", "to leave them out"),
    "snippets": ("snippets left out", "snippets that pages import (Mintlify publishes no page of them)", "folder",
                 "to leave them out"),
    "contents": ("the book's contents left out", "the book's table of contents (its titles are read from it)",
                 "page", "to route it as a page"),
    "community": ("community files left out", "a project's files for its community (conduct, governance, "
                  "maintainers, licence)", "file", "to leave them out"),
    "drafts": ("drafts left out", "marked in their front matter as pages the site does not publish (`draft: true`, "
               "`hidden: true`, Hugo's `_build: {render: never}`)", "page", "to leave them out"),
    "gallery": ("other projects' pages left out", "pages about other projects, each naming its own repository (a "
                "gallery of themes or plugins)", "folder", "to leave them out"),
    "copies": ("copies left out", "pages that show another page (front matter `ref:`) and hold no text of their "
               "own", "page", "to leave them out"),
    "included": ("included pages left out", "pages that other pages include (read where they are included)",
                 "page", "to leave them out"),
    "unlisted": ("unlisted pages left out", "unlisted by the book's SUMMARY.md (its build publishes none of "
                 "them)", "page", "to leave them out"),
    "posts": ("blog posts left out", "blog posts (news of past releases, not how the project works now)", "folder",
              "to route the docs without them"),
    "rendered": ("sources of rendered pages left out", "the sources of the pages rendered beside them (the same "
                 "text again)", "page", "to leave them out"),
}
# the kinds that list files (`unlisted`: and folders, as `folder/`), not folders
FILES = ("community", "contents", "included", "unlisted", "drafts", "rendered", "copies")
PARTIALS = "_*"  # the ignore file's line for the partials: a pattern, where the other kinds list folders
INNER_PARTIALS = "/{}/**/_*"  # ... and for those of a site inside the docs folder (sites.sites_inside)
PATTERNS = ("partials", "translated")  # the kinds found as name patterns (`_*`, `*.de.md`)


def is_left_out(rel: str, found: Mapping[str, Sequence[str]]) -> bool:
    """Whether a doc is one of what `left_out` found (kind -> folders, pages or name patterns)."""
    for kind, these in found.items():
        if kind in PATTERNS:  # `_*`, `/docs/**/_*`, `*.de.md`: as the ignore file will read them
            hit = _spec(tuple(these)).match_file(rel)
        elif kind in FILES:  # pages, and folders written `folder/`
            hit = rel in these or rel.startswith(tuple(f for f in these if f.endswith("/")))
        else:
            hit = rel.startswith(tuple(f + "/" for f in these))
        if hit:
            return True
    return False


def ignore_line(kind: str, folder: str) -> str:
    return folder if kind in PATTERNS else f"/{folder}" if kind in FILES else f"/{folder}/"


@lru_cache(maxsize=64)
def _spec(patterns: tuple[str, ...]) -> globs.Spec:
    return globs.Spec(patterns)


def underscored(path: str) -> bool:
    """Whether a doc is a partial, or in a folder of them, by its name (`settings/_catalogMode.mdx`)."""
    return any(part.startswith("_") for part in path.split("/"))


def left_out(paths: Iterable[str], docs_root: str | None = None) -> dict[str, list[str]]:
    """kind (LEFT_OUT) -> the folders of a docs tree that hold no docs of its own: translations, other
    versions, test fixtures, blogs; each kind found among the pages outside the kinds before it. With the docs'
    folder: the partials of a site that publishes no page of them ([PARTIALS], sites.skips_underscored), a
    Mintlify site's `snippets/`, the pages other pages include, and a book's SUMMARY.md (its table of
    contents: ctx reads its titles from it, and as a page it is 25 lines of links)."""
    paths = list(paths)
    found: dict[str, list[str]] = {}
    in_docs = docs_root is not None and os.path.basename(os.path.realpath(docs_root)).lower() in DOCS_FOLDERS
    for kind, find in (("vendored", vendored), ("translations", translations), ("translated", translated),
                       ("versions", versions), ("fixtures", lambda ps: fixtures(ps, in_docs, docs_root)),
                       ("posts", posts), ("community", community), ("rendered", rendered)):
        gone = tuple(f + "/" for folders in found.values() for f in folders)
        folders = find([p for p in paths if not p.startswith(gone)])
        if folders:
            found[kind] = folders
    if docs_root is not None and any(map(underscored, paths)):
        if sites.skips_underscored(docs_root):
            found["partials"] = [PARTIALS]
        else:  # tried as a new user would (`ctx init .`) on a CI engine's monorepo: its Docusaurus site in `docs/`
            # is no folder init took, and twelve `partials/types/_container.mdx` were routed as pages
            inner = [INNER_PARTIALS.format(f) for f in sites.sites_inside(docs_root)]
            inner = [pattern for pattern in inner if any(map(_spec((pattern,)).match_file, paths))]
            if inner:
                found["partials"] = inner
    if docs_root is not None and any(p.startswith("snippets/") for p in paths) and sites.mintlify(docs_root):
        found["snippets"] = ["snippets"]
    if docs_root is not None:
        # Of the pages not left out already: a Quarto site's 170 partials (`_*`) are pages that others include.
        kept = [p for p in paths if not is_left_out(p, found)]
        pages = included(kept, docs_root)
        if pages:
            found["included"] = pages
        pages = drafts([p for p in kept if p not in pages], docs_root)
        if pages:
            found["drafts"] = pages
        pages = copies([p for p in kept if not is_left_out(p, found)], docs_root)
        if pages:
            found["copies"] = pages
        folders = galleries([p for p in kept if not is_left_out(p, found)], docs_root)
        if folders:
            found["gallery"] = folders
    summary = sites.find_summary(docs_root) if docs_root is not None else None
    if summary is not None and docs_root is not None:
        rel = os.path.relpath(summary[0], docs_root).replace(os.sep, "/")
        if rel in paths:
            found["contents"] = [rel]
        gone = tuple(f for folders in found.values() for f in folders)
        pages = unlisted([p for p in paths if not p.startswith(tuple(f + "/" for f in gone)) and p not in gone],
                         sites.summary_titles(docs_root) or {}, rel)
        if pages:
            found["unlisted"] = pages
    return found


LISTED_SHARE = 0.5  # of a book's pages, those its SUMMARY.md lists: at least this many, or it lists a part only


def unlisted(paths: Sequence[str], listed: Mapping[str, str], summary: str) -> list[str]:
    """The pages a book's SUMMARY.md does not list, which its build publishes none of (mdBook, GitBook): a
    folder whose pages are all unlisted as the folder (`legacy/`), the others one by one. None when the SUMMARY
    lists less than LISTED_SHARE of the pages; a root README.md, the book's first page, stays. Tried as a new
    user would on a messaging system's GitBook: 73 of 259 pages were unlisted (a retired product's pages, a
    page template, notes on building the book) and took 8 of 45 HOT places in a conversation."""
    docs = [p for p in paths if is_doc_file(p) and p != summary]
    if not docs or sum(p in listed for p in docs) < LISTED_SHARE * len(docs):
        return []
    out = {p for p in docs if p not in listed and p.lower() != "readme.md"}
    kept_folders = {os.path.dirname(p) for p in docs if p not in out}
    kept_folders |= {"/".join(f.split("/")[:n]) for f in kept_folders for n in range(1, f.count("/") + 1)}
    entries: set[str] = set()
    for page in out:
        parts = page.split("/")
        # the folder nearest the root that holds only unlisted pages, else the page itself
        folder = next(("/".join(parts[:n]) for n in range(1, len(parts)) if "/".join(parts[:n]) not in kept_folders),
                      None)
        entries.add(folder + "/" if folder else page)
    return sorted(entries)


def included(paths: Sequence[str], docs_root: str) -> list[str]:
    """The docs that other docs include whole or in part (`--8<-- "guide/cli-generated.md"`,
    `{{#include ./generated/commands.md}}`): their text is read where it is included, and routed on its own
    it would be sent twice. Tried as a new user would on a text editor's book: three generated command tables
    were pages of their own, and `ctx check` asked them for titles."""
    docs = set(paths)
    real_root = os.path.realpath(docs_root)
    out: set[str] = set()
    for rel in docs:
        text = index.read_text(docs_root, rel)
        if text is None or not includes.has_includes(text):
            continue
        for path in includes.named(text, docs_root, rel, index.read_bytes):
            name = os.path.relpath(path, real_root).replace(os.sep, "/")
            if name != rel and name in docs:
                out.add(name)
    return sorted(out)


FRONT_MATTER_BYTES = 16384  # of a doc, read for its front matter's draft mark


def _front_matter(docs_root: str, rel: str) -> tuple[dict[str, Any], str]:
    """(a doc's front matter, the text after it), from its first FRONT_MATTER_BYTES; ({}, "") when it has none
    (a blank line may come before it: a static site generator's 129 theme pages)."""
    text = index.read_text(docs_root, rel, limit=FRONT_MATTER_BYTES)
    if text is None or not text.lstrip("\ufeff \r\n").startswith(("---", "+++")):
        return {}, ""
    meta, body, _ = index.split_front_matter(text)
    return meta, body


def drafts(paths: Sequence[str], docs_root: str) -> list[str]:
    """The pages whose front matter says the site does not publish them: `draft: true` (Docusaurus, Hugo,
    Jekyll), `published: false` on a Jekyll or Hexo site (their `_config.yml`: elsewhere it may only keep a page
    out of the nav, as a state library's Gatsby site does with its async guide), `hidden: true`, Hugo's `_build`
    (below). Tried
    as a new user would on a router's docs: eleven hidden pages (empty stubs, a markdown styling test) were
    routed, an empty one at rank 2 for "using search params" and one that is its title alone HOT first for "how
    does route matching work?"."""
    out = []
    unpublished = includes.marked_folder(docs_root, JEKYLL_CONFIGS) is not None
    for rel in paths:
        meta = _front_matter(docs_root, rel)[0]
        build = meta.get("_build")
        if meta.get("draft") is True or meta.get("hidden") is True or (
                unpublished and meta.get("published") is False) or (
                isinstance(build, dict) and build.get("render") in (False, "never", "false")) or (
                meta.get("headless") is True and os.path.basename(rel) == "index.md"):
            out.append(rel)
    # Hugo publishes no page marked `_build: {render: never}`: an orchestrator's 339 feature gates' pages so marked
    # took WARM places; nor a headless bundle's `index.md`. The bundle's other pages stay unless a page includes
    # them (`{{< docs/shared >}}`, left out as included): a page no page includes is where that text is.
    return sorted(out)


def copies(paths: Sequence[str], docs_root: str) -> list[str]:
    """The pages that show another page of the docs and hold no text of their own: front matter
    `ref: docs/framework/react/guides/caching.md` (TanStack's sites show that page, its names replaced). Tried as
    a new user would on a data-fetching library's docs: 77 such pages of four frameworks were routed as their titles
    alone, an empty one HOT for "how does prefetching work"."""
    listed = set(paths)
    root = os.path.realpath(docs_root)
    out = []
    for rel in paths:
        meta, body = _front_matter(docs_root, rel)
        ref = meta.get("ref")
        if isinstance(ref, str) and index.no_text(body) and _names_page(ref.strip(), rel, root, listed):
            out.append(rel)
    return sorted(out)


GALLERY_MIN = 10  # pages, each naming a repository of its own, that make their folder a gallery of other projects
GALLERY_SHARE = 0.8  # ... and this share of the folder's pages


def galleries(paths: Sequence[str], docs_root: str) -> list[str]:
    """The folders whose pages are each about another project, naming its repository in their front matter
    (`[extra] repository = "https://github.com/.../coffee"`): a site's gallery of themes or plugins, their own
    READMEs. Tried as a new user would on a static site generator's docs: four of its 129 themes' pages were HOT
    for "how do I add a taxonomy for tags", its page on taxonomies WARM. A bundle's `index.md` counts for the folder
    above its own."""
    named: dict[str, set[str]] = {}
    size: Counter[str] = Counter()
    for rel in paths:
        folder = os.path.dirname(rel)
        if os.path.basename(rel) == "index.md":
            folder = os.path.dirname(folder)
        if not folder:
            continue
        size[folder] += 1
        meta = _front_matter(docs_root, rel)[0]
        repo = next((v for block in (meta, meta.get("extra"), meta.get("params")) if isinstance(block, dict)
                     for key in ("repository", "repo") if isinstance(v := block.get(key), str)), None)
        if repo is not None and repo.startswith(("https://", "http://")):
            named.setdefault(folder, set()).add(repo.rstrip("/").removesuffix(".git").lower())
    return sorted(f for f, repos in named.items()
                  if len(repos) >= GALLERY_MIN and len(repos) >= GALLERY_SHARE * size[f])


def _names_page(ref: str, rel: str, root: str, listed: set[str]) -> bool:
    """Whether `ref`, from the docs' folder or one above it (the repository's: `docs/...`), is another page."""
    folder = root
    for _ in range(includes.MAX_UP + 1):
        path = os.path.realpath(os.path.join(folder, ref))
        if path.startswith(root + os.sep):
            name = os.path.relpath(path, root).replace(os.sep, "/")
            if name in listed and name != rel:
                return True
        if os.path.isdir(os.path.join(folder, ".git")) or os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    return False


JEKYLL_CONFIGS = ("_config.yml", "_config.yaml")  # Jekyll's, and Hexo's: sites where `published: false` is a draft


# A project's files for its community, not for the work on it (CONTRIBUTING.md and SECURITY.md stay: they say how)
COMMUNITY_FILES = frozenset({"code_of_conduct", "code-of-conduct", "governance", "adopters", "maintainers",
                             "licensing", "license", "licence", "contributors", "authors", "notice", "funding",
                             "codeowners", "owners"})
# ... and the files at a repo's top that say nothing of its docs being there (likeliest_docs)
TOP_FILES = COMMUNITY_FILES | {"readme", "changelog", "contributing", "security", "support", "history", "releasing",
                               "release", "agents", "claude"}


def community(paths: Iterable[str]) -> list[str]:
    """The files of a repo for its community (CODE_OF_CONDUCT.md, GOVERNANCE.md, ADOPTERS.md, MAINTAINERS.md,
    LICENSE.md): tried as a new user would (`ctx init .`) on a tracing backend's repo, its GOVERNANCE.md
    ("Majority vote") took a HOT place for "what alternatives were considered?". Named in capitals they are
    at any depth; otherwise only at the top: a command reference's `pages/common/license.md` is the page of the
    `license` command, a site generator's `methods/page/CodeOwners.md` the page of a method."""
    stems = {p: doc_stem(p.rsplit("/", 1)[-1]) for p in paths}
    return sorted(p for p, stem in stems.items() if stem.lower() in COMMUNITY_FILES
                  and ("/" not in p or stem.isupper()))


VENDOR_FOLDERS = frozenset({"vendor"})  # not `third_party/`: a package manager's docs hold their pages on
# third-party integrations in one


def vendored(paths: Iterable[str]) -> list[str]:
    """The folders of vendored code in a repo (Go's, PHP's and jsonnet's `vendor/`, at any depth): their
    READMEs and changelogs are other projects' docs. Tried as a new user would (`ctx init .`) on a tracing
    backend's Go monorepo: 484 of 718 docs were vendored modules' files, and their `v2/` folders were taken
    for other versions of the docs."""
    return _outermost(paths, VENDOR_FOLDERS)


# ... and what a test tool writes: testthat's snapshots (`tests/testthat/_snaps/`), an R package's reverse
# dependency checks (`revdep/`). Tried as a new user would on a data frame library's R package: 65 snapshots and
# four check reports were routed beside its ten vignettes. And a repo's test folders: a static site generator's
# `test/source/` held 45 pages a test builds (`%# +.md`, `_posts/2014-03-03-yaml-with-dots.md`), which init's note
# counted as docs outside its docs folder and `ctx init .` routed.
FIXTURE_FOLDERS = frozenset({"testdata", "test-data", "test_data", "fixtures", "__fixtures__", "__snapshots__",
                             "_snaps", "revdep"})
# A code tree's tests are fixtures too, but in a docs tree a `tests/` folder is the guide's part on testing: tried
# as a new user would on a package manager's `doc/`, its contributor guide's five pages (`contrib/src/tests/`:
# "Running Tests", "Writing Tests") were left out as fixtures.
TEST_FOLDERS = frozenset({"test", "tests"})
DOCS_FOLDERS = frozenset({"doc", "docs", "documentation"})


def fixtures(paths: Iterable[str], in_docs: bool = False, root: str | None = None) -> list[str]:
    """The folders of test fixtures in a repo (`internal/testdata/`, `tests/fixtures/`): the markdown in them is
    what a test reads, not what a reader does. Tried as a new user would (`ctx init .`) on a Go monorepo: 14
    fixture READMEs of a code generator were indexed beside the components' own. in_docs: the paths are a docs
    folder's, where `test/` and `tests/` are pages (as they are under a `docs/` folder of the paths). root: the
    folder the paths are in, where a `test/` that holds pages and pictures alone is pages too (tried as a new
    user would on a runtime's docs site, its guide on testing, `runtime/test/`, was left out as fixtures)."""
    paths = list(paths)
    found = _outermost(paths, FIXTURE_FOLDERS)
    if in_docs:
        return found
    found += [f for f in _outermost(paths, TEST_FOLDERS, DOCS_FOLDERS)
              if root is None or not _pages_only(os.path.join(root, f))]
    return sorted(f for f in set(found) if not any(f.startswith(g + "/") for g in found))


PICTURES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp")


def _pages_only(folder: str) -> bool:
    """Whether a folder holds docs and pictures alone, at any depth (a test's fixtures sit beside its code)."""
    for _, _, files in os.walk(folder):
        if any(not is_doc_file(name) and not name.lower().endswith(PICTURES) and not name.startswith(".")
               for name in files):
            return False
    return True


def _outermost(paths: Iterable[str], names: frozenset[str], unless: frozenset[str] = frozenset()) -> list[str]:
    """The outermost folders of these paths called one of `names` (any case), at any depth; not below a folder
    called one of `unless`."""
    out: set[str] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        at = next((i for i, part in enumerate(parts) if part.lower() in names), None)
        if at is not None and not any(part.lower() in unless for part in parts[:at]):
            out.add("/".join(parts[:at + 1]))
    return sorted(out)


SOURCE_SUFFIXES = (".Rmd", ".rmd", ".qmd")  # pages a tool renders to markdown (knitr, Quarto)


def rendered(paths: Iterable[str]) -> list[str]:
    """The sources whose rendered page sits beside them: an R package's `README.Rmd`, which knitr renders to
    the `README.md` beside it (the same text, with the code's output). Tried as a new user would on a data
    frame library's repo: both came HOT for the same prompt."""
    listed = set(paths)
    return sorted(p for p in listed if p.endswith(SOURCE_SUFFIXES) and p.rsplit(".", 1)[0] + ".md" in listed)


POST_FOLDERS = frozenset({"blog", "_posts"})  # not `posts/`: a REST API's docs may have one of its own


def posts(paths: Iterable[str]) -> list[str]:
    """The blog folders of a docs tree (`blog/`, Jekyll's `_posts/`, at any depth): a release's
    post says how things were then. Tried as a new user would on a TUI framework's and a package manager's
    docs: old release posts were HOT ahead of the guide that answers. A docs folder that is all blog keeps it."""
    paths = list(paths)
    out = _outermost(paths, POST_FOLDERS)
    inside = sum(1 for p in paths if p.startswith(tuple(f + "/" for f in out)))
    return out if inside < len(paths) else []


def left_out_note(kind: str, docs: str, folders: Sequence[str]) -> str:
    """What `ctx init` and `ctx check` say of folders of a kind the docs' ignore files do not leave out."""
    _, held, _, why = LEFT_OUT[kind]
    verb = "hold" if kind not in FILES else "is" if len(folders) == 1 else "are"
    what = f"the docs named {', '.join(f'`{p}`' for p in folders)} are" if kind in PATTERNS else \
        f"{folders_named(folders, kind)} {verb}"
    return f"{what} {held}: list them in {os.path.join(docs, IGNORE_FILE)} (`{ignore_line(kind, folders[0])}`) {why}"


def leave_out(docs: str, groups: Mapping[str, Sequence[str]]) -> str | None:
    """Write the docs folder's .ctxignore to leave these folders out (kind -> folders); None when it has one
    already (the user's: ctx never rewrites it)."""
    path = os.path.join(docs, IGNORE_FILE)
    if os.path.lexists(path):
        return None
    lines = []
    for kind, folders in groups.items():
        _, held, one, _ = LEFT_OUT[kind]
        these = "these files are" if kind in PATTERNS or kind in FILES else "these folders hold"
        lines += [f"# Written by ctx init: {these} {held.split(' (')[0]}. Delete a line to route that {one} too.",
                  *(ignore_line(kind, folder) for folder in folders)]
    write_atomic(path, "\n".join(lines) + "\n")
    return path


def check_target(target: str, force: bool) -> None:
    """Refuse to overwrite a config without --force: before any doc is read (tried as a new user would, `ctx
    init .` read 7,400 docs for 6 s, then said the config was there); and another tool's config.yaml, even with
    it (tried as a new user would on a key-value store's Hugo site, init offered `--force` over the site's own
    config.yaml)."""
    if not os.path.exists(target):
        return
    if not config_mod.is_ctx_config(target):
        raise InputError(f"{target} is another tool's config (none of its keys is ctx's), and ctx never overwrites "
                         f"it: write ctx's beside it as {config_mod.SIDE_NAME} (`ctx init DOCS -o "
                         f"{config_mod.SIDE_NAME}`), found as config.yaml is")
    if not force:
        raise InputError(f"{target} already exists (use --force to overwrite)")


def write_config(target: str, docs: str, body: dict[str, Any], force: bool) -> str:
    import yaml

    check_target(target, force)
    index.check_root(docs)
    rel_docs = os.path.relpath(os.path.realpath(docs), os.path.realpath(os.path.dirname(os.path.abspath(target))))
    data = {"docs": rel_docs.replace(os.sep, "/"), "budget_chars": 25000, "auto_keywords": True}
    data.update({k: v for k, v in body.items() if v and not k.startswith("_")})
    config_mod.normalise(data, os.path.basename(target))  # what we write must load
    text = "# Written by ctx init; see the README for every key.\n" + yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, width=120)
    written = write_atomic(target, text)
    return f"{target} (-> {written})" if os.path.islink(target) else target
