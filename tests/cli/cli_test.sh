#!/usr/bin/env bash
# Exit codes and messages of linkwright-cli (documented in its --help and the README).
set -u
cli="$1"; samples="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # expect CODE DESCRIPTION -- command...
  local code=$1 what=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -ne "$code" ]; then
    echo "FAIL: $what: exit $got, expected $code"; cat "$tmp/out" "$tmp/err"; fail=1
  fi
}
contains() {  # contains FILE TEXT
  grep -qF -- "$2" "$tmp/$1" || { echo "FAIL: '$2' not in $1:"; cat "$tmp/$1"; fail=1; }
}

expect 0 "help" -- "$cli" --help
contains out "Exit codes"
expect 2 "no subcommand" -- "$cli"
expect 2 "unknown option" -- "$cli" check --frobnicate "$samples/five-bar.json"
expect 2 "generate without size" -- "$cli" generate four-bar-chain
expect 4 "missing file" -- "$cli" check "$tmp/nope.json"
contains err "cannot open"

printf '{"format": "linkwright-mechanism", "version": 1, "name": "x", "dimension": 2,\n "bodies": [{"name": "b", "mass": -1, "com": [0, 0], "inertia": 1, "points": {"P": [0, 0]}}]}\n' > "$tmp/bad.json"
expect 3 "invalid model" -- "$cli" check "$tmp/bad.json"
contains err "bad.json:2:35: bodies[0].mass: the mass is negative (-1 kg)"

expect 0 "five-bar" -- "$cli" check "$samples/five-bar.json"
contains out "mobility (Gruebler-Kutzbach): 3·4 − 10 = 2 DOF"
contains out "L_A1 = 1.4142 m used by: bodies[0].com[0] bodies[0].inertia bodies[0].points.P1[0]"

for n in 1 10 100; do
  expect 0 "generate four-bar-chain $n" -- "$cli" generate four-bar-chain --dyads $n -o "$tmp/chain.json"
  expect 0 "check four-bar-chain $n" -- "$cli" check "$tmp/chain.json"
  contains out "3·$((2 * n + 1)) − $((6 * n + 2)) = 1 DOF"
done
expect 0 "generate crank-slider-3d" -- "$cli" generate crank-slider-3d --units 3 -o "$tmp/cs.json"
expect 0 "check crank-slider-3d" -- "$cli" check "$tmp/cs.json"
contains out "= 4 DOF"

# decomposition and kinematics
expect 0 "decompose four-bar" -- "$cli" decompose "$samples/four-bar.json"
contains out "2. {coupler, rocker}  RRR dyad (Assur group class II;"
expect 0 "decompose --json" -- "$cli" decompose --json "$samples/stephenson-six-bar.json"
contains out '"name": "triad"'
expect 5 "decompose an undriven mechanism" -- "$cli" decompose "$samples/five-bar.json"
contains err "under-driven"
for method in global-dense global-sparse modular-td modular-3ot; do
  expect 0 "kinematics $method" -- "$cli" kinematics "$samples/slider-crank.json" --method $method --t-end 0.5 --dt 0.05 -o "$tmp/k_$method.csv"
  [ "$(wc -l < "$tmp/k_$method.csv")" -eq 12 ] || { echo "FAIL: $method CSV has $(wc -l < "$tmp/k_$method.csv") lines"; fail=1; }
done
head -1 "$tmp/k_modular-td.csv" > "$tmp/header"
contains header "time,crank.O.x,crank.O.y,crank.B.x"
# the motor's torque and the crank bearing's force by inverse dynamics, the same in a Matrix R run
contains header "motor_torque,crank_bearing.fx,crank_bearing.fy,crank_bearing.m"
expect 0 "simulate the driven slider-crank" -- "$cli" simulate "$samples/slider-crank.json" --t-end 0.5 --dt 0.05 -o "$tmp/s_sc.csv"
python3 - "$tmp/k_modular-td.csv" "$tmp/s_sc.csv" <<'PY' || { echo "FAIL: the motor torque differs between kinematics and Matrix R"; fail=1; }
import csv, sys
k = list(csv.DictReader(open(sys.argv[1]))); s = list(csv.DictReader(open(sys.argv[2])))
assert len(k) == len(s) == 11
for a, b in zip(k, s):
    for c in ("motor_torque", "crank_bearing.fx", "crank_bearing.fy"):
        assert abs(float(a[c]) - float(b[c])) <= 1e-6 * (1 + abs(float(b[c]))), (c, a[c], b[c])
    assert abs(float(a["crank_bearing.m"])) < 1e-9
assert max(abs(float(r["motor_torque"])) for r in k) > 1
PY
expect 5 "kinematics of an undriven mechanism" -- "$cli" kinematics "$samples/five-bar.json"
contains err "the drivers leave 2 freedoms undetermined"
expect 2 "unknown method" -- "$cli" kinematics "$samples/four-bar.json" --method magic

# dynamics
expect 0 "simulate" -- "$cli" simulate "$samples/four-bar-free.json" --t-end 0.1 --dt 0.01 -o "$tmp/sim.csv"
head -1 "$tmp/sim.csv" > "$tmp/header"
contains header "time,dof.joint "
contains header ",crank.A.x,crank.A.y,crank.A.z,"
contains header "energy.kinetic,energy.potential,energy.total,constraint.position,constraint.velocity"
[ "$(wc -l < "$tmp/sim.csv")" -eq 12 ] || { echo "FAIL: simulate CSV has $(wc -l < "$tmp/sim.csv") lines"; fail=1; }
expect 0 "simulate rk45" -- "$cli" simulate "$samples/spatial-four-bar.json" --integrator rk45 --t-end 0.1 --dt 0.05 -o "$tmp/sim2.csv"
expect 0 "simulate with contacts" -- "$cli" simulate "$samples/five-bar.json" --t-end 1 -o "$tmp/sim3.csv" --events "$tmp/events.csv"
contains err "five-bar.json: 2 impacts, the first at t = 0.2836"
head -1 "$tmp/events.csv" > "$tmp/header"
contains header "time,kind,contact,normal_velocity_before,normal_velocity_after,impulse,energy_before,energy_after,grazing"
[ "$(wc -l < "$tmp/events.csv")" -eq 3 ] || { echo "FAIL: events CSV has $(wc -l < "$tmp/events.csv") lines"; fail=1; }
expect 0 "simulate penalty" -- "$cli" simulate "$samples/spatial-four-bar.json" --formulation penalty --t-end 0.05 --dt 0.01 -o "$tmp/sim4.csv"
expect 0 "simulate, a row every 5 steps" -- "$cli" simulate "$samples/four-bar-free.json" --t-end 0.1 --dt 0.002 --output-dt 0.01 -o "$tmp/sim5.csv"
[ "$(wc -l < "$tmp/sim5.csv")" -eq 12 ] || { echo "FAIL: --output-dt CSV has $(wc -l < "$tmp/sim5.csv") lines"; fail=1; }
expect 5 "output interval not a whole number of steps" -- "$cli" simulate "$samples/four-bar-free.json" --t-end 0.1 --dt 0.002 --output-dt 0.003
contains err "the output interval (0.003 s) must be a whole number of steps of 0.002 s"
# an end time between two steps was rounded to the nearer one silently (0.831 s ran to 0.832 s)
expect 5 "end time not a whole number of steps" -- "$cli" simulate "$samples/five-bar.json" --t-end 0.831 --dt 0.002
contains err "the end time (0.831 s) must be a whole number of steps of 0.002 s: end at 0.83 or 0.832 s"
expect 5 "the same for a sensitivity run" -- "$cli" sensitivity "$samples/five-bar.json" --t-end 0.831 --dt 0.002 -o "$tmp/s.json"
contains err "the end time (0.831 s) must be a whole number of steps"
# rows stream to the file (flat memory); a file larger than the free disk is refused after the
# first block of rows, with the numbers, and nothing is left behind
expect 5 "a CSV larger than the disk" -- "$cli" simulate "$samples/four-bar-free.json" --t-end 1e6 --dt 1e-3 -o "$tmp/huge.csv"
contains err "free where it goes: write fewer rows (--output-dt), or shorten the run"
[ -e "$tmp/huge.csv" ] && { echo "FAIL: the refused CSV was written"; fail=1; }
expect 5 "a kinematic CSV larger than the disk" -- "$cli" kinematics "$samples/four-bar.json" --t-end 1e7 --dt 0.01 -o "$tmp/huge.csv"
contains err "free where it goes"
expect 0 "write to /dev/null" -- "$cli" simulate "$samples/four-bar-free.json" --t-end 0.01 -o /dev/null
[ -c /dev/null ] || { echo "FAIL: /dev/null is no longer a device"; fail=1; }
expect 0 "a streamed CSV is the whole table" -- "$cli" simulate "$samples/four-bar-free.json" --t-end 1 --dt 1e-3 -o "$tmp/streamed.csv"
[ "$(wc -l < "$tmp/streamed.csv")" -eq 1002 ] || { echo "FAIL: streamed CSV has $(wc -l < "$tmp/streamed.csv") lines, not 1002"; fail=1; }
expect 2 "unknown formulation" -- "$cli" simulate "$samples/five-bar.json" --formulation magic

cp "$samples/four-bar.json" "$tmp/f.json"
expect 0 "format in place" -- "$cli" format "$tmp/f.json"
cmp -s "$tmp/f.json" "$samples/four-bar.json" || { echo "FAIL: format changed a canonical file"; fail=1; }

# ---- issue 23: bad input, huge runs and file safety ----
# numbers on the command line: exit 2 naming the option and the reason
for bad in "--t-end -1" "--t-end nan" "--t-end inf" "--dt 0" "--dt -0.01" "--output-dt -1" "--tol 0" "--tol -1" "--tol 2" "--dt 1e-3x"; do
  # shellcheck disable=SC2086
  expect 2 "simulate $bad" -- "$cli" simulate "$samples/four-bar-free.json" $bad -o "$tmp/never.csv"
  contains err "${bad%% *}: "
  [ -e "$tmp/never.csv" ] && { echo "FAIL: simulate $bad wrote a file"; fail=1; }
done
expect 2 "kinematics --t-end nan" -- "$cli" kinematics "$samples/four-bar.json" --t-end nan
contains err "--t-end: must be a finite number, not nan"
expect 2 "kinematics --dt 0" -- "$cli" kinematics "$samples/four-bar.json" --dt 0
contains err "--dt: must be greater than 0 (got 0)"
# time spans that make no run: refused with the reason, before any work
expect 5 "kinematics of 1e308 steps" -- "$cli" kinematics "$samples/four-bar.json" --t-end 1e308 --dt 1
contains err "steps, more than the 1e+09 a run may take"
expect 5 "simulate at a step of 1e-300 s" -- "$cli" simulate "$samples/four-bar-free.json" --dt 1e-300
contains err "steps, more than the 1e+09 a run may take"
expect 5 "a step longer than the run" -- "$cli" simulate "$samples/four-bar-free.json" --dt 2 --t-end 1
contains err "the time step (2 s) is longer than the end time (1 s)"
python3 - "$samples/four-bar.json" "$tmp/huge.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["analysis"] = {"t_end": 1e308, "dt": 1e-308}; json.dump(d, open(sys.argv[2], "w"))
PY
expect 3 "a file asking for 1e616 steps" -- "$cli" check "$tmp/huge.json"
contains err "analysis.dt: the end time over the step is more than 10^9 steps"
# the output is the input: refused, the mechanism intact
cp "$samples/four-bar.json" "$tmp/in.json"
expect 2 "kinematics -o its input" -- "$cli" kinematics "$tmp/in.json" -o "$tmp/in.json"
contains err "is the input file"
expect 2 "simulate -o its input by another name" -- "$cli" simulate "$tmp/in.json" -o "$tmp/./in.json"
cmp -s "$tmp/in.json" "$samples/four-bar.json" || { echo "FAIL: the input was overwritten"; fail=1; }
# inputs that are not regular files: refused at once (a FIFO would block for ever)
mkfifo "$tmp/fifo"
expect 4 "check a FIFO" -- timeout 10 "$cli" check "$tmp/fifo"
contains err "is not a regular file"
expect 4 "check /dev/zero" -- timeout 10 "$cli" check /dev/zero
contains err "is not a regular file"
# outputs: through a symbolic link to its file; a FIFO written directly; a read-only file kept;
# an existing file's permissions kept; no temporary file left behind
cp "$samples/four-bar.json" "$tmp/real.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); json.dump(d, open(sys.argv[1], 'w'))" "$tmp/real.json"  # not canonical
ln -s real.json "$tmp/link.json"
expect 0 "format through a link" -- "$cli" format "$tmp/link.json"
[ -L "$tmp/link.json" ] || { echo "FAIL: format replaced the link"; fail=1; }
cmp -s "$tmp/real.json" "$samples/four-bar.json" || { echo "FAIL: format did not write the link's file"; fail=1; }
chmod 600 "$tmp/real.json"
expect 0 "format a 0600 file" -- "$cli" format "$tmp/real.json"
[ "$(stat -c %a "$tmp/real.json")" = 600 ] || { echo "FAIL: format changed 0600 to $(stat -c %a "$tmp/real.json")"; fail=1; }
cp "$samples/four-bar.json" "$tmp/ro.json"; chmod 444 "$tmp/ro.json"
expect 4 "write over a read-only file" -- "$cli" format "$samples/five-bar.json" -o "$tmp/ro.json"
contains err "is read-only: not overwritten"
cmp -s "$tmp/ro.json" "$samples/four-bar.json" || { echo "FAIL: a read-only file was overwritten"; fail=1; }
mkfifo "$tmp/outfifo"
( cat "$tmp/outfifo" > "$tmp/fromfifo.json" ) &
expect 0 "write to a FIFO" -- timeout 10 "$cli" format "$samples/four-bar.json" -o "$tmp/outfifo"
wait
[ -p "$tmp/outfifo" ] || { echo "FAIL: the FIFO was replaced by a file"; fail=1; }
cmp -s "$tmp/fromfifo.json" "$samples/four-bar.json" || { echo "FAIL: the FIFO did not carry the file"; fail=1; }
mkdir "$tmp/dir"
expect 4 "write over a folder" -- "$cli" format "$samples/four-bar.json" -o "$tmp/dir"
contains err "is a folder"
ls -A "$tmp" | grep -q '\.tmp' && { echo "FAIL: a temporary file was left: $(ls -A "$tmp")"; fail=1; }
# a temporary file of a killed writer (its process gone) is cleaned up by the next write
touch "$tmp/.four.json.tmp999999999.0"
expect 0 "write beside a stale temporary" -- "$cli" format "$samples/four-bar.json" -o "$tmp/four.json"
[ -e "$tmp/.four.json.tmp999999999.0" ] && { echo "FAIL: the stale temporary file is still there"; fail=1; }

# parameters: a chain of 50 000 written in reverse (stack overflow before), 100 000 plain ones
python3 - "$samples/four-bar.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["parameters"] = [{"name": f"p{i}", "value": (f"p{i + 1}" if i < 49999 else 1)} for i in range(50000)]
json.dump(d, open(sys.argv[2] + "/chain.json", "w"))
d["parameters"] = [{"name": f"q{i}", "value": i * 0.5} for i in range(100000)]
json.dump(d, open(sys.argv[2] + "/plain.json", "w"))
PY
expect 0 "a reverse chain of 50 000 parameters" -- timeout 60 "$cli" check -q "$tmp/chain.json"
expect 0 "100 000 parameters" -- timeout 60 "$cli" check -q "$tmp/plain.json"

# over-driven (a second, conflicting driver on the four-bar): every analysis refuses, check errs
python3 - "$samples" "$tmp" <<'PY'
import json, sys
s, t = sys.argv[1], sys.argv[2]
b = json.load(open(s + "/four-bar.json"))
d = json.loads(json.dumps(b)); d["drivers"].append({"name": "motor2", "type": "joint", "joint": "D", "function": "t"})
json.dump(d, open(t + "/over.json", "w"))
d = json.loads(json.dumps(b)); d["drivers"][0]["function"] = "1/(t-0.02)"; json.dump(d, open(t + "/pole.json", "w"))
d = json.loads(json.dumps(b)); d["bodies"][2]["position"] = [1e308, 1e308]; json.dump(d, open(t + "/far.json", "w"))
f = json.load(open(s + "/four-bar-free.json"))
d = json.loads(json.dumps(f)); d["bodies"][0]["mass"] = 1e308; json.dump(d, open(t + "/heavy.json", "w"))
d = json.loads(json.dumps(f)); d["gravity"] = [0, 0, -1e308]; json.dump(d, open(t + "/gravity.json", "w"))
open(t + "/trailing.json", "w").write(open(s + "/four-bar.json").read() + "garbage }\n")
PY
expect 3 "check an over-driven four-bar" -- "$cli" check "$tmp/over.json"
contains err "over-driven: 2 driver(s) ('motor', 'motor2') for 1 DOF"
for method in global-dense global-sparse modular-td; do
  expect 5 "kinematics $method of an over-driven four-bar" -- "$cli" kinematics "$tmp/over.json" --method $method -o "$tmp/over.csv"
  contains err "over-driven"
done
for formulation in matrix-r penalty; do
  expect 5 "simulate ($formulation) an over-driven four-bar" -- "$cli" simulate "$tmp/over.json" --formulation $formulation -o "$tmp/over.csv"
  contains err "over-driven: 2 driver(s)"
done
# numbers beyond double precision: stop with the column and the time, no row of nan
expect 5 "kinematics with a rocker at 1e308" -- "$cli" kinematics "$tmp/far.json" -o "$tmp/far.csv"
contains err "is not a number at t = 0"
expect 5 "simulate a 1e308 kg crank" -- "$cli" simulate "$tmp/heavy.json" -o "$tmp/heavy.csv"
contains err "energy.kinetic is infinite at t = 0"
expect 5 "simulate under a gravity of 1e308" -- "$cli" simulate "$tmp/gravity.json" --formulation penalty -o "$tmp/g.csv"
contains err "energy.potential is infinite at t = 0"
# messages that say what is wrong
expect 3 "text after the JSON" -- "$cli" check "$tmp/trailing.json"
contains err "there is more text after the end of the mechanism"
expect 5 "a driver with a pole" -- "$cli" kinematics "$tmp/pole.json" --dt 0.01
contains err "the driver 'motor' is not finite at t = 0.02: its function 1/(t - 0.02) gives inf"
expect 5 "a simulation through a driver's pole" -- "$cli" simulate "$tmp/pole.json" --dt 0.01 --t-end 0.1 -o "$tmp/pole.csv"
contains err "the driver 'motor' is not finite at t = 0.02"
# a crank that has turned 16 000 rad: its row's rounding is not a failure to converge
expect 0 "simulate the four-bar past 2608 s" -- "$cli" simulate "$samples/four-bar.json" --t-end 2650 --dt 0.05 --output-dt 10 -o "$tmp/long.csv"

# sensitivities: JSON with every cost's value and gradient; names that do not exist are refused
expect 0 "sensitivity of the ten-bar chain" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --t-end 0.01 --parameters l_1,m_2 -o "$tmp/grad.json"
python3 - "$tmp/grad.json" <<'PY' || { echo "FAIL: sensitivity JSON"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
assert j["method"] == "ddm", j
psi = j["costs"]["psi"]
assert set(psi["gradient"]) == {"l_1", "m_2"}, psi
assert psi["value"] > 0 and psi["gradient"]["l_1"] > 0, psi
PY
expect 0 "sensitivity compared across methods" -- "$cli" sensitivity "$samples/five-bar.json" --method compare --t-end 0.01 --costs psi2 -o "$tmp/cmp.json"
contains err "rel. diff."
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert [m['method'] for m in j['methods']] == ['ddm','avm','cs','fd'], j" "$tmp/cmp.json" || { echo "FAIL: compare JSON"; fail=1; }
expect 0 "sensitivity histories" -- "$cli" sensitivity "$samples/four-bar-path.json" --t-end 0.1 --histories "$tmp/hist.csv" -o "$tmp/g.json"
python3 -c "import csv,sys; r=list(csv.reader(open(sys.argv[1]))); assert r[0][:2]==['time','P.x'] and 'd(P.y)/d(Px)' in r[0] and len(r)==12, r[0]" "$tmp/hist.csv" || { echo "FAIL: histories CSV"; fail=1; }
# an energy output has no derivative: left out of the histories, with a note (it was written as 0)
expect 0 "sensitivity histories without the energy" -- "$cli" sensitivity "$samples/five-bar.json" --t-end 0.05 --parameters L_A1 --histories "$tmp/hist3.csv" -o "$tmp/g3.json"
contains err "the histories leave out 'E'"
python3 -c "import csv,sys; r=next(csv.reader(open(sys.argv[1]))); assert 'E' not in r and not any(c.startswith('d(E)') for c in r) and len(r) > 3, r" "$tmp/hist3.csv" || { echo "FAIL: histories with an energy output"; fail=1; }
expect 2 "histories need the direct method" -- "$cli" sensitivity "$samples/four-bar-path.json" --method cs --histories "$tmp/hist2.csv"
contains err "--histories comes from the direct method"
# through impacts: the impacts' log with their time sensitivities (seed 001 T1's dt_1/dy0 = 0.2258)
expect 0 "sensitivity through impacts" -- "$cli" sensitivity "$samples/bouncing-ball-t1.json" --costs y_T --events "$tmp/impacts.csv" -o "$tmp/ball.json"
contains err "through 3 impacts, the first at t = 0.4515 s"
python3 - "$tmp/impacts.csv" <<'PY' || { echo "FAIL: sensitivity impacts CSV"; fail=1; }
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
assert len(r) == 3, r
assert r[0]["contact"] == "floor", r[0]
# the same columns as simulate --events first
assert list(r[0].keys())[:9] == "time,kind,contact,normal_velocity_before,normal_velocity_after,impulse,energy_before,energy_after,grazing".split(","), list(r[0].keys())
assert r[0]["kind"] == "impact" and float(r[0]["impulse"]) > 0, r[0]
assert abs(float(r[0]["dt/d(y0)"]) - 0.225761820493) < 1e-9, r[0]
assert abs(float(r[2]["dt/d(e)"]) - 2.347922933126) < 1e-9, r[2]
PY
expect 0 "the penalty adjoint through impacts" -- "$cli" sensitivity "$samples/bouncing-ball-t1.json" --formulation penalty --method avm --t-end 0.5 -o "$tmp/pavm.json"
contains err "through 1 impact, the first at t = 0.4515 s"
expect 2 "sensitivity to a parameter that does not exist" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --t-end 0.01 --parameters l_11
contains err "unknown parameter 'l_11'"
expect 5 "sensitivity of a file without parameters" -- "$cli" sensitivity "$samples/four-bar-free.json" --t-end 0.01
contains err "no design parameters"

# rows at given times: t = 0 and each of them, for kinematics and Matrix R (both integrators)
expect 0 "kinematics at given times" -- "$cli" kinematics "$samples/four-bar.json" --times 0.1,0.25,0.5 -o "$tmp/times.csv"
[ "$(cut -d, -f1 "$tmp/times.csv" | tr '\n' ' ')" = "time 0 0.1 0.25 0.5 " ] || { echo "FAIL: kinematics --times rows"; cat "$tmp/times.csv"; fail=1; }
printf '0.1\n0.3\n' > "$tmp/times.txt"
for integrator in trapezoidal rk45; do
  expect 0 "simulate at given times ($integrator)" -- "$cli" simulate "$samples/five-bar.json" --integrator $integrator --times "@$tmp/times.txt" -o "$tmp/times.csv"
  [ "$(cut -d, -f1 "$tmp/times.csv" | tr '\n' ' ')" = "time 0 0.1 0.3 " ] || { echo "FAIL: simulate --times rows"; cat "$tmp/times.csv"; fail=1; }
done
expect 2 "times out of order" -- "$cli" kinematics "$samples/four-bar.json" --times 0.3,0.2
contains err "is not after the one before it"
expect 2 "a time that is not a number" -- "$cli" simulate "$samples/five-bar.json" --times 0.1,abc
contains err "'abc' is not a number"
expect 5 "times with the penalty formulation" -- "$cli" simulate "$samples/five-bar.json" --formulation penalty --times 0.1
contains err "serve the Matrix R formulation"

# sensitivity's analysis and formulation choices
expect 2 "sensitivity with an unknown analysis" -- "$cli" sensitivity "$samples/four-bar-path.json" --analysis statics
contains err "unknown analysis 'statics'"
expect 2 "sensitivity with an unknown formulation" -- "$cli" sensitivity "$samples/five-bar.json" --formulation lagrange
contains err "unknown formulation 'lagrange'"
expect 5 "kinematic sensitivity of an undriven mechanism" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --analysis kinematics
contains err "use --analysis dynamics"
expect 5 "kinematic sensitivity with a formulation" -- "$cli" sensitivity "$samples/four-bar-path.json" --analysis kinematics --formulation penalty
contains err "has no formulation or integrator to choose"
# a kinematic study's step without analysis.dt is a hundredth of the end chosen, as `kinematics` takes it
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('analysis'); json.dump(d, open(sys.argv[2], 'w'))" "$samples/four-bar-path.json" "$tmp/nodt.json"
expect 0 "a kinematic study over an end chosen" -- "$cli" sensitivity "$tmp/nodt.json" --analysis kinematics --t-end 2
contains err "100 steps differentiated"
expect 0 "the kinematics over the same end" -- "$cli" kinematics "$tmp/nodt.json" --t-end 2 -o "$tmp/nodt.csv"
[ "$(wc -l < "$tmp/nodt.csv")" -eq 102 ] || { echo "FAIL: kinematics over 2 s: $(wc -l < "$tmp/nodt.csv") lines, expected 102"; fail=1; }
expect 0 "penalty sensitivity with semi-analytical partials" -- "$cli" sensitivity "$samples/five-bar.json" --formulation penalty --partials gsam --t-end 0.01
contains out '"method": "ddm"'
contains out '"L_A1"'
expect 0 "the adjoint with semi-analytical partials" -- "$cli" sensitivity "$samples/five-bar.json" --method avm --partials lsam --t-end 0.01
contains out '"method": "avm"'
expect 2 "semi-analytical partials with the complex step" -- "$cli" sensitivity "$samples/five-bar.json" --method cs --partials gsam --t-end 0.01
# the global formulations' sensitivities: parameter partials by forward AD, the complex step too
expect 0 "index-1 sensitivity" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --formulation index1 --t-end 0.01 --parameters l_1,m_2 -o "$tmp/g1.json"
python3 - "$tmp/g1.json" <<'PY' || { echo "FAIL: index-1 sensitivity JSON"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
g = d["costs"]["psi"]["gradient"]
assert d["method"] == "ddm" and abs(g["l_1"] - 0.1) < 1e-3, d
PY
expect 0 "penalty-global sensitivities compared" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --formulation penalty-global --method compare --t-end 0.01 --parameters l_1 -o "$tmp/gc.json"
python3 - "$tmp/gc.json" <<'PY' || { echo "FAIL: penalty-global compare JSON"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
g = {m["method"]: m["costs"]["psi"]["gradient"]["l_1"] for m in d["methods"]}
assert set(g) == {"ddm", "avm", "cs", "fd"}, g
assert abs(g["ddm"] - g["cs"]) < 1e-9 * abs(g["cs"]) and abs(g["avm"] - g["cs"]) < 1e-8 * abs(g["cs"]), g
PY
expect 0 "index-3 sensitivity" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --formulation index3 --t-end 0.01 --parameters l_1
contains out '"l_1"'
expect 5 "index-3 sensitivity of redundant constraints" -- "$cli" sensitivity "$samples/grid-1x15-parameters.json" --formulation index3 --t-end 0.01
contains err "independent constraints"
expect 0 "a delta sweep on a global formulation" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --formulation index1 --delta-sweep --t-end 0.01 --parameters m_7
contains err "AD"
expect 2 "a delta sweep with the adjoint" -- "$cli" sensitivity "$samples/five-bar.json" --method avm --delta-sweep --t-end 0.01
contains err "--delta-sweep of the direct method"

# optimize: the synthesis sample tuned from its study, the tuned file written and checked; set
expect 0 "optimize the synthesis sample" -- "$cli" optimize "$samples/four-bar-synthesis.json" -o "$tmp/tuned.json"
contains err "eval  cost"
contains err "converged"
contains err "L1: 0.8 -> 1"
expect 0 "the tuned file is valid" -- "$cli" check "$tmp/tuned.json"
expect 0 "the tuned file's cost" -- "$cli" sensitivity "$tmp/tuned.json" --analysis kinematics
python3 - "$tmp/out" <<'PY' || { echo "FAIL: the tuned cost is not below 1e-9"; fail=1; }
import json, sys
v = json.load(open(sys.argv[1]))["costs"]["target_error"]["value"]
sys.exit(0 if v < 1e-9 else 1)
PY
# four-bar limits: the Grashof conditions and the transmission angle as constraints, printed
expect 0 "optimize within four-bar limits" -- "$cli" optimize "$samples/four-bar-synthesis.json" --crank-turns --min-transmission 60 -o "$tmp/limited.json"
contains err "constraint turns_sum (crank–coupler–rocker): 0 <= L2 + L3 - L1 - 4"
contains err "constraint mu_folded (crank–coupler–rocker): -0.5 <= (L2^2 + L3^2 - (4 - L1)^2) / (2*L2*L3) <= 0.5"
expect 0 "the limited design assembles" -- "$cli" check -q "$tmp/limited.json"
expect 5 "four-bar limits without a four-bar" -- "$cli" optimize "$samples/five-bar.json" --min-transmission 40
contains err "--min-transmission: the mechanism has no four-bar loop"
expect 2 "optimize with an unknown algorithm" -- "$cli" optimize "$samples/four-bar-synthesis.json" --algorithm newton
contains err "unknown algorithm 'newton' (slsqp, mma"
expect 2 "optimize an unknown cost" -- "$cli" optimize "$samples/four-bar-synthesis.json" --cost psi --max-evals 3
contains err "unknown cost 'psi' (the file's costs: target_error)"
expect 5 "optimize a file without costs" -- "$cli" optimize "$samples/four-bar.json"
contains err "the file has no costs"
expect 2 "optimize over the input" -- "$cli" optimize "$samples/four-bar-synthesis.json" -o "$samples/four-bar-synthesis.json"
expect 0 "set parameters" -- "$cli" set "$samples/four-bar-synthesis.json" L1=1 L2=3.5 -o "$tmp/set.json"
expect 0 "the set file is valid" -- "$cli" check -q "$tmp/set.json"
expect 2 "set without a value" -- "$cli" set "$samples/four-bar-synthesis.json" L1
contains err "'L1' is not NAME=NUMBER"
expect 2 "set an unknown parameter" -- "$cli" set "$samples/four-bar-synthesis.json" Q=1
contains err "unknown parameter 'Q'"
expect 5 "set a crank that cannot reach" -- "$cli" set "$samples/four-bar-synthesis.json" L1=20 --force
contains err "does not close"

# found by a new user's walk through the README
expect 2 "an unknown generator" -- "$cli" generate foo
contains err "unknown generator 'foo' (four-bar-chain, crank-slider-3d or grid"
# a slider's rate in a kinematic run (it was left out, and a cost on it refused); = simulate's
python3 - "$samples/slider-crank.json" "$tmp/srate.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["outputs"] = d.get("outputs", []) + [{"name": "vs", "type": "joint_rate", "joint": "guide"}]
d["costs"] = [{"name": "c", "type": "integral", "expression": "vs^2"}]
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "kinematics with a slider's rate" -- "$cli" kinematics "$tmp/srate.json" --t-end 0.2 --dt 0.01 -o "$tmp/srate_k.csv"
contains err "cost c = "
expect 0 "simulate with a slider's rate" -- "$cli" simulate "$tmp/srate.json" --t-end 0.2 --dt 0.01 -o "$tmp/srate_d.csv"
python3 - "$tmp/srate_k.csv" "$tmp/srate_d.csv" <<'PY' || { echo "FAIL: a slider's rate in kinematics"; fail=1; }
import csv, sys
k = list(csv.DictReader(open(sys.argv[1]))); d = list(csv.DictReader(open(sys.argv[2])))
assert len(k) == len(d) == 21
assert max(abs(float(a["vs"]) - float(b["vs"])) for a, b in zip(k, d)) < 1e-9
assert max(abs(float(a["vs"])) for a in k) > 0.1
PY
expect 2 "set a parameter twice" -- "$cli" set "$samples/four-bar-synthesis.json" L1=1 L1=2
contains err "parameter 'L1' is given twice"
expect 2 "penalty with rk45" -- "$cli" simulate "$samples/five-bar.json" --formulation penalty --integrator rk45 --t-end 0.01
contains err "the trapezoidal rule only"
# the global formulations on natural coordinates: the same table as Matrix R's, the same motion
for f in index3 index1 penalty-global matrix-r; do
  expect 0 "simulate --formulation $f" -- "$cli" simulate "$samples/ten-bar-chain.json" --formulation $f --t-end 0.1 -o "$tmp/global_$f.csv"
done
python3 - "$tmp" <<'PY' || { echo "FAIL: the global formulations' tables"; fail=1; }
import csv, sys
ref = list(csv.DictReader(open(sys.argv[1] + "/global_matrix-r.csv")))
for f in ("index3", "index1", "penalty-global"):
    rows = list(csv.DictReader(open(sys.argv[1] + "/global_" + f + ".csv")))
    assert len(rows) == len(ref) == 101 and list(rows[0]) == list(ref[0]), f
    worst = max(abs(float(a[c]) - float(b[c])) for a, b in zip(rows, ref) for c in ref[0] if c.startswith("dof."))
    assert 0 < worst < 1e-4, (f, worst)
PY
expect 0 "compare" -- "$cli" compare "$samples/ten-bar-chain.json" --t-end 0.05 --gradients --parameters l_1 -o "$tmp/compare.json"
contains err "index3          trapezoidal"
python3 - "$tmp/compare.json" <<'PY' || { echo "FAIL: compare's JSON"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
names = [(f["formulation"], f["integrator"]) for f in d["formulations"]]
assert ("index3", "trapezoidal") in names and ("matrix-r", "rk45") in names and len(names) == 8, names
for f in d["formulations"]:
    assert f["status"] == "ok" and f["steps"] > 0 and f["distance"] < 1e-4, f
    assert "psi" in f["costs"]
# every formulation has its gradient (the globals' partials by forward AD as the recursive ones')
for f in d["formulations"]:
    assert "gradient_status" not in f and f.get("gradient_difference", 0) < 1e-4, f
PY
expect 0 "compare to standard output" -- "$cli" compare "$samples/rssr.json" --t-end 0.02
contains out "penalty-global  rk45"
expect 5 "compare whose end is not a whole number of steps" -- "$cli" compare "$samples/ten-bar-chain.json" --dt 0.3 --t-end 1
contains err "end at 0.9 or 1.2 s"
expect 2 "index3 with rk45" -- "$cli" simulate "$samples/ten-bar-chain.json" --formulation index3 --integrator rk45 --t-end 0.01
contains err "the index3 formulation integrates with the trapezoidal rule only"
expect 0 "a global formulation of a rod between ball joints" -- "$cli" simulate "$samples/rssr.json" --formulation index1 --t-end 0.02 -o "$tmp/rssr.csv"
expect 2 "penalty sensitivity with rk45" -- "$cli" sensitivity "$samples/five-bar.json" --formulation penalty --integrator rk45 --t-end 0.01
expect 0 "a tolerance the trapezoidal rule ignores" -- "$cli" simulate "$samples/four-bar-free.json" --t-end 0.01 --dt 0.01 --tol 1e-6 -o "$tmp/tol.csv"
contains err "note: --tol is rk45's tolerance"
expect 0 "a finite-difference step for the direct method" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --t-end 0.01 --parameters l_1 --fd-step 1e-3 -o "$tmp/fd.json"
contains err "note: --fd-step is the finite differences' (fd); ignored here"
expect 4 "a study written to a missing folder" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --t-end 0.01 -o "$tmp/nowhere/g.json"
contains err "does not exist"
expect 4 "a tuning written to a missing folder" -- "$cli" optimize "$samples/four-bar-synthesis.json" -o "$tmp/nowhere/t.json"
expect 5 "kinematics whose end is not a whole number of steps" -- "$cli" kinematics "$samples/four-bar.json" --dt 0.3 --t-end 1
contains err "end at 0.9 or 1.2 s"
# ∫a dt of the ball does not depend on its drop height: a zero reference gets an absolute difference
expect 0 "a gradient that is exactly zero" -- "$cli" sensitivity "$samples/bouncing-ball-t1.json" --method compare --costs int_a --parameters y0 -o "$tmp/cmp.json"
contains err "cs 0  fd"
contains err "(abs. diff. "
grep -q "rel. diff" "$tmp/err" && { echo "FAIL: a relative difference against a zero reference"; cat "$tmp/err"; fail=1; }

# ---- the second abuse trial (issue 37) ----
# output lost on a full disk behind standard output: exit 4, said, never 0
for args in "check $samples/four-bar.json" "format $samples/four-bar.json -o -" "generate four-bar-chain --dyads 2" \
            "decompose $samples/four-bar.json" "set $samples/four-bar-synthesis.json L1=1" \
            "sensitivity $samples/ten-bar-chain.json --t-end 0.01 --parameters l_1" \
            "kinematics $samples/four-bar.json --t-end 0.1 --dt 0.05" "simulate $samples/four-bar-free.json --t-end 0.01 --dt 0.01"; do
  # shellcheck disable=SC2086
  "$cli" $args >/dev/full 2>"$tmp/err"; got=$?
  [ $got -eq 4 ] || { echo "FAIL: '$args > /dev/full' exit $got, expected 4"; cat "$tmp/err"; fail=1; }
  contains err "standard output"
done
# every output's folder checked before the work (the events file was checked after 8 s of it)
expect 4 "sensitivity --events into a missing folder" -- "$cli" sensitivity "$samples/five-bar.json" --t-end 0.01 --events "$tmp/nosuchdir/e.csv" -o "$tmp/o.json"
contains err "does not exist"
[ -e "$tmp/o.json" ] && { echo "FAIL: a refused study wrote its JSON"; fail=1; }
expect 4 "simulate --events into a missing folder" -- "$cli" simulate "$samples/five-bar.json" --t-end 0.01 --events "$tmp/nosuchdir/e.csv" -o "$tmp/o.csv"
contains err "does not exist"
# a dangling symbolic link as the output: its target is created, the link kept
ln -s "$tmp/made-by-dangling.json" "$tmp/dangling.json"
expect 0 "format into a dangling link" -- "$cli" format "$samples/four-bar.json" -o "$tmp/dangling.json"
[ -L "$tmp/dangling.json" ] && [ -f "$tmp/made-by-dangling.json" ] || { echo "FAIL: the dangling link was replaced, not followed"; ls -l "$tmp"; fail=1; }
# a cost that is not a number: refused with its name and the time, never NaN in JSON
python3 - "$samples/bouncing-ball-t1.json" "$tmp/nan.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["costs"] = d.get("costs", []) + [{"name": "bad", "type": "integral", "expression": "log(0.25 - t)"}]
json.dump(d, open(sys.argv[2], "w"))
PY
expect 5 "sensitivity of a cost that is not a number" -- "$cli" sensitivity "$tmp/nan.json" --t-end 0.5 --costs bad -o "$tmp/nan_g.json"
contains err "cost 'bad' is not a finite number from t = 0.25 s on"
[ -e "$tmp/nan_g.json" ] && { echo "FAIL: a NaN cost's study wrote JSON"; fail=1; }
expect 0 "simulate with a cost that is not a number" -- "$cli" simulate "$tmp/nan.json" --t-end 0.5 -o "$tmp/nan.csv"
contains err "not evaluated: cost 'bad' is not a finite number from t = 0.25 s on"
grep -q "cost bad =" "$tmp/err" && { echo "FAIL: a NaN cost printed as a value"; fail=1; }
# a semi-analytical step lost in the parameter's rounding
for delta in 1e-300 1e-16; do
  expect 5 "gsam with delta $delta" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --t-end 0.01 --parameters l_1 --partials gsam --delta $delta
  contains err "vanishes against parameter 'l_1'"
  contains err "choose a delta of at least"
done
# an infeasible tuning is no convergence and writes nothing
python3 - "$samples/four-bar-synthesis.json" "$tmp/infeasible.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["study"]["tuning"]["constraints"] = [{"name": "short", "expression": "L1 + L3", "max": 0.1}]
json.dump(d, open(sys.argv[2], "w"))
PY
expect 5 "an infeasible tuning" -- "$cli" optimize "$tmp/infeasible.json" --max-evals 20 -o "$tmp/tuned-infeasible.json"
contains err "no feasible design found: the smallest violation reached is"
grep -q "x lower" "$tmp/err" && { echo "FAIL: an infeasible tuning claims an improvement"; fail=1; }
[ -e "$tmp/tuned-infeasible.json" ] && { echo "FAIL: an infeasible tuning wrote its file"; fail=1; }
expect 5 "an infeasible tuning written when asked" -- "$cli" optimize "$tmp/infeasible.json" --max-evals 20 --write-infeasible -o "$tmp/tuned-infeasible.json"
[ -f "$tmp/tuned-infeasible.json" ] || { echo "FAIL: --write-infeasible wrote nothing"; fail=1; }
# values that say nothing are refused; options beside --times are said to be ignored
expect 2 "set with an empty value" -- "$cli" set "$samples/four-bar-synthesis.json" "L1="
contains err "'L1=' is not NAME=NUMBER"
expect 2 "set outside the range" -- "$cli" set "$samples/four-bar-synthesis.json" L1=2
contains err "parameter 'L1' = 2 m is outside its range 0.5 ... 1.5 m"
expect 0 "set outside the range, forced" -- "$cli" set "$samples/four-bar-synthesis.json" L1=1.6 --force -o "$tmp/forced.json"
contains err "warning: parameter 'L1' = 1.6 m is outside its range"
expect 2 "kinematics with empty --times" -- "$cli" kinematics "$samples/four-bar.json" --times ""
contains err "no times given"
expect 2 "simulate with empty --times" -- "$cli" simulate "$samples/four-bar-free.json" --times ""
expect 0 "--t-end and --output-dt beside --times" -- "$cli" simulate "$samples/four-bar-free.json" --times 0.01,0.02 --t-end 5 --output-dt 0.01 -o "$tmp/times.csv"
contains err "note: --t-end is ignored"
contains err "note: --output-dt is ignored"
# a time at which a driver's value is lost in the rounding of t: every method says so (the
# modular ones gave positions, the global ones a singular position)
for method in modular-td modular-3ot global-dense global-sparse; do
  expect 5 "kinematics at t = 1e300 ($method)" -- "$cli" kinematics "$samples/four-bar.json" --method $method --times 1e300
  contains err "its value there is unknown"
done
# messages: short bounds, the tolerance named, unknown names a usage error
expect 2 "--checkpoint-every 0" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --checkpoint-every 0
[ "$(wc -c < "$tmp/err")" -lt 300 ] || { echo "FAIL: --checkpoint-every 0's message is $(wc -c < "$tmp/err") bytes"; cat "$tmp/err"; fail=1; }
expect 5 "rk45 at a tolerance doubles cannot meet" -- "$cli" simulate "$samples/five-bar.json" --integrator rk45 --tol 1e-300 --t-end 0.1
contains err "below what double precision can meet"
expect 2 "an unknown cost" -- "$cli" sensitivity "$samples/ten-bar-chain.json" --costs nope
contains err "unknown cost 'nope'"

# sweeps: the CSV's header and rows, failing variants kept, refusals named before any work
expect 0 "sweep" -- "$cli" sweep "$samples/four-bar-synthesis.json" --vary L1=0.5:1.5:3 --vary L3=2:4:2 --gradients -o "$tmp/sweep.csv"
[ "$(head -1 "$tmp/sweep.csv")" = "L1,L3,target_error,dtarget_error/dL1,dtarget_error/dL3,error" ] || { echo "FAIL: sweep header"; head -2 "$tmp/sweep.csv"; fail=1; }
[ "$(wc -l < "$tmp/sweep.csv")" -eq 7 ] || { echo "FAIL: sweep rows"; cat "$tmp/sweep.csv"; fail=1; }
contains err "6 variants"
contains sweep.csv "1.5,2,,,,"
expect 2 "sweep outside a range" -- "$cli" sweep "$samples/four-bar-synthesis.json" --vary L1=0.5:2:3
contains err "outside its range"
expect 2 "sweep of an unknown parameter" -- "$cli" sweep "$samples/four-bar-synthesis.json" --vary nope=0:1:2
contains err "unknown parameter 'nope'"
expect 2 "sweep --vary without N" -- "$cli" sweep "$samples/four-bar-synthesis.json" --vary L1=0.5:1.5
contains err "NAME=LO:HI:N"
expect 2 "sweep lhs without samples" -- "$cli" sweep "$samples/four-bar-synthesis.json" --design lhs --vary L1=0.5:1.5
contains err "--samples"
expect 2 "sweep of a file without costs" -- "$cli" sweep "$samples/slider-crank.json" --vary x=0:1:2
expect 4 "sweep into a missing folder" -- "$cli" sweep "$samples/four-bar-synthesis.json" --vary L1=0.5:1.5:2 -o "$tmp/nodir/s.csv"
expect 0 "sweep lhs" -- "$cli" sweep "$samples/four-bar-synthesis.json" --design lhs --samples 5 --seed 9 --vary L1=0.6:1.2 --analysis kinematics -o "$tmp/lhs1.csv"
expect 0 "sweep lhs again, 1 job" -- "$cli" sweep "$samples/four-bar-synthesis.json" --design lhs --samples 5 --seed 9 --vary L1=0.6:1.2 --analysis kinematics --jobs 1 -o "$tmp/lhs2.csv"
cmp -s "$tmp/lhs1.csv" "$tmp/lhs2.csv" || { echo "FAIL: the same LHS sweep differs between runs"; fail=1; }

[ $fail -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
