"""Runs the hook command it is given as the client would, and records how long it took: the time ctx's hook
adds to each call, measured inside the client's own path (this wrapper's own start is not counted)."""

import json
import os
import subprocess
import sys
import time

start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr)
ms = (time.perf_counter() - start) * 1000
with open(os.environ["CTX_E2E_TIMES"], "a", encoding="utf-8") as fh:
    fh.write(json.dumps({"argv": sys.argv[1:], "ms": ms}) + "\n")
sys.exit(done.returncode)
