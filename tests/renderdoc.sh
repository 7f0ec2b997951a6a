#!/usr/bin/env bash
# RenderDoc: run a short headless scene under `renderdoccmd capture` on
# lavapipe, capture frame 1 through the in-app API, then open the .rdc with
# the renderdoc module of /usr/bin/python3 and check that the frame's pass
# labels are there, with dispatches under the compute passes and a draw under
# "draw". $1 is the cistern binary.
# ctest labels: quick,gpu -- 2.6 (skipped without renderdoccmd)
set -uo pipefail
cistern=${1:?usage: renderdoc.sh path/to/cistern}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v renderdoccmd >/dev/null || ! /usr/bin/python3 -c "import renderdoc" 2>/dev/null; then
  echo "SKIP: renderdoccmd or python3-renderdoc missing (tools/install-deps.sh installs them)"
  exit 77
fi
if ldd "$cistern" 2>/dev/null | grep -q libasan; then
  echo "SKIP: RenderDoc's LD_PRELOAD cannot come before AddressSanitizer's runtime (asan build)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# Note: no `timeout` in front: it would drop RenderDoc's LD_PRELOAD.
renderdoccmd capture -w -c "$tmp/cap" "$cistern" run rest_box_3d --headless --frames 3 --capture-frame 1 \
  --png-every 1 --out "$tmp/out" --quiet > "$tmp/log" 2>&1
rdc=$(ls "$tmp"/cap*.rdc 2>/dev/null | head -1)
if [ -z "$rdc" ]; then
  cat "$tmp/log" >&2
  fail "no capture written"
else
  /usr/bin/python3 "$here/tools/rdc_passes.py" "$rdc" > "$tmp/passes" 2> "$tmp/pylog" || { cat "$tmp/pylog" >&2; fail "replay failed"; }
  echo "passes in the capture (label, dispatches, draws):"
  cat "$tmp/passes"
  for pass in "predict" "grid: sort" "pbf: lambda" "pbf: delta" "draw"; do
    grep -q "^$pass	" "$tmp/passes" || fail "pass \"$pass\" not in the capture"
  done
  awk -F'\t' '$1 == "pbf: lambda" && $2 < 1 { exit 1 }' "$tmp/passes" || fail "no dispatch under pbf: lambda"
  awk -F'\t' '$1 == "draw" && $3 < 1 { exit 1 }' "$tmp/passes" || fail "no draw under draw"
fi
if [ "$failures" -ne 0 ]; then echo "FAILED: $failures check(s)" >&2; exit 1; fi
echo PASS
