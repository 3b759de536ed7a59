"""Sweeps from Python: the DataFrame's columns, 1 job and 2 jobs bit for bit, a failing variant kept
with its reason, the Latin hypercube reproducible and equal to the CLI's, a Dask LocalCluster of 2
workers equal to the local run bit for bit, a worker killed mid-sweep costing only its tasks, and
`linkwright-cli sweep --scheduler local:2` equal to the CLI's own sweep."""
import csv
import io
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pandas as pd
import pytest

import linkwright as lw


def frames_equal(a, b):
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    # bit for bit, NaN of failed rows included
    assert a.drop(columns="error").to_numpy().tobytes() == b.drop(columns="error").to_numpy().tobytes()


@pytest.fixture(scope="module")
def synthesis(samples):
    return lw.load(samples / "four-bar-synthesis.json")


def test_the_frame_has_a_row_per_variant_and_named_columns(synthesis):
    df = lw.sweep(synthesis, vary={"L1": np.linspace(0.6, 1.0, 3), "L3": [3.0, 3.4]}, gradients=True, analysis="kinematics")
    assert list(df.columns) == ["L1", "L3", "target_error", "dtarget_error/dL1", "dtarget_error/dL3", "error"]
    assert len(df) == 6
    assert df["L1"].tolist() == [0.6, 0.6, 0.8, 0.8, 1.0, 1.0]
    assert df["error"].isna().all()
    # a row is the variant run alone
    one = lw.sensitivity(synthesis.with_parameters(L1=0.8, L3=3.4), parameters=["L1", "L3"], analysis="kinematics")
    row = df[(df.L1 == 0.8) & (df.L3 == 3.4)].iloc[0]
    assert row["target_error"] == one["target_error"]["value"]
    assert row["dtarget_error/dL3"] == one["target_error"]["gradient"]["L3"]
    assert df.attrs["gradient_method"] == "ddm"


def test_one_job_and_two_jobs_give_the_same_bits(synthesis):
    vary = {"L1": np.linspace(0.5, 1.5, 7), "L3": np.linspace(2, 4, 5)}
    seen = []
    one = lw.sweep(synthesis, vary=vary, gradients=True, analysis="kinematics", jobs=1,
                   progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (35, 35)  # told as variants finish, the last at the end
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    two = lw.sweep(synthesis, vary=vary, gradients=True, analysis="kinematics", jobs=2)
    frames_equal(one, two)
    failed = one[one["error"].notna()]
    # the crank that cannot turn: rows kept with their reasons, their numbers NaN
    assert len(failed) > 0 and len(failed) < len(one)
    assert failed["error"].str.contains("cannot close|did not converge").all()
    assert failed["target_error"].isna().all()


def test_the_latin_hypercube_is_reproducible_and_the_clis(synthesis, samples, cli):
    vary = {"L1": (0.6, 1.2), "Px": (0.5, 1.5)}
    a = lw.sweep(synthesis, vary=vary, design="lhs", samples=12, seed=5, analysis="kinematics")
    b = lw.sweep(synthesis, vary=vary, design="lhs", samples=12, seed=5, analysis="kinematics")
    frames_equal(a, b)
    c = lw.sweep(synthesis, vary=vary, design="lhs", samples=12, seed=6, analysis="kinematics")
    assert not np.array_equal(a["L1"], c["L1"])
    out = subprocess.run([cli, "sweep", str(samples / "four-bar-synthesis.json"), "--design", "lhs", "--samples", "12",
                          "--seed", "5", "--vary", "L1=0.6:1.2", "--vary", "Px=0.5:1.5", "--analysis", "kinematics"],
                         check=True, capture_output=True, text=True).stdout
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == list(a.columns)
    got = np.array([[float(x) if x else np.nan for x in r[:-1]] for r in rows[1:]])
    assert got.tobytes() == a.drop(columns="error").to_numpy().tobytes()


def test_bad_sweeps_are_refused_naming_the_problem(synthesis):
    with pytest.raises(ValueError, match="outside its range"):
        lw.sweep(synthesis, vary={"L1": [1.0, 2.0]})
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        lw.sweep(synthesis, vary={"nope": [1.0]})
    with pytest.raises(TypeError, match="unknown run option"):
        lw.sweep(synthesis, vary={"L1": [1.0]}, t_ned=1)


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(c)
    yield client
    client.close()
    c.close()


def test_a_dask_cluster_gives_the_local_rows_bit_for_bit(cluster, samples):
    m = lw.load(samples / "five-bar.json")
    vary = {"L_s1": (2.0, 2.4), "m_A1": (0.8, 1.2)}
    local = lw.sweep(m, vary=vary, design="lhs", samples=16, seed=3, gradients=True, t_end=0.2)
    seen = []
    dist = lw.sweep(m, vary=vary, design="lhs", samples=16, seed=3, gradients=True, t_end=0.2, client=cluster,
                    progress=lambda done, total: seen.append((done, total)))
    frames_equal(local, dist)
    assert seen[-1] == (16, 16)


def test_a_worker_killed_mid_sweep_costs_only_its_tasks(cluster, samples):
    m = lw.load(samples / "five-bar.json")
    vary = {"L_s1": np.linspace(2.0, 2.4, 10), "m_A1": [0.9, 1.1]}
    local = lw.sweep(m, vary=vary, gradients=True, t_end=0.6)
    pids = cluster.run(os.getpid)
    victim = sorted(pids.values())[0]
    result = {}

    def run():
        result["df"] = lw.sweep(m, vary=vary, gradients=True, t_end=0.6, client=cluster, task_seconds=0.2,
                                progress=lambda done, total: result.setdefault("first", done))

    t = threading.Thread(target=run)
    t.start()
    deadline = time.time() + 60
    while "first" not in result and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)
    os.kill(victim, signal.SIGKILL)  # its nanny starts another; the scheduler resubmits its tasks
    t.join(timeout=300)
    assert not t.is_alive()
    frames_equal(local, result["df"])


def test_the_cli_on_a_local_cluster_writes_the_clis_csv(samples, cli, tmp_path):
    f = str(samples / "four-bar-synthesis.json")
    args = ["sweep", f, "--vary", "L1=0.5:1.5:4", "--vary", "L3=2:4:3", "--gradients"]
    mine = subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout
    out = tmp_path / "d.csv"
    p = subprocess.run([cli, *args, "--scheduler", "local:2", "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "on 2 Dask worker(s)" in p.stderr
    assert out.read_text() == mine


def test_a_progress_callback_that_raises_stops_the_sweep(synthesis):
    class Enough(Exception):
        pass

    def stop(done, total):
        raise Enough

    with pytest.raises(Enough):
        lw.sweep(synthesis, vary={"L1": np.linspace(0.6, 1.2, 400)}, analysis="kinematics", jobs=1, progress=stop)


def test_a_bad_scheduler_is_refused_naming_it(samples, cli):
    p = subprocess.run([cli, "sweep", str(samples / "four-bar-synthesis.json"), "--vary", "L1=0.5:1.5:2",
                        "--scheduler", "local:0"], capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert "local:N needs a number of workers N >= 1" in p.stderr
    assert p.stdout == ""
