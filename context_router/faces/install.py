"""Installing ctx into a host's project files: its prompt hook (`ctx hook install HOST`) and its MCP server
(`ctx mcp install HOST`).

Every installer merges into the host's file and keeps every other entry; installing twice changes nothing;
the write is atomic, an existing file keeps its mode and a new one gets the umask's. The command written runs
whatever the PATH the host starts with: `ctx` when this ctx sits in a folder every shell has on its PATH (a
pipx or user bin, /usr/local/bin), else the full path of this ctx (a virtual environment's, say).
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any

from ..errors import CtxError, InputError
from ..store import files, index

HOOK_HOSTS = ("claude", "gemini", "codex", "cline")
MCP_HOSTS = ("claude", "gemini", "cursor", "codex")
HOST_NAMES = {"claude": "Claude Code", "gemini": "Gemini CLI", "codex": "Codex CLI", "cline": "Cline",
              "cursor": "Cursor"}

# Folders on the PATH of every shell a host may start from: a `ctx` there is written as `ctx`, so a settings
# file the team shares names no one's machine. ~/.local/bin is where pipx and `pip install --user` put it.
STABLE_BIN_DIRS = ("/usr/local/bin", "/opt/homebrew/bin", "/usr/bin", "/bin", "~/.local/bin")


def stable_path() -> list[str]:
    """The stable folders, `$PIPX_BIN_DIR` included: the PATH `ctx doctor` tries installed commands with."""
    dirs = [os.path.expanduser(d) for d in STABLE_BIN_DIRS]
    pipx = os.environ.get("PIPX_BIN_DIR")
    if pipx:
        dirs.append(os.path.expanduser(pipx))
    return [os.path.normpath(d) for d in dirs]


def ctx_command(running: str | None = None) -> list[str]:
    """The words that run this ctx whatever the PATH: `ctx` when this ctx is the one PATH finds and it sits
    in a stable folder; else its full path; run as `python -m context_router`, that python with `-m`."""
    import shutil

    running = os.path.abspath(running or sys.argv[0])
    if os.path.basename(running) != "ctx":
        beside = os.path.join(os.path.dirname(sys.executable), "ctx")  # the command this install made
        if running.endswith(os.path.join("context_router", "__main__.py")) or not os.path.isfile(beside):
            return [sys.executable, "-m", "context_router"]
        running = beside
    on_path = shutil.which("ctx")
    if os.path.dirname(running) in stable_path() and on_path is not None and \
            os.path.realpath(on_path) == os.path.realpath(running):
        return ["ctx"]
    return [running]


def shell_words(words: list[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def hook_command(host: str = "claude", running: str | None = None) -> str:
    return shell_words([*ctx_command(running), "hook", host])


def is_ctx_command(words: list[str], *tail: str) -> bool:
    """Whether the words start with a ctx (`ctx`, a path to one, or `python -m context_router`) and then
    `tail` (`hook claude`, `mcp`)."""
    n = len(tail)
    if words and os.path.basename(words[0]) == "ctx" and tuple(words[1:1 + n]) == tail:
        return True
    return len(words) > 2 and os.path.basename(words[0]).startswith("python") and \
        words[1:3] == ["-m", "context_router"] and tuple(words[3:3 + n]) == tail


def _split(command: Any) -> list[str]:
    if not isinstance(command, str):
        return []
    try:
        return shlex.split(command)
    except ValueError:
        return []


def project_root(cwd: str) -> str:
    """Where a project's host files belong: the folder of the ctx config found from `cwd`, else the
    repository root above it, else `cwd`."""
    from ..config import discover

    found = discover(None, cwd)
    if found is not None:
        return os.path.dirname(found)
    folder = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.abspath(cwd)
        folder = parent


def trust_note(host: str, mcp: bool = False) -> str | None:
    """What the host needs before it runs what was installed, or None."""
    if host == "codex" and mcp:
        return "Codex CLI reads a project's .codex/config.toml only in a trusted project"
    if host == "codex":
        return ("Codex CLI runs a project's hooks only in a trusted project, and a new or changed hook only once "
                "you trust it (/hooks in Codex, or `ctx hook install codex --trust`); `codex exec` skips an "
                "untrusted one without a word")
    if host == "gemini":
        return ("Gemini CLI reads a project's .gemini/settings.json only in a trusted folder (`ctx hook install "
                "gemini --trust` adds it; `gemini -p` exits 55 in an untrusted one)")
    if host == "cline":
        return "Cline runs hooks only with Enable Hooks on in its settings (Cline 3.36 or later, macOS and Linux)"
    if host == "cursor":
        return "Cursor asks once to enable a project's MCP server (Settings > MCP)"
    return None


# -- JSON files ----------------------------------------------------------------------------------------------


def load_json(path: str) -> dict[str, Any]:
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.loads(fh.read() or "{}")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path} does not hold a JSON object")
    return data


def write_atomic(path: str, text: str, executable: bool = False) -> None:
    try:
        files.write_atomic(path, text, executable)
    except OSError as exc:  # a read-only checkout, a folder that is a file: one line, not a traceback
        raise CtxError(f"cannot write {path}: {exc.strerror}") from None


def _write_json(path: str, data: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


# -- hooks ---------------------------------------------------------------------------------------------------

HOOK_FILES = {"claude": ".claude/settings.json", "gemini": ".gemini/settings.json", "codex": ".codex/hooks.json",
              "cline": ".clinerules/hooks/UserPromptSubmit"}
HOOK_EVENTS = {"claude": "UserPromptSubmit", "gemini": "BeforeAgent", "codex": "UserPromptSubmit"}
# The events after which the conversation no longer holds what ctx sent it, with their matcher (None: every
# time): the same command hears them, forgets what the session was sent, and for Claude Code sends back what
# the compacted turn showed. Gemini CLI's PreCompress fires whether or not it compresses: what its history holds
# is read from its session file at each prompt, so PreCompress is not registered.
FORGET_EVENTS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "claude": (("SessionStart", "compact|clear"),),
    "gemini": (("SessionStart", "clear"),),
    "codex": (("SessionStart", "compact|clear"), ("PostCompact", None)),
}
# Events an earlier ctx registered and this one does not: installing again takes ctx's entry out of them, and
# uninstalling does too.
RETIRED_EVENTS = {"gemini": ("PreCompress",)}
# How long the host lets the hook run before it gives up on it: Claude Code and Codex CLI count seconds,
# Gemini CLI milliseconds.
HOOK_TIMEOUT_S = 10
GEMINI_TIMEOUT_MS = 5000


def hook_entry(host: str, command: str) -> dict[str, Any]:
    if host == "gemini":
        return {"name": "ctx", "type": "command", "command": command, "timeout": GEMINI_TIMEOUT_MS}
    return {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}


# A command that names this machine's ctx (a virtual environment's, say) works only here, so it goes to the
# host's file for this machine's own settings, which Claude Code keeps out of git, never to the one the team
# shares; a command that works for everyone (`ctx` from the PATH) goes to the shared file. Gemini CLI, Codex
# CLI and Cline have no such file in a project: the installer says the file names this machine.
LOCAL_HOOK_FILES = {"claude": ".claude/settings.local.json"}


def portable(command: str) -> bool:
    """Whether the hook command runs on any machine with ctx on its PATH."""
    words = _split(command)
    return bool(words) and words[0] == "ctx"


def install_path(host: str, project: str, command: str, global_: bool = False) -> str:
    """Where `ctx hook install` writes this command: the shared file, or the host's local one for a command
    that works only on this machine."""
    if not global_ and host in LOCAL_HOOK_FILES and not portable(command):
        return os.path.normpath(os.path.join(project, LOCAL_HOOK_FILES[host]))
    return hook_path(host, project, global_)


def hook_paths(host: str, project: str) -> list[str]:
    """Every project file the host reads our hook from: the shared one, then the local one."""
    local = LOCAL_HOOK_FILES.get(host)
    return [hook_path(host, project), *([os.path.normpath(os.path.join(project, local))] if local else [])]


def hook_path(host: str, project: str, global_: bool = False) -> str:
    base = os.path.expanduser("~") if global_ else project
    return os.path.normpath(os.path.join(base, HOOK_FILES[host]))


def _is_ours(host: str) -> Any:
    return lambda hook: isinstance(hook, dict) and is_ctx_command(_split(hook.get("command")), "hook", host)


ROUTER_MARKERS = ("context-router", "context_router", "claude-cognitive", "claude_cognitive")


def _is_other_router(host: str) -> Any:
    """Another context router's entry (claude-cognitive's `context-router-v2.py`, say): it would inject
    context beside ours."""
    ours = _is_ours(host)
    return lambda hook: not ours(hook) and isinstance(hook, dict) and isinstance(hook.get("command"), str) and \
        any(marker in hook["command"] for marker in ROUTER_MARKERS)


def _groups(settings: dict[str, Any], path: str, event: str, create: bool) -> list[Any] | None:
    hooks = settings.setdefault("hooks", {}) if create else settings.get("hooks")
    if hooks is None and not create:
        return None
    if not isinstance(hooks, dict):
        raise InputError(f"{path}: 'hooks' is not a JSON object")
    groups = hooks.setdefault(event, []) if create else hooks.get(event)
    if groups is None and not create:
        return None
    if not isinstance(groups, list):
        raise InputError(f"{path}: 'hooks.{event}' is not a list")
    return groups


def _hooks_in(groups: list[Any]) -> list[Any]:
    return [h for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list) for h in g["hooks"]]


def _drop_hooks(groups: list[Any], unwanted: Any) -> tuple[list[Any], list[str]]:
    """(the groups without the hooks `unwanted` picks, the commands dropped); a group left empty goes."""
    kept_groups: list[Any] = []
    dropped: list[str] = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            kept = [h for h in group["hooks"] if not unwanted(h)]
            dropped += [h["command"] for h in group["hooks"] if unwanted(h)]
            if len(kept) != len(group["hooks"]):
                if not kept:
                    continue
                group = {**group, "hooks": kept}
        kept_groups.append(group)
    return kept_groups, dropped


def install_hook(host: str, path: str, command: str, replace: bool = False) -> tuple[str, list[str]]:
    """Merge our prompt hook into the host's file: ("added", "updated" (our entry ran another command) or
    "unchanged", the commands of other context routers: removed with `replace`, else still there)."""
    if host == "cline":
        return _install_cline(path, command), []
    event = HOOK_EVENTS[host]
    settings = load_json(path)
    groups = _groups(settings, path, event, create=True)
    assert groups is not None
    others: list[str] = []
    changed = False
    if replace:
        groups, others = _drop_hooks(groups, _is_other_router(host))
        settings["hooks"][event] = groups
        changed = bool(others)
    else:
        others = [h["command"] for h in _hooks_in(groups) if _is_other_router(host)(h)]
    ours = [h for h in _hooks_in(groups) if _is_ours(host)(h)]
    status = "unchanged"
    if not ours:
        groups.append({"hooks": [hook_entry(host, command)]})
        status = "added"
    elif any(h["command"] != command for h in ours):
        for hook in ours:  # the user's other settings of the entry (its timeout, say) are kept
            hook["command"] = command
        status = "updated"
    for forget, matcher in FORGET_EVENTS.get(host, ()):
        starts = _groups(settings, path, forget, create=True)
        assert starts is not None
        mine = [h for h in _hooks_in(starts) if _is_ours(host)(h)]
        if not mine:
            starts.append({**({"matcher": matcher} if matcher else {}), "hooks": [hook_entry(host, command)]})
            changed = True
        for hook in mine:
            changed = changed or hook["command"] != command
            hook["command"] = command
    changed = _install_tool_hook(host, settings, path, command) or changed
    changed = _drop_retired(host, settings, path) or changed
    if changed or status != "unchanged":
        _write_json(path, settings)
    return status, others


def _drop_retired(host: str, settings: dict[str, Any], path: str) -> bool:
    """Take ctx's own entries out of the events it no longer registers; whether there were any."""
    changed = False
    for event in RETIRED_EVENTS.get(host, ()):
        groups = _groups(settings, path, event, create=False)
        if not groups:
            continue
        kept, dropped = _drop_hooks(groups, _is_ours(host))
        if dropped:
            changed = True
            if kept:
                settings["hooks"][event] = kept
            else:
                del settings["hooks"][event]
    return changed


def drop_other_routers(host: str, path: str) -> list[str]:
    """Remove other context routers' prompt hooks from the host's file: their commands."""
    settings = load_json(path)
    groups = _groups(settings, path, HOOK_EVENTS[host], create=False)
    if not groups:
        return []
    kept, dropped = _drop_hooks(groups, _is_other_router(host))
    if dropped:
        settings["hooks"][HOOK_EVENTS[host]] = kept
        _write_json(path, settings)
    return dropped


# The after-tool event of each host, with the matcher that lets only its file tools fire (the agent's reads
# and edits: faces/toolhook.py). Codex CLI reads files with shell commands, so its Bash calls are heard too.
TOOL_HOOKS = {"claude": ("PostToolUse", "Read|Edit|MultiEdit|Write|NotebookEdit"),
              "gemini": ("AfterTool", "read_file|read_many_files|write_file|replace"),
              "codex": ("PostToolUse", "apply_patch|Bash")}
# Claude Code can run a hook without waiting for it: the agent's next tool call does not wait on ctx.
ASYNC_TOOL_HOOK = {"claude"}


def tool_hook_entry(host: str, command: str) -> dict[str, Any]:
    entry = hook_entry(host, command)
    if host in ASYNC_TOOL_HOOK:
        entry["async"] = True
    return entry


def _install_tool_hook(host: str, settings: dict[str, Any], path: str, command: str) -> bool:
    """Register ctx for the host's after-tool event (matched to its file tools); whether anything changed.
    Our entry keeps the user's edits to it (a timeout, a narrower matcher) and follows the command."""
    if host not in TOOL_HOOKS:
        return False
    event, matcher = TOOL_HOOKS[host]
    groups = _groups(settings, path, event, create=True)
    assert groups is not None
    mine = [h for h in _hooks_in(groups) if _is_ours(host)(h)]
    if not mine:
        groups.append({"matcher": matcher, "hooks": [tool_hook_entry(host, command)]})
        return True
    changed = False
    for hook in mine:
        changed = changed or hook["command"] != command
        hook["command"] = command
    return changed


def find_hook(host: str, path: str) -> tuple[str | None, list[str]]:
    """(our hook's command in the host's file, or None; the commands of other context routers there)."""
    if host == "cline":
        return _cline_command(path), []
    groups = _groups(load_json(path), path, HOOK_EVENTS[host], create=False) or []
    entries = _hooks_in(groups)
    ours = [h["command"] for h in entries if _is_ours(host)(h)]
    return (ours[0] if ours else None), [h["command"] for h in entries if _is_other_router(host)(h)]


def uninstall_hook(host: str, path: str) -> bool:
    """Remove only our hook entry; a file left with nothing in it is removed. False when it was not there."""
    if host == "cline":
        return _uninstall_cline(path)
    settings = load_json(path)
    removed = False
    tool_events = (TOOL_HOOKS[host][0],) if host in TOOL_HOOKS else ()
    for event in dict.fromkeys((HOOK_EVENTS[host], *(e for e, _ in FORGET_EVENTS.get(host, ())), *tool_events,
                                *RETIRED_EVENTS.get(host, ()))):
        groups = _groups(settings, path, event, create=False)
        if not groups:
            continue
        kept_groups, dropped = _drop_hooks(groups, _is_ours(host))
        if not dropped:
            continue
        removed = True
        if kept_groups:
            settings["hooks"][event] = kept_groups
        else:
            del settings["hooks"][event]
    if not removed:
        return False
    if not settings["hooks"]:
        del settings["hooks"]
    if settings:
        _write_json(path, settings)
    else:
        os.unlink(path)
    return True


# Cline runs an executable file named after the event, from the workspace root, with the event's JSON on stdin.
CLINE_MARK = "# ctx: routes this project's docs into each prompt; `ctx hook uninstall cline` removes this file"


def cline_script(command: str) -> str:
    # "$@" passes options through: `ctx doctor` tries the hook with --dry-run.
    return f'#!/bin/sh\n{CLINE_MARK}\nexec {command} "$@"\n'


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(65536)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None


def _cline_command(path: str) -> str | None:
    """Our command in a Cline hook file, or None when the file is not ours (or not there)."""
    text = _read_text(path)
    if text is None:
        return None
    for line in text.splitlines():
        words = _split(line)
        if words[:1] == ["exec"] and is_ctx_command(words[1:], "hook", "cline"):
            return shell_words([w for w in words[1:] if w != "$@"])
    return None


def _check_cline_folder(path: str) -> None:
    rules = os.path.dirname(os.path.dirname(path))
    if os.path.isfile(rules):
        raise InputError(f"{rules} is a file (Cline's rules), and Cline reads a project's hooks from "
                         f"{os.path.basename(rules)}/hooks/: move the rules into a folder of that name "
                         f"({os.path.basename(rules)}/rules.md) first")


def _install_cline(path: str, command: str) -> str:
    _check_cline_folder(path)
    text = _read_text(path)
    if text is not None and _cline_command(path) is None:
        raise InputError(f"{path} is another hook, left as it is: Cline runs one UserPromptSubmit file, so add "
                         f"`{command}` to it (its stdin is the event), or move it away and install again")
    wanted = cline_script(command)
    if text == wanted:
        return "unchanged"
    write_atomic(path, wanted, executable=True)
    return "added" if text is None else "updated"


def _uninstall_cline(path: str) -> bool:
    if _cline_command(path) is None:
        return False
    os.unlink(path)
    for folder in (os.path.dirname(path), os.path.dirname(os.path.dirname(path))):
        try:
            os.rmdir(folder)  # only when empty: what else is there stays
        except OSError:
            break
    return True


# -- MCP servers ---------------------------------------------------------------------------------------------

MCP_FILES = {"claude": ".mcp.json", "gemini": ".gemini/settings.json", "cursor": ".cursor/mcp.json",
             "codex": ".codex/config.toml"}


def mcp_path(host: str, project: str) -> str:
    return os.path.normpath(os.path.join(project, MCP_FILES[host]))


def mcp_sdk_missing() -> str | None:
    """The command that installs the MCP SDK beside this ctx (a host cannot start `ctx mcp` without it), or
    None when it is there."""
    try:
        import mcp.server  # noqa: F401  (the SDK is an optional extra)
    except ImportError:
        pass
    else:
        return None
    if f"{os.sep}pipx{os.sep}venvs{os.sep}" in sys.prefix:
        return "pipx inject ctx-router 'mcp>=2,<3'"
    return f"{shlex.quote(sys.executable)} -m pip install 'ctx-router[mcp]'"


def _servers(data: dict[str, Any], path: str, key: str = "mcpServers") -> dict[str, Any]:
    servers = data.setdefault(key, {})
    if not isinstance(servers, dict):
        raise InputError(f"{path}: expected an object with an '{key}' object")
    return servers


def install_mcp(host: str, project: str, argv: list[str]) -> tuple[str, str]:
    """Merge ctx's server into the host's project file, keeping every other server and the user's own
    settings of ours (its env, say): (path, "added", "updated" or "unchanged")."""
    path = mcp_path(host, project)
    if host == "codex":
        return path, _install_codex_mcp(path, argv)
    data = load_json(path)
    servers = _servers(data, path)
    base: dict[str, Any] = {"type": "stdio", "env": {}} if host == "claude" else {}
    existing = servers.get("ctx")
    entry = {**base, **(existing if isinstance(existing, dict) else {}), "command": argv[0], "args": argv[1:]}
    if entry == existing:
        return path, "unchanged"
    servers["ctx"] = entry
    _write_json(path, data)
    return path, "added" if existing is None else "updated"


def find_mcp(host: str, project: str) -> list[str] | None:
    """The command line of ctx's server in the host's project file, or None when it has none."""
    path = mcp_path(host, project)
    if host == "codex":
        entry = _codex_servers(path).get("ctx")
    else:
        servers = load_json(path).get("mcpServers")
        entry = servers.get("ctx") if isinstance(servers, dict) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return None
    args = entry.get("args")
    return [entry["command"], *(str(a) for a in args)] if isinstance(args, list) else [entry["command"]]


# Codex CLI keeps its servers in TOML (`[mcp_servers.NAME]`). Without a TOML writer among the dependencies,
# ctx edits the text: it sets the `command` and `args` lines of its own table (or appends the table) and
# leaves every other line as it was. The result is read back (tomllib, or tomli on Python 3.10) and must hold
# the same settings as before but ours, or nothing is written.


def _toml_reader() -> Any:
    return index.toml()


def _codex_servers(path: str) -> dict[str, Any]:
    text = _read_text(path)
    if not text:
        return {}
    reader = _toml_reader()
    if reader is not None:
        try:
            data = reader.loads(text)
        except ValueError as exc:
            raise InputError(f"cannot read {path}: {exc}") from None
        servers = data.get("mcp_servers", {})
        return servers if isinstance(servers, dict) else {}
    entry: dict[str, Any] = {}
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _is_table(line, ["mcp_servers", "ctx"])), None)
    if start is None:
        return {}
    for line in lines[start + 1:]:
        if _is_header(line):
            break
        key, _, value = line.partition("=")
        if key.strip() in ("command", "args"):
            try:
                entry[key.strip()] = json.loads(value.strip())
            except ValueError:
                pass
    return {"ctx": entry}


def _table_name(line: str) -> list[str] | None:
    stripped = line.strip()
    if not stripped.startswith("[") or stripped.startswith("[["):
        return None
    return [p.strip().strip("\"'") for p in stripped[1:].split("]", 1)[0].split(".")]


def _is_table(line: str, name: list[str]) -> bool:
    """`[mcp_servers.ctx]` however spaced or quoted."""
    return _table_name(line) == name


def _is_header(line: str) -> bool:
    return line.lstrip().startswith("[")


def _toml_with_ctx(text: str, argv: list[str]) -> str:
    def q(s: str) -> str:
        return json.dumps(s, ensure_ascii=False)  # a JSON string is a TOML basic string

    ours = {"command": f"command = {q(argv[0])}", "args": f"args = [{', '.join(q(a) for a in argv[1:])}]"}
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _is_table(line, ["mcp_servers", "ctx"])), None)
    if start is None:
        while lines and not lines[-1].strip():
            lines.pop()
        return "\n".join([*lines, *([""] if lines else []), "[mcp_servers.ctx]", *ours.values()]) + "\n"
    out = lines[:start + 1] + list(ours.values())
    i = start + 1
    while i < len(lines) and not _is_header(lines[i]):
        key = lines[i].partition("=")[0].strip()
        if key in ours:
            if key == "args" and "]" not in lines[i]:  # an array written over several lines
                while i + 1 < len(lines) and "]" not in lines[i]:
                    i += 1
        else:
            out.append(lines[i])
        i += 1
    return "\n".join(out + lines[i:]) + "\n"


def _install_codex_mcp(path: str, argv: list[str]) -> str:
    text = _read_text(path)
    before = _codex_servers(path)  # refuses a file it cannot read
    entry = {"command": argv[0], "args": argv[1:]}
    existing = before.get("ctx")
    if isinstance(existing, dict) and {k: existing.get(k) for k in entry} == entry:
        return "unchanged"
    new_text = _toml_with_ctx(text or "", argv)
    reader = _toml_reader()
    if reader is not None:
        old = reader.loads(text or "")
        new = _loads_or_none(reader, new_text)
        if new is None or new.get("mcp_servers", {}).get("ctx", {}) != {**(existing or {}), **entry} or \
                _without_ctx(new) != _without_ctx(old):
            raise InputError(f"{path}: its mcp_servers are written in a form ctx does not edit; add the server "
                             f"by hand: [mcp_servers.ctx] with command = {json.dumps(argv[0])} and args = "
                             f"{json.dumps(argv[1:])}")
    write_atomic(path, new_text)
    return "added" if existing is None else "updated"


def _without_ctx(data: dict[str, Any]) -> dict[str, Any]:
    servers = {k: v for k, v in data.get("mcp_servers", {}).items() if k != "ctx"}
    return {**{k: v for k, v in data.items() if k != "mcp_servers"}, **({"mcp_servers": servers} if servers else {})}


def _loads_or_none(reader: Any, text: str) -> dict[str, Any] | None:
    try:
        return reader.loads(text)  # type: ignore[no-any-return]
    except ValueError:
        return None


# What trust.py reads of these files.
split_command = _split
read_text = _read_text
table_name = _table_name
toml_reader = _toml_reader
