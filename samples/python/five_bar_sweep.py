# A design sweep of the five-bar, with exact gradients (the notebook five_bar_sweep.ipynb as a script;
# "# %%" cells open as a notebook in editors that take them).

# %% [markdown]
# # A design sweep of the five-bar, with exact gradients
#
# Run with `scripts/python.sh -m jupyter notebook samples/python/five_bar_sweep.ipynb` (Jupyter, if
# installed), or as a script: `scripts/python.sh samples/python/five_bar_sweep.py` writes the figures
# as PNG files. Every cost of each variant comes with its exact gradient (the direct method), drawn
# as a short tangent at each point: where the tangents do not follow the curve, the sweep is too
# coarse or the cost is not smooth there (an impact appears or disappears).

# %%
import pathlib
import numpy as np
import matplotlib
import matplotlib.pyplot as plt
import linkwright as lw

root = pathlib.Path(lw.__file__).resolve().parents[3]  # app/python/linkwright -> the project
m = lw.load(root / "samples" / "five-bar.json")
m.parameters

# %% [markdown]
# ## One parameter: the spring's free length against the energy-like cost `psi2`

# %%
df = lw.sweep(m, vary={"L_s1": np.linspace(2.0, 2.4, 21)}, gradients=True, t_end=1.0)
df[["L_s1", "psi2", "dpsi2/dL_s1", "error"]].head()

# %%
fig, ax = plt.subplots(figsize=(7, 4))
ok = df[df["error"].isna()]
ax.plot(ok["L_s1"], ok["psi2"], "o-", ms=3, label="psi2")
h = 0.4 * (ok["L_s1"].iloc[1] - ok["L_s1"].iloc[0])
for x, y, g in zip(ok["L_s1"], ok["psi2"], ok["dpsi2/dL_s1"]):
    ax.plot([x - h, x + h], [y - g * h, y + g * h], color="tab:red", lw=1.5)
ax.set_xlabel("L_s1 (m)")
ax.set_ylabel("psi2")
ax.set_title("five-bar: psi2 and its exact gradient (red tangents)")
ax.legend()
fig.tight_layout()

# %% [markdown]
# ## Two parameters: a heat map with the gradient as arrows

# %%
grid = lw.sweep(m, vary={"L_s1": np.linspace(2.0, 2.4, 9), "m_A1": np.linspace(0.8, 1.2, 9)}, gradients=True, t_end=0.5)
Z = grid.pivot(index="m_A1", columns="L_s1", values="psi2")
U = grid.pivot(index="m_A1", columns="L_s1", values="dpsi2/dL_s1")
V = grid.pivot(index="m_A1", columns="L_s1", values="dpsi2/dm_A1")
fig2, ax2 = plt.subplots(figsize=(6, 5))
c = ax2.pcolormesh(Z.columns, Z.index, Z.values, shading="nearest")
ax2.quiver(Z.columns, Z.index, U.values, V.values, color="white")
fig2.colorbar(c, label="psi2")
ax2.set_xlabel("L_s1 (m)")
ax2.set_ylabel("m_A1 (kg)")
fig2.tight_layout()

# %%
if matplotlib.get_backend().lower() == "agg":  # run as a script: the figures as files
    fig.savefig("five_bar_sweep.png", dpi=120)
    fig2.savefig("five_bar_sweep_map.png", dpi=120)
    print("wrote five_bar_sweep.png and five_bar_sweep_map.png")
