"""`ctx init`: write a config.yaml for a docs folder, or convert claude-cognitive's keywords.json."""

from __future__ import annotations

import os
import re
from typing import Any

from . import config as config_mod
from . import index
from .errors import InputError

_LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")


def derive(docs_root: str, max_bytes: int = 2_000_000) -> dict[str, Any]:
    """Keywords (title, stem words) and related docs (markdown links between docs) for every doc."""
    scan = index.scan(docs_root)
    keywords: dict[str, list[str]] = {}
    related: dict[str, list[str]] = {}
    for rel, st in sorted(scan.files.items()):
        text = index.read_text(docs_root, rel, limit=max_bytes)
        if text is None:
            continue
        doc = index.parse_doc(rel, st, text, 25)
        stem = rel.rsplit("/", 1)[-1][:-3]
        words = []
        for word in (doc.title, stem.replace("-", " ").replace("_", " ")):
            word = " ".join(word.lower().split())
            if word and word not in words:
                words.append(word)
        keywords[rel] = words
        base = os.path.dirname(rel)
        links = []
        for target in _LINK.findall(index.body_of(text)):
            resolved = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
            if resolved in scan.files and resolved != rel and resolved not in links:
                links.append(resolved)
        if links:
            related[rel] = links
    return {"keywords": keywords, "related": related}


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
    tmp = os.path.join(os.path.dirname(os.path.abspath(target)), f".{os.path.basename(target)}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, target)
    return target
