"""Replay the labelled dev-set conversations with `ctx replay` and print one table over all corpora.

    python bench/relevance/run.py                      # ctx route, the config's budget (25,000)
    python bench/relevance/run.py --hook claude        # as the Claude Code hook (10,000)
    python bench/relevance/run.py --set semantic.lexical=false --set coactivation=0   # an ablation

Each corpus is routed with the config a user would start from: the repo's own config.yaml for docs-sample,
`ctx init --from-claude-cognitive` for the `.claude/` corpus with a keywords.json, and `ctx init DOCS`
(keywords derived from the docs alone) for the others. Configs and state live in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# name -> (conversations, docs folder, how its config is made)
CORPORA = {
    "sample": ("sample.json", os.path.join(REPO, "docs-sample"), "repo"),
    "fleet": ("fleet.json", os.path.join(HERE, "fleet", ".claude"), "claude-cognitive"),
    "webapp": ("webapp.json", os.path.join(HERE, "webapp", "docs"), "init"),
    "agents": ("agents.json", os.path.join(HERE, "agents", ".claude"), "init"),
}
KINDS = ("keyword", "paraphrase", "followup")


def ctx(*args: str, cwd: str) -> str:
    done = subprocess.run([sys.executable, "-m", "context_router", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": REPO})
    if done.returncode != 0:
        raise SystemExit(f"ctx {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def make_config(name: str, docs: str, how: str, folder: str, overrides: list[tuple[list[str], object]]) -> str:
    target = os.path.join(folder, f"{name}.yaml")
    if how == "repo":
        with open(os.path.join(REPO, "config.yaml"), encoding="utf-8") as fh:
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
    ap.add_argument("--only", action="append", help="corpus names to run")
    ap.add_argument("--turns", action="store_true", help="print every turn")
    ap.add_argument("--json", action="store_true", help="print the reports as JSON")
    args = ap.parse_args()
    overrides = [parse_set(s) for s in args.set]
    reports = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, (convs, docs, how) in CORPORA.items():
            if args.only and name not in args.only:
                continue
            cfg = make_config(name, docs, how, folder, overrides)
            extra = ["--hook", args.hook] if args.hook else []
            reports[name] = json.loads(ctx("replay", os.path.join(HERE, convs), "--config", cfg, "--json", *extra,
                                           cwd=folder))
    if args.json:
        print(json.dumps(reports))
        return
    if args.turns:
        for rep in reports.values():
            for t in rep["turns"]:
                shown = ", ".join(s["path"] + ("" if s["tier"] == "HOT" else "(W)") for s in t["shown"])
                print(f"{t['conversation']:<10} {t['turn']:>2} {t['kind'][:5]:<5} full {t['full']:.1f} "
                      f"seen {t['seen']:.1f} {t['chars']:>6}  gold={','.join(t['gold'])}  shown={shown}")
    print(f"{'corpus':<10} {'kind':<11} {'turns':>5} {'full':>6} {'seen':>6} {'noise':>6} {'chars':>7}")
    everything = [t for rep in reports.values() for t in rep["turns"]]
    rows = [(name, rep["turns"]) for name, rep in reports.items()] + [("all", everything)]
    for name, turns in rows:
        for kind in ("all", *KINDS):
            sel = [t for t in turns if kind == "all" or t["kind"] == kind]
            if not sel:
                continue
            shown = sum(t["shown_chars"] for t in sel)
            noise = (shown - sum(t["gold_chars"] for t in sel)) / shown if shown else 0.0
            print(f"{name:<10} {kind:<11} {len(sel):>5} {sum(t['full'] for t in sel) / len(sel):>6.0%} "
                  f"{sum(t['seen'] for t in sel) / len(sel):>6.0%} {noise:>6.0%} "
                  f"{sum(t['chars'] for t in sel) / len(sel):>7,.0f}")


if __name__ == "__main__":
    main()
