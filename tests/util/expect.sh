# expect.sh — what the shell tests share (sourced by tests/cli.sh, tests/loud.sh):
# a temporary directory removed on exit, a failure counter, and
#   expect CODE PATTERN -- command...
# which runs the command, checks its exit code and that PATTERN (grep) is in
# its stderr+stdout, and leaves that output in $last_out.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
last_out=
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

expect() {
  local code=$1 pattern=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  [ "$rc" -eq "$code" ] || fail "'$*' exited $rc, wanted $code: $out"
  grep -q -- "$pattern" <<<"$out" || fail "'$*' output lacks '$pattern': $out"
  last_out=$out
}
