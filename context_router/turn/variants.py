"""Variant folders: sibling folders that hold the same pages for different frameworks, providers or platforms
(`framework/react/guides/optimistic-updates.md` beside `framework/vue/guides/optimistic-updates.md`). When the
conversation names one of them ("in my vue app"), the other variants' copies of the pages it has are the same
answer for what the user does not use: they get no evidence, so they take no room from its own, for as long as
the conversation names no other one.

Pure: the router hands in the words, the ranked paths and the docs under a folder (the store's).
"""

from __future__ import annotations

from ..records import doc_stem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Any

MIN_SHARED = 3  # pages a variant folder shares with its siblings (relative paths alike) ...
SHARED_SHARE = 0.3  # ... and at least this share of its own pages
MIN_VARIANTS = 3  # a family (frameworks, providers, platforms): two folders alike may be steps (install, run)
OWN_PAGES = frozenset({"index", "_index", "readme"})  # a folder's own page, whatever the folder holds
SCAN_LIMIT = 2000  # docs read under one folder to tell its variants: a bigger folder is not looked at


def parents(paths: Iterable[str]) -> dict[str, set[str]]:
    """Each folder above these paths, with the child folders the paths pass through."""
    out: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")
        for i in range(len(parts) - 1):
            out.setdefault("/".join(parts[:i]), set()).add(parts[i])
    return out


def _children(parent: str, under: Sequence[str]) -> dict[str, set[str]]:
    """Each child folder of `parent` with the relative paths of the docs below it."""
    cut = len(parent) + 1 if parent else 0
    kids: dict[str, set[str]] = {}
    for path in under:
        child, sep, rest = path[cut:].partition("/")
        if sep:
            kids.setdefault(child, set()).add(rest)
    return kids


def variant_names(kids: dict[str, set[str]]) -> frozenset[str]:
    """The child folders (`kids`: each one's relative doc paths) that mirror a sibling: at least MIN_SHARED of
    their pages, and SHARED_SHARE of them, have a sibling's page at the same relative path; MIN_VARIANTS of them
    or none. A page named by a number or as its folder's own (`3.mdx`, `index.md`) says nothing of what it holds:
    the units of a tutorial (`1-setup/`, `2-pages/`, each `1.mdx` to `5.mdx` and `index.mdx`) are steps."""
    seen: dict[str, int] = {}
    for rel in kids.values():
        for r in rel:
            seen[r] = seen.get(r, 0) + 1
    shared = {k: sum(1 for r in rel if seen[r] > 1 and _named(r)) for k, rel in kids.items()}
    out = frozenset(k for k, n in shared.items() if n >= MIN_SHARED and n >= SHARED_SHARE * len(kids[k]))
    return out if len(out) >= MIN_VARIANTS else frozenset()


def _named(rel: str) -> bool:
    """Whether a page's file name says what it holds: not a number, not the folder's own page."""
    stem = doc_stem(rel.rpartition("/")[2]).lower()
    return not stem.isdigit() and stem not in OWN_PAGES


def families(paths: Iterable[str]) -> list[tuple[str, list[str]]]:
    """Every folder of these doc paths whose children are variants, with their names (`ctx init` says them)."""
    listed = sorted(paths)
    out = []
    for parent in sorted(parents(listed)):
        below = [p for p in listed if not parent or p.startswith(parent + "/")]
        names = variant_names(_children(parent, below))
        if names:
            out.append((parent, sorted(names)))
    return out


def name_words(name: str) -> frozenset[str]:
    """A folder name's words, lowercase (`React-Query` -> react, query)."""
    return frozenset("".join(ch if ch.isalnum() else " " for ch in name.lower()).split())


def own_words(names: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each variant's own words: its name's, less those every variant's name has (`vue-query` -> vue)."""
    words = {n: name_words(n) for n in names}
    common = frozenset.intersection(*words.values()) if words else frozenset()
    return {n: (w - common) or w for n, w in words.items()}


def left_out(ranked: Iterable[str], said: Sequence[str], named: Mapping[str, Sequence[str]],
             under: Callable[[str], Sequence[str] | None]) -> tuple[frozenset[str], dict[str, list[str]]]:
    """(the docs that leave this turn's evidence, the variants the conversation is on): for each folder above the
    ranked paths with two or more of its children among them, one of them named by this prompt or earlier in
    the conversation (`named`: folder -> the variants last named there), the pages of its other variants that
    the named variants have a page of their own for (a page only another variant has, or one the named variant
    shows from another page, stays). said: this prompt's words, lowercase (a folder is named by its own words:
    `React/` by "react", `vue-query/` beside `react-query/` by "vue"); a variant named stays named until the
    conversation names another of its family. under(folder): the doc paths below a folder, None when there are
    more than SCAN_LIMIT (only a folder whose child a prompt names, or named, is read)."""
    words = set(said)
    on_now = {k: list(v) for k, v in named.items()}
    out: set[str] = set()
    for parent, children in sorted(parents(ranked).items()):
        if len(children) < 2 or (parent not in on_now and not any(name_words(c) & words for c in children)):
            continue
        paths = under(parent)
        kids = _children(parent, paths) if paths else {}
        naming = own_words(variant_names(kids))
        now = sorted(n for n, w in naming.items() if w <= words)
        if now:
            on_now[parent] = now
        on = [n for n in on_now.get(parent, ()) if n in naming]
        if not on:
            continue
        own = set().union(*(kids[n] for n in on))
        prefix = f"{parent}/" if parent else ""
        out.update(f"{prefix}{name}/{rest}" for name in naming.keys() - set(on) for rest in kids[name] & own)
    return frozenset(out), on_now


def remembered(memory: Any) -> dict[str, list[str]]:
    """The variants the conversation is on, as the lexical memory keeps them (`[[folder, [names]], ...]`); what a
    memory this version did not write holds is none."""
    pairs = memory.get("variants", ()) if isinstance(memory, dict) else ()
    return {p[0]: [str(n) for n in p[1]] for p in pairs if isinstance(p, (list, tuple)) and len(p) == 2
            and isinstance(p[0], str) and isinstance(p[1], (list, tuple))}


def to_memory(named: Mapping[str, Sequence[str]]) -> list[Any]:
    """What the lexical memory keeps of the variants the conversation is on (remembered() reads it)."""
    return [[folder, list(names)] for folder, names in sorted(named.items())]


def without(memory: Any, gone: frozenset[str]) -> Any:
    """The lexical memory with the left-out docs taken out of its rankings: the conversation's ranking does not
    bring them back either."""
    if not gone or not isinstance(memory, dict):
        return memory
    out = dict(memory)
    out["rankings"] = [{p: s for p, s in r.items() if p not in gone} if isinstance(r, dict) else r
                       for r in memory.get("rankings", ())]
    out["sections"] = [{k: s for k, s in r.items() if k[0] not in gone} if isinstance(r, dict) else r
                       for r in memory.get("sections", ())]
    return out
