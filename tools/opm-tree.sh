#!/usr/bin/env bash
# Assembles the opm source tree the Go peers build in: operator-registry v1.32.0's sources on
# v1.26.5's vendor/ (the newest whose dependencies build with Go 1.19), plus the x/text packages
# v1.26.5 did not vendor (cases, internal), copied from Debian's golang-golang-x-text-dev 0.7.0,
# which must match vendor/ (v0.7.0).
#
#   tools/opm-tree.sh SRC GIT     SRC: the tree to make (wiped first); GIT: a clone of
#                                 operator-framework/operator-registry with tags
# Used by tools/catalogd-walk/build.sh and tools/catalog-filter/build.sh (--mirror).
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
src=$1 git=$2
case "$src" in /|/tmp|/tmp/|"$HOME"|"") exit 2;; esac
rm -rf "$src"; mkdir -p "$src/donor"
git -C "$git" archive v1.32.0 | tar -x -C "$src"
git -C "$git" archive v1.26.5 -- vendor go.mod go.sum \
  ':(exclude)vendor/github.com/mattn/go-sqlite3/sqlite3-binding.c' 2> >(grep -v "invalid object .*sqlite3-binding.c" >&2) | tar -x -C "$src/donor"
rm -rf "$src/vendor"; mv "$src/donor/vendor" "$src/donor/go.mod" "$src/donor/go.sum" "$src/"; rmdir "$src/donor"
grep -q '^# golang.org/x/text v0.7.0$' "$src/vendor/modules.txt" || { echo "vendor/ x/text is not v0.7.0" >&2; exit 1; }
[ "$(dpkg-query -W -f='${Version}' golang-golang-x-text-dev | sed 's/^[0-9]*://; s/[-+~].*//')" = 0.7.0 ] \
  || { echo "need golang-golang-x-text-dev 0.7.0" >&2; exit 1; }
for p in cases internal; do
  mkdir -p "$src/vendor/golang.org/x/text/$p"
  find "/usr/share/gocode/src/golang.org/x/text/$p" -maxdepth 1 -name '*.go' ! -name '*_test.go' \
    -exec cp {} "$src/vendor/golang.org/x/text/$p/" \;
  sed -i "/^# golang.org\/x\/text v0.7.0\$/{n;s#\$#\ngolang.org/x/text/$p#}" "$src/vendor/modules.txt"
done
