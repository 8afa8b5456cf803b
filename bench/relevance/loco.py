"""Leave-one-corpus-out: settle constants on all corpora but one, report the one left out, for each in turn.

    python bench/relevance/loco.py --hook claude --grid turn.lexical.LEADERS=1,2,3 \
        --grid turn.lexical.LEADER_SHARE=0.5,0.7

Every combination of the grid is replayed once over every corpus (run.py --tune). For each corpus, the setting
with the best mean "answer in context" over the other corpora (each corpus weighs the same; fewer chars a turn
breaks a tie) is chosen, and that corpus's figure under it is reported beside its figure under the best setting
on all corpora and beside the section retriever: what carries over to a corpus the constants never saw.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def replay(setting: tuple[str, ...], hook: str | None, only: list[str]) -> dict:
    args = [sys.executable, os.path.join(HERE, "run.py"), "--json", *(["--hook", hook] if hook else [])]
    for name in only:
        args += ["--only", name]
    for item in setting:
        args += ["--tune", item]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def figures(turns: list[dict]) -> tuple[float, float]:
    """(answer in context, chars a turn) over the labelled turns."""
    labelled = [t for t in turns if t.get("answer") is not None]
    if not labelled:
        return 0.0, 0.0
    return (sum(bool(t["answer_in_context"]) for t in labelled) / len(labelled),
            sum(t["chars"] for t in labelled) / len(labelled))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hook", help="replay as this host's hook turns (its budget)")
    ap.add_argument("--grid", action="append", default=[], help="MODULE.NAME=V1,V2,...")
    ap.add_argument("--only", action="append", default=[], help="corpus names to run (default: all)")
    args = ap.parse_args()
    axes = []
    for item in args.grid:
        name, _, values = item.partition("=")
        axes.append([f"{name}={v}" for v in values.split(",")])
    settings = list(itertools.product(*axes)) or [()]
    runs = {s: replay(s, args.hook, args.only) for s in settings}
    first = next(iter(runs.values()))
    corpora = list(first["ctx"])
    score = {s: {c: figures(r["ctx"][c]["turns"]) for c in corpora} for s, r in runs.items()}

    def pick(among: list[str]) -> tuple[str, ...]:
        return max(settings, key=lambda s: (sum(score[s][c][0] for c in among) / len(among),
                                            -sum(score[s][c][1] for c in among)))

    overall = pick(corpora)
    print(f"settings tried: {len(settings)}; best on all corpora: {' '.join(overall) or '(defaults)'}")
    print(f"{'left out':<10} {'in ctx':>7} {'all-in':>7} {'base':>6}  chosen on the others")
    held = []
    for c in corpora:
        chosen = pick([o for o in corpora if o != c])
        base = figures(first["baseline"].get(c, []))[0] if first.get("baseline") else 0.0
        held.append(score[chosen][c][0])
        print(f"{c:<10} {score[chosen][c][0]:>7.0%} {score[overall][c][0]:>7.0%} {base:>6.0%}  "
              f"{' '.join(chosen) or '(defaults)'}")
    print(f"{'mean':<10} {sum(held) / len(held):>7.0%}")


if __name__ == "__main__":
    main()
