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


def from_claude_cognitive(path: str) -> dict[str, Any]:
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
    unknown = set(data) - {"keywords", "co_activation", "pinned"}
    out: dict[str, Any] = {}
    for key, target in (("keywords", "keywords"), ("co_activation", "related")):
        value = data.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
            raise InputError(f"{path}: '{key}' must map paths to lists")
        out[target] = {str(p): [str(x) for x in v] for p, v in value.items()}
    pinned = data.get("pinned", [])
    if not isinstance(pinned, list):
        raise InputError(f"{path}: 'pinned' must be a list of paths")
    out["pinned"] = [str(p) for p in pinned]
    out["_unknown"] = sorted(unknown)
    return out


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
