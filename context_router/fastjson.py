"""JSON in and out of the hook through CPython's C scanner (`_json`), without importing `json`.

`json` imports `re` (and `re` imports `enum`): several ms that the hook turn cannot spare. The C scanner
behind `json.loads` parses the same grammar; where it is missing (not CPython), this falls back to `json`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """The attributes the C scanner reads from a json.JSONDecoder."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__
    memo: dict[str, str] = {}


def loads(text: str) -> Any:
    """Parse a JSON document; ValueError (with a message) when it is not one."""
    try:
        from _json import make_scanner
    except ImportError:  # pragma: no cover - other interpreters
        import json

        return json.loads(text)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = make_scanner(_Context())(text, start)  # type: ignore[arg-type]
    except Exception:
        # Bad input: the C scanner reports some errors through json.decoder, which may not be loaded, so
        # let the json module parse it again and say what is wrong. Speed does not matter here.
        import json

        return json.loads(text)
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"extra data at character {end}")
    return value


def dumps_str(value: str) -> str:
    """A JSON string literal, non-ASCII kept as is (like json.dumps(..., ensure_ascii=False))."""
    try:
        from _json import encode_basestring
    except ImportError:  # pragma: no cover - other interpreters
        import json

        return json.dumps(value, ensure_ascii=False)
    return str(encode_basestring(value))
