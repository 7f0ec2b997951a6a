#!/usr/bin/env bash
# docs/scenes.md's key reference (between its "scene keys" markers) is
# generated from the scene key tables by `cistern help --scene-keys-markdown`;
# this fails when the committed section differs from what the binary prints:
# a key added, removed or reworded in a table without regenerating the docs.
# $1 is the cistern binary; with --write as $2 it rewrites the section.
# ctest labels: quick -- 0.01 (docs/scenes.md's key reference against the key tables)
set -uo pipefail
cistern=${1:?usage: scene_keys_docs.sh path/to/cistern [--write]}
docs="$(dirname "$0")/../docs/scenes.md"
begin='<!-- BEGIN scene keys -->'
end='<!-- END scene keys -->'
out=$(mktemp) section=$(mktemp)
trap 'rm -f "$out" "$section"' EXIT
"$cistern" help --scene-keys-markdown > "$out" || { echo "FAIL: cistern help --scene-keys-markdown exited $?" >&2; exit 1; }
if [ "$(grep -c -x -F -e "$begin" -e "$end" "$docs")" != 2 ]; then
  echo "FAIL: docs/scenes.md must hold one line \"$begin\" and one \"$end\"" >&2
  exit 1
fi
if [ "${2:-}" = --write ]; then
  awk -v b="$begin" -v e="$end" -v gen="$out" '
    $0 == b { print; while ((getline line < gen) > 0) print line; skip = 1; next }
    $0 == e { skip = 0 }
    !skip { print }' "$docs" > "$section" && cp "$section" "$docs"
  echo "wrote the key reference into docs/scenes.md"
  exit 0
fi
awk -v b="$begin" -v e="$end" '$0 == e { inside = 0 } inside { print } $0 == b { inside = 1 }' "$docs" > "$section"
if ! diff -u "$section" "$out"; then
  echo "FAIL: docs/scenes.md's key reference differs from \`cistern help --scene-keys-markdown\`" \
       "(above: - the file, + the tables); regenerate it: bash tests/scene_keys_docs.sh build/release/cistern --write" >&2
  exit 1
fi
echo PASS
