#!/usr/bin/env bash
# Runs make targets in order, timing each, and prints the times at the end — also when a stage
# fails (then the failing stage is named and the script exits with its status).
set -uo pipefail
make_cmd=${MAKE:-make}
names=()
times=()
status=0
for stage in "$@"; do
  start=$(date +%s)
  "$make_cmd" --no-print-directory "$stage"
  status=$?
  names+=("$stage")
  times+=($(( $(date +%s) - start )))
  [ "$status" -eq 0 ] || break
done
total=0
echo
echo "=== time per stage"
for i in "${!names[@]}"; do
  printf '  %-20s %4ds\n' "${names[$i]}" "${times[$i]}"
  total=$(( total + times[i] ))
done
printf '  %-20s %4ds\n' total "$total"
if [ "$status" -ne 0 ]; then
  echo "=== FAILED in stage ${names[-1]}"
fi
exit "$status"
