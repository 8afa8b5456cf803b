"""Whether a host will run the hook that was installed: Codex CLI runs a project's hooks only in a trusted
project and each hook only once its hash is trusted (`codex exec` skips an unreviewed one without a word); Gemini
CLI reads a project's settings only in a trusted folder (`gemini -p` exits 55 elsewhere). `ctx doctor` reports
what would be skipped with the one step that makes it run, and `ctx hook install HOST --trust` takes that step.

Codex's own app server (`codex app-server`, JSON-RPC over stdio) lists each hook with its key, its current hash
and whether it is trusted; trusting one is writing `[hooks.state."KEY"] trusted_hash = "..."` into
`$CODEX_HOME/config.toml`, as Codex's /hooks review does.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from ..errors import CtxError, InputError
from . import install

APP_SERVER_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Verdict:
    runs: bool | None  # None: it cannot be told from here (the host is not installed)
    why: str = ""  # what the host does instead, when it does not run the hook
    fix: str = ""  # the one step that makes it run


# -- Codex CLI -----------------------------------------------------------------------------------------------


def codex_home() -> str:
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def codex_config() -> str:
    return os.path.join(codex_home(), "config.toml")


def codex_binary() -> str | None:
    return shutil.which("codex")


def codex_hooks(project: str, binary: str, timeout: float = APP_SERVER_TIMEOUT_S) -> list[dict[str, Any]]:
    """The hooks Codex sees for `project`, as its app server lists them (an untrusted project lists none)."""
    try:
        proc = subprocess.Popen([binary, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=project)
    except OSError as exc:
        raise CtxError(f"cannot start `{binary} app-server`: {exc.strerror}") from None
    assert proc.stdin is not None and proc.stdout is not None
    deadline = time.monotonic() + timeout
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"clientInfo": {"name": "ctx", "version": "1"}}})
        _reply(proc, 1, deadline)
        _send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [project]}})
        listed = _reply(proc, 2, deadline)
    finally:
        proc.kill()  # it serves until stdin closes; nothing of ours is left running
        proc.wait()
    data = listed.get("result", {}).get("data") if isinstance(listed.get("result"), dict) else None
    if not isinstance(data, list):
        raise CtxError(f"`{binary} app-server` did not list its hooks: {json.dumps(listed)[:200]}")
    return [h for d in data if isinstance(d, dict) for h in d.get("hooks") or [] if isinstance(h, dict)]


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
    except OSError as exc:
        raise CtxError(f"codex app-server stopped: {exc.strerror}") from None


def _reply(proc: subprocess.Popen[bytes], wanted: int, deadline: float) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
            raise CtxError("codex app-server did not answer in time")
        line = proc.stdout.readline()
        if not line:
            raise CtxError("codex app-server ended without an answer")
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == wanted:
            return message


def _ours(hooks: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
    return [h for h in hooks if os.path.normpath(str(h.get("sourcePath", ""))) == os.path.normpath(path)
            and install.is_ctx_command(install.split_command(h.get("command")), "hook", "codex")]


def codex_verdict(project: str, path: str, binary: str | None = None) -> Verdict:
    """Whether Codex runs ctx's hooks in `path` (the project's .codex/hooks.json)."""
    binary = binary or codex_binary()
    if binary is None:
        return _codex_verdict_from_config(project, path)
    mine = _ours(codex_hooks(project, binary), path)
    if not mine:
        return Verdict(False, f"Codex CLI loads no hook of {path}: the project is not trusted",
                       f"trust the project: run `codex` in {project} and accept, or add [projects.\"{project}\"] "
                       f"trust_level = \"trusted\" to {codex_config()}")
    untrusted = [h for h in mine if h.get("trustStatus") not in ("trusted", "managed")]
    if untrusted:
        return Verdict(False, f"Codex CLI skips {len(untrusted)} of ctx's {len(mine)} hooks in {path} without a "
                              f"word: they are not trusted yet",
                       "ctx hook install codex --trust (or /hooks in Codex, and trust them)")
    return Verdict(True)


def _snake(event: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")


def codex_keys(path: str) -> list[str]:
    """The keys Codex gives ctx's hooks in `path`: the file, the event in snake case, the group, the hook."""
    data = install.load_json(path).get("hooks")
    keys = []
    for event, groups in (data.items() if isinstance(data, dict) else ()):
        for i, group in enumerate(groups if isinstance(groups, list) else ()):
            entries = group.get("hooks") if isinstance(group, dict) else None
            for j, hook in enumerate(entries if isinstance(entries, list) else ()):
                if isinstance(hook, dict) and install.is_ctx_command(install.split_command(hook.get("command")),
                                                                      "hook", "codex"):
                    keys.append(f"{os.path.abspath(path)}:{_snake(event)}:{i}:{j}")
    return keys


def _codex_verdict_from_config(project: str, path: str) -> Verdict:
    """Without the `codex` command, what Codex's config says: a hook with no trusted hash there is skipped (one
    with a hash runs if the hash is current, which only Codex can tell)."""
    reader = install.toml_reader()
    text = install.read_text(codex_config())
    if reader is None:
        return Verdict(None)
    try:
        data = reader.loads(text or "")
    except ValueError:
        return Verdict(None)
    projects = data.get("projects", {})
    real = os.path.realpath(project)
    if not any(isinstance(v, dict) and v.get("trust_level") == "trusted" and _within(real, os.path.realpath(k))
               for k, v in (projects.items() if isinstance(projects, dict) else ())):
        return Verdict(False, f"Codex CLI loads no hook of {path}: the project is not trusted in {codex_config()}",
                       f"trust the project: run `codex` in {project} and accept")
    states = data.get("hooks", {}).get("state", {}) if isinstance(data.get("hooks"), dict) else {}
    keys = codex_keys(path)
    missing = [k for k in keys if not (isinstance(states.get(k), dict) and states[k].get("trusted_hash"))]
    if missing:
        return Verdict(False, f"Codex CLI skips {len(missing)} of ctx's {len(keys)} hooks in {path} without a "
                              f"word: {codex_config()} trusts no hash of them",
                       "ctx hook install codex --trust (or /hooks in Codex, and trust them)")
    return Verdict(None, f"{codex_config()} trusts a hash of each of ctx's hooks (whether it is the current one "
                         f"only `codex` can tell, and it is not on PATH)")


def trust_codex(project: str, path: str, binary: str | None = None) -> int:
    """Record ctx's hooks in `path` as trusted in Codex's config, as its /hooks review does: how many."""
    binary = binary or codex_binary()
    if binary is None:
        raise InputError("--trust needs the `codex` command on PATH (its app server gives each hook's hash)")
    mine = _ours(codex_hooks(project, binary), path)
    if not mine:
        raise InputError(f"Codex CLI loads no hook of {path}: trust the project first (run `codex` in "
                         f"{project} and accept)")
    wanted = {str(h["key"]): str(h["currentHash"]) for h in mine
              if h.get("trustStatus") not in ("trusted", "managed") and h.get("key") and h.get("currentHash")}
    if wanted:
        config = codex_config()
        text = install.read_text(config) or ""
        install.write_atomic(config, with_trusted_hashes(text, wanted))
    return len(wanted)


# `[hooks.state."KEY"]`: the key is a quoted path, dots and all.
STATE_TABLE = re.compile(r"""^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(#.*)?$""")


def _state_key(line: str) -> str | None:
    match = STATE_TABLE.match(line)
    if match is None:
        return None
    quoted = match.group(1)
    if quoted.startswith("'"):
        return quoted[1:-1]
    try:
        return str(json.loads(quoted))
    except ValueError:
        return None


def with_trusted_hashes(text: str, wanted: dict[str, str]) -> str:
    """`text` (a config.toml) with `trusted_hash` set for each key: in its `[hooks.state."KEY"]` table when
    there is one, else in a new table at the end. Every other line stays as it was."""
    lines = text.splitlines()
    for key, digest in wanted.items():
        entry = f"trusted_hash = {json.dumps(digest)}"
        start = next((i for i, line in enumerate(lines) if _state_key(line) == key), None)
        if start is None:
            while lines and not lines[-1].strip():
                lines.pop()
            lines += [*([""] if lines else []), f"[hooks.state.{json.dumps(key)}]", entry]
            continue
        end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        body = [i for i in range(start + 1, end) if lines[i].partition("=")[0].strip() == "trusted_hash"]
        if body:
            lines[body[0]] = entry
        else:
            lines.insert(start + 1, entry)
    out = "\n".join(lines) + "\n"
    reader = install.toml_reader()
    if reader is not None:
        try:
            states = reader.loads(out).get("hooks", {}).get("state", {})
        except ValueError as exc:
            raise InputError(f"{codex_config()}: cannot add the trusted hashes ({exc}); trust the hooks with "
                             f"/hooks in Codex") from None
        if any(states.get(k, {}).get("trusted_hash") != v for k, v in wanted.items()):
            raise InputError(f"{codex_config()}: its hooks.state is written in a form ctx does not edit; trust "
                             f"the hooks with /hooks in Codex")
    return out


# -- Gemini CLI ----------------------------------------------------------------------------------------------


def gemini_trust_file() -> str:
    return os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or \
        os.path.join(os.path.expanduser("~"), ".gemini", "trustedFolders.json")


def _folder_trust_on() -> bool:
    try:
        settings = install.load_json(os.path.join(os.path.expanduser("~"), ".gemini", "settings.json"))
    except InputError:
        return True
    security = settings.get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    return not (isinstance(folder_trust, dict) and folder_trust.get("enabled") is False)


def _within(folder: str, root: str) -> bool:
    return folder == root or folder.startswith(root.rstrip(os.sep) + os.sep)


def gemini_verdict(project: str) -> Verdict:
    """Whether Gemini CLI trusts `project` (so reads its .gemini/settings.json), as it decides: the
    environment, then whether folder trust is on, then the longest rule of its trusted folders that holds it."""
    env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if env in ("true", "false"):
        return Verdict(env == "true", "" if env == "true" else "GEMINI_CLI_TRUST_WORKSPACE=false",
                       "" if env == "true" else "unset GEMINI_CLI_TRUST_WORKSPACE")
    if not _folder_trust_on():
        return Verdict(True)
    try:
        rules = install.load_json(gemini_trust_file())
    except InputError:
        rules = {}
    folder = os.path.realpath(project)
    best, level = -1, None
    for rule, trust in rules.items():
        root = os.path.dirname(rule) if trust == "TRUST_PARENT" else rule
        if _within(folder, os.path.realpath(os.path.expanduser(root))) and len(rule) > best:
            best, level = len(rule), trust
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return Verdict(True)
    return Verdict(False, f"Gemini CLI does not read {project}/.gemini/settings.json: the folder is not trusted "
                          f"(`gemini -p` exits 55 there)",
                   "ctx hook install gemini --trust (or run `gemini` there and trust the folder)")


def trust_gemini(project: str) -> bool:
    """Add `project` to Gemini's trusted folders; False when it was there."""
    path = gemini_trust_file()
    rules = install.load_json(path)
    folder = os.path.realpath(project)
    if rules.get(folder) == "TRUST_FOLDER":
        return False
    rules[folder] = "TRUST_FOLDER"
    install.write_atomic(path, json.dumps(rules, indent=2) + "\n")
    return True
