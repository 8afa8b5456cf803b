"""`ctx init`: write a config.yaml for a docs folder, or convert claude-cognitive's keywords.json."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from .. import config as config_mod
from ..errors import InputError
from ..store import index
from ..store.files import write_atomic
from ..turn.words import doc_name

_LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


MAX_KEYWORDS = 12  # per doc: a doc's names and its most telling terms, not its vocabulary
COMMON_SHARE = 0.25  # a one-word term in the text of more docs than this share names none of them
_CODE_SPAN = re.compile(r"`([A-Za-z_][A-Za-z0-9_.-]{3,40})`")
_BOLD = re.compile(r"\*\*([^*\n:]{3,40})\*\*(?!:)")
_HEADING = re.compile(r"^#{2,3} +(.+?) *#*$", re.MULTILINE)
_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*[A-Z_][A-Za-z0-9_]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*")


def derive(docs_root: str, max_bytes: int = 2_000_000,
           progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Keywords from what people type about each doc, and related docs from the links between docs.

    A doc's keywords: its title and name (its folder's name for a generic file name such as SKILL.md), then
    the terms that are its own: headings, identifiers in code spans and bold terms that no other doc has,
    minus words common across the docs."""
    scan = index.scan(docs_root)
    bodies: dict[str, str] = {}
    titles: dict[str, str] = {}
    for n, (rel, st) in enumerate(sorted(scan.files.items()), start=1):
        if progress is not None:
            progress(n, len(scan.files))
        text = index.read_text(docs_root, rel, limit=max_bytes)
        if text is None:
            continue
        bodies[rel] = index.body_of(text)
        titles[rel] = index.parse_doc(rel, st, text, 25).title
    terms = {rel: _terms(body) for rel, body in bodies.items()}
    owners: dict[str, int] = {}
    for found in terms.values():
        for term in set(found):
            owners[term] = owners.get(term, 0) + 1
    doc_words = {rel: set(body.lower().split()) for rel, body in bodies.items()}
    keywords: dict[str, list[str]] = {}
    related: dict[str, list[str]] = {}
    for rel, body in bodies.items():
        words: list[str] = []
        for word in (titles[rel], doc_name(rel).replace("-", " ").replace("_", " "),
                     *(t for t in terms[rel] if owners[t] == 1)):
            word = " ".join(word.lower().split())
            if word and word not in words and not _common(word, doc_words):
                words.append(word)
        keywords[rel] = words[:MAX_KEYWORDS]
        base = os.path.dirname(rel)
        links = []
        for target in _LINK.findall(body):
            resolved = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
            if resolved in bodies and resolved != rel and resolved not in links:
                links.append(resolved)
        if links:
            related[rel] = links
    # Nobody chose these: a hit is evidence for the doc, not a verdict (move a phrase to `keywords` to make it one).
    return {"derived_keywords": keywords, "related": related}


def _terms(body: str) -> list[str]:
    """Headings, identifiers in code spans and bold terms, in the doc's order."""
    out: list[str] = []
    for heading in _HEADING.findall(body):
        plain = re.sub(r"[`*_\[\]()]", "", heading).strip()
        if 1 <= len(plain.split()) <= 4:
            out.append(plain)
    out += [span for span in _CODE_SPAN.findall(body) if _IDENTIFIER.fullmatch(span)]
    out += [bold.strip() for bold in _BOLD.findall(body) if len(bold.split()) <= 3]
    return out


def _common(word: str, doc_words: dict[str, set[str]]) -> bool:
    """A one-word term that the text of many docs holds: it would name them all."""
    if " " in word or len(doc_words) < 4:
        return False
    holders = sum(1 for words in doc_words.values() if word in words)
    return holders > COMMON_SHARE * len(doc_words)


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


def write_config(target: str, docs: str, body: dict[str, Any], force: bool) -> str:
    import yaml

    if os.path.exists(target) and not force:
        raise InputError(f"{target} already exists (use --force to overwrite)")
    index.check_root(docs)
    rel_docs = os.path.relpath(os.path.realpath(docs), os.path.realpath(os.path.dirname(os.path.abspath(target))))
    data = {"docs": rel_docs.replace(os.sep, "/"), "budget_chars": 25000, "auto_keywords": True}
    data.update({k: v for k, v in body.items() if v and not k.startswith("_")})
    config_mod.normalise(data, os.path.basename(target))  # what we write must load
    text = "# Written by ctx init; see the README for every key.\n" + yaml.safe_dump(
        data, sort_keys=False, allow_unicode=True, width=120)
    written = write_atomic(target, text)
    return f"{target} (-> {written})" if os.path.islink(target) else target
