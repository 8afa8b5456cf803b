"""A stand-in for `codex app-server` (JSON-RPC lines on stdio): `hooks/list` lists the hooks of each cwd's
.codex/hooks.json as Codex CLI 0.171.0 does: none in a project its config.toml does not trust, each with its key,
its current hash (here the sha256 of its command) and whether config.toml trusts that hash."""

import hashlib
import json
import os
import sys

try:
    import tomllib
except ImportError:  # Python 3.10: its backport, a dependency of ctx there
    import tomli as tomllib


def config() -> dict:
    path = os.path.join(os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex"), "config.toml")
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}


def hooks(cwd: str) -> list[dict]:
    cfg = config()
    if cfg.get("projects", {}).get(cwd, {}).get("trust_level") != "trusted":
        return []
    path = os.path.join(cwd, ".codex", "hooks.json")
    with open(path) as fh:
        data = json.load(fh)["hooks"]
    out = []
    for event, groups in data.items():
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in event).lstrip("_")
        for i, group in enumerate(groups):
            for j, hook in enumerate(group["hooks"]):
                key = f"{path}:{snake}:{i}:{j}"
                digest = "sha256:" + hashlib.sha256(hook["command"].encode()).hexdigest()
                trusted = cfg.get("hooks", {}).get("state", {}).get(key, {}).get("trusted_hash") == digest
                out.append({"key": key, "eventName": event[0].lower() + event[1:], "handlerType": "command",
                            "command": hook["command"], "sourcePath": path, "source": "project",
                            "currentHash": digest, "trustStatus": "trusted" if trusted else "untrusted"})
    return out


def main() -> None:
    assert sys.argv[1:] == ["app-server"]
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("method") == "initialize":
            reply = {"userAgent": "fake/0.171.0"}
        elif msg.get("method") == "hooks/list":
            reply = {"data": [{"cwd": c, "hooks": hooks(c), "warnings": [], "errors": []}
                              for c in msg["params"]["cwds"]]}
        else:
            continue
        print(json.dumps({"id": msg["id"], "result": reply}), flush=True)


if __name__ == "__main__":
    main()
