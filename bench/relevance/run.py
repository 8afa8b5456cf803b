"""Replay the labelled dev-set conversations with `ctx replay` and print one table over all corpora.

    python bench/relevance/run.py                      # ctx route, the config's budget (25,000)
    python bench/relevance/run.py --hook claude        # as the Claude Code hook (10,000)
    python bench/relevance/run.py --set semantic.lexical=false --set coactivation=0   # an ablation

Each corpus is routed with the config a user would start from: the repo's own config.yaml for docs-sample,
`ctx init --from-claude-cognitive` for the `.claude/` corpus with a keywords.json, and `ctx init DOCS`
(keywords derived from the docs alone) for the others. Configs and state live in a temporary folder.

The plain docs folders of public projects listed in external.json are rebuilt under bench/corpora/ by
fetch.py (their text is never committed); a corpus not fetched is left out, with a note. Beside ctx, each
corpus is replayed through a plain section retriever (baseline.py) at the same budget.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import baseline  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# name -> (conversations, docs folder, how its config is made)
CORPORA = {
    "sample": ("sample.json", os.path.join(REPO, "docs-sample"), "repo"),
    "fleet": ("fleet.json", os.path.join(HERE, "fleet", ".claude"), "claude-cognitive"),
    "webapp": ("webapp.json", os.path.join(HERE, "webapp", "docs"), "init"),
    "agents": ("agents.json", os.path.join(HERE, "agents", ".claude"), "init"),
    # code and docs, with conversations that carry the agent's reads and edits (`--no-tools` to ignore them)
    "shop": ("shop.json", os.path.join(HERE, "shop", "docs"), "own"),
}
with open(os.path.join(HERE, "external.json"), encoding="utf-8") as _fh:
    EXTERNAL = json.load(_fh)
for _name, _src in EXTERNAL.items():
    _docs = os.path.join(os.path.dirname(HERE), "corpora", _name)
    if _src.get("nested"):  # fetch.py: the docs in a folder of their own name below the corpus's
        _docs = os.path.join(_docs, os.path.basename(_src["folder"].rstrip("/")))
    CORPORA[_name] = (f"{_name}.json", _docs, "init")
KINDS = ("keyword", "paraphrase", "followup")
HOOK_BUDGETS = {"claude": 10000, "gemini": 10000, "codex": 10000, "cline": 10000}


def ctx(*args: str, cwd: str, tune: Sequence[str] = ()) -> str:
    """Run ctx; tune: MODULE.NAME=VALUE constants set otherwise for this run (tune.py)."""
    command = [os.path.join(HERE, "tune.py"), *tune, "--"] if tune else ["-m", "context_router"]
    done = subprocess.run([sys.executable, *command, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": REPO})
    if done.returncode != 0:
        raise SystemExit(f"ctx {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def make_config(name: str, docs: str, how: str, folder: str, overrides: list[tuple[list[str], object]]) -> str:
    target = os.path.join(folder, f"{name}.yaml")
    if how in ("repo", "own"):
        own = os.path.join(os.path.dirname(docs), "config.yaml")
        with open(os.path.join(REPO, "config.yaml") if how == "repo" else own, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
        data["docs"] = docs
    else:
        if how == "claude-cognitive":
            ctx("init", "--from-claude-cognitive", os.path.join(docs, "keywords.json"), "-o", target, cwd=folder)
        else:
            ctx("init", docs, "-o", target, cwd=folder)
        with open(target, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
        data["docs"] = docs
    for keys, value in overrides:
        node = data
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value
    with open(target, "w", encoding="utf-8") as fh:
        yaml.safe_dump(data, fh)
    return target


def parse_set(text: str) -> tuple[list[str], object]:
    key, _, value = text.partition("=")
    return key.split("."), yaml.safe_load(value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hook", help="replay as this host's hook turns (its budget)")
    ap.add_argument("--set", action="append", default=[], help="override a config key: a.b=value")
    ap.add_argument("--tune", action="append", default=[], help="set a constant: MODULE.NAME=VALUE (tune.py)")
    ap.add_argument("--only", action="append", help="corpus names to run")
    ap.add_argument("--turns", action="store_true", help="print every turn")
    ap.add_argument("--json", action="store_true", help="print the reports as JSON")
    ap.add_argument("--no-baseline", action="store_true", help="leave out the plain section retriever")
    ap.add_argument("--no-memory", action="store_true", help="resend what the conversation holds (hosts that keep it)")
    ap.add_argument("--no-tools", action="store_true", help="ignore the turns' tool events (the agent's reads, edits)")
    args = ap.parse_args()
    overrides = [parse_set(s) for s in args.set]
    reports = {}
    base: dict[str, list[dict]] = {}
    budget = HOOK_BUDGETS.get(args.hook or "", 25000)
    with tempfile.TemporaryDirectory() as folder:
        for name, (convs, docs, how) in CORPORA.items():
            if args.only and name not in args.only:
                continue
            if not os.path.isdir(docs):
                print(f"note: {name} left out: its docs are not here (python bench/relevance/fetch.py)",
                      file=sys.stderr)
                continue
            if not os.path.isfile(os.path.join(HERE, convs)):
                print(f"note: {name} left out: no labelled conversations ({convs})", file=sys.stderr)
                continue
            cfg = make_config(name, docs, how, folder, overrides)
            extra = (["--hook", args.hook] if args.hook else []) + (["--no-memory"] if args.no_memory else []) + \
                (["--no-tools"] if args.no_tools else [])
            reports[name] = json.loads(ctx("replay", os.path.join(HERE, convs), "--config", cfg, "--json", *extra,
                                           cwd=folder, tune=args.tune))
            if not args.no_baseline:
                with open(os.path.join(HERE, convs), encoding="utf-8") as fh:
                    base[name] = baseline.replay(docs, json.load(fh), budget)
    if args.json:
        print(json.dumps({"ctx": reports, "baseline": base}))
        return
    if args.turns:
        for rep in reports.values():
            for t in rep["turns"]:
                shown = ", ".join(s["path"] + ("" if s["tier"] == "HOT" else "(W)") for s in t["shown"])
                ans = {None: "-", True: "A", False: "."}[t.get("answer")]
                print(f"{t['conversation']:<10} {t['turn']:>2} {t['kind'][:5]:<5} full {t['full']:.1f} "
                      f"seen {t['seen']:.1f} {ans} {t['chars']:>6}  gold={','.join(t['gold'])}  shown={shown}")
    print(f"budget {budget:,}; answer: an answer line in the turn's output; in ctx: in this or an earlier turn's; "
          "base: the plain section retriever")
    print(f"{'corpus':<10} {'kind':<11} {'turns':>5} {'full':>6} {'seen':>6} {'answer':>7} {'in ctx':>7} "
          f"{'noise':>6} {'chars':>7}   {'base':>5} {'in ctx':>7} {'noise':>6}")
    everything = [t for rep in reports.values() for t in rep["turns"]]
    base_all = [t for turns in base.values() for t in turns]
    rows = [(name, rep["turns"], base.get(name, [])) for name, rep in reports.items()]
    rows.append(("all", everything, base_all))
    plain = [name for name in reports if CORPORA[name][2] == "init" and name in EXTERNAL]
    if plain:
        rows.append(("plain", [t for n in plain for t in reports[n]["turns"]],
                     [t for n in plain for t in base.get(n, [])]))
    for name, turns, bturns in rows:
        for kind in ("all", *KINDS):
            sel = [t for t in turns if kind == "all" or t["kind"] == kind]
            if not sel:
                continue
            bsel = [t for t in bturns if kind == "all" or t["kind"] == kind]
            print(f"{name:<10} {kind:<11} {len(sel):>5} {sum(t['full'] for t in sel) / len(sel):>6.0%} "
                  f"{sum(t['seen'] for t in sel) / len(sel):>6.0%} {_answers(sel)} {_noise(sel):>6.0%} "
                  f"{sum(t['chars'] for t in sel) / len(sel):>7,.0f}   "
                  + (f"{_answers(bsel)} {_noise(bsel):>6.0%}" if bsel else ""))


def _noise(turns: list[dict]) -> float:
    shown = sum(t["shown_chars"] for t in turns)
    return (shown - sum(t["gold_chars"] for t in turns)) / shown if shown else 0.0


def _answers(turns: list[dict]) -> str:
    """The share of labelled turns with an answer line in the turn's output, and in the conversation's."""
    labelled = [t for t in turns if t.get("answer") is not None]
    if not labelled:
        return f"{'-':>7} {'-':>7}"
    return (f"{sum(bool(t['answer']) for t in labelled) / len(labelled):>7.0%} "
            f"{sum(bool(t['answer_in_context']) for t in labelled) / len(labelled):>7.0%}")


if __name__ == "__main__":
    main()
