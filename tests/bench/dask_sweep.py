"""A sweep on a Dask LocalCluster of 2 workers against the local 2-job pool (issue 40's target:
within 25 %), the same 200 five-bar variants with gradients as lw_bench_sweep, and the rows
checked equal bit for bit.
    LW_NO_BUILD=1 scripts/python.sh tests/bench/dask_sweep.py [VARIANTS]"""
import pathlib
import sys
import time

import numpy as np

import linkwright as lw

if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    from distributed import Client, LocalCluster

    root = pathlib.Path(__file__).resolve().parents[2]
    m = lw.load(root / "samples" / "five-bar.json")
    vary = {"L_s1": np.linspace(2.0, 2.4, n // 10), "m_A1": np.linspace(0.8, 1.2, 10)}
    t = time.perf_counter()
    local = lw.sweep(m, vary=vary, gradients=True, t_end=1.0, jobs=2)
    local_s = time.perf_counter() - t
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    client.wait_for_workers(2)
    t = time.perf_counter()
    dist = lw.sweep(m, vary=vary, gradients=True, t_end=1.0, client=client)
    dask_s = time.perf_counter() - t
    client.close()
    cluster.close()
    same = local.drop(columns="error").to_numpy().tobytes() == dist.drop(columns="error").to_numpy().tobytes()
    print(f"{len(local)} five-bar variants with gradients: local 2 jobs {local_s:.2f} s, Dask LocalCluster of 2 "
          f"{dask_s:.2f} s ({dask_s / local_s:.3f}x); rows equal bit for bit: {same}")
