"""Load and validate config.yaml into a frozen Config.

Validation produces a plain, normalised dict (`normalise`), which is what the state database caches; building
a Config from that dict (`from_normal`) needs no YAML and no re-validation, so the hook path skips pyyaml when
config.yaml has not changed since the last turn.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping

from .errors import ConfigError
from .records import doc_path, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any

CONFIG_NAME = "config.yaml"
SIDE_NAME = "ctx.yaml"  # ctx's config beside another tool's config.yaml (a Hugo site's), found as config.yaml is
ENV_CONFIG = "CTX_CONFIG"
PIN_LEVELS = ("warm", "hot")

DEFAULTS: dict[str, Any] = {
    "docs": ".",
    "budget_chars": 25000,
    "tiers": {
        "hot": {"threshold": 0.8, "max_files": 4},
        "warm": {"threshold": 0.25, "max_files": 8, "lines": 25},
    },
    "decay": {"default": 0.70, "prefixes": {}},
    "coactivation": 0.35,
    "auto_keywords": True,
    "keywords": {},
    "derived_keywords": {},
    "related": {},
    "paths": {},  # doc -> globs of the files it is about (beside front matter `paths:` / `globs:`)
    "pinned": {},
    # Each editor host's budget (what it shows of a hook's output whole) and whether it keeps the hook's
    # output in its conversation (history), so a later turn need not send it again.
    "hosts": {
        "claude": {"budget_chars": 10000, "history": True},
        "gemini": {"budget_chars": 10000, "history": True},
        "codex": {"budget_chars": 10000, "history": True},
        "cline": {"budget_chars": 10000, "history": False},
        "plain": {"history": False},
    },
    "max_doc_bytes": 2_000_000,
    "max_prompt_chars": 20000,
    "rate_limit": {"turns_per_minute": 20, "burst": 3},
    "pin_ttl_hours": 24.0,
    "sessions": {"keep_days": 30.0},
    "index_budget_ms": 300,
    "semantic": {
        "enabled": True,
        "dims": 512,
        "history": 10,
        "recall_threshold": 0.2,
        "prompt_hot_threshold": 0.45,
        "clusters": 8,
        "freeze_below": 0.3,
        "thaw_above": 0.6,
        "intent": True,
        "lexical": True,
        "recall": True,
    },
}


# Names the shape of the defaults: a config cached by a build with other keys is validated again.
SCHEMA_ID = f"{zlib.crc32(repr(DEFAULTS).encode()):08x}"


@record
class HotTier:
    threshold: float
    max_files: int


@record
class WarmTier:
    threshold: float
    max_files: int
    lines: int


@record
class Semantic:
    enabled: bool
    dims: int
    history: int
    recall_threshold: float
    prompt_hot_threshold: float
    clusters: int
    freeze_below: float
    thaw_above: float
    intent: bool
    lexical: bool  # evidence from the docs' text (lexical.py)
    recall: bool  # the goal vector's recall of docs near the conversation


@record
class Config:
    path: str | None  # the config file, absolute; None for the embedded defaults
    docs_root: str  # absolute
    budget_chars: int
    hot: HotTier
    warm: WarmTier
    decay_default: float
    decay_prefixes: tuple[tuple[str, float], ...]  # longest prefix first
    coactivation: float
    auto_keywords: bool
    keywords: Mapping[str, tuple[str, ...]]  # curated: a hit makes the doc HOT
    related: Mapping[str, tuple[str, ...]]
    pinned: Mapping[str, str]
    host_budgets: Mapping[str, int]
    host_history: Mapping[str, bool]  # whether the host keeps a hook's output in its conversation
    max_doc_bytes: int
    max_prompt_chars: int
    turns_per_minute: int  # 0: no limit
    burst: int
    pin_ttl_hours: float
    keep_days: float  # sessions idle longer than this are forgotten by the next turn that writes
    index_budget_ms: int  # a turn lists the docs and reads changed ones for at most this long each; the background
    # indexer does the rest
    semantic: Semantic
    derived_keywords: Mapping[str, tuple[str, ...]] = {}  # written by `ctx init`: evidence, never a verdict alone
    paths: Mapping[str, tuple[str, ...]] = {}  # doc -> globs of the files it is about (`paths:`)

    @property
    def state_dir(self) -> str:
        """`.ctx/` beside the config file, or inside the docs root when there is no config file."""
        base = os.path.dirname(self.path) if self.path is not None else self.docs_root
        return os.path.join(base, ".ctx")

    def budget_for(self, host: str | None) -> int:
        """The host's budget, or the config's if that is smaller."""
        if host is None or host not in self.host_budgets:
            return self.budget_chars
        return min(self.budget_chars, self.host_budgets[host])

    def decay_for(self, path: str) -> float:
        for prefix, rate in self.decay_prefixes:
            if path.startswith(prefix):
                return rate
        return self.decay_default


def discover(option: str | None, cwd: str | None = None) -> str | None:
    """--config, then $CTX_CONFIG, then the nearest ctx config.yaml (or ctx.yaml, where a site's config.yaml
    took the name) from the working folder up to the repository root; None means the embedded defaults."""
    cwd = cwd or os.getcwd()
    explicit = option or os.environ.get(ENV_CONFIG)
    if explicit:
        path = os.path.join(cwd, os.path.expanduser(explicit))
        if not os.path.isfile(path):
            raise ConfigError(f"config file not found: {explicit}")
        return os.path.normpath(path)
    folder = os.path.abspath(cwd)
    while True:
        candidate = os.path.join(folder, CONFIG_NAME)
        if os.path.isfile(candidate) and is_ctx_config(candidate):
            return candidate
        side = os.path.join(folder, SIDE_NAME)
        if os.path.isfile(side):
            return side
        parent = os.path.dirname(folder)
        if parent == folder or os.path.exists(os.path.join(folder, ".git")):
            return None  # the repository's root (or the file system's) ends the search
        folder = parent


def is_ctx_config(path: str) -> bool:
    """Whether a config.yaml is ctx's: it names at least one ctx key at the top level, or none at all (an
    empty file). Another tool's config.yaml (a site generator's, say) is passed over. Read without YAML:
    this runs on the hook path."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(65536)
    except OSError:
        return False
    flow = _flow_start(text)
    if flow is not None:
        keys = _flow_keys(text, flow)
    else:
        keys = set()
        for line in text.splitlines():
            if line and not line[0].isspace() and line[0] not in "#-" and ":" in line:
                keys.add(line.split(":", 1)[0].strip().strip("'\""))
    return not keys or bool(keys & set(DEFAULTS))


def _flow_start(text: str) -> int | None:
    """Where a flow-style (JSON-like) mapping opens, when the document is one: `{"docs": "docs", ...}`, after
    any comments, directives and a `---` marker. None for a block-style document."""
    at = 0
    while at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[at:end].strip()
        if line.startswith("---"):
            line = line[3:].strip()
            at = end - len(line) if line else at
        if line.startswith("{"):
            return text.index("{", at)
        if line and not line.startswith(("#", "%")):
            return None
        at = end + 1
    return None


_FLOW_KEY_END = ",{}[]\n"


def _flow_keys(text: str, start: int) -> set[str]:
    """The top-level keys of the flow mapping that opens at `start` (quoted or plain, nested values skipped), up
    to the first ctx key: enough YAML to tell whose config it is, without loading PyYAML on the hook path."""
    keys: set[str] = set()
    depth, expect, i, n = 0, False, start, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "#" and text[i - 1] in " \t\r\n":  # a comment runs to the end of its line
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in "{[":
            depth += 1
            expect = depth == 1
        elif c in "}]":
            depth -= 1
            if depth <= 0:
                break
            expect = False
        elif c == ",":
            expect = depth == 1
        elif c == ":":
            expect = False
        else:
            if c in "\"'":
                j = i + 1
                while j < n and text[j] != c:
                    j += 2 if text[j] == "\\" and c == '"' else 1
                token, i = text[i + 1:j], j + 1
            else:
                j = i
                while j < n and text[j] not in _FLOW_KEY_END and not (
                        text[j] == ":" and (j + 1 == n or text[j + 1] in " \t\r\n" or text[j + 1] in _FLOW_KEY_END)):
                    j += 1
                token, i = text[i:j].strip(), j
            if expect:
                keys.add(token)
                if token in DEFAULTS:  # whose config it is is settled
                    break
            expect = False
            continue
        i += 1
    return keys


def parse_yaml(text: str, source: str) -> dict[str, Any]:
    """YAML text -> normalised dict, with errors that name the key and its line."""
    import yaml  # only when config.yaml changed: pyyaml costs ~25 ms to import

    try:
        # libyaml's parser when PyYAML has it: a config with keywords for 10,000 docs parses in a fraction of
        # the pure-Python parser's seconds.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
        loader.resolve = _fast_resolve(yaml, loader.resolve)  # type: ignore[method-assign]
        try:
            node = loader.get_single_node()
            if node is not None and "&" in text and _expanded_size(node) > MAX_YAML_NODES:
                raise ConfigError(f"{source}: refused: its aliases expand to more than {MAX_YAML_NODES:,} values")
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise ConfigError(_yaml_error(exc, source)) from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        # PyYAML raises these past YAMLError: an impossible date, a huge number, a bad escape, deep nesting.
        raise ConfigError(f"{source}: invalid YAML: {type(exc).__name__}: {str(exc)[:200]}") from None
    if data is None:
        data = {}
    lines = _key_lines(node) if node is not None else {}
    return normalise(data, source, lines)


# What YAML reports "while parsing" something that was opened and never closed: the problem shows where the
# parser gave up (the next key, or the end of the file), the context where the bracket or quote was opened.
_UNCLOSED = {"a flow sequence": "this '[' is never closed", "a flow mapping": "this '{' is never closed",
             "a quoted scalar": "this quote is never closed"}


def _yaml_error(exc: Any, source: str) -> str:
    """One line for a YAML syntax error, at the line to fix: an unclosed bracket or quote where it opens."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark, context = getattr(exc, "problem_mark", None), getattr(exc, "context", None) or ""
    opened = getattr(exc, "context_mark", None)
    unclosed = next((says for what, says in _UNCLOSED.items() if context.endswith(what)), None)
    if unclosed is not None and opened is not None:
        found = f" (line {mark.line + 1}: {problem})" if mark is not None else f" ({problem})"
        return f"{source}:{opened.line + 1}: invalid YAML: {unclosed}{found}"
    where = f":{mark.line + 1}" if mark is not None else ""
    return f"{source}{where}: invalid YAML: {problem}"


MAX_YAML_NODES = 100_000  # far above any real config; an alias bomb expands to billions
_NOT_PLAIN_WORD = frozenset("yYnNtTfFoO")  # the first letters of YAML 1.1's booleans and null-likes


def _fast_resolve(yaml: Any, resolve: Callable[..., str]) -> Callable[..., str]:
    """PyYAML's tag resolver, with the common case short-cut: a plain scalar starting with a letter that no
    boolean or null starts with is a string (PyYAML would try no pattern on it either, but slowly: a config
    with keywords for 100,000 docs has half a million scalars)."""
    scalar, text = yaml.ScalarNode, "tag:yaml.org,2002:str"

    def fast(kind: Any, value: Any, implicit: Any) -> str:
        if kind is scalar and implicit[0] and value and value[0].isalpha() and value[0] not in _NOT_PLAIN_WORD:
            return text
        return resolve(kind, value, implicit)

    return fast


def _expanded_size(root: Any) -> int:
    """How many values the node graph expands to once its aliases are copied out (an alias is the same node
    object used again), counted once per distinct node with memoisation: a "billion laughs" config is
    measured in microseconds instead of being built."""
    sizes: dict[int, int] = {}
    order: list[Any] = []
    stack = [root]
    seen: set[int] = set()
    while stack:  # children before parents, without recursion (nesting may be deep)
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(_children(node))
    for node in reversed(order):
        sizes[id(node)] = min(MAX_YAML_NODES + 1, 1 + sum(sizes.get(id(c), 1) for c in _children(node)))
    return sizes[id(root)]


def _children(node: Any) -> list[Any]:
    value = getattr(node, "value", None)
    if not isinstance(value, list):
        return []
    return [n for item in value for n in (item if isinstance(item, tuple) else (item,))]


def _key_lines(node: Any, prefix: str = "") -> dict[str, int]:
    """Dotted key path -> 1-based line, for error messages."""
    import yaml

    out: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = f"{prefix}{key_node.value}"
            out[key] = key_node.start_mark.line + 1
            out.update(_key_lines(value_node, key + "."))
    return out


class _Checker:
    def __init__(self, source: str, lines: Mapping[str, int]):
        self.source = source
        self.lines = lines

    def fail(self, key: str, message: str) -> ConfigError:
        line = self.lines.get(key)
        where = f"{self.source}:{line}" if line else self.source
        # A key is the user's text: escaped, so that the error stays one line whatever it holds.
        shown = key if key.isprintable() else key.encode("unicode_escape").decode("ascii")
        return ConfigError(f"{where}: {shown}: {message}")

    def mapping(self, value: Any, key: str, allowed: Mapping[str, Any] | None) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a mapping, got {_kind(value)}")
        if allowed is not None:
            for k in value:
                if k not in allowed:
                    full = f"{key}.{k}" if key else str(k)
                    raise self.fail(full, f"unknown key{_did_you_mean(str(k), allowed)} "
                                          f"(expected one of: {', '.join(allowed)})")
        return value

    def number(self, value: Any, key: str, lo: float, hi: float, *, lo_open: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"must be a number, got {_kind(value)}")
        ok = (value > lo if lo_open else value >= lo) and value <= hi
        if not ok:
            left = "(" if lo_open else "["
            raise self.fail(key, f"must be in {left}{lo:g}, {hi:g}], got {value}")
        return float(value)

    def integer(self, value: Any, key: str, lo: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be an integer, got {_kind(value)}")
        if value < lo:
            raise self.fail(key, f"must be at least {lo}, got {value}")
        return value

    def boolean(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {_kind(value)}")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            got = "an empty string" if isinstance(value, str) else _kind(value)
            raise self.fail(key, f"must be a non-empty string, got {got}")
        return value

    def string_list(self, value: Any, key: str) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list of strings, got {_kind(value)}")
        if all(type(item) is str and item.strip() for item in value):
            return value  # the common case, without a check per item
        return [self.string(item, key) for item in value]


def _did_you_mean(key: str, allowed: Mapping[str, Any]) -> str:
    """'; did you mean budget_chars?' for a misspelt key, or nothing when no key is close."""
    import difflib

    close = difflib.get_close_matches(key.lower(), list(allowed), n=1, cutoff=0.7)
    return f"; did you mean {close[0]}?" if close else ""


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def normalise(data: Any, source: str = CONFIG_NAME, lines: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Validate a raw config mapping against the schema and fill in the defaults."""
    c = _Checker(source, lines or {})
    top = c.mapping(data, "", DEFAULTS)
    d = DEFAULTS
    out: dict[str, Any] = {}
    out["docs"] = c.string(top.get("docs", d["docs"]), "docs")
    out["budget_chars"] = c.integer(top.get("budget_chars", d["budget_chars"]), "budget_chars", 1)

    tiers = c.mapping(top.get("tiers", {}), "tiers", d["tiers"])
    hot = c.mapping(tiers.get("hot", {}), "tiers.hot", d["tiers"]["hot"])
    warm = c.mapping(tiers.get("warm", {}), "tiers.warm", d["tiers"]["warm"])
    hot_t = c.number(hot.get("threshold", d["tiers"]["hot"]["threshold"]), "tiers.hot.threshold", 0, 1)
    warm_t = c.number(warm.get("threshold", d["tiers"]["warm"]["threshold"]), "tiers.warm.threshold", 0, 1)
    if hot_t < warm_t:
        raise c.fail("tiers.hot.threshold", f"must not be below tiers.warm.threshold ({hot_t:g} < {warm_t:g})")
    out["tiers"] = {
        "hot": {"threshold": hot_t,
                "max_files": c.integer(hot.get("max_files", d["tiers"]["hot"]["max_files"]),
                                       "tiers.hot.max_files", 0)},
        "warm": {"threshold": warm_t,
                 "max_files": c.integer(warm.get("max_files", d["tiers"]["warm"]["max_files"]),
                                        "tiers.warm.max_files", 0),
                 "lines": c.integer(warm.get("lines", d["tiers"]["warm"]["lines"]), "tiers.warm.lines", 1)},
    }

    decay = c.mapping(top.get("decay", {}), "decay", d["decay"])
    prefixes = c.mapping(decay.get("prefixes", {}), "decay.prefixes", None)
    out["decay"] = {
        "default": c.number(decay.get("default", d["decay"]["default"]), "decay.default", 0, 1, lo_open=True),
        "prefixes": {c.string(p, "decay.prefixes"): c.number(r, f"decay.prefixes.{p}", 0, 1, lo_open=True)
                     for p, r in prefixes.items()},
    }
    out["coactivation"] = c.number(top.get("coactivation", d["coactivation"]), "coactivation", 0, 1)
    out["auto_keywords"] = c.boolean(top.get("auto_keywords", d["auto_keywords"]), "auto_keywords")

    keywords = c.mapping(top.get("keywords", {}) or {}, "keywords", None)
    out["keywords"] = {_doc_path(c, p, "keywords"): c.string_list(v, f"keywords.{p}") for p, v in keywords.items()}
    derived = c.mapping(top.get("derived_keywords", {}) or {}, "derived_keywords", None)
    out["derived_keywords"] = {_doc_path(c, p, "derived_keywords"): c.string_list(v, f"derived_keywords.{p}")
                               for p, v in derived.items()}
    related = c.mapping(top.get("related", {}) or {}, "related", None)
    out["related"] = {_doc_path(c, p, "related"): [_doc_path(c, r, f"related.{p}")
                                                   for r in c.string_list(v, f"related.{p}")]
                      for p, v in related.items()}
    out["paths"] = _claims(c, top.get("paths", {}))
    out["pinned"] = _pins(c, top.get("pinned", {}))

    hosts = c.mapping(top.get("hosts", {}) or {}, "hosts", None)
    out["hosts"] = dict(d["hosts"])
    for name, host in hosts.items():
        h = c.mapping(host or {}, f"hosts.{name}", {"budget_chars": None, "history": None})
        default = d["hosts"].get(str(name), {})  # hosts: {claude: {}} keeps claude's defaults
        history = c.boolean(h.get("history", default.get("history", False)), f"hosts.{name}.history")
        entry: dict[str, Any] = {"history": history}
        budget = h.get("budget_chars", default.get("budget_chars"))
        if budget is not None:  # none: the config's own budget_chars
            entry["budget_chars"] = c.integer(budget, f"hosts.{name}.budget_chars", 1)
        out["hosts"][str(name)] = entry
    out["max_doc_bytes"] = c.integer(top.get("max_doc_bytes", d["max_doc_bytes"]), "max_doc_bytes", 1)
    out["max_prompt_chars"] = c.integer(top.get("max_prompt_chars", d["max_prompt_chars"]), "max_prompt_chars", 1)
    rate = c.mapping(top.get("rate_limit", {}), "rate_limit", d["rate_limit"])
    out["rate_limit"] = {
        "turns_per_minute": c.integer(rate.get("turns_per_minute", d["rate_limit"]["turns_per_minute"]),
                                      "rate_limit.turns_per_minute", 0),
        "burst": c.integer(rate.get("burst", d["rate_limit"]["burst"]), "rate_limit.burst", 1),
    }
    out["pin_ttl_hours"] = c.number(top.get("pin_ttl_hours", d["pin_ttl_hours"]), "pin_ttl_hours", 0, 1e6,
                                    lo_open=True)
    out["index_budget_ms"] = c.integer(top.get("index_budget_ms", d["index_budget_ms"]), "index_budget_ms", 1)
    sessions = c.mapping(top.get("sessions", {}), "sessions", d["sessions"])
    out["sessions"] = {"keep_days": c.number(sessions.get("keep_days", d["sessions"]["keep_days"]),
                                             "sessions.keep_days", 0, 1e6, lo_open=True)}
    sem = c.mapping(top.get("semantic", {}), "semantic", d["semantic"])
    ds = d["semantic"]
    out["semantic"] = {
        "enabled": c.boolean(sem.get("enabled", ds["enabled"]), "semantic.enabled"),
        "dims": c.integer(sem.get("dims", ds["dims"]), "semantic.dims", 16),
        "history": c.integer(sem.get("history", ds["history"]), "semantic.history", 1),
        "recall_threshold": c.number(sem.get("recall_threshold", ds["recall_threshold"]),
                                     "semantic.recall_threshold", 0, 1),
        "prompt_hot_threshold": c.number(sem.get("prompt_hot_threshold", ds["prompt_hot_threshold"]),
                                         "semantic.prompt_hot_threshold", 0, 1),
        "clusters": c.integer(sem.get("clusters", ds["clusters"]), "semantic.clusters", 1),
        "freeze_below": c.number(sem.get("freeze_below", ds["freeze_below"]), "semantic.freeze_below", -1, 1),
        "thaw_above": c.number(sem.get("thaw_above", ds["thaw_above"]), "semantic.thaw_above", -1, 1),
        "intent": c.boolean(sem.get("intent", ds["intent"]), "semantic.intent"),
        "lexical": c.boolean(sem.get("lexical", ds["lexical"]), "semantic.lexical"),
        "recall": c.boolean(sem.get("recall", ds["recall"]), "semantic.recall"),
    }
    if out["semantic"]["dims"] > 65535:
        raise c.fail("semantic.dims", f"must be at most 65535, got {out['semantic']['dims']}")
    if out["semantic"]["thaw_above"] < out["semantic"]["freeze_below"]:
        raise c.fail("semantic.thaw_above", "must not be below semantic.freeze_below")
    return out


def _doc_path(c: _Checker, value: Any, key: str) -> str:
    return doc_path(c.string(value, key))


MAX_GLOB_CHARS = 300


def _claims(c: _Checker, value: Any) -> dict[str, list[str]]:
    """`paths:` doc -> the globs (gitignore style, from the project folder) of the files it is about."""
    out: dict[str, list[str]] = {}
    for doc, globs in c.mapping(value or {}, "paths", None).items():
        key = f"paths.{doc}"
        items = [g.strip() for g in c.string_list(globs, key)]
        for glob in items:
            if len(glob) > MAX_GLOB_CHARS:
                raise c.fail(key, f"a glob is over {MAX_GLOB_CHARS} characters")
            if glob.startswith("!"):
                raise c.fail(key, f"{glob!r}: a doc claims files, it cannot exclude them")
        out[_doc_path(c, doc, "paths")] = items
    return out


def _pins(c: _Checker, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, (list, str)):
        return {_doc_path(c, p, "pinned"): "warm" for p in c.string_list(value, "pinned")}
    pins = c.mapping(value, "pinned", None)
    out = {}
    for path, level in pins.items():
        if level is True or level is None:
            level = "warm"
        if level not in PIN_LEVELS:
            raise c.fail(f"pinned.{path}", f"must be warm or hot, got {level!r}")
        out[_doc_path(c, path, "pinned")] = level
    return out


class Lazy(Mapping[str, tuple[str, ...]]):
    """A big part of the config (keywords, related), loaded on first use: a turn looks up the few docs it
    touches (`lookup`) or matches against the state's keyword index, so with thousands of docs the hook path
    never pays for loading them."""

    LOOKUPS = 32  # past this many lookups, the whole is loaded: a turn that asks about every doc not indexed
    # yet (workspace.named_docs, thousands on first contact) reads it once, not a query a doc

    def __init__(self, load: Callable[[], Mapping[str, Sequence[str]]],
                 lookup: Callable[[str], Sequence[str] | None] | None = None):
        self._load = load
        self._lookup = lookup
        self._data: dict[str, tuple[str, ...]] | None = None
        self._asked = 0

    def _get(self) -> dict[str, tuple[str, ...]]:
        if self._data is None:
            self._data = {p: tuple(v) for p, v in self._load().items()}
        return self._data

    def __getitem__(self, key: str) -> tuple[str, ...]:
        if self._data is None and self._lookup is not None and self._asked < self.LOOKUPS:
            self._asked += 1
            found = self._lookup(key)
            if found is None:
                raise KeyError(key)
            return tuple(found)
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def from_normal(raw: Mapping[str, Any], path: str | None, docs_override: str | None = None,
                cwd: str | None = None, keywords: Mapping[str, tuple[str, ...]] | None = None,
                related: Mapping[str, tuple[str, ...]] | None = None,
                derived: Mapping[str, tuple[str, ...]] | None = None) -> Config:
    """Build the Config from an already validated dict (see `normalise`); `keywords` and `related` may
    replace raw's."""
    cwd = cwd or os.getcwd()
    if docs_override is not None:
        docs_root = os.path.join(cwd, os.path.expanduser(docs_override))
    else:
        base = os.path.dirname(path) if path is not None else cwd
        docs_root = os.path.join(base, os.path.expanduser(raw["docs"]))
    tiers = raw["tiers"]
    return Config(
        path=path,
        docs_root=os.path.normpath(os.path.abspath(docs_root)),
        budget_chars=raw["budget_chars"],
        hot=HotTier(tiers["hot"]["threshold"], tiers["hot"]["max_files"]),
        warm=WarmTier(tiers["warm"]["threshold"], tiers["warm"]["max_files"], tiers["warm"]["lines"]),
        decay_default=raw["decay"]["default"],
        decay_prefixes=tuple(sorted(raw["decay"]["prefixes"].items(), key=lambda kv: (-len(kv[0]), kv[0]))),
        coactivation=raw["coactivation"],
        auto_keywords=raw["auto_keywords"],
        keywords=keywords if keywords is not None else {p: tuple(v) for p, v in raw["keywords"].items()},
        related=related if related is not None else {p: tuple(v) for p, v in raw["related"].items()},
        pinned=dict(raw["pinned"]),
        host_budgets={h: v.get("budget_chars", raw["budget_chars"]) for h, v in raw["hosts"].items()},
        host_history={h: bool(v.get("history", False)) for h, v in raw["hosts"].items()},
        max_doc_bytes=raw["max_doc_bytes"],
        max_prompt_chars=raw["max_prompt_chars"],
        turns_per_minute=raw["rate_limit"]["turns_per_minute"],
        burst=raw["rate_limit"]["burst"],
        pin_ttl_hours=raw["pin_ttl_hours"],
        keep_days=raw["sessions"]["keep_days"],
        index_budget_ms=raw["index_budget_ms"],
        semantic=Semantic(**raw["semantic"]),
        derived_keywords=derived if derived is not None else {p: tuple(v) for p, v in
                                                              raw.get("derived_keywords", {}).items()},
        paths={p: tuple(v) for p, v in raw.get("paths", {}).items()},
    )


def read_config_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None


def load(path: str | None, docs_override: str | None = None, cwd: str | None = None) -> Config:
    """Parse and validate a config file (or the defaults when path is None), without any cache."""
    raw = parse_yaml(read_config_text(path), os.path.basename(path)) if path is not None else normalise({})
    return from_normal(raw, path, docs_override, cwd)
