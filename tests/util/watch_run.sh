# watch_run.sh — what the tests of a running `cistern run --watch` share
# (sourced by tests/hot_reload_run.sh, scene_reload_run.sh,
# scene_reload_window.sh). They set $tmp (the run writes $tmp/out), $pid
# (the running cistern, empty when none) and fail() before calling these.
#   col N             field N of stats.csv's last row
#   rows              stats.csv's rows (frames written)
#   wait_for WHAT CMD...  polls CMD every 0.1 s for up to 3 minutes; fails
#                     with WHAT when it never holds or cistern exits first
#   rows_at_least N, restart_is N   conditions for wait_for
col() { tail -n 1 "$tmp/out/stats.csv" 2>/dev/null | cut -d, -f"$1"; }
rows() { echo $(($( { wc -l < "$tmp/out/stats.csv"; } 2>/dev/null || echo 1) - 1)); }
wait_for() {
  local what=$1; shift
  for _ in $(seq 1800); do
    "$@" && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then fail "cistern exited while waiting for: $what"; return 1; fi
    sleep 0.1
  done
  fail "timed out waiting for: $what"; return 1
}
rows_at_least() { [ "$(rows)" -ge "$1" ]; }
restart_is() { [ "$(col 13)" = "$1" ]; }
