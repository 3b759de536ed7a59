#!/usr/bin/env python3
"""Fuzzes linkwright-cli's analysis commands (issue 23): random samples, time spans, steps,
tolerances and output intervals (valid, out of range, nan, inf, 1e-300, 1e308, text), and drivers
with singular functions. Every run must exit with a documented code (0, 2, 3, 4, 5) within its time
limit, say why when it fails, and write only finite numbers. Failing command lines are printed and
saved to CRASH_DIR.
    cli_fuzz.py CLI SAMPLES_DIR SECONDS CRASH_DIR"""
import json, math, os, random, subprocess, sys, tempfile, time

cli, samples, seconds, crashes = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
os.makedirs(crashes, exist_ok=True)
names = [f for f in sorted(os.listdir(samples)) if f.endswith(".json")]
numbers = ["0", "-1", "-0.01", "nan", "inf", "-inf", "1e-300", "1e308", "abc", "1e-3x", "", "0x10"]
functions = ["1/(t-0.02)", "sqrt(0.05-t)", "log(t)", "tan(50*t)", "exp(800*t)", "2*pi*t", "t^0.5", "1/t", "asin(t*20)"]
rng = random.Random(int(os.environ.get("SEED", "1")))
runs = failures = 0
codes = {}
deadline = time.time() + seconds
with tempfile.TemporaryDirectory() as tmp:
    while time.time() < deadline:
        sample = os.path.join(samples, rng.choice(names))
        path = sample
        if rng.random() < 0.4:  # a driver with a singular function, or a mutated analysis block
            d = json.load(open(sample))
            if d.get("drivers") and rng.random() < 0.6:
                rng.choice(d["drivers"])["function"] = rng.choice(functions)
            else:
                d["analysis"] = {"t_end": rng.choice([1e-9, 0.05, 1, 1e308, -1]), "dt": rng.choice([1e-308, 1e-3, 0.01, 2, -1])}
            path = os.path.join(tmp, "m.json")
            json.dump(d, open(path, "w"))
        command = rng.choice(["kinematics", "simulate"])
        args = [cli, command, path, "-o", os.path.join(tmp, "out.csv")]
        options = ["--t-end", "--dt"] + (["--tol", "--output-dt", "--integrator", "--formulation"] if command == "simulate" else ["--method"])
        for opt in rng.sample(options, rng.randint(0, len(options))):
            if opt == "--integrator": value = rng.choice(["trapezoidal", "rk45", "magic"])
            elif opt == "--formulation": value = rng.choice(["matrix-r", "penalty"])
            elif opt == "--method": value = rng.choice(["modular-td", "global-dense", "global-sparse", "modular-3ot"])
            elif rng.random() < 0.5: value = rng.choice(numbers)
            elif opt == "--t-end": value = str(rng.choice([0.01, 0.1, 0.5]))
            elif opt == "--tol": value = str(10 ** rng.uniform(-10, -3))
            else: value = str(rng.choice([1e-3, 2e-3, 0.01, 0.05]))
            args += [opt, value]
        try:
            if os.path.exists(os.path.join(tmp, "out.csv")): os.remove(os.path.join(tmp, "out.csv"))
            p = subprocess.run(args, capture_output=True, text=True, timeout=60)
            code, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            code, err = "timeout", ""
        runs += 1
        codes[code] = codes.get(code, 0) + 1
        bad = code not in (0, 2, 3, 4, 5) or (code != 0 and not err.strip()) or "internal error" in err
        if code == 0 and os.path.exists(os.path.join(tmp, "out.csv")):
            with open(os.path.join(tmp, "out.csv")) as f:
                next(f, None)
                for line in f:
                    if any(not math.isfinite(float(x)) for x in line.split(",")):
                        bad = True
                        err += "\nnon-finite value in the CSV"
                        break
        if bad:
            failures += 1
            print("FAIL (exit %s): %s\n%s" % (code, " ".join(args), err.strip()[-500:]))
            with open(os.path.join(crashes, "cli-%d.txt" % failures), "w") as f:
                f.write(" ".join(args) + "\n" + (open(path).read() if path != sample else sample) + "\n" + err)
print("cli fuzz: %d runs, %d failures; exit codes %s" % (runs, failures, dict(sorted(codes.items(), key=str))))
sys.exit(1 if failures else 0)
