#!/bin/sh
# Compare the built library's ABI with the committed baseline (abi/granular.abi).
# Any change fails, except added functions. After an intended change (a new function, a field
# appended to a def struct), regenerate the baseline: scripts/update-abi.
# usage: check_abi.sh LIBRARY BASELINE HEADERS_DIR
set -u
lib=$1
base=$2
headers=$3
if ! command -v abidw >/dev/null 2>&1 || ! command -v abidiff >/dev/null 2>&1; then
    echo "abigail-tools not installed: skipped"
    exit 77
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
abidw --no-corpus-path --headers-dir "$headers" "$lib" > "$tmp" || { echo "abidw failed"; exit 1; }
abidiff --no-added-syms --headers-dir2 "$headers" "$base" "$tmp"
rc=$?
if [ $rc -eq 0 ]; then
    echo "ABI matches the baseline"
    exit 0
fi
echo "abidiff exit status $rc: the ABI differs from $base"
echo "If the change is intended and compatible (docs/abi.md), run scripts/update-abi and commit the new baseline."
exit 1
