"""The Python module's overhead per run (issue 40's target: at most 5 % of a 1-second ten-bar
simulation): a call of lw.simulate against the engine's own time for the run inside it.
    LW_NO_BUILD=1 scripts/python.sh tests/bench/python_overhead.py"""
import pathlib
import statistics
import time

import linkwright as lw

root = pathlib.Path(__file__).resolve().parents[2]
m = lw.load(root / "samples" / "ten-bar-chain.json")
lw.simulate(m, t_end=0.1)  # warm
calls, engine = [], []
for _ in range(15):
    t = time.perf_counter()
    r = lw.simulate(m, t_end=1.0)
    calls.append(time.perf_counter() - t)
    engine.append(r.seconds)
c, e = statistics.median(calls), statistics.median(engine)
print(f"ten-bar 1 s: the call {c * 1e3:.2f} ms, the engine's run {e * 1e3:.2f} ms: overhead {100 * (c - e) / e:.1f} % "
      f"({r.table.shape[0]} rows x {r.table.shape[1]} columns handed over without a copy)")
