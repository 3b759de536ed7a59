"""Linkwright from Python: load a mechanism, run its kinematics and dynamics, differentiate its
costs, tune it and sweep its design parameters (on every core, or on a Dask cluster).

    import linkwright as lw
    m = lw.load("samples/five-bar.json")
    r = lw.simulate(m, t_end=1)
    r["P.y"]                      # a column of the run (a NumPy view, no copy)
    lw.sensitivity(m, method="ddm", parameters=["L_s1"])
    df = lw.sweep(m, vary={"L_s1": np.linspace(2.0, 2.4, 5)}, gradients=True)

Runs release the GIL (threads run them side by side) and stop at Ctrl+C (KeyboardInterrupt).
Errors in a file raise MechanismError with the engine's "file:line:column: path: sentence"; a run
that cannot go on raises AnalysisError naming the time and the reason.
"""

import _linkwright as _core
from _linkwright import AnalysisError, Mechanism, MechanismError, Result

from ._sweep import _options, design_points, sweep

__all__ = [
    "AnalysisError", "Mechanism", "MechanismError", "Result",
    "load", "loads", "kinematics", "simulate", "sensitivity", "optimize", "sweep", "design_points",
]


def load(path):
    """The mechanism in the file at `path` (raises MechanismError naming the first problems)."""
    return _core.load(str(path))


def loads(text):
    """A mechanism from its JSON text."""
    return _core.loads(text)


def _with_parameters(self, values=None, /, *, force=False, **kwargs):
    """A new mechanism with these parameters' values (a dict, or NAME=VALUE keywords), its joints
    closed again at the new dimensions (as `linkwright-cli set`). A value outside its parameter's
    range raises MechanismError unless force=True."""
    merged = dict(values or {})
    merged.update(kwargs)
    return self._with_parameters({k: float(v) for k, v in merged.items()}, force)


Mechanism.with_parameters = _with_parameters


def kinematics(m, t_end=None, dt=None, method="modular-td", times=None):
    """Drive a fully driven mechanism over [0, t_end]: every point's position, velocity and
    acceleration, and the file's outputs, as a Result (the `kinematics` command's CSV)."""
    return _core.kinematics(m, _options({"t_end": t_end, "dt": dt}), method, None if times is None else [float(t) for t in times])


def simulate(m, t_end=None, dt=None, formulation="matrix-r", integrator="trapezoidal", tol=None, output_dt=None, times=None):
    """Forward dynamics (the `simulate` command): a Result with the CSV's columns, the costs and the
    impacts and other events."""
    run = {"t_end": t_end, "dt": dt, "formulation": formulation, "integrator": integrator, "tol": tol, "output_dt": output_dt}
    return _core.simulate(m, _options(run), None if times is None else [float(t) for t in times])


def sensitivity(m, method="ddm", parameters=None, costs=None, analysis=None, partials="ad", fd_step=1e-4, **run):
    """The gradients of the costs with respect to the design parameters:
    {cost: {"value": v, "gradient": {parameter: g}}}. method: ddm (direct), avm (adjoint),
    cs (complex step) or fd (finite differences); run: t_end, dt, formulation, integrator, tol."""
    return _core.sensitivity(m, method, _names(parameters), _names(costs), analysis or "", _options(run), partials, fd_step)


def optimize(m, cost=None, parameters=None, target=None, algorithm=None, max_evals=None, analysis=None, **run):
    """Tune parameters within their ranges to minimise a cost (or drive it to `target`), as the
    `optimize` command: a dict with the best parameters, the cost before and after, whether the
    constraints are met, and the tuned mechanism ("mechanism")."""
    return _core.optimize(m, cost, _names(parameters), target, algorithm, max_evals, analysis or "", _options(run))


def _names(v):
    if v is None:
        return None
    if isinstance(v, str):
        return [v]
    return list(v)
