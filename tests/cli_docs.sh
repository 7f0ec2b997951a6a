#!/usr/bin/env bash
# docs/cli.md is generated from the option tables (each command's file under host/app/) by
# `cistern help --markdown`; this fails when the committed file differs from
# what the binary prints: an option added, removed or reworded in a table
# without regenerating the docs. $1 is the cistern binary.
# ctest labels: quick -- 0.01 (docs/cli.md against `cistern help --markdown`)
set -uo pipefail
cistern=${1:?usage: cli_docs.sh path/to/cistern}
docs="$(dirname "$0")/../docs/cli.md"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$cistern" help --markdown > "$out" || { echo "FAIL: cistern help --markdown exited $?" >&2; exit 1; }
if ! diff -u "$docs" "$out"; then
  echo "FAIL: docs/cli.md differs from \`cistern help --markdown\` (above: - the file, + the tables);" \
       "regenerate it: build/release/cistern help --markdown > docs/cli.md" >&2
  exit 1
fi
echo PASS
