"""Design sweeps: on this machine's cores (the engine's oneTBB pool), or on a Dask cluster as
batches of variants (each batch one task, lasting at least `task_seconds`). Either way each variant
runs alone from the same mechanism text, so the rows are the same bit for bit."""

import math
import time

import numpy as np

import _linkwright as _core


def _options(run):
    """A run's options (t_end, dt, formulation, integrator, tol, output_dt; missing or None: the
    file's analysis defaults) as the engine takes them; an unknown name is a TypeError."""
    unknown = set(run) - {"t_end", "dt", "tol", "output_dt", "formulation", "integrator"}
    if unknown:
        raise TypeError("unknown run option(s): " + ", ".join(sorted(unknown)) +
                        " (t_end, dt, formulation, integrator, tol)")
    o = _core.RunOptions()
    for key in ("t_end", "dt", "tol", "output_dt"):
        setattr(o, key, None if run.get(key) is None else float(run[key]))
    o.formulation = run.get("formulation") or "matrix-r"
    o.integrator = run.get("integrator") or "trapezoidal"
    return o


def design_points(vary, design="full", samples=None, seed=1):
    """The variants: (parameter names, points as a variants x parameters array).
    full: vary = {name: values}, every combination (the first name slowest); lhs: vary =
    {name: (lo, hi)}, a Latin hypercube of `samples` points (the same seed, the same design, as the
    CLI's --design lhs --seed)."""
    names = list(vary)
    if not names:
        raise ValueError("vary names no parameter")
    if design == "full":
        values = [[float(x) for x in np.atleast_1d(np.asarray(vary[n], dtype=float))] for n in names]
        return names, _core.full_factorial(names, values)
    if design == "lhs":
        if not samples:
            raise ValueError("design='lhs' needs samples=N")
        intervals = []
        for n in names:
            lo, hi = vary[n] if len(vary[n]) == 2 else (min(vary[n]), max(vary[n]))
            intervals.append((float(lo), float(hi)))
        return names, _core.latin_hypercube(names, intervals, int(samples), int(seed))
    raise ValueError(f"unknown design '{design}' (full or lhs)")


def _same(x):
    return x


_loaded = {}  # a worker's mechanisms by their text: read once, not once per task


def _mechanism(text):
    m = _loaded.get(text)
    if m is None:
        if len(_loaded) >= 4:
            _loaded.clear()
        m = _loaded[text] = _core.loads(text)
    return m


def _run_batch(text, names, points, costs, gradients, gradient_parameters, analysis, run):
    """One Dask task: the variants `points` of the mechanism `text` on one thread."""
    m = _mechanism(text)
    return _core.sweep(m, names, points, costs, gradients, gradient_parameters, 1, analysis, _options(run))


def _frame(names, columns, table, errors, method):
    import pandas as pd

    df = pd.DataFrame(table, columns=columns, copy=False)
    df["error"] = [e if e else None for e in errors]
    df.attrs["gradient_method"] = method
    df.attrs["parameters"] = list(names)
    return df


def sweep(m, vary, design="full", samples=None, seed=1, costs=None, gradients=False, parameters=None, jobs=None,
          client=None, analysis=None, task_seconds=0.1, progress=None, **run):
    """The costs (and with gradients=True every d<cost>/d<parameter>, exact) at every variant of a
    design, as a pandas DataFrame: one row per variant, the parameters' columns, the costs', the
    gradients' ("d<cost>/d<parameter>"; parameters: which, default the varied ones) and "error"
    (None, or why the variant failed: its numbers are then NaN).

    vary: {name: values} (full factorial) or {name: (lo, hi)} with design="lhs", samples=N, seed.
    jobs: threads on this machine (default every core). client: a dask.distributed.Client — the
    variants go to its workers as tasks of at least task_seconds each, the same rows bit for bit.
    run: t_end, dt, formulation, integrator, tol; analysis: "dynamics" or "kinematics" (default:
    the file's study, else dynamics). progress(done, total): called as variants finish (locally,
    a few times a second; on Dask, as batches return).
    """
    names, points = design_points(vary, design, samples, seed)
    costs = None if costs is None else ([costs] if isinstance(costs, str) else list(costs))
    gparams = None if parameters is None else ([parameters] if isinstance(parameters, str) else list(parameters))
    options = _options(run)
    if client is None:
        columns, table, errors, method = _core.sweep(m, names, points, costs, gradients, gparams, jobs, analysis or "",
                                                     options, progress)
        return _frame(names, columns, table, errors, method)
    return _on_dask(client, m, names, points, costs, gradients, gparams, analysis or "", run, task_seconds, progress)


def _on_dask(client, m, names, points, costs, gradients, gparams, analysis, run, task_seconds, progress):
    from distributed import as_completed

    text = m.to_json()
    n = len(points)
    try:  # a cluster whose workers are still starting (or none came): wait a while, then say so
        client.wait_for_workers(1, timeout=60)
    except Exception as e:  # distributed raises TimeoutError, asyncio's or its own
        raise _core.AnalysisError(f"no Dask worker joined the scheduler in 60 s ({e})") from None
    # the first variant here, alone: it is a row like any other, and it says how long one lasts
    started = time.perf_counter()
    first = _run_batch(text, names, points[:1], costs, gradients, gparams, analysis, run)
    one = max(time.perf_counter() - started, 1e-6)
    per_task = max(1, math.ceil(task_seconds / one))
    parts = {0: first}
    # the mechanism's text as a task's result, not scattered data: Dask computes it again if the
    # worker that holds it is lost (scattered data would be gone with it)
    m_text = client.submit(_same, text, pure=False)
    futures = {}
    for start in range(1, n, per_task):
        f = client.submit(_run_batch, m_text, names, points[start:start + per_task], costs, gradients, gparams, analysis,
                          run, pure=False)
        futures[f] = start
    done = 1
    if progress:
        progress(done, n)
    for f in as_completed(list(futures)):
        start = futures[f]
        parts[start] = f.result()
        done += len(parts[start][2])
        if progress:
            progress(done, n)
    columns, _, _, method = first
    tables = [parts[k][1] for k in sorted(parts)]
    errors = [e for k in sorted(parts) for e in parts[k][2]]
    return _frame(names, columns, np.concatenate(tables, axis=0), errors, method)
