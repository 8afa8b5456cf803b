"""The after-tool event: the agent read or edited a file; note it for the session's next turn, and exit.

An agent may read thirty files between two prompts and the host waits for each hook, so this path does the
least it can: parse the payload, find the project's state folder (no config is loaded, no YAML read), add a
row to `.ctx/events.db`, print nothing. No index refresh, no model, no ranking: the next prompt's turn turns
the rows into evidence (router.py, turn/claims.py).

| host | event | tools heard (the installer's matcher) | the file |
|---|---|---|---|
| claude | PostToolUse | Read, Edit, MultiEdit, Write, NotebookEdit | tool_input.file_path (notebook_path) |
| gemini | AfterTool | read_file, read_many_files, write_file, replace | tool_input.file_path (absolute_path, paths) |
| codex | PostToolUse | apply_patch, Bash | the patch's `*** Update File:` lines; `cat`/`sed`/`head` of a file |
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

TOOL_EVENTS = {"claude": "PostToolUse", "gemini": "AfterTool", "codex": "PostToolUse"}
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit", "write_file", "replace", "edit",
                        "apply_patch"})
READ_TOOLS = frozenset({"Read", "read_file", "read_many_files"})
READ_COMMANDS = frozenset({"cat", "sed", "head", "tail", "nl", "less", "more", "bat", "view"})
MAX_FILES = 32  # files noted from one event (a `read_many_files` of a whole folder, a patch of many files)
MAX_PATH_CHARS = 4096
PATCH_MARKS = ("*** Update File: ", "*** Add File: ", "*** Move to: ")


def is_tool_event(host: str, raw: bytes) -> bool:
    """Whether the payload may be the host's after-tool event: a byte test, so a prompt pays nothing."""
    event = TOOL_EVENTS.get(host)
    return event is not None and f'"{event}"'.encode() in raw


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value and len(value) <= MAX_PATH_CHARS else None


def _patch_files(patch: str) -> list[str]:
    return [line[len(mark):].strip() for line in patch.splitlines()[:20000] for mark in PATCH_MARKS
            if line.startswith(mark)]


def _shell_reads(command: str, cwd: str) -> list[str]:
    """The files a simple read command names (`cat a.py`, `sed -n 1,80p src/x.py`): the words after a read
    command that are files. Anything cleverer (pipes into scripts, globs) is left unread."""
    out: list[str] = []
    for part in command.replace("&&", ";").replace("|", ";").split(";")[:16]:
        words = part.split()
        if not words or os.path.basename(words[0]) not in READ_COMMANDS:
            continue
        for word in words[1:]:
            word = word.strip("'\"")
            if word and not word.startswith("-") and os.path.isfile(os.path.join(cwd, word)):
                out.append(word)
    return out


SHELLS = frozenset({"bash", "sh", "zsh", "dash"})


def _command_text(command: Any) -> str | None:
    """A shell command as one line: Codex CLI may give argv (`["bash", "-lc", "cat a.py"]`)."""
    if isinstance(command, str):
        return command
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        if os.path.basename(command[0]) in SHELLS and len(command) >= 3 and command[-2] in ("-c", "-lc"):
            return command[-1]
        return " ".join(command)
    return None


def touched_files(host: str, data: dict[str, Any], cwd: str) -> list[tuple[str, str]]:
    """(path as the tool gave it, read|edit) of one after-tool payload; [] for a tool that touches no file."""
    tool = data.get("tool_name")
    args = data.get("tool_input")
    if not isinstance(tool, str) or not isinstance(args, dict):
        return []
    if host == "codex":
        command = _command_text(args.get("command"))
        if command is None:
            return []
        if tool == "apply_patch":
            return [(p, "edit") for p in _patch_files(command)][:MAX_FILES]
        return [(p, "read") for p in _shell_reads(command, cwd)][:MAX_FILES] if tool == "Bash" else []
    kind = "edit" if tool in EDIT_TOOLS else "read" if tool in READ_TOOLS else None
    if kind is None:
        return []
    if kind == "read" and (args.get("offset") or args.get("limit")):
        kind = "glance"  # a part of the file: evidence, but the conversation does not hold the whole
    paths = [p for p in (_str(args.get(k)) for k in ("file_path", "notebook_path", "absolute_path", "path")) if p]
    many = args.get("paths")
    if isinstance(many, list):  # read_many_files: files, or globs (which name no one file)
        paths += [p for p in map(_str, many) if p and not any(ch in p for ch in "*?[")]
    return [(p, kind) for p in paths][:MAX_FILES]


def state_path(folder: str, config: str | None, docs: str | None) -> str:
    """Where the turn keeps its state (workspace.open_workspace's rule, without loading the config)."""
    from ..config import discover

    env = os.environ.get("CTX_STATE")
    if env:
        return os.path.abspath(env)
    found = discover(config, folder)
    base = os.path.dirname(found) if found is not None else \
        os.path.join(folder, os.path.expanduser(docs) if docs else "docs")
    return os.path.join(base, ".ctx", "state.db")


def note_tool_event(host: str, data: dict[str, Any], opts: dict[str, str], session: str,
                    find_project: Callable[[str], tuple[str, str | None, bool] | None]) -> int:
    """Record the files of one after-tool event for the session; how many were noted. find_project: the
    hook's own search for the project of a folder (hooks.find_project)."""
    cwd = data.get("cwd")
    workdir = cwd if isinstance(cwd, str) and os.path.isdir(cwd) else os.getcwd()
    touched = touched_files(host, data, workdir)
    if not touched or "dry-run" in opts:
        return 0
    project = find_project(workdir)
    if project is None:
        return 0
    folder, config, _ = project
    rows = [(os.path.normpath(os.path.join(workdir, p)), kind) for p, kind in touched]
    from ..store import events

    transcript = data.get("transcript_path")
    transcript = transcript if isinstance(transcript, str) and 0 < len(transcript) <= MAX_PATH_CHARS else None
    done = events.record(state_path(folder, config, opts.get("docs")), session, rows, transcript)
    return len(rows) if done else 0
