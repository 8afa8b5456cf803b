"""What a conversation already holds: the units of a doc (its whole text, its parts, its header) by content.

A host that keeps the hook's output in the conversation (Claude Code, Gemini CLI, Codex CLI) has every doc
ctx sent it until the conversation is compacted or cleared. A unit is named by its kind and a hash of its
text, so an edited doc is new content again while an untouched one is recognised whatever turn it comes back.
"""

from __future__ import annotations

import zlib

WHOLE, PART, HEADER = "w", "p", "h"
HINT = "n"  # the unit of the line that says how to see the rest of a cut doc (`ctx show PATH SECTION`): the
# model needs it once a conversation, not every turn
ABOUT = "t"  # the box's line that says what the docs are (render.ABOUT): once a conversation too, held by no doc
CONVERSATION = ""  # ... the path it is remembered under


def unit(kind: str, text: str) -> str:
    """The key of one unit of a doc. zlib's two checksums and the length make 64+ bits: collisions among the
    few hundred units of one conversation are not a concern, and hashlib would cost the hook 2 ms to import."""
    data = text.encode("utf-8", "surrogatepass")
    return f"{kind}{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


def already(turn: int, what: str, now: int = 0) -> str:
    """The line that names what the conversation holds; sent at turn `now` (this one): in a block above."""
    when = "above" if turn == now else f"sent at turn {turn}"
    return f"... [{what} already in this conversation ({when}, unchanged)] ..."
