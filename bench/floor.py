"""The floor of any Python + SQLite prompt hook: parse the payload, open the state database, run one query,
read one doc, print the JSON answer. `bench/run.py` times it beside `ctx hook claude` in the same run: what
ctx costs beyond this is what its turn does.

    echo '{"prompt": "...", "cwd": "..."}' | CTX_STATE=.ctx/state.db python bench/floor.py
"""

import json
import os
import sqlite3
import sys

payload = json.loads(sys.stdin.buffer.read())
conn = sqlite3.connect(os.environ["CTX_STATE"])
word = (payload["prompt"].split() or ["x"])[0]
row = conn.execute("SELECT path FROM docs WHERE path >= ? ORDER BY path LIMIT 1", (word,)).fetchone()
path = row[0] if row else None
docs = os.path.join(payload["cwd"], "docs")
text = ""
if path is not None:
    with open(os.path.join(docs, path), encoding="utf-8", errors="replace") as fh:
        text = fh.read()
sys.stdout.write(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                    "additionalContext": text}}))
