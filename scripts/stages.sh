#!/usr/bin/env bash
# Runs make targets in order, timing each, and prints the times at the end — also when a stage
# fails (then the failing stage is named and the script exits with its status). A stage written
# `a+b` runs a and b side by side (each one's output is printed when both are done, a's first).
set -uo pipefail
make_cmd=${MAKE:-make}
names=()
times=()
status=0
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for stage in "$@"; do
  start=$(date +%s)
  if [[ "$stage" == *+* ]]; then
    IFS='+' read -r -a parts <<< "$stage"
    pids=()
    for part in "${parts[@]}"; do
      "$make_cmd" --no-print-directory "$part" > "$logs/$part.log" 2>&1 &
      pids+=($!)
    done
    status=0
    for i in "${!parts[@]}"; do
      wait "${pids[$i]}"
      s=$?
      echo "=== ${parts[$i]} (side by side with the rest of $stage)"
      cat "$logs/${parts[$i]}.log"
      [ "$status" -ne 0 ] || status=$s
    done
  else
    "$make_cmd" --no-print-directory "$stage"
    status=$?
  fi
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
