"""Writes bench/smooth/traffic2x2.scm: DiscoGrad's 2x2 traffic grid (Kreikemeyer & Andelfinger; their program
traffic_grid_populations_2x2) as a Scheme program whose random draws (each lane's turn at each step, each step's
arriving cars) are made here once, from a fixed seed, and written into the program as quoted lists. The program is
then deterministic: its only inputs are the 4 signal offsets, and every optimiser sees the same objective.
Run with no arguments to rewrite the file; `--check [FILE]` exits 1 when the file (or FILE) differs from what this
writes (a test);
`--crisp O0 O1 O2 O3` prints the objective computed here, DiscoGrad's loop over the raw draws (a second opinion)."""
import os
import random
import sys

SEED = 2023
REPS = 8  # independent traffic realisations; the objective is their mean (common random numbers for every method)
STEPS = 16  # DiscoGrad runs 2 steps (num_steps = grid_width); 16 lets the 4-step signal cycle 4 times and queues form
TURN_PROB = 0.05  # as DiscoGrad: left with TURN_PROB / 2, right with TURN_PROB / 2, else straight on
ARRIVALS = 2  # cars entering per step (DiscoGrad: num_arrivals_per_step = grid_width)
WIDTH = 2

HEADER = """;; DiscoGrad's 2x2 traffic grid (Kreikemeyer & Andelfinger, IEEE Access 2023: their program
;; traffic_grid_populations_2x2), written by bench/smooth/traffic2x2_gen.py (seed {seed}; do not edit by hand).
;; Four intersections on a 2x2 torus, each with 4 incoming lanes (north, east, south, west: lane = 4 * (2y + x) + dir)
;; holding a queue of cars. Every step: {arrivals} cars arrive on east- or south-bound lanes at the grid's edge; then
;; each lane whose queue at the start of the step is non-empty sends one car on, if its signal is green, to the lane
;; its random turn leads to (left or right with probability {turn_prob} / 2 each, else straight on; the grid wraps
;; round). The signal a lane obeys is its own intersection's for south- and east-bound lanes, else the next one's, as
;; DiscoGrad's get_next_lane. Intersection i is green for east-west traffic while o_i <= t mod 4 < o_i + 2 (and for
;; north-south traffic otherwise); the offsets o0..o3 are the 4 fitted parameters, compared, not reduced mod 4, as
;; DiscoGrad's. The objective is minus the cars moved on, averaged over {reps} traffic realisations (DiscoGrad returns
;; -roads_passed; its expectation is over the random stream, here over the {reps} realisations written below).
;; One change: {steps} steps instead of DiscoGrad's 2, so that the 4-step signal cycle runs several times.
;; The random draws (turns and arrivals) are made by the generator and resolved there through DiscoGrad's turn table
;; into plans: reps holds, per realisation, per step, per lane, (intersection whose signal the lane obeys, cars
;; arriving on it, lanes whose cars it receives if they move), so that a run does no routing.
"""

BODY = """(define period 4)
(define green 2)
(define offsets (list o0 o1 o2 o3))
(define lanes '(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15))
;; 1 while an intersection with offset O shows red to east-west traffic at time T in the period: the comparisons on
;; the offsets, the program's only parameter-dependent branches but for the queue tests they feed.
(define (horizontal-red o t) (if (or (<= (+ o green) t) (> o t)) 1 0))
;; One step: (queues after it . cars moved on). A lane moves one car on when its queue is non-empty at the step's
;; start and its signal is green (east- and west-bound lanes, the odd ones, while not horizontal-red).
(define (step queues plan t)
  (let* ((reds (map (lambda (o) (horizontal-red o t)) offsets))
         (moves (map (lambda (lane q p)
                       (let ((red (list-ref reds (car p))))
                         (* (if (odd? lane) (- 1 red) red) (if (> q 0.5) 1 0))))
                     lanes queues plan)))
    (cons (map (lambda (q m p)
                 (fold-left (lambda (acc j) (+ acc (list-ref moves j))) (+ q (cadr p) (- m)) (cddr p)))
               queues moves plan)
          (fold-left + 0 moves))))
;; One realisation: the cars moved on over all its steps.
(define (simulate plans)
  (let loop ((t 0) (queues (map (lambda (l) 0) lanes)) (plans plans) (passed 0))
    (if (null? plans)
        passed
        (let ((s (step queues (car plans) t)))
          (loop (modulo (+ t 1) period) (car s) (cdr plans) (+ passed (cdr s)))))))
(- (/ (fold-left (lambda (acc plans) (+ acc (simulate plans))) 0 reps) (length reps)))
"""


def realisation(rng):
    """One realisation's draws: per step, the 16 lanes' turns (0 left, 1 straight, 2 right) and the arrivals' lanes."""
    turns, arrivals = [], []
    for _ in range(STEPS):
        row = []
        for _ in range(4 * WIDTH * WIDTH):
            r = rng.random()
            row.append(0 if r < TURN_PROB / 2 else 2 if r < TURN_PROB else 1)
        turns.append(row)
    for _ in range(STEPS):
        row = []
        for _ in range(ARRIVALS):
            d = rng.randint(1, 2)  # east (1) or south (2), as DiscoGrad's create_random_dvu
            c = rng.randint(0, WIDTH - 1)
            y, x = (c, 0) if d == 1 else (0, c)
            row.append(4 * (WIDTH * y + x) + d)
        arrivals.append(row)
    return turns, arrivals


def route(lane, turn):
    """DiscoGrad's get_next_lane: (the lane a car leaving LANE with TURN joins, the intersection whose signal it
    obeys)."""
    i, d = divmod(lane, 4)
    y, x = divmod(i, WIDTH)
    ny, nx = y, x
    if d == 0:  # north
        ny -= 1
        nx += turn == 2
    elif d == 2:  # south
        ny += turn == 1
        nx += turn == 0
    elif d == 3:  # west
        nx -= 1
        ny += turn == 0
    else:  # east
        nx += turn == 1
        ny += turn == 2
    nxt = WIDTH * (ny % WIDTH) + nx % WIDTH
    return 4 * nxt + (d + turn - 1) % 4, (i if d in (1, 2) else nxt)


def plans(turns, arrivals):
    out = []
    for tr, ar in zip(turns, arrivals):
        routes = [route(l, tr[l]) for l in range(16)]
        out.append([[routes[l][1], ar.count(l)] + [j for j in range(16) if routes[j][0] == l] for l in range(16)])
    return out


def crisp(offsets, reps):
    """The objective computed here as DiscoGrad's loop is written (read and write grids, moves tested on the read
    grid), from the raw draws: the check that the program and its plans say the same."""
    passed = 0
    for turns, arrivals in reps:
        r = [0] * 16
        for step in range(STEPS):
            w = list(r)
            for a in arrivals[step]:
                w[a] += 1
            t = step % 4
            for lane in range(16):
                nxt, sig = route(lane, turns[step][lane])
                hred = offsets[sig] + 2 <= t or offsets[sig] > t
                red = hred if lane % 2 == 1 else not hred
                if r[lane] > 0.5 and not red:
                    w[nxt] += 1
                    w[lane] -= 1
                    passed += 1
            r = w
    return -passed / len(reps)


def draws():
    rng = random.Random(SEED)
    return [realisation(rng) for _ in range(REPS)]


def text():
    out = [HEADER.format(seed=SEED, arrivals=ARRIVALS, turn_prob=TURN_PROB, reps=REPS, steps=STEPS), "(define reps '("]
    for turns, arrivals in draws():
        out.append(" (" + "\n  ".join("(" + " ".join("(" + " ".join(map(str, e)) + ")" for e in step) + ")"
                                      for step in plans(turns, arrivals)) + ")")
    out[-1] += "))"
    return "\n".join(out) + "\n" + BODY


if __name__ == "__main__":
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "traffic2x2.scm")
    want = text()
    if sys.argv[1:2] == ["--crisp"] and len(sys.argv) == 6:
        print(repr(crisp([float(v) for v in sys.argv[2:]], draws())))
        sys.exit(0)
    if sys.argv[1:2] == ["--check"] and len(sys.argv) <= 3:
        check = sys.argv[2] if len(sys.argv) == 3 else path
        with open(check) as f:
            same = f.read() == want
        print(os.path.basename(check) + " " + ("matches" if same else "differs from") + " traffic2x2_gen.py's output")
        sys.exit(0 if same else 1)
    with open(path, "w") as f:
        f.write(want)
