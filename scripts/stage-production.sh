#!/bin/sh
# Lays out what production runs, in <dir>: the files package.json names under "files" (the
# compiled build in dist/, the migrations, the two plain-JS npm helpers) plus package.json and
# package-lock.json, ready for `npm ci --omit=dev --omit=optional`. Run `npm run build` first.
# The Dockerfile and the production system test both use this script.
set -eu
dest=${1:?usage: scripts/stage-production.sh <dir>}
cd "$(dirname "$0")/.."
[ -d dist/src/bin ] || { echo "stage-production: no build in dist/: run npm run build" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(npm pack --silent --pack-destination "$work")
mkdir -p "$dest"
tar -xzf "$work/$tarball" -C "$dest" --strip-components=1
cp package-lock.json "$dest/"
