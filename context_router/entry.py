"""The `ctx` entry point: hook turns go straight to the hook adapter, everything else to the typer app.

The split keeps typer (~75 ms to import) and rich off the path that runs before every editor prompt.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 2 and args[0] == "hook" and args[1] in ("claude", "plain"):
        from .hooks import run_hook

        return run_hook(args[1], args[2:])
    from .cli import run

    return run(args)
