#!/usr/bin/env bash
# The layers (CMakeLists.txt, docs/architecture.md "Folders") include only downwards. CMake
# enforces it through include directories, but only where a .c file of the
# layer is compiled: a header included by name is looked up with the include
# directories of whoever includes it, so a header that reaches up or sideways
# builds as long as only layers above include it. This checks every file,
# headers included:
#
# 1. no relative include ("../world/world.h") that steps around the rules;
#    relative includes of shaders/*/…_shared.h (data layouts shared with
#    GLSL) are the allowed exception;
# 2. every #include "name.h" of a header that lives in a layer names the
#    file's own layer or one it stands on (LAYERS below, the same links as
#    CMakeLists.txt's target_link_libraries, followed transitively): no
#    pipeline family includes a family above or beside it, no pipeline
#    includes the world.
# ctest labels: quick -- 0.01
set -euo pipefail
cd "$(dirname "$0")/.."

# Each layer (a folder, one static library) and the layers it links; a layer
# names only layers listed before it, so the order has no cycle.
LAYERS="
host/gpu:
host/scene:        host/gpu
pipelines/core:    host/scene
pipelines/bodies:  pipelines/core
pipelines/fluid:   pipelines/bodies pipelines/core
pipelines/reint:   pipelines/core
pipelines/vorton:  pipelines/bodies pipelines/core
pipelines/surface: pipelines/core
pipelines/trace:   host/gpu
pipelines/light:   pipelines/trace
pipelines:         pipelines/fluid pipelines/reint pipelines/vorton pipelines/surface pipelines/light
host/world:        pipelines
host/render:       host/world
host/app/io:       host/render
host/app/panel:    host/render
host/app/run:      host/app/io host/app/panel
host/app/bench:    host/app/run
host/app/tools:    host/app/run
host/app:          host/app/bench host/app/tools
"

fail=0
bad=$(grep -rn --include='*.c' --include='*.h' -E '#include "\.\./' host pipelines |
      grep -v -E '#include "(\.\./)+shaders/[a-z_]+/[a-z_]+\.h"' || true)
if [ -n "$bad" ]; then
  echo "layering: relative includes that step around the layer rules:"
  echo "$bad"
  echo "include the header by name and add the dependency in CMakeLists.txt (downwards only)"
  fail=1
fi

declare -A below owner
order=()
while read -r layer deps; do
  [ -n "$layer" ] || continue
  layer=${layer%:}
  all=""
  for d in $deps; do
    if [ -z "${below[$d]+x}" ]; then
      echo "layering: $layer stands on $d, which is not a layer listed before it"
      exit 1
    fi
    all="$all $d ${below[$d]}"
  done
  below[$layer]=$(tr ' ' '\n' <<<"$all" | sort -u | tr '\n' ' ')
  order+=("$layer")
done <<<"$LAYERS"

# Every folder with sources is a layer: a new family must be placed.
while read -r dir; do
  if [ -z "${below[$dir]+x}" ]; then
    echo "layering: $dir holds sources but is no layer in tests/layering.sh (LAYERS) and CMakeLists.txt"
    fail=1
  fi
done < <(find host pipelines -name '*.[ch]' -printf '%h\n' | sort -u)

# Which layer each header belongs to; include-by-name needs unique names.
for layer in "${order[@]}"; do
  for h in "$layer"/*.h; do
    [ -e "$h" ] || continue
    name=${h##*/}
    if [ -n "${owner[$name]+x}" ]; then
      echo "layering: $name is in both ${owner[$name]} and $layer: include-by-name cannot tell them apart"
      fail=1
    fi
    owner[$name]=$layer
  done
done

upward=""
for layer in "${order[@]}"; do
  for f in "$layer"/*.[ch]; do
    [ -e "$f" ] || continue
    while IFS=: read -r line name; do
      o=${owner[$name]-}
      [ -n "$o" ] && [ "$o" != "$layer" ] || continue
      case " ${below[$layer]} " in *" $o "*) continue ;; esac
      upward+="$f:$line: includes \"$name\" of $o, which $layer does not stand on"$'\n'
    done < <(grep -n -o -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"/]+"' "$f" |
             sed -E 's/^([0-9]+):.*"([^"]+)"$/\1:\2/')
  done
done
if [ -n "$upward" ]; then
  echo "layering: includes that run upwards or sideways against the link order:"
  printf '%s' "$upward"
  echo "move the shared part down, or link the layer in CMakeLists.txt and LAYERS here (downwards only)"
  fail=1
fi

# The CISTERN_* switches are read once, by the app (host/gpu/settings.c's
# table, cs_cli_read_settings): no code below the app reads the environment.
env_reads=$(grep -n -E '\bgetenv[[:space:]]*\(' pipelines/*.c pipelines/*/*.c host/gpu/*.c host/scene/*.c \
  host/world/*.c host/render/*.c 2>/dev/null | grep -v '^host/gpu/settings.c:' || true)
if [ -n "$env_reads" ]; then
  echo "layering: getenv below the app layer (add the switch to host/gpu/settings.c and read ctx->settings):"
  echo "$env_reads"
  fail=1
fi
[ "$fail" = 0 ] || exit 1
echo "layering: ok (${#order[@]} layers, ${#owner[@]} headers)"
