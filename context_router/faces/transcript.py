"""What the model said and which files the agent opened, from a host's transcript (Claude Code's JSONL).

Each line of Claude Code's transcript is one record: `{"type": "assistant", "message": {"content": [...]}}`
with `text` and `tool_use` blocks (`{"type": "tool_use", "name": "Read", "input": {"file_path": ...}}`),
`user` records with the prompts and tool results, and others (summaries, snapshots) that say nothing here.
The file is the host's, may be huge, half-written or not there: it is read from its end, at most MAX_BYTES,
a line at a time; a line that is not a record is passed over, and a file that cannot be read is no transcript.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

MAX_BYTES = 8 * 1024 * 1024  # the end of a transcript: the recent conversation is what the docs served
MAX_LINE_BYTES = 1024 * 1024  # a longer line (a pasted image, a huge tool result) holds no answer worth reading
READ_TOOLS = frozenset({"Read", "read_file", "read_many_files"})


@dataclass(frozen=True)
class Transcript:
    answers: tuple[str, ...]  # the model's text blocks, in order
    opened: tuple[str, ...]  # absolute paths the agent read with a file tool, in order


NOTHING = Transcript((), ())


def _tail_lines(path: str, limit: int) -> list[bytes]:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            data = fh.read(limit)
    except OSError:
        return []
    lines = data.split(b"\n")
    return lines[1:] if size > limit else lines  # the first line of a tail is a part of one


def _blocks(record: object) -> list[dict[str, object]]:
    if not isinstance(record, dict) or record.get("type") != "assistant":
        return []
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def read_claude(path: str | None, limit: int = MAX_BYTES, cwd: str | None = None) -> Transcript:
    """The answers and the opened files of a Claude Code transcript; NOTHING when there is none to read."""
    if not path or not os.path.isfile(path):
        return NOTHING
    answers: list[str] = []
    opened: list[str] = []
    for line in _tail_lines(path, limit):
        if not line.strip() or len(line) > MAX_LINE_BYTES:
            continue
        try:
            record = json.loads(line)
        except ValueError:  # half-written, or not JSON at all
            continue
        for block in _blocks(record):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                answers.append(str(block["text"]))
            elif kind == "tool_use" and block.get("name") in READ_TOOLS and isinstance(block.get("input"), dict):
                args = block["input"]
                assert isinstance(args, dict)
                file = args.get("file_path") or args.get("absolute_path")
                if isinstance(file, str) and file:
                    opened.append(os.path.normpath(os.path.join(cwd or os.getcwd(), file)))
    return Transcript(tuple(answers), tuple(opened))


def claude_default(session: str, project: str) -> str:
    """Where Claude Code keeps a session's transcript by default: ~/.claude/projects/<the project folder with
    every character but letters and digits as `-`>/<session id>.jsonl."""
    encoded = "".join(ch if ch.isalnum() else "-" for ch in os.path.abspath(project))
    return os.path.join(os.path.expanduser("~"), ".claude", "projects", encoded, f"{session}.jsonl")
