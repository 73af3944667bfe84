# ill-conditioned: programs whose double evaluation misses the exact value by more than 1e-12 relative because
# the program amplifies rounding (iterated maps). The gate passes them when the miss is within a few times the
# oracle's rounding spread (random-rounding runs, gate::Criteria::rounding); their gradients keep the usual rules.
F = "ill-conditioned"

prog("ill-conditioned/logistic_r4.scm", F, [dict(theta=0.3), dict(theta=1.1)],
     cf=lambda s, L: {"theta": 2 ** 20 * sin(2 ** 21 * s["theta"])},
     cv=lambda s: sin(2 ** 20 * s["theta"]) ** 2, note="x_20 = sin^2(2^20 theta); rounding doubles every step")

# Shrunk cases from the first 10-minute campaign (dmci fuzz --seed 20261130); the oracle's value is the reference.
prog("ill-conditioned/fuzz_20261130_7531.scm", F, [dict()], note="dmci fuzz --seed 20261130, case 7531")
prog("ill-conditioned/fuzz_20261130_18855.scm", F, [dict(y=1.6328125)], note="dmci fuzz --seed 20261130, case 18855")
prog("ill-conditioned/fuzz_20261130_42540.scm", F, [dict()], note="dmci fuzz --seed 20261130, case 42540")
