#!/usr/bin/python3
"""The JSON schema in resources/ accepts every sample and generated file, and rejects files the
loader rejects for structural reasons (so the schema and the loader describe one format)."""
import glob, json, subprocess, sys, tempfile, os
import jsonschema

root, cli = sys.argv[1], sys.argv[2]
schema = json.load(open(os.path.join(root, "resources", "mechanism.schema.json")))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema)
failures = 0

def check(doc, expect_valid, label):
    global failures
    errors = list(validator.iter_errors(doc))
    if bool(errors) == expect_valid:
        failures += 1
        print(f"FAIL: {label}: schema says {'invalid' if errors else 'valid'}" +
              (f": {errors[0].message} at {list(errors[0].path)}" if errors else ""))

files = sorted(glob.glob(os.path.join(root, "samples", "*.json")))
with tempfile.TemporaryDirectory() as tmp:
    for args in (["four-bar-chain", "--dyads", "3"], ["crank-slider-3d", "--units", "2"], ["grid", "--columns", "2", "--rows", "3"]):
        out = os.path.join(tmp, args[0] + ".json")
        subprocess.run([cli, "generate", *args, "-o", out], check=True)
        files.append(out)
    for f in files:
        check(json.load(open(f)), True, os.path.basename(f))

base = json.load(open(os.path.join(root, "samples", "four-bar.json")))
def mutated(fn):
    d = json.loads(json.dumps(base)); fn(d); return d
check(mutated(lambda d: d.pop("bodies")), False, "missing bodies")
check(mutated(lambda d: d["bodies"][0].update(masss=1)), False, "unknown key")
check(mutated(lambda d: d["bodies"][0].update(mass=[1])), False, "wrong type")
check(mutated(lambda d: d.update(version=2)), False, "unknown version")
check(mutated(lambda d: d["joints"][0].update(type="hinge")), False, "unknown joint type")
check(mutated(lambda d: d["joints"][0].update(points=["ground"])), False, "bad reference")
print(f"{len(files) + 6 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
