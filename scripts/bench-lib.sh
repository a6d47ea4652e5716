# Shared by the bench-*.sh scripts (sourced, not run). Sets root, shared and
# opm (empty when opm cannot be built, or not built when the script sets
# bench_without_opm before sourcing), and defines bench_need_time,
# bench_best and bench_median.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${FBC_SHARED:-}
if [ -z "$shared" ]; then # ../shared next to a checkout, ../../shared next to a worktree
  for d in "$root/../shared" "$root/../../shared"; do
    [ -d "$d/corpus" ] && { shared=$d; break; }
  done
fi
opm=""
if [ -z "${bench_without_opm:-}" ] && [ -x "$shared/tools/build-opm.sh" ]; then
  opm=$("$shared/tools/build-opm.sh" 2>/dev/null | tail -1) || opm=""
  [ -x "$opm" ] || opm=""
fi

# bench_need_time ends the calling script (exit 0, with a note) when GNU
# time, which bench_best and bench_median read figures from, is missing.
bench_need_time() {
  if [ ! -x /usr/bin/time ]; then
    echo "$(basename "$0" .sh): /usr/bin/time (GNU time) not found; skipping" >&2
    exit 0
  fi
}

# bench_accepted RC reports whether a run that exited RC counts: 0 always,
# and the codes the script lists in bench_accept (e.g. "1" for fbc
# validate, whose findings on a real catalog are a result, not a failure).
bench_accepted() {
  [ "$1" -eq 0 ] || [[ " ${bench_accept:-} " == *" $1 "* ]]
}

# bench_best RUNS OUT COMMAND...: runs COMMAND RUNS times under GNU time with
# standard output to OUT (the last run's stays there) and prints
# "SECONDS KB", each the best of the runs. A run that exits with a code
# bench_accepted refuses is reported on standard error with the end of its
# error output, and the function fails.
bench_best() {
  local runs=$1 out=$2 i all
  shift 2
  all=$(mktemp)
  for ((i = 0; i < runs; i++)); do
    bench_once "$all" "$out" "$@" || { rm -f "$all"; return 1; }
  done
  awk 'NR == 1 || $1 < s { s = $1 } NR == 1 || $4 < k { k = $4 } END { print s, k }' "$all"
  rm -f "$all"
}

# bench_median RUNS OUT COMMAND...: as bench_best, but prints
# "SECONDS CPU KB": the median wall time, the median CPU time (user + system)
# and the median peak RSS of the runs, the figures to give for a machine
# shared with other work (a best run hides how much a loaded machine varies).
bench_median() {
  local runs=$1 out=$2 i all
  shift 2
  all=$(mktemp)
  for ((i = 0; i < runs; i++)); do
    bench_once "$all" "$out" "$@" || { rm -f "$all"; return 1; }
  done
  bench_medians "$all"
  rm -f "$all"
}

# bench_once TIMES OUT COMMAND...: runs COMMAND once under GNU time with
# standard output to OUT and adds "SECONDS USER SYSTEM KB" to the file
# TIMES, for bench_medians (scripts that alternate two commands call it
# for each in turn). A run that exits with a code bench_accepted refuses is
# reported as bench_best reports it, and the function fails.
bench_once() {
  local times=$1 out=$2 tf ef rc=0
  shift 2
  tf=$(mktemp) ef=$(mktemp)
  /usr/bin/time -o "$tf" -f '%e %U %S %M' "$@" >"$out" 2>"$ef" || rc=$?
  if ! bench_accepted "$rc"; then
    echo "bench: $* exited $rc:" >&2
    tail -5 "$ef" >&2
    rm -f "$tf" "$ef"
    return 1
  fi
  tail -1 "$tf" >>"$times"
  rm -f "$tf" "$ef"
}

# bench_medians TIMES prints "SECONDS CPU KB", the medians of the runs
# bench_once added to TIMES.
bench_medians() {
  awk '{ w[NR] = $1; c[NR] = $2 + $3; m[NR] = $4 }
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
      return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
    }
    END { print median(w, NR), median(c, NR), median(m, NR) }' "$1"
}
