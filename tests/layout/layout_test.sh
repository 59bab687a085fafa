#!/usr/bin/env bash
# The layout's dependency rule (README, "Layout"): each folder includes only the folders it
# may use. Prints every include that breaks it, with file and line, and fails if any does.
#
#   tests/layout/layout_test.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"

# folder: the project folders its files may include (besides itself and the public API).
declare -A may_use=(
  [core/internal]=""
  [core/pretokenize]="core/internal"
  [core/count]="core/internal core/pretokenize"
  [core/train]="core/internal core/pretokenize core/count"
  [core/encode]="core/internal core/pretokenize"
  [core/formats]="core/internal core/pretokenize core/count core/train"
  [input]="core/internal core/pretokenize core/formats"
  [parallel]="core/internal core/pretokenize core/count core/train core/encode core/formats input"
  [api]="core/internal core/pretokenize core/count core/train core/encode core/formats input parallel"
  [distributed]=""
  [cli]="distributed"
  [python]=""
)
project='core/[a-z]+|input|parallel|api|distributed|cli|python|bench|tests|fuzz'
broken=0
for folder in "${!may_use[@]}"; do
  allowed=" $folder ${may_use[$folder]} "
  while IFS=: read -r file line text; do
    target=$(sed -E "s@.*#include \"(${project})/.*@\1@" <<<"$text")
    if [[ "$allowed" != *" $target "* ]]; then
      echo "$file:$line: $folder may not include $target/ ($text)"
      broken=1
    fi
  done < <(grep -rnE "^#include \"(${project})/" "$folder" --include='*.h' --include='*.cc' || true)
done
if [ "$broken" -eq 0 ]; then echo "layout: every include follows the dependency rule"; fi
exit "$broken"
