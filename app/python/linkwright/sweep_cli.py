"""`linkwright-cli sweep --scheduler ...` on a Dask cluster: the CLI reads the options, builds the
design and hands the job here as JSON on standard input; this connects to the scheduler (or starts
a LocalCluster for local:N), runs the variants as Dask tasks and writes the same CSV the CLI
writes for a sweep on this machine."""

import json
import os
import sys

import numpy as np

import _linkwright as _core

from ._sweep import _on_dask


def _client(scheduler):
    from distributed import Client, LocalCluster

    if scheduler.startswith("local:"):
        try:
            n = int(scheduler[len("local:"):])
        except ValueError:
            n = 0
        if n < 1:
            raise ValueError(f"--scheduler {scheduler}: local:N needs a number of workers N >= 1")
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    return Client(scheduler, timeout="20s"), None


def main():
    job = json.load(sys.stdin)
    source = job["file"]
    try:
        m = _core.load(source)
    except _core.MechanismError as e:
        print(e, file=sys.stderr)
        return 3
    points = np.asarray(job["points"], dtype=float).reshape(len(job["points"]), len(job["parameters"]))
    terminal = sys.stderr.isatty()

    def progress(done, total):
        if terminal:
            print(f"\r{source}: {done} of {total} variants", end="\n" if done == total else "", file=sys.stderr, flush=True)

    try:
        client, cluster = _client(job["scheduler"])
    except ValueError as e:
        print(f"linkwright-cli: sweep: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"linkwright-cli: sweep: cannot reach the Dask scheduler {job['scheduler']}: {e}", file=sys.stderr)
        return 4
    try:
        workers = len(client.scheduler_info().get("workers", {}))
        df = _on_dask(client, m, job["parameters"], points, job["costs"], job["gradients"], job["gradient_parameters"],
                      job["analysis"], job["run"], 0.1, progress)
    except _core.AnalysisError as e:
        print(f"{source}: sweep: {e}", file=sys.stderr)
        return 5
    except KeyboardInterrupt:
        print(f"\n{source}: the sweep was interrupted: nothing written", file=sys.stderr)
        return 5
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    columns = [c for c in df.columns if c != "error"]
    errors = ["" if e is None else e for e in df["error"]]
    text = _core.sweep_csv(columns, df[columns].to_numpy(), errors)
    failed = sum(1 for e in errors if e)
    print(f"{source}: {len(df)} variants on {workers} Dask worker(s)"
          + (f", gradients by {'the adjoint' if df.attrs['gradient_method'] == 'avm' else 'the direct method'}"
             if job["gradients"] else "")
          + (f"; {failed} failed (their reasons in the error column)" if failed else ""), file=sys.stderr)
    out = job["out"]
    if out == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        tmp = out + ".part"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
