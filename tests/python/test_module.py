"""import linkwright: loading and its errors, runs equal to the CLI's to the last digit, the
sensitivities equal to the CLI's JSON, the table handed to NumPy without a copy, the GIL released
(two runs in two threads overlap in time), Ctrl+C, parameters and their ranges, the type stubs."""
import csv
import io
import json
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import linkwright as lw


def test_load_errors_carry_the_engines_sentence(tmp_path, samples):
    bad = tmp_path / "bad.json"
    text = (samples / "four-bar.json").read_text().replace('"mass": 1', '"mass": -1', 1)
    assert text != (samples / "four-bar.json").read_text()
    bad.write_text(text)
    with pytest.raises(lw.MechanismError) as e:
        lw.load(bad)
    # file:line:column: path: sentence
    first = str(e.value).splitlines()[0]
    assert first.startswith(f"{bad}:"), first
    assert "mass" in first and "negative" in first, first
    with pytest.raises(lw.MechanismError, match="No such file"):
        lw.load(tmp_path / "missing.json")
    with pytest.raises(lw.MechanismError, match='required key "format"'):
        lw.loads('{"bodies": []}')
    assert issubclass(lw.MechanismError, ValueError)


def read_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]])


def test_simulate_equals_the_cli_csv_to_the_last_digit(samples, cli, tmp_path):
    f = samples / "five-bar.json"
    out = tmp_path / "run.csv"
    subprocess.run([cli, "simulate", str(f), "--t-end", "0.3", "-o", str(out)], check=True, capture_output=True)
    columns, table = read_csv(out.read_text())
    r = lw.simulate(lw.load(f), t_end=0.3)
    assert r.columns == columns
    assert r.table.shape == table.shape
    assert np.array_equal(r.table, table)  # %.17g reads back bit for bit
    assert set(r.costs) == {"psi1", "psi2", "psi3", "z1", "z2"}
    # a column is a view of the table, and the table owns no copy of the run's rows
    y = r[columns[2]]
    assert np.shares_memory(y, r.table)
    assert not r.table.flags["OWNDATA"]
    with pytest.raises(KeyError, match="no column"):
        r["nothing"]


def test_kinematics_equals_the_cli_csv(samples, cli, tmp_path):
    f = samples / "four-bar.json"
    out = tmp_path / "k.csv"
    subprocess.run([cli, "kinematics", str(f), "--t-end", "0.5", "-o", str(out)], check=True, capture_output=True)
    columns, table = read_csv(out.read_text())
    r = lw.kinematics(lw.load(f), t_end=0.5)
    assert r.columns == columns and np.array_equal(r.table, table)


def test_events_and_run_errors(samples):
    r = lw.simulate(lw.load(samples / "bouncing-ball.json"), t_end=1.0)
    assert r.events and r.events[0]["kind"] in ("impact", "closes")
    assert r.events[0]["normal_before"][0] < 0
    with pytest.raises(ValueError, match="formulation"):
        lw.simulate(lw.load(samples / "five-bar.json"), formulation="nothing")
    with pytest.raises(ValueError, match="t_end"):
        lw.simulate(lw.load(samples / "five-bar.json"), t_end=-1)


def test_the_global_formulations_gradients(samples):
    # issue 39: index-1's and the global penalty's gradients are Matrix R's to the discretisation,
    # and their direct method is their complex step's to round-off
    m = lw.load(samples / "ten-bar-chain.json")
    ref = lw.sensitivity(m, parameters=["l_1", "l_4"], t_end=0.1, integrator="rk45", tol=1e-10)["psi"]["gradient"]
    for formulation in ("index1", "penalty-global"):
        got = lw.sensitivity(m, parameters=["l_1", "l_4"], t_end=0.1, formulation=formulation)["psi"]["gradient"]
        for p in ref:
            assert abs(got[p] - ref[p]) < 1e-4 * abs(ref[p]), (formulation, p, got[p], ref[p])
    ddm = lw.sensitivity(m, parameters=["l_1"], t_end=0.01, formulation="index1")["psi"]["gradient"]["l_1"]
    cs = lw.sensitivity(m, method="cs", parameters=["l_1"], t_end=0.01, formulation="index1")["psi"]["gradient"]["l_1"]
    assert abs(ddm - cs) < 1e-9 * abs(cs), (ddm, cs)


def test_sensitivity_equals_the_cli_json(samples, cli, tmp_path):
    f = samples / "five-bar.json"
    out = tmp_path / "s.json"
    for method in ("ddm", "avm"):
        subprocess.run([cli, "sensitivity", str(f), "--t-end", "0.4", "--method", method, "--parameters", "L_s1,m_A1",
                        "-o", str(out)], check=True, capture_output=True)
        expected = json.loads(out.read_text())["costs"]
        got = lw.sensitivity(lw.load(f), method=method, parameters=["L_s1", "m_A1"], t_end=0.4)
        assert set(got) == set(expected)
        for c in got:
            assert got[c]["value"] == expected[c]["value"]
            assert got[c]["gradient"] == expected[c]["gradient"]
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        lw.sensitivity(lw.load(f), parameters=["nope"])


def test_the_direct_method_agrees_with_the_complex_step(samples):
    m = lw.load(samples / "four-bar-synthesis.json")
    ddm = lw.sensitivity(m, method="ddm", analysis="kinematics")
    cs = lw.sensitivity(m, method="cs", analysis="kinematics")
    for p, g in ddm["target_error"]["gradient"].items():
        assert g == pytest.approx(cs["target_error"]["gradient"][p], rel=1e-9, abs=1e-12)


def test_parameters_ranges_and_with_parameters(samples, tmp_path):
    m = lw.load(samples / "four-bar-synthesis.json")
    assert m.parameters["L1"] == 0.8
    assert m.ranges["L1"] == (0.5, 1.5)
    with pytest.raises(lw.MechanismError, match=r"'L1' = 2 m is outside its range 0.5 ... 1.5"):
        m.with_parameters(L1=2)
    with pytest.raises(lw.MechanismError, match="unknown parameter 'L9'"):
        m.with_parameters(L9=1)
    n = m.with_parameters({"L1": 1.0}, L3=3.0)
    assert n.parameters["L1"] == 1.0 and n.parameters["L3"] == 3.0
    assert m.parameters["L1"] == 0.8  # the original is unchanged
    forced = m.with_parameters(L1=1.6, force=True)
    assert forced.parameters["L1"] == 1.6
    path = tmp_path / "n.json"
    n.save(path)
    assert lw.load(path).parameters == n.parameters


def test_runs_release_the_gil(samples):
    m = lw.load(samples / "ten-bar-chain.json")
    lw.simulate(m, t_end=0.05)  # warm
    spans = []
    # both threads start together, and each run lasts long enough (~30 ms) that scheduling
    # delays on a loaded machine (ctest runs two tests at once) cannot separate them
    ready = threading.Barrier(2)

    def one():
        ready.wait()
        start = time.perf_counter()
        lw.simulate(m, t_end=3.0)
        spans.append((start, time.perf_counter()))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a0, a1), (b0, b1) = spans
    # held, the second call could not even begin before the first ended
    assert b0 < a1 and a0 < b1, spans


def test_ctrl_c_cancels_a_run(samples):
    script = textwrap.dedent(f"""
        import time, linkwright as lw
        m = lw.load({str(samples / 'ten-bar-chain.json')!r})
        print("ready", flush=True)
        start = time.perf_counter()
        try:
            lw.simulate(m, t_end=1000)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted after", time.perf_counter() - start, flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    sent = time.perf_counter()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert out.startswith("interrupted after"), out
    assert time.perf_counter() - sent < 5


def test_the_stubs_name_what_the_module_has():
    stub = pathlib.Path(lw.__file__).with_name("__init__.pyi").read_text()
    for name in lw.__all__:
        assert f"def {name}(" in stub or f"class {name}" in stub, name
    for name in ("parameters", "ranges", "costs", "outputs", "with_parameters", "to_json", "save"):
        assert hasattr(lw.Mechanism, name) and f"def {name}(" in stub, name
    for name in ("columns", "table", "costs", "events", "warnings", "steps", "seconds"):
        assert hasattr(lw.Result, name) and f"def {name}(" in stub, name


def test_the_notebook_example_runs_and_matches_its_script(tmp_path):
    import json
    import os

    folder = pathlib.Path(__file__).resolve().parents[2] / "samples" / "python"
    nb = json.loads((folder / "five_bar_sweep.ipynb").read_text())
    script = (folder / "five_bar_sweep.py").read_text()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert "".join(cell["source"]) in script  # the two forms say the same
    env = dict(os.environ, MPLBACKEND="Agg")
    p = subprocess.run([sys.executable, str(folder / "five_bar_sweep.py")], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "five_bar_sweep.png").stat().st_size > 10000
    assert (tmp_path / "five_bar_sweep_map.png").stat().st_size > 10000
