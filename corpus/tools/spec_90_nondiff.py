# nondifferentiable: seeds at a branch threshold, kink, jump or clamp; the gate must report them as such.
# closed_form lists only the components that are smooth at the seed.
F = "nondifferentiable"
ND = "nondifferentiable"

prog("nondifferentiable/branch_threshold.scm", F, [dict(x=1.0, alpha=1.0), dict(x=0.5, alpha=0.5), dict(x=-2.0, alpha=-2.0)],
     expect=ND, cv=lambda s: s["x"] + 1, note="(if (< x alpha) ...) at x = alpha")

prog("nondifferentiable/abs_at_zero.scm", F, [dict(gain=2.0, x=0.0, c=0.0), dict(gain=0.5, x=1.5, c=1.5)], expect=ND,
     cf=lambda s, L: {"gain": mpf(0)}, cv=lambda s: mpf(0), note="abs at 0")

prog("nondifferentiable/max_at_one.scm", F, [dict(w=2.0, y=3.0, x=1.0), dict(w=-1.0, y=0.5, x=1.0)], expect=ND,
     cf=lambda s, L: {"w": s["y"], "y": s["w"]}, cv=lambda s: s["w"] * s["y"] + 1, note="(max x 1) at x = 1")

prog("nondifferentiable/floor_integer.scm", F, [dict(x=2.0, beta=0.5), dict(x=-1.0, beta=3.0)], expect=ND,
     cf=lambda s, L: {"beta": s["x"]}, cv=lambda s: s["x"] + s["beta"] * s["x"], note="floor at an integer")

prog("nondifferentiable/relu.scm", F, [dict(w=1.0, x=2.0, b=-2.0), dict(w=-0.5, x=1.0, b=0.5)], expect=ND,
     cf=lambda s, L: {L("3"): mpf(0)}, cv=lambda s: mpf(0), note="ReLU at its hinge")

prog("nondifferentiable/clamp.scm", F, [dict(x=1.0, lo=0.0, hi=1.0), dict(x=0.0, lo=0.0, hi=1.0), dict(x=-0.5, lo=-0.5, hi=2.0)],
     expect=ND, cf=lambda s, L: {L("0.1"): s["x"]}, cv=lambda s: s["x"] + mpf(0.1) * s["x"], note="clamp at a bound")

prog("nondifferentiable/piecewise_cond.scm", F, [dict(x=0.0), dict(x=1.0)], expect=ND,
     cv=lambda s: s["x"], note="slope changes -2 -> 1 at 0 and 1 -> 3 at 1")

prog("nondifferentiable/round_half.scm", F, [dict(x=2.5, amp=1.5), dict(x=-0.5, amp=2.0)], expect=ND,
     cf=lambda s, L: {"amp": mpf(2) if s["x"] == 2.5 else mpf(0)}, note="round halves to even")

prog("nondifferentiable/truncate_ceiling.scm", F, [dict(x=-1.0, y=0.5), dict(x=2.5, y=3.0)], expect=ND,
     cv=lambda s: (mp.floor(s["x"]) if s["x"] >= 0 else mp.ceil(s["x"])) + mp.ceil(s["y"]), note="truncate/ceiling at an integer")

prog("nondifferentiable/sqrt_of_square.scm", F, [dict(x=0.0)], expect=ND, cv=lambda s: mpf(0),
     note="|x| at 0 via sqrt; the AD derivative is not finite (NaN)")

prog("nondifferentiable/hinge_loss.scm", F, [dict(w=1.0), dict(w=0.5)], expect=ND,
     cv=lambda s: sum(max(mpf(0), 1 - t * s["w"] * x) for x, t in [(1, 1), (2, 1), (-1, -1)]), note="a point on the margin")

prog("nondifferentiable/abs_in_loop.scm", F, [dict(x0=0.5, c=0.25), dict(x0=1.0, c=0.5)], expect=ND,
     cv=lambda s: mpf(0), note="the orbit hits the kink of |x - c|")

prog("nondifferentiable/min_tie.scm", F, [dict(x=1.0, y=1.0), dict(x=-0.5, y=-0.5)], expect=ND,
     cv=lambda s: 2 * s["x"], note="min at a tie")

prog("nondifferentiable/heaviside.scm", F, [dict(amp=2.0, x=0.0)], expect=ND,
     cf=lambda s, L: {"amp": mpf(0)}, cv=lambda s: mpf(0), note="step at 0")

prog("nondifferentiable/atan2_branch_cut.scm", F, [dict(y=0.0, x=-1.0), dict(y=0.0, x=-2.5)], expect=ND,
     cf=lambda s, L: {"x": mpf(0)}, cv=lambda s: PI if False else mp.pi, note="jump from pi to -pi across y = 0")

prog("nondifferentiable/max_of_list.scm", F, [dict(x=1.0, y=1.0, z=0.5), dict(x=0.3, y=-1.0, z=0.6)], expect=ND,
     cv=lambda s: s["x"], note="apply max at a tie")
