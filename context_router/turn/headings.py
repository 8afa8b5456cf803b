"""A heading as it reads: without its markup (emphasis, code spans, links, HTML tags, attribute lists), and
its slug (the anchor a docs site gives it). `ctx show PATH SECTION` finds a section by either."""

from __future__ import annotations

import html
import re
import unicodedata

_CODE = re.compile(r"(`+)(.+?)\1")
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])?")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_ATTRS = re.compile(r"\s*\{:?\s*([^}]*)\}\s*$")  # python-markdown's attr_list: `## Title {#anchor .class}`
_HTML_ANCHOR = re.compile(r"""<a\s[^>]*?\b(?:name|id)=["']([^"']+)["']""", re.IGNORECASE)
# Emphasis markers at a word's edge; an underscore inside a word (snake_case) is text.
_EMPHASIS = re.compile(r"(?<![\w*])[*_]+(?=\S)|(?<=\S)[*_]+(?![\w*])|\*\*|~~")


def plain(title: str) -> str:
    """The heading's text as a reader sees it: `Create a **FastAPI** Dependency` -> `Create a FastAPI
    Dependency`; a code span's text is kept as it is."""
    title = _ATTRS.sub("", title)
    spans: list[str] = []

    def keep(m: re.Match[str]) -> str:
        spans.append(m.group(2).strip())
        return f"\0{len(spans) - 1}\0"

    text = _CODE.sub(keep, title)
    text = _TAG.sub("", _IMAGE_OR_LINK.sub(r"\1", text))
    text = _EMPHASIS.sub("", text).replace("`", "")
    text = re.sub("\0(\\d+)\0", lambda m: spans[int(m.group(1))], text)
    return " ".join(html.unescape(text).split())


def anchor(title: str) -> str | None:
    """The heading's own anchor (`{#custom-id}`, `<a name="custom-id">`), if it sets one."""
    m = _ATTRS.search(title)
    ids = [a[1:] for a in m.group(1).split() if a.startswith("#")] if m else []
    ids += _HTML_ANCHOR.findall(title)
    return ids[0] if ids else None


def slugs(title: str) -> set[str]:
    """The anchors docs sites give a heading: GitHub's (unicode kept) and mkdocs' (ASCII only)."""
    text = plain(title).lower()
    out = {_slug(text), _slug(unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode())}
    own = anchor(title)
    return out | {own.lower()} if own else out


def _slug(text: str) -> str:
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text)).strip("-")


def key(name: str) -> str:
    return plain(name).casefold()


def keys(name: str) -> set[str]:
    """A name as typed may be plain text that reads like markup (`__init__` without its backticks)."""
    return {key(name), " ".join(name.casefold().split())}


def matches(title: str, name: str) -> bool:
    """Whether `name` (as the heading reads, with its markup, or its slug) names this heading."""
    if key(title) in keys(name):
        return True
    wanted = name.strip().lstrip("#").strip().lower()
    return bool(wanted) and (wanted in slugs(title) or _slug(key(name)) in slugs(title))


def close(titles: list[str], name: str, n: int = 5) -> list[str]:
    """The headings (as they read) closest to a name that matched none."""
    import difflib

    shown = {key(t): plain(t) for t in titles}
    wanted = key(name)
    found = difflib.get_close_matches(wanted, list(shown), n=n, cutoff=0.6)
    # A word of a heading misspelt ("overides" for "Dependency Overrides"): close to one of its words.
    found += [k for k in shown if k not in found and " " not in wanted
              and difflib.get_close_matches(wanted, k.split(), n=1, cutoff=0.8)]
    return [shown[k] for k in found[:n]]
