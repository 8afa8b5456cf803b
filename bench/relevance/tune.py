"""Run `ctx` with some of its constants set otherwise, for leave-one-corpus-out tuning (loco.py):

    python bench/relevance/tune.py turn.lexical.LEADERS=2 turn.tiers.SMALL_DOC=4000 -- replay FILE --json

Each MODULE.NAME=VALUE is set on `context_router.MODULE` before the command runs; nothing is written anywhere.
"""

from __future__ import annotations

import ast
import importlib
import sys


def main() -> None:
    args = sys.argv[1:]
    cut = args.index("--")
    for item in args[:cut]:
        target, _, value = item.partition("=")
        module, _, name = target.rpartition(".")
        mod = importlib.import_module(f"context_router.{module}")
        if not hasattr(mod, name):
            raise SystemExit(f"no constant {name} in context_router.{module}")
        setattr(mod, name, ast.literal_eval(value))
    sys.argv = ["ctx", *args[cut + 1:]]
    from context_router.entry import main as ctx_main

    sys.exit(ctx_main())


if __name__ == "__main__":
    main()
