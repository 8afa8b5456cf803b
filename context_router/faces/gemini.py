"""What Gemini CLI's conversation holds when the prompt's request is sent: read from its session file (the
`transcript_path` every hook payload names), as the client reads it back, and with the client's own rule for
compressing the history on its own.

Measured in Gemini CLI 0.61.0 (`gemini -p`, interactive mode read from its source):

- The session file is JSON lines. A message record (`{"id", "type": "user"|"gemini", "content", "tokens"}`)
  adds a message or replaces the one with its id; `{"$set": {"messages": [...]}}` replaces them all (written
  when a process resumes the session and when a compression or a rollback replaces the history);
  `{"$rewindTo": id}` drops that message and those after it. A process writes its header line first. When
  BeforeAgent runs, the file holds the history the prompt's request will be sent with: the prompt itself is
  recorded after the hook.
- ctx's context reaches the history as a part of the user message, `<hook_context>` followed by ctx's block,
  whose banner names its turn: so the turns whose blocks the history still holds are the turns whose units it
  holds.
- After BeforeAgent and before the request, the client compresses when its last prompt-token count reached
  `model.compressionThreshold` (0.5 unless set) of the model's window. That count is the last reply's
  `promptTokenCount` (recorded as `tokens.input`), or, when the history was set since (a resumed session, a
  compression), the client's estimate of the history: 1/4 token an ASCII character, 1.5 any other UTF-16 unit.
  A compression summarises the history up to the first user prompt that starts past 70% of its characters
  (JSON, as the client counts them) and keeps the rest; with no such prompt, it summarises all of it.
- `/compress` fires PreCompress `manual` first, whether or not anything is compressed; in `gemini -p` the
  command runs beside the prompt, which goes to the model as it is, and the process ends before the
  compression does: nothing is compressed. PreCompress `auto` fires on every turn. So PreCompress says nothing
  about what the history holds; the session file does.

The file is the host's: may be big, half-written, of another shape or not there. Whatever ctx cannot read as
described, it does not trust: None, and the turn sends what it needs (`held_turns`).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOOK_PART = "<hook_context>"
BANNER = "ATTENTION STATE [Turn "
SET_MESSAGES = b'{"$set":{"messages":'
FIRST_CHUNK = 1024 * 1024
MAX_BYTES = 64 * 1024 * 1024  # the tail read to find the last full history; past that, the file is not trusted
WINDOW = 1_048_576  # every Gemini model's window as the client knows it
GEMMA_WINDOW = 256_000  # the Gemma 4 models'
THRESHOLD = 0.5
KEEP_FRACTION = 0.3  # the share of the history (in characters) a compression keeps
SPLIT_SLACK = 0.02  # ctx counts the client's JSON within this: a block near the split counts as summarised
ESTIMATE_SLACK = 0.02  # and its token estimate within this: a count near the threshold counts as compressing
FULL_HEURISTIC_CHARS = 100_000  # a longer text the client estimates at 1/4 token a character


class History:
    """The client's history for the next request: (role, parts) entries, oldest first; the count the client
    compares with its threshold; the model that answered last."""

    __slots__ = ("entries", "model", "tokens")

    def __init__(self, entries: list[tuple[str, list[Any]]], tokens: int | None, model: str | None) -> None:
        self.entries = entries
        self.tokens = tokens  # the last reply's prompt tokens, or None: the client estimates the history
        self.model = model


def held_turns(transcript: Any, cwd: str | None) -> frozenset[int] | None:
    """The turns whose blocks the prompt's request will hold: those in the history, less those the client
    will compress before sending it. None when the session file cannot be read as the client writes it."""
    history = read_history(transcript)
    if history is None:
        return None
    kept = history.entries
    if will_compress(history, threshold(cwd)):
        kept = kept[split_point(kept):]
    return frozenset(turn for role, parts in kept if role == "user" for turn in _banner_turns(parts))


def read_history(path: Any) -> History | None:
    """The history the session file holds, from its last full history on; None when there is no file, it is
    not the client's shape, or its last full history is beyond the tail read."""
    from .. import fastjson

    if not isinstance(path, str) or not path:
        return None
    data = _from_last_history(path)
    if data is None:
        return None
    messages: dict[str, dict[str, Any]] = {}
    tokens: int | None = None
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            record = fastjson.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None  # half-written, or not the client's: not to be trusted
        if not isinstance(record, dict):
            return None
        tokens = _apply(record, messages, tokens)
    return History(_entries(messages.values()), tokens, _last_model(messages.values()))


def _from_last_history(path: str) -> bytes | None:
    """The file from its last full history on (all of it when it has none), read from the end in growing
    chunks; None when it cannot be read or that history is further back than MAX_BYTES."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            chunk = min(FIRST_CHUNK, MAX_BYTES)
            while True:
                start = max(0, size - chunk)
                fh.seek(start)
                data = fh.read(size - start)
                found = data.rfind(b"\n" + SET_MESSAGES)
                if found >= 0:
                    return data[found + 1:]
                if start == 0:
                    return data
                if chunk >= MAX_BYTES:
                    return None
                chunk = min(chunk * 4, MAX_BYTES)
    except OSError:
        return None


def _apply(record: dict[str, Any], messages: dict[str, dict[str, Any]], tokens: int | None) -> int | None:
    """One record read into the messages; the prompt-token count the client holds after it."""
    rewind = record.get("$rewindTo")
    update = record.get("$set")
    if isinstance(rewind, str):
        ids = list(messages)
        for gone in ids[ids.index(rewind):] if rewind in messages else ids:
            del messages[gone]
        return tokens
    if isinstance(update, dict):
        if isinstance(update.get("messages"), list):
            messages.clear()
            messages.update((m["id"], m) for m in update["messages"] if isinstance(m, dict)
                            and isinstance(m.get("id"), str))
            return None  # a history set anew: the client estimates it
        return tokens
    if isinstance(record.get("id"), str):
        messages[record["id"]] = record
        used = record.get("tokens")
        if record.get("type") == "gemini" and isinstance(used, dict) and isinstance(used.get("input"), int) \
                and used["input"] > 0:
            return int(used["input"])
        return tokens
    return None if "startTime" in record else tokens  # a process's header: it estimates what it resumes


def _parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return [p for p in content if isinstance(p, dict)]
    return [{"text": content}] if isinstance(content, str) and content else []


def _entries(messages: Any) -> list[tuple[str, list[Any]]]:
    """The messages as the client's history: a reply with its tool calls, and their results as a user entry."""
    out: list[tuple[str, list[Any]]] = []
    for m in messages:
        kind = m.get("type")
        if kind == "user":
            out.append(("user", _parts(m.get("content"))))
        elif kind == "gemini":
            calls = [c for c in m.get("toolCalls") or () if isinstance(c, dict)]
            parts = _parts(m.get("content")) + [{"functionCall": {"id": c.get("id"), "name": c.get("name"),
                                                                  "args": c.get("args")}} for c in calls]
            if parts:
                out.append(("model", parts))
            results = [p for c in calls for p in _parts(c.get("result"))]
            if results:
                out.append(("user", results))
    return out


def _last_model(messages: Any) -> str | None:
    models = [m.get("model") for m in messages if m.get("type") == "gemini" and isinstance(m.get("model"), str)]
    return models[-1] if models else None


def _banner_turns(parts: list[Any]) -> list[int]:
    out: list[int] = []
    for part in parts:
        text = part.get("text")
        if not isinstance(text, str) or not text.startswith(HOOK_PART):
            continue
        at = text.find(BANNER)
        digits = text[at + len(BANNER):at + len(BANNER) + 12].partition("]")[0] if at >= 0 else ""
        if digits.isdigit():
            out.append(int(digits))
    return out


def will_compress(history: History, share: float) -> bool:
    """Whether the client compresses the history before the prompt's request (past `share` of its window)."""
    if not history.entries:
        return False
    window = GEMMA_WINDOW if (history.model or "").startswith("gemma-4") else WINDOW
    if history.tokens is not None:
        return history.tokens >= share * window
    estimate = sum(estimate_tokens(parts) for _, parts in history.entries)
    return estimate >= share * window * (1 - ESTIMATE_SLACK)


def estimate_tokens(parts: list[Any]) -> float:
    """The client's token estimate of some parts."""
    total = 0.0
    for part in parts:
        text = part.get("text")
        if isinstance(text, str):
            units = utf16_len(text)
            if units > FULL_HEURISTIC_CHARS:
                total += units / 4
            else:
                ascii_chars = len(text.encode("ascii", "ignore"))
                total += ascii_chars / 4 + (units - ascii_chars) * 1.5
        else:
            total += json_len(part) / 4
    return total


def split_point(entries: list[tuple[str, list[Any]]]) -> int:
    """Where the client's compression splits the history (what it keeps starts there), taken at the later
    of two splits a little either side of the client's, so that a block near it counts as summarised."""
    sizes = [json_len({"role": role, "parts": parts}) for role, parts in entries]
    return max(_split(entries, sizes, 1 - KEEP_FRACTION - SPLIT_SLACK),
               _split(entries, sizes, 1 - KEEP_FRACTION + SPLIT_SLACK))


def _split(entries: list[tuple[str, list[Any]]], sizes: list[int], fraction: float) -> int:
    """The client's split: the first user prompt past `fraction` of the characters; else all of a history
    that ends in a plain reply; else the last user prompt."""
    target = sum(sizes) * fraction
    seen = 0
    last = 0
    for i, ((role, parts), size) in enumerate(zip(entries, sizes, strict=True)):
        if role == "user" and not any("functionResponse" in p for p in parts):
            if seen >= target:
                return i
            last = i
        seen += size
    role, parts = entries[-1]
    if role == "model" and not any("functionCall" in p for p in parts):
        return len(entries)
    return last


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def json_len(value: Any) -> int:
    """The length of JSON.stringify(value) in UTF-16 units, near enough (numbers as Python writes them)."""
    from _json import encode_basestring

    if isinstance(value, str):
        return utf16_len(encode_basestring(value))
    if isinstance(value, dict):
        return 1 + len(value) + sum(json_len(str(k)) + 1 + json_len(v) for k, v in value.items()) - \
            (1 if value else 0) + 1
    if isinstance(value, list):
        return 1 + max(len(value) - 1, 0) + sum(json_len(v) for v in value) + 1
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    return len(repr(value))


def threshold(cwd: str | None) -> float:
    """`model.compressionThreshold` from the project's settings, else the user's, else the client's default."""
    from .. import fastjson

    for folder in (cwd, os.path.expanduser("~")):
        if not folder:
            continue
        try:
            with open(os.path.join(folder, ".gemini", "settings.json"), encoding="utf-8") as fh:
                value = fastjson.loads(fh.read()).get("model", {}).get("compressionThreshold")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1:
            return float(value)
    return THRESHOLD
