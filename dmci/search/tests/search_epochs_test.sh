#!/usr/bin/env bash
# dmci search's epochs as processes: the archive's digest (SHA-256 of --out's archive.json, canonical JSON) of one
# search, the same however it is run. `plain`: one process, any --jobs, the same seed twice and another seed; a
# torn checkpoint (SIGKILL between the temporary file's fsync and its rename, planted by DMCI_SEARCH_FAULT) leaves
# the last one, every checkpoint on disk parses, and resuming reaches the digest; SIGUSR1 gives exit 75 and a
# checkpoint that resumes to the digest. `mpi`: the same search under mpirun --oversubscribe on 1, 2 and 4 ranks;
# a rank SIGKILLed in the middle of an epoch ends the run non-zero and --resume on 3 ranks reaches the digest;
# SIGUSR1 to mpirun; islands below the ranks and a checkpoint of other settings are clear errors. Every run caps
# the enumeration stage at 100 forms: its default share (a third of --evals) would differ between a run of 100000
# evaluations stopped by a signal and its resume at 600.
# Usage: search_epochs_test.sh plain|mpi DMCI [MPIRUN]    (ctest registers it: CMakeLists.txt)
set -uo pipefail
mode="$1" dmci="$(realpath "$2")" mpirun="${3:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI runs as root
export OMPI_MCA_rmaps_base_oversubscribe=1
work="$(mktemp -d "${TMPDIR:-/tmp}/dmci-search-epochs.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
# y = 2 e^(-0.3 t) cos(1.7 t) on 150 rows, and a wrong seed.
awk 'BEGIN { print "t,y"; for (i = 0; i < 150; i++) { t = 0.06 * i; printf "%.17g,%.17g\n", t, 2 * exp(-0.3 * t) * cos(1.7 * t) } }' >osc.csv
echo '(* a (cos (* w t)))' >seed.scm
failures=0
ok() { echo "ok:   $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
search() { "$dmci" search --data osc.csv --target y --seed-program seed.scm --evals 600 --epoch-evals 10 --enumerate-limit 100 --quiet "$@"; }
mpi() { local np="$1"; shift; "$mpirun" --oversubscribe -np "$np" "$dmci" search --mpi --data osc.csv --target y \
  --seed-program seed.scm --evals 600 --epoch-evals 10 --enumerate-limit 100 --quiet "$@"; }
digest() { [ -f "$1/archive.json" ] && sha256sum "$1/archive.json" | cut -d' ' -f1 || echo "no-archive-in-$1"; }
parses() { python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' "$@"; }
# Waits (at most 120 s) until DIR holds two checkpoints (epoch 1 is done): a search under way, well before its end.
underway() {
  for _ in $(seq 6000); do
    [ -f "$1/state.prev.json" ] && return 0
    sleep 0.02
  done
  return 1
}

search --jobs 1 --out ref >/dev/null || { echo "FAIL: the reference search did not run"; exit 1; }
ref="$(digest ref)"
echo "reference digest $ref"
[ "$(python3 -c 'import json; print(len(json.load(open("ref/archive.json"))["archive"]))')" -gt 3 ] ||
  fail "the reference archive holds candidates"

if [ "$mode" = plain ]; then
  search --jobs 2 --out j2 >/dev/null
  [ "$(digest j2)" = "$ref" ] && ok "--jobs 2 gives the digest of --jobs 1" || fail "--jobs 2: $(digest j2) != $ref"
  search --jobs 1 --out again >/dev/null
  [ "$(digest again)" = "$ref" ] && ok "the same seed twice, one digest" || fail "the same seed twice: $(digest again)"
  search --jobs 1 --seed 2 --out other >/dev/null
  [ "$(digest other)" != "$ref" ] && ok "another seed, another digest" || fail "seed 2 gave the digest of seed 1"

  DMCI_SEARCH_FAULT=torn:3 search --jobs 1 --out torn >/dev/null 2>&1
  rc=$?
  [ "$rc" -eq 137 ] && ok "the torn fault killed the search (137)" || fail "the torn fault: exit $rc, not 137"
  epoch="$(python3 -c 'import json; print(json.load(open("torn/state.json"))["epoch"])')"
  [ "$epoch" = 2 ] && ok "the torn epoch 3 left the checkpoint of epoch 2" || fail "the checkpoint after the torn write is epoch $epoch"
  ls torn/state.json.tmp.* >/dev/null 2>&1 && ok "the torn write's temporary file is there, never renamed" ||
    fail "no temporary file of the torn write"
  parses torn/state.json torn/state.prev.json torn/state.json.tmp.* && ok "every checkpoint on disk parses" ||
    fail "a checkpoint on disk does not parse"
  search --jobs 2 --resume torn >/dev/null || fail "resume after the torn write ran"
  ls torn/state.json.tmp.* >/dev/null 2>&1 && fail "the resumed search left the torn temporary file" ||
    ok "the resumed search removed the torn temporary file"
  [ "$(digest torn)" = "$ref" ] && ok "resumed after the torn write: the digest" || fail "torn resume: $(digest torn) != $ref"

  "$dmci" search --data osc.csv --target y --seed-program seed.scm --evals 100000 --epoch-evals 10 --enumerate-limit 100 --quiet --jobs 1 \
    --out stop >/dev/null 2>&1 &
  pid=$!
  underway stop && kill -USR1 "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" -eq 75 ] && ok "SIGUSR1: exit 75 (requeue)" || fail "SIGUSR1: exit $rc, not 75"
  parses stop/state.json && ok "SIGUSR1 left a checkpoint that parses" || fail "no checkpoint after SIGUSR1"
  # the stopped search resumed with the reference's budget: the reference's digest when it stopped before it
  if python3 -c 'import json, sys; sys.exit(json.load(open("stop/state.json"))["evaluations"] >= 600)'; then
    search --jobs 1 --resume stop >/dev/null
    [ "$(digest stop)" = "$ref" ] && ok "resumed after SIGUSR1: the digest" || fail "SIGUSR1 resume: $(digest stop) != $ref"
  else
    fail "the search passed 600 evaluations before SIGUSR1 (a loaded machine?): the resume is not comparable"
  fi
  search --jobs 1 --islands 5 --resume ref >/dev/null 2>err.txt
  rc=$?
  [ "$rc" -eq 2 ] && grep -q "other data, seed program or settings" err.txt && ok "a checkpoint of other settings: exit 2, said" ||
    fail "resume with other settings: exit $rc: $(cat err.txt)"
fi

if [ "$mode" = mpi ]; then
  [ -x "$mpirun" ] || { echo "FAIL: no mpirun ($mpirun)"; exit 1; }
  for np in 1 2 4; do
    mpi "$np" --jobs 1 --out "np$np" >/dev/null 2>"np$np.err"
    [ "$(digest "np$np")" = "$ref" ] && ok "-np $np gives the plain search's digest" ||
      fail "-np $np: $(digest "np$np") != $ref: $(tail -3 "np$np.err")"
  done
  mpi 2 --jobs 1 --seed 2 --out np2seed2 >/dev/null 2>&1
  [ "$(digest np2seed2)" != "$ref" ] && ok "-np 2, another seed: another digest" || fail "-np 2 seed 2 gave seed 1's digest"

  DMCI_SEARCH_FAULT=kill:1:4 mpi 2 --jobs 1 --out killed >/dev/null 2>killed.err
  rc=$?
  [ "$rc" -ne 0 ] && ok "rank 1 SIGKILLed in epoch 4: the run ends non-zero ($rc)" || fail "the run with a killed rank exited 0"
  epoch="$(python3 -c 'import json; print(json.load(open("killed/state.json"))["epoch"])' 2>/dev/null)"
  [ "$epoch" = 3 ] && ok "the last checkpoint is epoch 3's" || fail "the checkpoint after the kill is epoch '$epoch'"
  mpi 3 --jobs 1 --resume killed >/dev/null 2>resumed.err
  [ "$(digest killed)" = "$ref" ] && ok "--resume on 3 ranks reaches the digest" ||
    fail "resume on 3 ranks: $(digest killed) != $ref: $(tail -3 resumed.err)"

  "$mpirun" --oversubscribe -np 2 "$dmci" search --mpi --data osc.csv --target y --seed-program seed.scm \
    --evals 100000 --epoch-evals 10 --enumerate-limit 100 --quiet --jobs 1 --out usr1 >/dev/null 2>&1 &
  pid=$!
  underway usr1 && kill -USR1 "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" -eq 75 ] && ok "SIGUSR1 to mpirun: exit 75 (requeue)" || fail "SIGUSR1 to mpirun: exit $rc, not 75"
  if python3 -c 'import json, sys; sys.exit(json.load(open("usr1/state.json"))["evaluations"] >= 600)'; then
    mpi 4 --jobs 1 --resume usr1 >/dev/null 2>&1
    [ "$(digest usr1)" = "$ref" ] && ok "resumed on 4 ranks after SIGUSR1: the digest" ||
      fail "SIGUSR1 resume: $(digest usr1) != $ref"
  else
    fail "the search passed 600 evaluations before SIGUSR1 (a loaded machine?): the resume is not comparable"
  fi

  mpi 3 --islands 2 --out few >/dev/null 2>few.err
  rc=$?
  [ "$rc" -ne 0 ] && grep -q "is below the 3 ranks" few.err && ok "--islands 2 on 3 ranks: a clear error (exit $rc)" ||
    fail "--islands 2 on 3 ranks: exit $rc: $(head -3 few.err)"
  mpi 2 --islands 6 --resume ref >/dev/null 2>other.err
  rc=$?
  [ "$rc" -ne 0 ] && grep -q "other data, seed program or settings" other.err &&
    ok "resume on 2 ranks from a checkpoint of other settings: a clear error" || fail "other settings: exit $rc"
fi

if ((failures)); then
  echo "search_epochs_test $mode: $failures FAILED"
  exit 1
fi
echo "search_epochs_test $mode: all passed"
