#!/usr/bin/env bash
# The docs a newcomer reads (README.md, docs/*.md) stay in step with the tree:
# - every scene file under scenes/ is named in them (its name without .json,
#   as `cistern run NAME` takes it; a scene in a subfolder by its folder/name),
#   so a new scene cannot ship undocumented;
# - every relative link or image in them ([text](path), ![alt](path)) points
#   at a file or folder that exists;
# - every repository path named in them or in a source comment (host/,
#   pipelines/, shaders/, tests/, tools/) names a file that exists, so a move
#   cannot leave a stale path behind (tools/stale_paths.py: what counts as a
#   path, and the short list of names it leaves alone on purpose).
# CTest passes the cistern binary as $1; this check does not need it.
# ctest labels: quick -- 1 (README and docs/ name every scene; links and paths in docs and comments resolve)
set -euo pipefail
cd "$(dirname "$0")/.."
docs=(*.md docs/*.md)
fail=0

# Scenes: the name as a whole word (dam_break_3d must not be satisfied by
# dam_break_3d_surface, nor reint_3d by level_reint_3d).
while IFS= read -r scene; do
  rel=${scene#scenes/}
  name=${rel%.json}
  if ! grep -q -E "(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)" "${docs[@]}"; then
    echo "docs_check: scene $scene is not named in README.md or docs/*.md (write \"$name\" where it belongs: docs/scenes.md, \"Shipped scenes\")"
    fail=1
  fi
done < <(find scenes -name '*.json' | sort)

# Links: markdown [text](target) and ![alt](target); external (scheme:) and
# in-page (#anchor) targets are not checked; "path#anchor" checks the path.
for doc in "${docs[@]}"; do
  dir=$(dirname "$doc")
  while IFS=: read -r line target; do
    target=${target%%#*}
    target=${target%% *}   # [text](path "title")
    [ -z "$target" ] && continue
    case $target in
      *://*|mailto:*) continue ;;
    esac
    if [ ! -e "$dir/$target" ]; then
      echo "docs_check: $doc:$line: link to $target, which does not exist ($dir/$target)"
      fail=1
    fi
  done < <(grep -n -o -E '\]\([^)]+\)' "$doc" | sed -E 's/^([0-9]+):\]\((.*)\)$/\1:\2/')
done

# Paths in prose and comments (git ls-files is the tree it checks against).
if ! python3 tools/stale_paths.py; then
  echo "docs_check: the paths above name no file of the repository (moved or renamed? write the current path, or reword)"
  fail=1
fi

if [ "$fail" -ne 0 ]; then
  exit 1
fi
echo "docs_check: ok (${#docs[@]} pages, $(find scenes -name '*.json' | wc -l) scenes named, links and paths resolve)"
