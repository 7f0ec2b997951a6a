#!/usr/bin/env bash
# compare_outputs.sh — do two builds of cistern write the same outputs?
#
#   tools/compare_outputs.sh run BINARY OUTDIR
#       runs every shipped scene (scenes/*.json and scenes/*/*.json) headless
#       for a few frames with BINARY, one folder per scene under OUTDIR:
#       particle dumps, surface meshes (scenes whose fluids have a surface),
#       a PNG every frame and stats.csv, plus run.log (exit code, stderr);
#   tools/compare_outputs.sh diff DIR_A DIR_B
#       compares two such folders: every PLY and PNG byte for byte, stats.csv
#       without its wall-clock and GPU-timing columns (gpu_total_ms,
#       submit_wall_ms, gpu_ms:*), and each scene's exit code; prints one
#       line per scene (with the gpu_ms:PASS columns that came or went, a
#       pass added or removed) and exits non-zero when anything differs;
#   tools/compare_outputs.sh BINARY_A BINARY_B [WORKDIR]
#       both runs (into WORKDIR/a and WORKDIR/b, default a new temporary
#       folder), then the diff.
#
# SCENES="dam_break_3d reint_dam_2d" limits the runs to those scenes
# (names under scenes/), for a quick check on a busy machine.
#
# Settings are the smallest that still exercise every part: FRAMES frames
# (default 3), --particles PARTICLES (default 2k) where the scene's fluids
# take it, a SIZE image (default 96x64). The binaries run from the
# repository root (scenes and levels are found relative to it). Runs are
# deterministic, so one device gives the same bytes for the same code; run
# both builds on the same device. A binary compiles its shaders at run time
# from the source tree it was built in: copy a binary elsewhere and it still
# reads that tree's shaders/ (CISTERN_SHADER_DIR=DIR points it at another,
# e.g. `git archive COMMIT shaders | tar -x -C DIR/..` for an older build).
set -u

FRAMES=${FRAMES:-3}
PARTICLES=${PARTICLES:-2k}
SIZE=${SIZE:-96x64}
ROOT=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

scenes() {
    if [ -n "${SCENES:-}" ]; then
        for s in $SCENES; do echo "scenes/$s.json"; done
    else
        (cd "$ROOT" && ls scenes/*.json scenes/*/*.json 2>/dev/null)
    fi
}

# run_one BINARY SCENE_FILE DIR: the scene's outputs into DIR.
run_one() {
    local bin=$1 scene=$2 dir=$3
    local base=(run "$scene" --headless --quiet --frames "$FRAMES" --size "$SIZE" --out "$dir" --overwrite
                --dump-every 1 --png-every 1)
    local try
    # Mesh dumps where the scene has a surface; particle rescaling where the
    # scene's solvers take it. The first set of options the scene accepts wins.
    for try in "--mesh-every 1 --particles $PARTICLES" "--particles $PARTICLES" "--mesh-every 1" ""; do
        rm -rf "$dir"
        mkdir -p "$dir"
        # shellcheck disable=SC2086
        (cd "$ROOT" && "$bin" "${base[@]}" $try) >"$dir.stdout" 2>"$dir.stderr"
        local rc=$?
        if [ $rc -eq 0 ] || ! grep -q -e "--mesh-every\|--particles" "$dir.stderr"; then
            { echo "options: $try"; echo "rc: $rc"; cat "$dir.stderr"; } >"$dir/run.log"
            rm -f "$dir.stdout" "$dir.stderr"
            return $rc
        fi
    done
}

run_all() {
    local bin out scene name rc
    bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    out=$2
    [ -x "$bin" ] || { echo "compare_outputs: $1 is not an executable" >&2; exit 2; }
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    for scene in $(scenes); do
        name=$(basename "$scene" .json)
        [ "$name" = mesh_scene ] && name=$(basename "$(dirname "$scene")")
        local t0=$SECONDS
        run_one "$bin" "$scene" "$out/$name"
        rc=$?
        printf '%-28s rc %d  %3ds  %s files\n' "$name" "$rc" $((SECONDS - t0)) \
            "$(find "$out/$name" -type f ! -name run.log | wc -l)"
    done
}

# stats.csv without the timing columns.
strip_timing() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = !($i ~ /^gpu_ms:/ || $i == "gpu_total_ms" || $i == "submit_wall_ms") }
             { line = ""; for (i = 1; i <= NF; i++) if (keep[i]) line = line (line == "" ? "" : ",") $i; print line }' "$1"
}

diff_all() {
    local a=$1 b=$2 bad=0 name
    for d in "$a"/*/; do
        name=$(basename "$d")
        local msg="" note="" files=0 f
        if [ ! -d "$b/$name" ]; then
            echo "$name: missing in $b"; bad=1; continue
        fi
        local rca rcb
        rca=$(sed -n 's/^rc: //p' "$a/$name/run.log")
        rcb=$(sed -n 's/^rc: //p' "$b/$name/run.log")
        [ "$rca" = "$rcb" ] || msg="$msg exit $rca vs $rcb;"
        for f in $( (cd "$a/$name" && ls; cd "$b/$name" && ls) | sort -u); do
            case $f in
                run.log) continue ;;
                stats.csv)
                    if ! cmp -s <(strip_timing "$a/$name/$f") <(strip_timing "$b/$name/$f"); then
                        msg="$msg stats.csv differs;"
                    fi
                    # Passes that came or went change only the timing columns: a note.
                    note=$(diff <(head -1 "$a/$name/$f" | tr , '\n') <(head -1 "$b/$name/$f" | tr , '\n') |
                           sed -n 's/^\([<>]\) /\1/p' | tr '<>' '-+' | paste -sd ' ' -) ;;
                *)
                    if [ ! -f "$a/$name/$f" ] || [ ! -f "$b/$name/$f" ]; then
                        msg="$msg $f only in one;"
                    elif ! cmp -s "$a/$name/$f" "$b/$name/$f"; then
                        msg="$msg $f differs;"
                    fi ;;
            esac
            files=$((files + 1))
        done
        if [ -z "$msg" ]; then
            printf '%-28s same (%d files, rc %s)%s\n' "$name" "$files" "$rca" "${note:+; timing columns: $note}"
        else
            printf '%-28s DIFFERENT:%s\n' "$name" "$msg"
            bad=1
        fi
    done
    for d in "$b"/*/; do
        [ -d "$a/$(basename "$d")" ] || { echo "$(basename "$d"): missing in $a"; bad=1; }
    done
    [ $bad -eq 0 ] && echo "compare_outputs: every scene the same" || echo "compare_outputs: outputs differ"
    return $bad
}

case ${1:-} in
    run) [ $# -eq 3 ] || usage; run_all "$2" "$3" ;;
    diff) [ $# -eq 3 ] || usage; diff_all "$2" "$3" ;;
    ""|-h|--help|help) usage ;;
    *)
        [ $# -ge 2 ] || usage
        work=${3:-$(mktemp -d /tmp/compare_outputs.XXXXXX)}
        echo "compare_outputs: $1 -> $work/a"
        run_all "$1" "$work/a"
        echo "compare_outputs: $2 -> $work/b"
        run_all "$2" "$work/b"
        diff_all "$work/a" "$work/b" ;;
esac
