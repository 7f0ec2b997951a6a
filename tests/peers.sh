#!/usr/bin/env bash
# The peer comparisons (tools/peer_pysph.py against PySPH's 3D dam break,
# tools/peer_vtk.py against VTK's flying edges) in their small mode, so the
# scripts cannot rot: each must run to its ratio, write its JSON, and (VTK)
# give the same triangle count as cistern's marching cubes.
# ctest labels: slow,gpu -- 10-40 (PySPH compiles its kernels on a fresh machine)
set -uo pipefail
cistern=${1:?usage: peers.sh path/to/cistern}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
if ! /usr/bin/python3 -c 'import pysph, vtk' 2>/dev/null; then
  echo "peers: python3-pysph or python3-vtk9 missing (bash tools/install-deps.sh installs them)" >&2
  exit 1
fi
out=$(/usr/bin/python3 "$here/tools/peer_vtk.py" --small --cistern "$cistern" --out "$tmp/vtk" 2>&1) ||
  fail "peer_vtk.py --small: $out"
grep -q "cistern / VTK x[0-9]" <<<"$out" || fail "peer_vtk.py printed no ratio: $out"
grep -q "DIFFER" <<<"$out" && fail "VTK and cistern triangle counts differ: $out"
[ -s "$tmp/vtk/peer_vtk.json" ] || fail "peer_vtk.py wrote no JSON"
out=$(/usr/bin/python3 "$here/tools/peer_pysph.py" --small --cistern "$cistern" --out "$tmp/pysph" 2>&1) ||
  fail "peer_pysph.py --small: $out"
grep -q "cistern / PySPH x[0-9]" <<<"$out" || fail "peer_pysph.py printed no ratio: $out"
[ -s "$tmp/pysph/peer_pysph.json" ] || fail "peer_pysph.py wrote no JSON"
echo "$out" | tail -2
exit $((failures > 0))
