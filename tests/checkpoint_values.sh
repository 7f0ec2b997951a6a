#!/usr/bin/env bash
# A checkpoint is a file a user can be handed, and its checksum catches
# accidents, not edits (docs/usage.md, "Checkpoints"). For a fluid (Clavet
# SPH), the rigid bodies, the vortons and reintegration this takes a real
# checkpoint of a short run, changes one value and makes both checksums
# right again (tests/util/checkpoint_edit.py): a count past the capacity,
# a current-buffer index of 2, a body count of 0xFFFFFFFF, a NaN position,
# a material the scene lacks, ... Each must be refused at once: exit 2, a
# message naming the entry, no signal or hang, stats.csv as it was. An
# oversized sparse file whose header says 2 GiB is refused before it is
# read. The unedited checkpoints resume (the checks refuse only what is
# wrong). $1 is the cistern binary.
# ctest labels: slow,gpu -- edited checkpoints (checksums made right) refused value by value; 4 scenes
set -uo pipefail
cistern=${1:?usage: checkpoint_values.sh path/to/cistern}
here=$(dirname "$0")
source "$here/util/expect.sh"
edit() { python3 "$here/util/checkpoint_edit.py" "$@"; }

# Makes $tmp/<scene>/checkpoint_0000<frames>.ckpt, and checks it resumes as it is.
make_checkpoint() { # scene frames
  local scene=$1 frames=$2
  "$cistern" run "$scene" --frames "$frames" --checkpoint-every "$frames" --png-every 0 --quiet \
    --out "$tmp/$scene" >"$tmp/$scene.log" 2>&1 || fail "$scene: the run failed: $(tail -3 "$tmp/$scene.log")"
  cp "$tmp/$scene/stats.csv" "$tmp/$scene.stats"
  mkdir -p "$tmp/$scene.resumed" && cp "$tmp/$scene.stats" "$tmp/$scene.resumed/stats.csv"
  expect 0 "" -- timeout 120 "$cistern" run "$scene" --frames $((frames + 1)) --png-every 0 --quiet \
    --resume "$(ckpt "$scene" "$frames")" --out "$tmp/$scene.resumed"
}
ckpt() { printf '%s/%s/checkpoint_%05u.ckpt' "$tmp" "$1" "$2"; }

# The edit (part, entry, offset, format, value) of $scene's checkpoint
# after $frames frames must be refused naming `entry NAME` (the edited
# entry, or $9) and $pattern.
refused() { # scene frames part entry offset format value pattern [named entry]
  local scene=$1 frames=$2 part=$3 entry=$4 offset=$5 format=$6 value=$7 pattern=$8 named=${9:-$4}
  named=${named//[/\\[} # a grep pattern: positions\[0]
  local bad=$tmp/bad.ckpt out=$tmp/refused
  edit "$(ckpt "$scene" "$frames")" "$bad" "$part" "$entry" "$offset" "$format" "$value" >/dev/null ||
    { fail "$scene: cannot edit $part: $entry"; return; }
  rm -rf "$out" && mkdir -p "$out" && cp "$tmp/$scene.stats" "$out/stats.csv"
  expect 2 "entry $named: .*$pattern" -- timeout 60 "$cistern" run "$scene" --frames $((frames + 1)) --png-every 0 \
    --quiet --resume "$bad" --out "$out"
  cmp -s "$tmp/$scene.stats" "$out/stats.csv" || fail "$scene: $entry = $value: stats.csv was changed by a refused resume"
}

make_checkpoint dam_break_2d 2
refused dam_break_2d 2 "fluid 0" count 0 '<I' 0xFFFFFFFF "4294967295, past this world's capacity"
refused dam_break_2d 2 "fluid 0" pos_cur 0 '<I' 2 "word 0 is 2; at most 1"
refused dam_break_2d 2 "fluid 0" state_cur 0 '<I' 7 "word 0 is 7; at most 1"
refused dam_break_2d 2 "fluid 0" positions[0] 20 '<f' nan "float 5 (element 1, component 1) is nan"
refused dam_break_2d 2 "fluid 0" velocities[0] 0 '<f' inf "is inf"
refused dam_break_2d 2 "fluid 0" materials[0] 8 '<I' 9 "particle 2 has material 9; the scene has 1"
refused dam_break_2d 2 "fluid 0" emitted 4 '<I' 100 "emitter 1 emitted 100 particles; its budget is 0"
# A count within the capacity, but not the live particles saved.
live=$(( $(edit --size "$(ckpt dam_break_2d 2)" "fluid 0" positions[0]) / 16 ))
refused dam_break_2d 2 "fluid 0" count 0 '<I' $((live - 1)) "$((live * 16)) bytes, but the checkpoint's count of $((live - 1)) makes" positions[0]

make_checkpoint bodies_2d 1
refused bodies_2d 1 "bodies" set 0 '<I' 0xFFFFFFFF "counts (bodies 4294967295"
refused bodies_2d 1 "fluid 0" own_body_set 0 '<I' 0xFFFFFFFF "counts (bodies 4294967295"
refused bodies_2d 1 "bodies" states 12 '<f' 0 "body 0's mass, shape, inertia or path is not the scene's"
refused bodies_2d 1 "bodies" states 32 '<f' nan "position, orientation or momenta"

make_checkpoint vorton_rings_3d 2
capacity=$(( $(edit --size "$(ckpt vorton_rings_3d 2)" "fluid 0" pos[0]) / 16 ))
refused vorton_rings_3d 2 "fluid 0" count 0 '<I' $((capacity + 1)) "$((capacity + 1)), past this world's capacity of $capacity"
refused vorton_rings_3d 2 "fluid 0" current 0 '<I' 2 "word 0 is 2; at most 1"
refused vorton_rings_3d 2 "fluid 0" tracer_count 0 '<I' 0xFFFFFFFF "past this world's capacity"

make_checkpoint reint_dam_2d 2
refused reint_dam_2d 2 "fluid 0" current 0 '<I' 2 "word 0 is 2; at most 1"
refused reint_dam_2d 2 "fluid 0" pos[0] 0 '<f' nan "is nan"

# A header that says 2 GiB of payload on a sparse file that long: refused
# by its size against this world's, before a byte of it is read.
good=$(ckpt dam_break_2d 2)
python3 - "$good" "$tmp/huge.ckpt" <<'PY'
import os, struct, sys
data = bytearray(open(sys.argv[1], 'rb').read()[:512])
payload = 2 << 30
struct.pack_into('<Q', data, 32, payload)
def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h
header = bytearray(data)
header[16:24] = bytes(8)
struct.pack_into('<Q', data, 16, fnv(header))
with open(sys.argv[2], 'wb') as f:
    f.write(data)
    f.truncate(512 + payload)
PY
start=$(date +%s)
rm -rf "$tmp/huge" && mkdir -p "$tmp/huge" && cp "$tmp/dam_break_2d.stats" "$tmp/huge/stats.csv"
expect 2 "its header says 2147483648 payload bytes; this world's state is at most" -- timeout 60 "$cistern" run \
  dam_break_2d --frames 3 --png-every 0 --quiet --resume "$tmp/huge.ckpt" --out "$tmp/huge"
[ $(( $(date +%s) - start )) -le 10 ] || fail "the 2 GiB checkpoint took $(( $(date +%s) - start )) s to refuse"
rm -f "$tmp/huge.ckpt"

exit $((failures > 0))
