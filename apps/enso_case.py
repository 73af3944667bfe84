"""The El Niño worked case (apps/README.md, ci/apps --only enso): the Niño 1+2 Kalman filter (apps/enso/kalman.py)
fitted through `dmci fit` by L-BFGS, Adam and differential evolution on 1950-1989, each fit's iterate picked on
1990-1999 and scored on 2000-2010; writes OUT/enso.json, OUT/enso.md and the plots in OUT/enso/."""
import json
import math
import os
import statistics
import tempfile

import kalman
import svgplot
from dmci_runs import ROOT, finite_json, fit_json, fmt, read_curve, run

VAL_FROM = 1990  # the fits' validation block: 1990-1999, the last ten training years (fitted: 1950-1989)

def budget_points(budget):
    """The budgets (seconds) at which the El Niño fits' picks are scored: a fixed grid up to the budget spent, and
    the budget itself."""
    grid = [0.5, 1, 2, 5, 10, 20, 30, 45, 60, 90, 120, 180, 240, 300, 450, 600]
    return [t for t in grid if t < budget] + [budget]


def enso(a, dmci, out):
    D = 20
    budget = a.budget if a.budget else (20 if a.quick else 120)
    series = kalman.load_nino(os.path.join(ROOT, "corpus", "data", "nino12_sst_1950_2010.csv"))
    anom, clim = kalman.anomalies(series, 1999)
    zs = [v for (_, _, v) in anom]
    ntrain = sum(1 for (y, _, _) in anom if y <= 1999)
    figs = os.path.join(out, "enso")
    os.makedirs(figs, exist_ok=True)
    res = {"D": D, "parameters": len(kalman.names(D)), "train_months": ntrain, "test_months": len(zs) - ntrain,
           "max_anomaly_train": max(zs[:ntrain], key=abs), "max_anomaly_test": max(zs[ntrain:], key=abs),
           "climatology_c": clim, "budget_seconds": budget, "quick": a.quick}
    start = kalman.start(D, a.seed)
    names = kalman.names(D)
    assert len(names) == 631
    with tempfile.TemporaryDirectory() as w:
        with open(os.path.join(w, "kalman.scm"), "w") as f:
            f.write(kalman.program(D))
        with open(os.path.join(w, "train.csv"), "w") as f:
            f.write("z,w,wfit,wval\n" + "".join(f"{z!r},1,{int(y < VAL_FROM)},{int(y >= VAL_FROM)}\n"
                                                 for z, (y, _, _) in zip(zs[:ntrain], anom)))
        binds = [f"--bind={n}={start[n]!r}" for n in names]
        data = ["--data-list", "zs=train.csv:z", "--data-list", "ws=train.csv:w"]

        # One NLL + gradient over the 600 training months, by route and engine: the seconds per evaluation of
        # dmci fit (Adam: one value+gradient evaluation per iteration, lr 1e-9 so that the point barely moves),
        # the median of the iterations' times after the first.
        timing = []
        rounds, reps = (2, 8) if a.quick else (4, 15)
        configs = [("direct", "native"), ("dmci", "native"), ("direct", "replay"), ("dmci", "replay"),
                   ("direct", "compiled"), ("dmci", "compiled"), ("direct", "tensor"), ("dmci", "tensor")]
        dts = {c: [] for c in configs}
        firsts = {c: [] for c in configs}
        errors, ratios = {}, []
        for _ in range(rounds):  # interleaved rounds: a shared machine's load changes under every config alike
            per_round = {}
            for via, engine in configs:
                if (via, engine) in errors:
                    continue
                log = os.path.join(w, f"t_{via}_{engine}.csv")
                n = max(3, reps // 3) if engine == "tensor" else reps
                r, err = fit_json(dmci, w, ["kalman.scm"] + data + binds +
                                  ["--optimizer", "adam", "--lr", "1e-9", "--steps", str(n), "--via", via,
                                   "--engine", engine, "--threads", "1", "--log", log], check=False)
                if r is None:
                    errors[(via, engine)] = err.splitlines()[0] if err else "failed"
                    continue
                secs = [float(p["seconds"]) for p in read_curve(log)]
                d = [b - a_ for a_, b in zip(secs, secs[1:])]
                dts[(via, engine)] += d
                firsts[(via, engine)].append(secs[0])
                per_round[(via, engine)] = statistics.median(d)
            if ("direct", "native") in per_round and ("dmci", "native") in per_round:
                ratios.append(per_round[("dmci", "native")] / per_round[("direct", "native")])
        with open(os.path.join(w, "inline.scm"), "w") as f:
            f.write(kalman.program(D, inline=(zs[:ntrain], [1] * ntrain)))
        for via, engine in configs:
            row = {"via": via, "engine": engine}
            if (via, engine) in errors:
                row["error"] = errors[(via, engine)]
            else:
                row.update(ms=1000 * statistics.median(dts[(via, engine)]),
                           first_ms=1000 * statistics.median(firsts[(via, engine)]),
                           samples=len(dts[(via, engine)]))
            if engine in ("replay", "compiled"):
                # Whether the trace replays: `dmci trace` says why not (the engine then runs the native machine).
                tp, _ = run([dmci, "trace", "inline.scm", "--via", via] + binds, w, check=False)
                why = [ln for ln in (tp.stdout + tp.stderr).splitlines() if ln.startswith("not-replayable")]
                if why:
                    row["note"] = ("not replayed, runs on the native machine: " + why[0][len("not-replayable "):])
            timing.append(row)
            print(f"enso timing {via}/{engine}: {row.get('ms', row.get('error'))}", flush=True)
        res["timing"] = timing
        res["timing_rounds"] = rounds
        if ratios:
            res["dmci_over_direct_native"] = statistics.median(ratios)
            res["dmci_over_direct_native_rounds"] = ratios
        # The interpreter's work per evaluation, in machine steps (counts do not drift with the load).
        for via in ("direct", "dmci"):
            gp, _ = run([dmci, "grad", "inline.scm", "--via", via, "--wrt", "r", "--stats", "--json"] + binds, w)
            res.setdefault("steps", {})[via] = json.loads(gp.stdout)["stats"]
        with open(os.path.join(w, "inline2.scm"), "w") as f:  # the same filter at D = 2: the interpreter's share
            f.write(kalman.program(2, inline=(zs[:ntrain], [1] * ntrain)))
        s2 = kalman.start(2, a.seed)
        for via in ("direct", "dmci"):
            gp, _ = run([dmci, "grad", "inline2.scm", "--via", via, "--wrt", "r", "--stats", "--json"] +
                        [f"--bind={n}={v!r}" for n, v in s2.items()], w)
            res["steps"][via + "_D2"] = json.loads(gp.stdout)["stats"]

        # The three fits through the interpreter, on one wall-clock budget each: each fits the NLL of 1950-1989
        # (weights wfit) and keeps the iterate with the lowest NLL of 1990-1999 (the validation block, weights wval:
        # the filter runs through 1950-1989 first), by dmci fit --holdout-data-list. No early stop ends a run
        # (patience beyond any budget): every optimizer spends its budget and keeps its best validation iterate.
        nfit = sum(1 for (y, _, _) in anom[:ntrain] if y < VAL_FROM)
        wfit, wval = [1] * nfit + [0] * (ntrain - nfit), [0] * nfit + [1] * (ntrain - nfit)
        fitdata = ["--data-list", "zs=train.csv:z", "--data-list", "ws=train.csv:wfit",
                   "--holdout-data-list", "ws=train.csv:wval", "--patience", "1000000000"]
        res["fit_months"], res["validation_months"] = nfit, ntrain - nfit
        fits = {}
        for opt, extra in (("lbfgs", ["--steps", "100000"]),
                           ("adam", ["--steps", "100000", "--lr", "0.01"]),
                           ("de", ["--steps", "100000", "--population", "24", "--span", "0.1"])):
            # One budget for the optimizer. L-BFGS that stops before it (its point stops moving: the line search
            # finds no decrease along the quasi-Newton direction) starts again from its best point with its
            # curvature history cleared, until the budget is spent; the curve runs on across those runs.
            p, curve, total, runs = dict(start), [], {"evaluations": 0, "iterations": 0}, 0
            t_used = 0.0
            picks = []  # each iterate that was the fit's best validation NLL when reached, across the runs
            while budget - t_used > 1:
                log = os.path.join(w, f"fit_{opt}_{runs}.csv")
                trace = os.path.join(w, f"bests_{opt}_{runs}.jsonl")
                r, _ = fit_json(dmci, w, ["kalman.scm"] + fitdata + [f"--bind={n}={p[n]!r}" for n in names] +
                                ["--optimizer", opt, "--via", "dmci", "--engine", "native", "--threads", "1",
                                 "--budget-seconds", str(budget - t_used), "--seed", str(a.seed + runs),
                                 "--log", log, "--best-trace", trace] + extra)
                part = read_curve(log)
                curve += [{"seconds": float(c["seconds"]) + t_used, "best": float(c["best"]), "loss": c["loss"],
                           "val": float(c["holdout_loss"])} for c in part]
                with open(trace) as f:
                    for line in f:
                        b = json.loads(line)
                        if not picks or b["holdout_loss"] < picks[-1]["val"]:
                            picks.append({"seconds": b["seconds"] + t_used, "val": b["holdout_loss"],
                                          "evaluations": b["evaluations"] + total["evaluations"],
                                          "params": b["params"]})
                t_used += r["seconds"]
                runs += 1
                total["evaluations"] += r["evaluations"]
                total["iterations"] += r["iterations"]
                improved = r["holdout_loss"] < kalman.run_filter(p, D, zs[:ntrain], wval)[0] - 1e-6
                p.update(r["params"])
                if opt != "lbfgs" or not improved or r["stop"] == "budget":
                    break
            best_so_far, val_so_far = math.inf, math.inf
            for c in curve:  # the best over the runs so far: training NLL, and validation NLL
                best_so_far = min(best_so_far, float(c["loss"]))
                val_so_far = min(val_so_far, c["val"])
                c["best"], c["best_val"] = best_so_far, val_so_far
            nll_train_py, _ = kalman.run_filter(p, D, zs[:ntrain], wfit)
            nll_val_py, _ = kalman.run_filter(p, D, zs[:ntrain], wval)
            r.update(total, seconds=t_used, loss=nll_train_py, loss_dmci=r["loss"],
                     stop=r["stop"] + (f" ({runs} runs)" if runs > 1 else ""))
            test_w = [0] * ntrain + [1] * (len(zs) - ntrain)
            nll_test_py, states = kalman.run_filter(p, D, zs, test_w)
            # The test NLL by dmci itself: the same program with the whole series inline, run at the fitted values.
            with open(os.path.join(w, "full.scm"), "w") as f:
                f.write(kalman.program(D, inline=(zs, test_w)))
            pr, _ = run([dmci, "run", "full.scm", "--json"] + [f"--bind={n}={p[n]!r}" for n in names], w)
            nll_test = json.loads(pr.stdout)["value"]
            fits[opt] = {"train_nll": r["loss"], "train_nll_dmci": r["loss_dmci"], "val_nll": nll_val_py,
                         "val_nll_dmci": r["holdout_loss"], "best_train_nll_seen": best_so_far,
                         "test_nll": nll_test,
                         "test_nll_python": nll_test_py, "iterations": r["iterations"],
                         "evaluations": r["evaluations"], "seconds": r["seconds"], "stop": r["stop"],
                         "curve": [(c["seconds"], c["best"]) for c in curve],
                         "curve_val": [(c["seconds"], c["best_val"]) for c in curve], "runs": runs,
                         "spectral_radius_F": kalman.spectral_radius(p, D)}
            # What every shorter budget would have returned: the pick (the best validation iterate reached by
            # then), from the fit's --best-trace, and its test NLL by dmci run.
            test_of = {}
            by_budget = []
            for T in budget_points(budget):
                reached = [k for k, b in enumerate(picks) if b["seconds"] <= T]
                if not reached:
                    by_budget.append({"seconds": T, "val_nll": None, "test_nll": None, "evaluations": 0})
                    continue
                k = reached[-1]
                if k not in test_of:
                    q = dict(start, **picks[k]["params"])
                    pr, _ = run([dmci, "run", "full.scm", "--json"] + [f"--bind={n}={q[n]!r}" for n in names], w)
                    test_of[k] = json.loads(pr.stdout)["value"]
                by_budget.append({"seconds": T, "val_nll": picks[k]["val"], "test_nll": test_of[k],
                                  "evaluations": picks[k]["evaluations"]})
            fits[opt]["by_budget"] = by_budget
            fits[opt]["_params"] = p
            fits[opt]["_states"] = states
            print(f"enso {opt}: train NLL {r['loss']:.2f} test NLL {nll_test:.2f} ({r['evaluations']} evals)",
                  flush=True)
        res["start_train_nll"] = kalman.run_filter(start, D, zs[:ntrain], wfit)[0]
        res["start_val_nll"] = kalman.run_filter(start, D, zs[:ntrain], wval)[0]
        res["start_test_nll"] = kalman.run_filter(start, D, zs, [0] * ntrain + [1] * (len(zs) - ntrain))[0]
        res["start_spectral_radius_F"] = kalman.spectral_radius(start, D)

    # Forecast skill on the test years: forecasts from the filtered state at month t for t + k (k = 1..12),
    # scored over the target months in 2000-2010, against persistence (z_t) and climatology (anomaly 0).
    leads = 12
    skill = {}
    for opt, fdat in fits.items():
        p, states = fdat["_params"], fdat["_states"]
        se = [[] for _ in range(leads)]
        sp = [[] for _ in range(leads)]
        sc = [[] for _ in range(leads)]
        for t in range(ntrain - 1, len(zs) - 1):
            fc = kalman.forecasts(p, D, states[t], leads)
            for k in range(1, leads + 1):
                if t + k < len(zs) and t + k >= ntrain:
                    y = zs[t + k]
                    se[k - 1].append((fc[k - 1] - y) ** 2)
                    sp[k - 1].append((zs[t] - y) ** 2)
                    sc[k - 1].append(y ** 2)
        rm = lambda v: math.sqrt(sum(v) / len(v))
        skill[opt] = [{"lead": k + 1, "rmse_model": rm(se[k]), "rmse_persistence": rm(sp[k]),
                       "rmse_climatology": rm(sc[k]), "n": len(se[k]),
                       "skill_vs_persistence": 1 - sum(se[k]) / sum(sp[k]),
                       "skill_vs_climatology": 1 - sum(se[k]) / sum(sc[k])} for k in range(leads)]
    res["forecast"] = skill
    for f_ in fits.values():
        f_.pop("_params"), f_.pop("_states")
    res["fits"] = fits

    # Plots.
    label = {"lbfgs": "L-BFGS", "adam": "Adam", "de": "DE"}
    svgplot.chart(os.path.join(figs, "nll_time.svg"), f"Training NLL over time (D = {D}, 631 parameters, via dmci)",
                  "seconds", f"best training NLL so far (1950-{VAL_FROM - 1}, {res['fit_months']} months)",
                  [{"name": label[o], "x": [c[0] for c in f_["curve"]], "y": [c[1] for c in f_["curve"]]}
                   for o, f_ in fits.items()])
    svgplot.chart(os.path.join(figs, "nll_val_time.svg"), "Validation NLL over time (the pick of each fit's iterate)",
                  "seconds", f"best validation NLL so far ({VAL_FROM}-1999, {res['validation_months']} months)",
                  [{"name": label[o], "x": [c[0] for c in f_["curve_val"]], "y": [c[1] for c in f_["curve_val"]]}
                   for o, f_ in fits.items()])
    svgplot.chart(os.path.join(figs, "test_nll_budget.svg"),
                  "Test NLL of the pick (2000-2010) against the wall-clock budget",
                  "budget (seconds)", "test NLL of the best validation iterate reached within the budget",
                  [{"name": label[o], "x": [b["seconds"] for b in f_["by_budget"] if b["test_nll"] is not None],
                    "y": [b["test_nll"] for b in f_["by_budget"] if b["test_nll"] is not None]}
                   for o, f_ in fits.items()])
    best = min(fits, key=lambda o: fits[o]["val_nll"])  # picked on the validation block, not on the test years
    svgplot.chart(os.path.join(figs, "skill.svg"), f"Forecast RMSE on 2000-2010 ({best} fit)", "lead (months)",
                  "RMSE (°C)",
                  [{"name": "Kalman (" + best + ")", "x": list(range(1, leads + 1)),
                    "y": [s["rmse_model"] for s in skill[best]]},
                   {"name": "persistence", "x": list(range(1, leads + 1)),
                    "y": [s["rmse_persistence"] for s in skill[best]]},
                   {"name": "climatology", "x": list(range(1, leads + 1)),
                    "y": [s["rmse_climatology"] for s in skill[best]], "dash": True}])
    with open(os.path.join(out, "enso.json"), "w") as f:
        json.dump(finite_json(res), f, indent=1, allow_nan=False)
    write_enso_md(out, res, best)
    return res


def write_enso_md(out, res, best):
    names = {"lbfgs": "L-BFGS", "adam": "Adam (lr 0.01)", "de": "DE (population 24, box start ± 0.1·max(1, abs(start)))"}
    md = ["# El Niño: a Kalman-filter likelihood fitted through the interpreter", "",
          "Made by `ci/apps" + (" --quick" if res["quick"] else "") + "` from the built `dmci`. Data: Niño 1+2 "
          "monthly SST 1950–2010 (NOAA ERSST.V3B, public domain; `corpus/data/`). The monthly climatology of "
          "1950–1999 is removed; the model is trained on 1950–1999 (" + str(res["train_months"]) + " months: fitted on "
          f"1950–{VAL_FROM - 1}, its iterate picked on {VAL_FROM}–1999) and tested on 2000–2010 ("
          + str(res["test_months"]) + " months).", "",
          f"Model: a D = {res['D']} linear-Gaussian state space, dense F, Q = LLᵀ + 1e-6·I (L lower-triangular), "
          f"observation row h, noise r² + 1e-6: **{res['parameters']} parameters**, all fitted. The Kalman filter "
          "and the exact Gaussian NLL run in Scheme with the tensor primitives (`apps/enso/kalman.py` writes the "
          "program; x₀ = 0, P₀ = I). Start: seeded, F diagonal-dominant. Test NLL: the filter runs through the "
          "training years and scores only the test months (by `dmci run` on the program with the series inline, "
          "checked against a plain-Python twin of the filter).", "",
          "## One NLL + gradient over the 600 training months", "",
          "Milliseconds per evaluation: the median time per iteration of `dmci fit kalman.scm --optimizer adam "
          "--lr 1e-9 --via ROUTE --engine ENGINE --threads 1` (one value+gradient evaluation per iteration; the "
          "point barely moves), over " + str(res["timing_rounds"]) + " interleaved rounds on this shared 2-core "
          "machine (its load changes; compare within the table, not with other runs). An engine that cannot run "
          "the program as asked says why in the note.", "",
          "| route | engine | ms per NLL + gradient | first iteration, 2 evaluations (ms) | note |", "|---|---|---:|---:|---|"]
    for r in res["timing"]:
        md.append(f"| {r['via']} | {r['engine']} | " +
                  (f"{r['ms']:.1f} | {r['first_ms']:.1f} | {r.get('note', '')} |" if "ms" in r
                   else f"refused | | {r['error']} |"))
    if "dmci_over_direct_native" in res:
        md += ["", f"dmci ÷ direct (native engine), the median of the rounds' ratios: "
               f"**{res['dmci_over_direct_native']:.2f}×** (rounds: "
               + ", ".join(f"{x:.2f}" for x in res["dmci_over_direct_native_rounds"]) + "; target: within 2×)."]
    st = res.get("steps", {})
    if "direct" in st and "dmci" in st:
        md += ["", f"Machine work per evaluation (`dmci grad --stats`, counts that do not drift): direct "
               f"{st['direct']['steps']:,} steps, {st['direct']['calls']:,} calls; dmci {st['dmci']['steps']:,} "
               f"steps, {st['dmci']['calls']:,} calls; {st['dmci']['tape_entries']:,} tape entries on both. The "
               "interpreter adds about " + f"{(st['dmci']['steps'] - st['direct']['steps']) / res['train_months']:.0f}"
               f" steps per month (at D = 2: direct {st['direct_D2']['steps']:,}, dmci {st['dmci_D2']['steps']:,} "
               "steps: the interpreter's share does not grow with D); the tensor work (the D×D products) is the "
               "same on both routes."]
    vf = VAL_FROM
    md += ["", f"## Fits on one wall-clock budget of {res['budget_seconds']} s each (via dmci, native engine)", "",
           f"Protocol, the same for every optimizer: the NLL fitted is that of 1950–{vf - 1} "
           f"({res['fit_months']} months); the last ten training years, {vf}–1999 ({res['validation_months']} months), "
           "are a validation block: at every iterate (every generation for DE) `dmci fit --holdout-data-list` "
           "evaluates their NLL (the filter runs through 1950–" + str(vf - 1) + " first), and the fit keeps the "
           "iterate with the lowest. No early stop ends a run: each optimizer spends its budget (the validation "
           "evaluations count in it) and its pick is its best validation iterate. The test years are never seen. "
           "Every optimizer starts from the same seeded point and runs through the interpreter (`--via dmci`); "
           "L-BFGS and Adam evaluate the NLL with its gradient, DE the NLL alone. L-BFGS, when its point stops "
           "moving before the budget is spent (dmci fit's \"converged\"), starts again from its pick (its "
           "curvature history cleared), while that improves the validation NLL; the runs are counted under stop.", "",
           f"Start: NLL 1950–{vf - 1} {res['start_train_nll']:.2f}, {vf}–1999 {res['start_val_nll']:.2f}, "
           f"2000–2010 {res['start_test_nll']:.2f}; spectral radius of F {res['start_spectral_radius_F']:.3f}.", "",
           f"| optimizer | seconds used | evaluations | iterations | lowest NLL 1950–{vf - 1} seen | "
           f"NLL 1950–{vf - 1} (pick) | validation NLL {vf}–1999 (pick) | test NLL 2000–2010 (132 months) | "
           "ρ(F) | stop |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for o, f_ in res["fits"].items():
        md.append(f"| {names[o]} | {f_['seconds']:.0f} | {f_['evaluations']} | {f_['iterations']} | "
                  f"{f_['best_train_nll_seen']:.2f} | {f_['train_nll']:.2f} | {f_['val_nll']:.2f} | "
                  f"**{f_['test_nll']:.2f}** | {f_['spectral_radius_F']:.3f} | {f_['stop']} |")
    fits = res["fits"]
    if all(o in fits for o in ("lbfgs", "adam", "de")):
        g = {k: min(fits["lbfgs"][k], fits["adam"][k]) for k in ("best_train_nll_seen", "val_nll", "test_nll")}
        worse = [names[o].split(" (")[0] for o in ("lbfgs", "adam") if fits[o]["test_nll"] >= fits["de"]["test_nll"]]
        md += ["", "DE − the better gradient fit: lowest training NLL seen "
               f"{fits['de']['best_train_nll_seen'] - g['best_train_nll_seen']:+.1f} nats, validation NLL of the pick "
               f"{fits['de']['val_nll'] - g['val_nll']:+.1f}, test NLL {fits['de']['test_nll'] - g['test_nll']:+.1f} "
               f"(per test month {(fits['de']['test_nll'] - g['test_nll']) / res['test_months']:+.3f}). " +
               ("Test NLL above DE's: " + ", ".join(worse) + ". " if worse else
                "Both gradient fits reach a lower test NLL than DE. ") +
               ("A stop on a NaN loss (an iterate where the filter's NLL is NaN) keeps the best parameters found "
                "before it." if any(f_["stop"].startswith("nonfinite") for f_ in fits.values()) else "")]
    md += ["", "The Python twin of the filter gives the same NLLs at the picks (dmci's: 1950–" + str(vf - 1) + ": " +
           ", ".join(f"{o} {f_['train_nll_dmci']:.6f}" for o, f_ in res["fits"].items()) + "; validation: " +
           ", ".join(f"{o} {f_['val_nll_dmci']:.6f}" for o, f_ in res["fits"].items()) + "; twin's: " +
           ", ".join(f"{o} {f_['train_nll']:.6f}" for o, f_ in res["fits"].items()) + "; " +
           ", ".join(f"{o} {f_['val_nll']:.6f}" for o, f_ in res["fits"].items()) + "; test, dmci run against the twin: " +
           ", ".join(f"{o} {f_['test_nll']:.6f} / {f_['test_nll_python']:.6f}" for o, f_ in res["fits"].items()) +
           ").", "",
           "![training NLL over time](enso/nll_time.svg)", "",
           "![validation NLL over time](enso/nll_val_time.svg)", ""]
    if all("by_budget" in f_ for f_ in fits.values()):
        md += ["### Every shorter budget", "",
               "What each fit would have returned on a shorter budget: its pick then, the best validation iterate "
               "reached within that many seconds (from `dmci fit --best-trace`, so the same run, not a rerun), and "
               "the pick's test NLL (`dmci run`). The gap: DE's test NLL minus the better gradient fit's.", "",
               "| budget (s) | " + " | ".join(f"{names[o].split(' (')[0]}: validation / test NLL" for o in fits) +
               " | gap (nats) |", "|---:|" + "---:|" * len(fits) + "---:|"]
        points = [b["seconds"] for b in next(iter(fits.values()))["by_budget"]]
        gaps = []  # (budget, DE's test NLL − the better gradient fit's) where both have a pick
        for i, T in enumerate(points):
            row = {o: f_["by_budget"][i] for o, f_ in fits.items()}
            cells = [f"{row[o]['val_nll']:.2f} / **{row[o]['test_nll']:.2f}**" if row[o]["test_nll"] is not None
                     else "none yet" for o in fits]
            grad = [row[o]["test_nll"] for o in ("lbfgs", "adam") if o in row and row[o]["test_nll"] is not None]
            de = row.get("de", {}).get("test_nll")
            if grad and de is not None:
                gaps.append((T, de - min(grad)))
            gap = f"{gaps[-1][1]:+.1f}" if gaps and gaps[-1][0] == T else ""
            md.append(f"| {fmt(T, '%g')} | " + " | ".join(cells) + f" | {gap} |")
        if gaps:
            final = {o: f_["test_nll"] for o, f_ in fits.items()}
            settled = {o: next((b["seconds"] for b in f_["by_budget"] if b["test_nll"] == final[o]), None)
                       for o, f_ in fits.items() if o != "de"}
            md += ["", "The gradient fits had their final picks by " +
                   ", ".join(f"{fmt(t, '%g')} s ({names[o].split(' (')[0]})" for o, t in settled.items()
                             if t is not None) +
                   f"; at every budget from {fmt(gaps[0][0], '%g')} s to {fmt(gaps[-1][0], '%g')} s DE's pick has the "
                   f"higher test NLL, by {min(g for _, g in gaps):.1f} to {max(g for _, g in gaps):.1f} nats (" +
                   ", ".join(f"{g:+.1f} at {fmt(T, '%g')} s" for T, g in gaps if T in (5, 20, 60) or T == gaps[-1][0])
                   + "): DE closes most of the gap only by spending the whole budget."]
        md += ["", "![test NLL of the pick against the budget](enso/test_nll_budget.svg)", ""]
    md += [
           f"## Forecast skill on 2000–2010 (the fit with the lowest validation NLL: {best})", "",
           "Forecasts h·Fᵏ·x_{t|t} from the filtered state, for target months in 2000–2010. Skill = 1 − MSE ÷ "
           "MSE of the reference (positive: better than the reference).", "",
           "| lead (months) | RMSE Kalman | RMSE persistence | RMSE climatology | skill vs persistence | "
           "skill vs climatology |", "|---:|---:|---:|---:|---:|---:|"]
    for s in res["forecast"][best]:
        md.append(f"| {s['lead']} | {s['rmse_model']:.3f} | {s['rmse_persistence']:.3f} | "
                  f"{s['rmse_climatology']:.3f} | {s['skill_vs_persistence']:+.2f} | "
                  f"{s['skill_vs_climatology']:+.2f} |")
    md += ["", "![forecast RMSE by lead](enso/skill.svg)", ""]
    fc = res["forecast"][best]
    beats = [s["lead"] for s in fc if s["lead"] >= 3 and s["skill_vs_persistence"] > 0]
    clim_better = [s["lead"] for s in fc if s["rmse_climatology"] < s["rmse_model"]]
    rho = res["fits"][best]["spectral_radius_F"]
    md.append(("At 3+ months ahead the filter beats persistence at leads " + ", ".join(map(str, beats)) +
               " (by " + ", ".join(f"{s['skill_vs_persistence']:+.2f}" for s in fc if s["lead"] in beats) +
               " in skill)" if beats else "At 3+ months ahead the filter does **not** beat persistence") +
              ("; climatology (an anomaly of 0) beats the filter at leads " + ", ".join(map(str, clim_better)) +
               "." if clim_better else "."))
    if clim_better:
        md += ["", f"Why climatology wins there: the fitted F has spectral radius {rho:.3f}, so h·Fᵏ·x " +
               ("does not decay in F's slowest mode" if rho >= 1 else "decays slowly") +
               " as the lead k grows, while at long leads the best forecast of these "
               "anomalies is close to their mean: climatology's RMSE is the test anomalies' spread "
               f"({fc[-1]['rmse_climatology']:.2f} °C at lead 12, against {fc[-1]['rmse_model']:.2f} °C for the "
               "filter). The fit maximises the one-step likelihood of " + str(res.get("fit_months", 600)) + " months with 631 parameters; nothing in "
               "it rewards skill several months ahead. The largest anomaly is "
               f"{res['max_anomaly_train']:+.2f} °C in the training years and {res['max_anomaly_test']:+.2f} °C "
               "in the test years."]
    with open(os.path.join(out, "enso.md"), "w") as f:
        f.write("\n".join(md) + "\n")
