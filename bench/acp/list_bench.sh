#!/usr/bin/env bash
# session/list as an editor's history import asks for it: one page, no cursor,
# over a database of SESSIONS stored sessions (copies of a real dsh fixture,
# each with its own id), delivered to the official ACP SDK client
# (tests/interop/acp_client.mjs, scenario firstpage). Prints each run's
# seconds and the median.
#   bench/acp/list_bench.sh UPSTREAM RETRACE [SESSIONS] [REPS]
set -euo pipefail
upstream=$1 retrace=$2 sessions=${3:-1000} reps=${4:-7}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/logs"
fixture="$root/tests/fixtures/s1-tools-inject.jsonl"
for ((i = 0; i < sessions; i++)); do
  id=$(printf 's-%05d' "$i")
  sed "1s/\"id\":\"s1-tools-inject\"/\"id\":\"$id\"/" "$fixture" >"$work/logs/$id.jsonl"
done
"$retrace" --db "$work/list.db" import "$work/logs" >/dev/null
times=()
for ((r = 0; r < reps; r++)); do
  out=$("$upstream/node22/package/bin/node" "$root/tests/interop/acp_client.mjs" "$upstream" "$retrace" \
    "$work/list.db" firstpage)
  count=$(grep -o '"count":[0-9]*' <<<"$out" | cut -d: -f2)
  seconds=$(grep -o '"seconds":[0-9.e-]*' <<<"$out" | cut -d: -f2)
  [ "$count" = "$sessions" ] || { echo "listed $count of $sessions sessions: $out" >&2; exit 1; }
  times+=("$seconds")
done
printf '%s\n' "${times[@]}" | sort -g | awk -v n="$sessions" '{t[NR] = $1} END {
  printf "session/list, one page of %d sessions, SDK client: median %.1f ms (runs: %d)\n", n, t[int((NR + 1) / 2)] * 1000, NR }'
