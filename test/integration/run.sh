#!/usr/bin/env bash
# Runs every integration test (test/integration/test_*.sh) on real local
# clusters, one after another, and prints the total "N passed, N failed".
# Usage: test/integration/run.sh [test_name ...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0 broken=()
if [ $# -gt 0 ]; then tests=("$@"); else tests=("$here"/test_*.sh); fi
for t in "${tests[@]}"; do
  [ -f "$t" ] || t="$here/$t.sh"
  log=$(mktemp)
  bash "$t" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  line=$(grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
  f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); broken+=("$(basename "$t")"); fi
  rm -f "$log"
done
[ ${#broken[@]} -gt 0 ] && echo "integration: exited non-zero without a summary: ${broken[*]}"
echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
