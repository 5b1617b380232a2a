#!/bin/sh
# run_fuzz.sh CORPUS_DIR TARGET...: runs each built fuzz target (./NAME_fuzz)
# on its seeds (CORPUS_DIR/NAME), for FUZZ_SECONDS seconds or, if FUZZ_RUNS
# is set, for FUZZ_RUNS executions. New inputs go to work/NAME (the seeds in
# the repository are never written), crashing inputs to artifacts/, each run's
# log to work/NAME.log. Prints one line per target,
#   fuzz NAME: N executions in S s, 0 crashes: ok
# (or "..., 1 crash: FAILED" with the input's file), and exits non-zero if
# any target failed. FUZZ_FLAGS is passed to every target as it is.
corpus=$1
shift
seconds=${FUZZ_SECONDS:-10}
failed=0
mkdir -p work artifacts
for t in "$@"; do
  mkdir -p "work/$t"
  if [ -n "${FUZZ_RUNS:-}" ]; then limit="-runs=$FUZZ_RUNS"; else limit="-max_total_time=$seconds"; fi
  start=$(date +%s)
  # -timeout: an input that takes 10 s is a hang, and counts as a crash.
  # shellcheck disable=SC2086
  "./${t}_fuzz" $limit -timeout=10 -print_final_stats=1 -artifact_prefix="artifacts/$t-" \
    ${FUZZ_FLAGS:-} "work/$t" "$corpus/$t" >"work/$t.log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "work/$t.log" | tail -n 1)
  if [ "$rc" = 0 ]; then
    echo "fuzz $t: ${runs:-?} executions in $took s, 0 crashes: ok"
  else
    input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "work/$t.log" | tail -n 1)
    echo "fuzz $t: ${runs:-?} executions in $took s, 1 crash: FAILED (input ${input:-none saved}, log work/$t.log)"
    grep -m 3 -E 'ERROR: |runtime error|property broken|SUMMARY' "work/$t.log" | sed 's/^/  /'
    failed=1
  fi
done
exit $failed
