"""Time whole-process `ctx hook claude` turns on generated corpora, next to `python -c pass` and the floor of
any Python + SQLite hook (floor.py) in the same run.

    python bench/run.py                      # 13, 1,000 and 10,000 docs, 15 runs each
    python bench/run.py --sizes 1000 --runs 30

Each size is measured with the semantic layer off, on without its text evidence (`lexical: false`), and fully
on, each as a plain hook turn (it scans the docs folder for changes) and with a `ctx watch` running on the
corpus (the turn trusts the watcher's index). Runs
of the hook and of the bare interpreter are interleaved so that noise on a shared machine hits both alike;
the ratios are what to compare.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import SECTIONS, generate, prompt_for, session_prompt  # noqa: E402

HERE = Path(__file__).resolve().parent
LAYERS = {"off": "{enabled: false}", "nolex": "{enabled: true, lexical: false}", "on": "{enabled: true}"}


# A small process that runs the measured one and reports its wall time and peak RSS. Measured straight from
# this process, a child's peak RSS would count this process's memory (the pages a fork shares are the child's
# until exec), which at 100,000 docs is tens of MiB.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - start
with open(sys.argv[1], "w") as fh:
    fh.write(f"{elapsed} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_once(cmd: list[str], stdin: bytes, cwd: Path, env: dict[str, str], err: list[bytes] | None = None
             ) -> tuple[float, int, bytes]:
    """(wall seconds, peak RSS in KiB, stdout) of one whole process; its stderr appended to `err` if given."""
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".bench") as report:
        proc = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER, report.name, *cmd], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE if err is not None else subprocess.DEVNULL, cwd=cwd, env=env)
        out, errout = proc.communicate(stdin)
        if err is not None:
            err.append(errout)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd} exited {proc.returncode}")
        elapsed, kib = report.read().split()
    return float(elapsed), int(kib), out


def ctx_command() -> list[str]:
    script = Path(sys.executable).parent / "ctx"
    return [str(script)] if script.exists() else [sys.executable, "-m", "context_router"]


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def summary(times: list[float]) -> dict[str, float]:
    return {"median_ms": statistics.median(times) * 1000, "min_ms": min(times) * 1000,
            "p99_ms": p99(times) * 1000, "max_ms": max(times) * 1000}


def measure(corpus: Path, n: int, runs: int, session: str, env: dict[str, str]) -> dict[str, object]:
    """The hook's turns beside, interleaved, `python -c pass`, the floor of any Python + SQLite hook
    (floor.py: parse the payload, open the state, one query, read one doc, print the JSON) and the
    after-tool event (a PostToolUse Read of a doc: parse, find the project, note the file, print nothing)."""
    hook, base = ctx_command() + ["hook", "claude"], [sys.executable, "-c", "pass"]
    floor = [sys.executable, str(HERE / "floor.py")]
    hook_times, base_times, floor_times, event_times, rss = [], [], [], [], []
    for turn in range(runs + 2):
        payload = json.dumps({"session_id": session, "prompt": prompt_for(n, turn), "cwd": str(corpus),
                              "hook_event_name": "UserPromptSubmit"}).encode()
        t_hook, kib, out = run_once(hook, payload, corpus, env)
        t_base, _, _ = run_once(base, b"", corpus, env)
        t_floor, _, floor_out = run_once(floor, payload, corpus, env)
        t_event, _, event_out = run_once(hook, tool_payload(corpus, session, turn), corpus, env)
        if turn < 2:
            continue  # warm-up: the first turn builds the index, the second warms the OS caches
        if b"additionalContext" not in out or b"additionalContext" not in floor_out:
            raise SystemExit(f"hook or floor gave no context on turn {turn}: {out[:200]!r} {floor_out[:200]!r}")
        if event_out:
            raise SystemExit(f"the after-tool event printed something: {event_out[:200]!r}")
        hook_times.append(t_hook)
        base_times.append(t_base)
        floor_times.append(t_floor)
        event_times.append(t_event)
        rss.append(kib)
    h, b, f, e = summary(hook_times), summary(base_times), summary(floor_times), summary(event_times)
    return {"hook": h, "python": b, "floor": f, "event": e, "ratio": h["median_ms"] / b["median_ms"],
            "floor_ratio": h["median_ms"] / f["median_ms"], "event_floor_ratio": e["median_ms"] / f["median_ms"],
            "peak_rss_mib": max(rss) / 1024}


@contextlib.contextmanager
def resident(corpus: Path, env: dict[str, str]) -> Iterator[dict[str, str]]:
    """A resident server (`ctx serve`) for these turns, as the first hook turn would start it, up before the
    first timed turn and stopped by its pid after the last: the environment its hook turns run with."""
    from context_router.faces import serve

    os.environ[serve.SERVE_DIR_ENV] = env[serve.SERVE_DIR_ENV]
    sock = serve.paths()[0]
    served_env = {k: v for k, v in env.items() if k != serve.SERVE_ENV}
    server = subprocess.Popen(ctx_command() + ["serve"], cwd=corpus, env=served_env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(sock):
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("ctx serve did not come up")
            time.sleep(0.05)
        yield served_env
    finally:
        server.terminate()
        server.wait(timeout=30)


def tool_payload(corpus: Path, session: str, turn: int) -> bytes:
    """Claude Code's PostToolUse of a Read, as the client sends it."""
    docs = sorted((corpus / "docs").rglob("*.md"))[:50] or [corpus / "config.yaml"]
    path = str(docs[turn % len(docs)])
    return json.dumps({"session_id": session, "transcript_path": str(corpus / "t.jsonl"), "cwd": str(corpus),
                       "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Read",
                       "tool_input": {"file_path": path}, "tool_response": {"type": "text", "file": {
                           "filePath": path, "content": "...", "numLines": 1, "startLine": 1, "totalLines": 1}},
                       "tool_use_id": f"toolu_{turn:04d}"}).encode()


def hook_payload(corpus: Path, n: int, turn: int, session: str) -> bytes:
    return json.dumps({"session_id": session, "prompt": prompt_for(n, turn), "cwd": str(corpus),
                       "hook_event_name": "UserPromptSubmit"}).encode()


def first_contact(corpus: Path, n: int, env: dict[str, str], limit_s: float = 600.0) -> dict[str, object]:
    """A new repo: hook turns every 0.3 s on a fresh state until a turn has nothing left in the background.
    (every turn's wall time, peak RSS, seconds until the index was complete)."""
    hook = ctx_command() + ["hook", "claude"]
    times, rss = [], []
    start = time.perf_counter()
    complete = None
    turn = 0
    while time.perf_counter() - start < limit_s:
        err: list[bytes] = []
        t, kib, _ = run_once(hook, hook_payload(corpus, n, turn, "bench-first"), corpus, env, err)
        times.append(t)
        rss.append(kib)
        turn += 1
        if b"in the background" not in err[0]:  # "being indexed", "being read" (a big config)
            complete = time.perf_counter() - start
            break
        time.sleep(0.3)
    return {"turns": len(times), "p50_ms": statistics.median(times) * 1000, "p99_ms": p99(times) * 1000,
            "max_ms": max(times) * 1000, "peak_rss_mib": max(rss) / 1024, "complete_s": complete}


def after_edit(corpus: Path, n: int, env: dict[str, str], runs: int = 5) -> dict[str, float]:
    """The hook turn right after one doc was saved the way editors save (a new file renamed over the old
    one), a different doc each time."""
    hook = ctx_command() + ["hook", "claude"]
    docs = sorted((corpus / "docs").rglob("*.md"))
    times, rss = [], []
    for i in range(runs):
        doc = docs[(i * 7919) % len(docs)]
        saved = doc.with_suffix(".md.saving")
        saved.write_text(doc.read_text(encoding="utf-8") + f"\nEdited for the benchmark, run {i}.\n",
                         encoding="utf-8")
        os.replace(saved, doc)
        t, kib, _ = run_once(hook, hook_payload(corpus, n, i, "bench-edit"), corpus, env)
        times.append(t)
        rss.append(kib)
    return {"turns": len(times), "p50_ms": statistics.median(times) * 1000, "p99_ms": p99(times) * 1000,
            "max_ms": max(times) * 1000, "peak_rss_mib": max(rss) / 1024}


def checkout(corpus: Path, n: int, env: dict[str, str], files: int = 5000) -> dict[str, object]:
    """Hook turns every 0.2 s while `files` docs are rewritten at once (a branch checkout) and a `ctx watch`
    absorbs them: every turn's wall time, the seconds until the watcher has reported every file, and the
    watcher's peak memory over its whole life (VmHWM)."""
    import threading

    docs = sorted((corpus / "docs").rglob("*.md"))[:files]
    watcher = subprocess.Popen(ctx_command() + ["watch"], cwd=corpus, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    assert watcher.stdout is not None
    watcher.stdout.readline()  # "watching ...": its first index is done
    seen = threading.Event()
    reported = [0]

    def count() -> None:
        assert watcher.stdout is not None
        for _ in watcher.stdout:
            reported[0] += 1
            if reported[0] >= len(docs):
                seen.set()

    threading.Thread(target=count, daemon=True).start()
    hook = ctx_command() + ["hook", "claude"]
    times, rss = [], []
    try:
        start = time.perf_counter()
        for i, doc in enumerate(docs):
            new = doc.with_suffix(".md.checkout")
            new.write_text(doc.read_text(encoding="utf-8") + f"\nChanged on another branch ({i}).\n",
                           encoding="utf-8")
            os.replace(new, doc)
        turn = 0
        while not seen.is_set() and time.perf_counter() - start < 600:
            t, kib, _ = run_once(hook, hook_payload(corpus, n, turn, "bench-checkout"), corpus, env)
            times.append(t)
            rss.append(kib)
            turn += 1
            time.sleep(0.2)
        absorbed = time.perf_counter() - start if seen.wait(600) else None
        with open(f"/proc/{watcher.pid}/status", encoding="utf-8") as fh:
            hwm = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM"))
    finally:
        watcher.send_signal(2)
        watcher.wait(timeout=120)
    return {"turns": len(times), "p50_ms": statistics.median(times) * 1000 if times else 0.0,
            "p99_ms": p99(times) * 1000 if times else 0.0, "max_ms": max(times, default=0.0) * 1000,
            "peak_rss_mib": max(rss, default=0) / 1024, "absorbed_s": absorbed, "watch_rss_mib": hwm / 1024}


def db_bytes(state: Path) -> int:
    """The state's size on disk once its write-ahead log is folded in."""
    import sqlite3

    conn = sqlite3.connect(state)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return sum(p.stat().st_size for p in state.parent.glob(state.name + "*"))


def docs_bytes(corpus: Path) -> int:
    return sum(p.stat().st_size for p in (corpus / "docs").rglob("*.md"))


def session(corpus: Path, n: int, turns: int, env: dict[str, str], window: int = 9) -> dict[str, object]:
    """A varied session on a fresh state: each turn's prompt names one doc and two keywords that about 4% of
    the docs share, a different doc and pair each turn, beside the floor, interleaved, each turn run in its own
    process and answered by the resident server (on a state of its own). The medians of the hook around turn 5
    and over the last turns, and the state's size after indexing and after the session."""
    hook, floor = ctx_command() + ["hook", "claude"], [sys.executable, str(HERE / "floor.py")]
    state = Path(env["CTX_STATE"])
    served_state = state.with_name("served-" + state.name)
    for stale in state.parent.glob(f"{served_state.name}*"):
        stale.unlink()
    for path in (state, served_state):
        subprocess.run(ctx_command() + ["index"], cwd=corpus, env={**env, "CTX_STATE": str(path)}, check=True,
                       capture_output=True)
    indexed = db_bytes(state)
    hook_times, served_times, floor_times = [], [], []
    with resident(corpus, {**env, "CTX_STATE": str(served_state)}) as served_env:
        for turn in range(1, turns + 1):
            payload = json.dumps({"session_id": "bench-session", "prompt": session_prompt(n, turn),
                                  "cwd": str(corpus), "hook_event_name": "UserPromptSubmit"}).encode()
            t_hook, _, out = run_once(hook, payload, corpus, env)
            t_served, _, served_out = run_once(hook, payload, corpus, served_env)
            if out != served_out:
                raise SystemExit(f"the served turn {turn} differs from the turn run in its own process")
            hook_times.append(t_hook)
            served_times.append(t_served)
            floor_times.append(run_once(floor, payload, corpus, env)[0])
    half = window // 2

    def windows(times: list[float]) -> tuple[float, float]:
        """The medians around turn 5 and over the last turns."""
        return statistics.median(times[max(0, 4 - half):4 + half + 1]), statistics.median(times[-window:])

    # Each window against the floor's same turns: the machine's pace drifts over a long session (a neighbour's
    # load), and the floor, run between the same turns, drifts with it.
    f5, f_last = windows(floor_times)
    out: dict[str, object] = {"docs": n, "turns": turns, "floor_ms": statistics.median(floor_times) * 1000,
                              "floor_turn5_ms": f5 * 1000, "floor_last_ms": f_last * 1000}
    for name, times in (("", hook_times), ("served_", served_times)):
        early, last = windows(times)
        out |= {f"{name}turn5_ms": early * 1000, f"{name}last_ms": last * 1000, f"{name}turn5_x_floor": early / f5,
                f"{name}last_x_floor": last / f_last, f"{name}last_x_turn5": last / early,
                f"{name}last_x_turn5_floor": (last / f_last) / (early / f5)}
    return out | {"docs_mib": docs_bytes(corpus) / 2**20, "indexed_mib": indexed / 2**20,
                  "after_mib": db_bytes(state) / 2**20}


def state_size(state: Path, n: int) -> dict[str, float]:
    """The state database per doc: in all, and beyond the docs' own text index (the FTS5 tables, the map of
    their rows to paths and the cache of their document frequencies)."""
    import sqlite3

    conn = sqlite3.connect(state)
    try:
        sizes = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))
    finally:
        conn.close()
    total = sum(sizes.values())
    text = sum(v for k, v in sizes.items() if k == "lex" or k.startswith("lex_") or k == "sqlite_autoindex_lex_docs_1")
    return {"total_kib_per_doc": total / 1024 / n, "beyond_text_kib_per_doc": (total - text) / 1024 / n}


def corpus_of(corpora: Path, n: int, sections: int = SECTIONS) -> Path:
    """The generated corpus of n docs of `sections` sections each, made when it is not there yet."""
    corpus = corpora / (str(n) if sections == SECTIONS else f"{n}x{sections}")
    if not (corpus / "config.yaml").exists():
        shutil.rmtree(corpus, ignore_errors=True)
        generate(n, corpus, sections=sections)
    return corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="13,1000,10000")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--corpora", type=Path, default=HERE / "corpora")
    parser.add_argument("--sections", type=int, default=SECTIONS,
                        help=f"sections a generated doc (default {SECTIONS}: 40,000 sections at 10,000 docs)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--layers", default="off,nolex,on", help="which of off, nolex, on to measure")
    parser.add_argument("--states", action="store_true",
                        help="also first contact, the turn after an edit, a checkout, the size of state.db")
    parser.add_argument("--checkout", type=int, default=5000, help="files a checkout changes (--states)")
    parser.add_argument("--turns", default="13:40,1000:40,10000:150",
                        help="varied sessions: docs:turns, comma-separated (an empty value: none)")
    args = parser.parse_args()
    # Started in the background by a shell, this process ignores SIGINT and so would every watcher it starts
    # (an ignored signal survives exec): take the default back so the watchers stop on SIGINT as users stop them.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    serve_dir = tempfile.mkdtemp(prefix="ctx-bench-serve-")  # private (0700): the servers it starts sit here
    base_env = {**{k: v for k, v in os.environ.items() if not k.startswith("CTX_")}, "CTX_SERVE": "0",
                "CTX_SERVE_DIR": serve_dir}
    # An installed package has its bytecode compiled (pip does it); a checkout run with PYTHONDONTWRITEBYTECODE
    # would compile every changed module on every turn and time the compiler instead.
    import compileall

    import context_router

    compileall.compile_dir(os.path.dirname(context_router.__file__), quiet=1)
    results = []
    states: list[dict[str, object]] = []
    for n in (int(s) for s in filter(None, args.sizes.split(","))):
        corpus = corpus_of(args.corpora, n, args.sections)
        text = (corpus / "config.yaml").read_text(encoding="utf-8").split("semantic:")[0]
        for layer in args.layers.split(","):
            config = corpus / f"config-semantic-{layer}.yaml"
            config.write_text(text + "semantic: " + LAYERS[layer] + "\n")
            state = corpus / ".ctx" / f"state-{layer}.db"
            for stale in state.parent.glob(f"{state.name}*"):
                stale.unlink()
            env = {**base_env, "CTX_CONFIG": str(config), "CTX_STATE": str(state)}
            if layer == "on" and args.states:
                states.append({"docs": n, "state": "first contact", **first_contact(corpus, n, env)})
            subprocess.run(ctx_command() + ["index"], cwd=corpus, env=env, check=True, capture_output=True)
            if layer == "on" and args.states:
                states.append({"docs": n, "state": "state.db", **state_size(state, n)})
            results.append({"docs": n, "semantic": layer, "mode": "scan",
                            **measure(corpus, n, args.runs, "bench-scan", env)})
            watcher = subprocess.Popen(ctx_command() + ["watch"], cwd=corpus, env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True)
            try:
                assert watcher.stdout is not None
                watcher.stdout.readline()  # "watching ...": the index is current and the lock is held
                results.append({"docs": n, "semantic": layer, "mode": "watch",
                                **measure(corpus, n, args.runs, "bench-watch", env)})
            finally:
                watcher.send_signal(2)
                watcher.wait(timeout=30)
            with resident(corpus, env) as served_env:
                results.append({"docs": n, "semantic": layer, "mode": "serve",
                                **measure(corpus, n, args.runs, "bench-serve", served_env)})
            if layer == "on" and args.states:
                states.append({"docs": n, "state": "after an edit", **after_edit(corpus, n, env)})
                states.append({"docs": n, "state": "during a checkout",
                               **checkout(corpus, n, env, min(args.checkout, n))})
    sessions = []
    for spec in filter(None, args.turns.split(",")):
        n, turns = (int(v) for v in spec.split(":"))
        corpus = corpus_of(args.corpora, n, args.sections)
        state = corpus / ".ctx" / "state-session.db"
        for stale in state.parent.glob(f"{state.name}*"):
            stale.unlink()
        env = {**base_env, "CTX_CONFIG": str(corpus / "config.yaml"), "CTX_STATE": str(state)}
        sessions.append(session(corpus, n, turns, env))
    if args.json:
        print(json.dumps({"steady": results, "states": states, "sessions": sessions}, indent=2))
        return
    print(f"interpreter: {sys.executable}, {args.runs} runs after 2 warm-up turns\n")
    print(f"{'docs':>6}  {'semantic':<8}  {'mode':<5}  {'hook p50':>8}  {'p99':>7}  {'python -c pass':>14}  "
          f"{'ratio':>5}  {'floor p50':>9}  {'x floor':>7}  {'event p50':>9}  {'x floor':>7}  {'peak RSS':>8}")
    for r in results:
        h, b, f = r["hook"], r["python"], r["floor"]
        print(f"{r['docs']:>6}  {r['semantic']:<8}  {r['mode']:<5}  {h['median_ms']:>5.1f} ms  {h['p99_ms']:>7.1f}  "
              f"{b['median_ms']:>11.1f} ms  {r['ratio']:>4.2f}x  {f['median_ms']:>6.1f} ms  "
              f"{r['floor_ratio']:>6.2f}x  {r['event']['median_ms']:>6.1f} ms  {r['event_floor_ratio']:>6.2f}x  "
              f"{r['peak_rss_mib']:>5.1f} MiB")
    for title, on, off in (("semantic layer", "on", "off"), ("text evidence (lexical step)", "on", "nolex")):
        pairs = [(r, o) for r in results if r["semantic"] == on for o in results
                 if o["docs"] == r["docs"] and o["mode"] == r["mode"] and o["semantic"] == off]
        if pairs:
            print(f"\n{title} cost (median {on} minus {off}, same mode):")
        for r, o in pairs:
            print(f"{r['docs']:>6}  {r['mode']:<5}  {r['hook']['median_ms'] - o['hook']['median_ms']:+.1f} ms")

    if sessions:
        print("\nvaried sessions (each prompt names one doc and two keywords that 4% of the docs share; medians of "
              "9 turns, each against the floor's same turns):")
        print(f"{'docs':>6}  {'turns':>5}  {'hook':<7}  {'floor 5':>8}  {'turn 5':>8}  {'x floor':>7}  "
              f"{'floor':>8}  {'last':>8}  {'x floor':>7}  {'last/5':>6}  {'(floor)':>7}  {'docs':>8}  {'indexed':>8}  "
              f"{'after':>8}")
        for r in sessions:
            for name, how in (("", "alone"), ("served_", "served")):
                print(f"{r['docs']:>6}  {r['turns']:>5}  {how:<7}  {r['floor_turn5_ms']:>5.1f} ms  "
                      f"{r[name + 'turn5_ms']:>5.1f} ms  {r[name + 'turn5_x_floor']:>6.2f}x  "
                      f"{r['floor_last_ms']:>5.1f} ms  "
                      f"{r[name + 'last_ms']:>5.1f} ms  {r[name + 'last_x_floor']:>6.2f}x  "
                      f"{r[name + 'last_x_turn5']:>5.2f}x  {r[name + 'last_x_turn5_floor']:>6.2f}x  "
                      f"{r['docs_mib']:>4.1f} MiB  {r['indexed_mib']:>4.1f} MiB  "
                      f"{r['after_mib']:>4.1f} MiB")
    if states:
        print("\nstates a repo goes through (semantic layer on; wall time of whole hook turns):")
        for st in states:
            if st["state"] == "state.db":
                print(f"{st['docs']:>6}  state.db: {st['total_kib_per_doc']:.2f} KiB a doc, "
                      f"{st['beyond_text_kib_per_doc']:.2f} KiB beyond the text index")
                continue
            line = (f"{st['docs']:>6}  {st['state']}: {st['turns']} turns, p50 {st['p50_ms']:.0f} ms, "
                    f"p99 {st['p99_ms']:.0f} ms, max {st['max_ms']:.0f} ms, peak RSS {st['peak_rss_mib']:.0f} MiB")
            if st["state"] == "first contact":
                done = f"{st['complete_s']:.1f} s" if st["complete_s"] is not None else "not within the limit"
                line += f"; index complete after {done}"
            if st["state"] == "during a checkout":
                done = f"{st['absorbed_s']:.1f} s" if st["absorbed_s"] is not None else "not within the limit"
                line += f"; the watcher absorbed it in {done}, its peak RSS {st['watch_rss_mib']:.0f} MiB"
            print(line)

if __name__ == "__main__":
    main()
