#!/usr/bin/env bash
# The checkpoint files a long run keeps (docs/usage.md, "Checkpoints"):
# past frame 99,999 the names have six digits (checkpoint_100002.ckpt), and
# the last two must still be all that is kept. A real checkpoint of a short
# run is made to say frame 100000 (its header's checksum made right;
# stats.csv given 100000 rows), older checkpoints with five digits and a
# killed write's temporary file lie beside it, and the resumed run writes
# 100002 and 100004: only those two may be left. $1 is the cistern binary.
# ctest labels: quick,gpu -- 3 (the last two checkpoints kept past frame 99,999)
set -uo pipefail
cistern=${1:?usage: checkpoint_files.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

scene=dam_break_2d
"$cistern" run "$scene" --frames 2 --checkpoint-every 2 --png-every 0 --quiet --out "$tmp/short" >"$tmp/short.log" 2>&1 ||
  fail "the short run failed: $(tail -3 "$tmp/short.log")"
run=$tmp/long
mkdir -p "$run"
python3 - "$tmp/short/checkpoint_00002.ckpt" "$run/checkpoint_100000.ckpt" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<I', data, 48, 100000) # the frame a resume starts at
def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h
header = bytearray(data[:512])
header[16:24] = bytes(8)
struct.pack_into('<Q', data, 16, fnv(header))
open(sys.argv[2], 'wb').write(data)
PY
# stats.csv as a run of 100000 frames left it: the header and a row a frame.
{ head -1 "$tmp/short/stats.csv"; row=$(sed -n 2p "$tmp/short/stats.csv" | cut -d, -f2-); seq 0 99999 | sed "s/\$/,$row/"; } \
  >"$run/stats.csv"
for f in checkpoint_99996.ckpt checkpoint_99998.ckpt checkpoint_100004.ckpt.tmp; do
  cp "$run/checkpoint_100000.ckpt" "$run/$f"
done
start=$(date +%s)
expect 0 "resuming $scene at frame 100000" -- "$cistern" run "$scene" --frames 100004 --checkpoint-every 2 \
  --png-every 0 --resume "$run/checkpoint_100000.ckpt"
# Reading stats.csv's 100 000 rows took 30 s (sscanf measured the rest of
# the file at every row); the resume takes a second or two.
elapsed=$(( $(date +%s) - start ))
[ "$elapsed" -le 15 ] || fail "the resume at frame 100000 took $elapsed s (stats.csv's rows read in quadratic time?)"
kept=$(cd "$run" && ls checkpoint_* | tr '\n' ' ')
[ "$kept" = "checkpoint_100002.ckpt checkpoint_100004.ckpt " ] ||
  fail "past frame 99,999 the kept checkpoints are '$kept', wanted the last two"
rows=$(( $(wc -l <"$run/stats.csv") - 1 ))
[ "$rows" = 100004 ] || fail "stats.csv holds $rows rows after the resume, wanted 100004"

exit $((failures > 0))
