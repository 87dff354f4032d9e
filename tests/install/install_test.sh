#!/usr/bin/env bash
# The install as a tool author meets it (README "Installing"): retrace installed
# into a fresh prefix; examples/tool-author configured, built and tested against
# it with find_package(retrace); the pkg-config file usable; and the Debian
# packages built, their dependencies declared and the packaged CLI running.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

step() { echo "== $*"; }

step "cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
"$prefix/bin/retrace" --version
test -f "$prefix/include/retrace/testing/replay_stability.h"
test -f "$prefix/include/retrace/engine/json/nlohmann.h"
test -x "$prefix/share/retrace/adapters/dsh-presenters.mjs"

step "examples/tool-author against the installed package"
cmake -S "$src/examples/tool-author" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/example" -j 2 >/dev/null
ctest --test-dir "$work/example" --output-on-failure
# The installed CLI checks the example's corpus with the tool's own presenters.
"$prefix/bin/retrace" check "$src/examples/tool-author/corpus" --golden "$src/examples/tool-author/golden" \
  --strict --presenters-cmd "$work/example/forecast-presenters"

step "old calls of the example tool (revisions 1 and 2) replay and load with today's cards"
# The tool's presenters upcast them (examples/tool-author/forecast_tool.cc): replay
# gives the golden cards, and ACP's session/load the rich titles, not the generic card.
example=$src/examples/tool-author
"$prefix/bin/retrace" replay "$example/corpus/forecast-rev1-lima-cairo.jsonl" --format cards \
  --presenters-cmd "$work/example/forecast-presenters" | cmp - "$example/golden/forecast-rev1-lima-cairo.cards.json"
"$prefix/bin/retrace" --db "$work/forecast.db" import "$example/corpus" >/dev/null
load() {
  printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}' \
    '{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"forecast-rev1-lima-cairo","cwd":"/tmp","mcpServers":[]}}' |
    "$prefix/bin/retrace" --db "$work/forecast.db" acp "$@" 2>/dev/null
}
load --presenters-cmd "$work/example/forecast-presenters" | grep -q '"title":"Forecast for Lima"'
if load | grep -q '"title":"Forecast for Lima"'; then
  echo "without the tool's presenters session/load should show the generic card" >&2
  exit 1
fi

# migrate --rewrite writes them at revision 3, and their cards stay the same.
"$prefix/bin/retrace" --db "$work/forecast.db" migrate --rewrite "$work/forecast-v3.db" \
  --presenters-cmd "$work/example/forecast-presenters" | grep -q "6 tool calls to their current revision"
"$prefix/bin/retrace" check "$work/forecast-v3.db" --strict --presenters-cmd "$work/example/forecast-presenters" |
  grep -q "tool forecast: 6 at revision 3, 4 recorded, 0 upcast"

step "the installed headers reach each other as <retrace/...> only"
# A header that included "store/x.h" would need include/retrace on the consumer's
# path, where retrace's layer names collide with a project's own folders.
if grep -rn -E '^\s*#\s*include\s*"' "$prefix/include/retrace"; then
  echo "installed headers include each other by in-tree paths (above)" >&2
  exit 1
fi

step "examples/tool-author with clang, -Wpedantic -Werror"
if command -v clang++ >/dev/null; then
  cmake -S "$src/examples/tool-author" -B "$work/example-clang" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror" >/dev/null
  cmake --build "$work/example-clang" -j 2 >/dev/null
  ctest --test-dir "$work/example-clang" --output-on-failure | tail -n 3
  # CMake passes the package's headers as -isystem, which hides their warnings: here
  # every installed header is an ordinary -I include, and the replay assertion is
  # used with no options (a GNU `, ##__VA_ARGS__` would fail this).
  (cd "$prefix/include" && find retrace -name '*.h' | sort | sed 's/.*/#include <&>/') >"$work/all_headers.cc"
  echo 'TEST(Headers, ReplayAssertionWithoutOptions) { EXPECT_REPLAYS_STABLY("corpus", "golden"); }' >>"$work/all_headers.cc"
  clang++ -std=c++20 -Wall -Wextra -Wpedantic -Werror -I"$prefix/include" \
    -DBOOST_ASIO_HAS_CO_AWAIT -DBOOST_ASIO_HAS_STD_COROUTINE -fsyntax-only "$work/all_headers.cc"
else
  echo "skipped: clang++ is not installed (scripts/lint and .ci/run install it)"
fi

step "pkg-config"
pc="$(find "$prefix" -name retrace.pc)"
flags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs --static retrace)
echo "$flags"
cat > "$work/pc.cc" <<'CC'
#include <retrace/engine/json/parser.h>
#include <retrace/engine/json/writer.h>
int main() { return retrace::json::Serialize(retrace::json::Parse("[1]").value()) == "[1]" ? 0 : 1; }
CC
# shellcheck disable=SC2086  # the flags are words
c++ -std=c++20 "$work/pc.cc" -o "$work/pc" $flags
"$work/pc"

step "cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$work/deb" >/dev/null)
cli_deb=$(ls "$work"/deb/retrace_*.deb)
dev_deb=$(ls "$work"/deb/retrace-dev_*.deb)
dpkg-deb -f "$cli_deb" Package Version Depends
dpkg-deb -f "$dev_deb" Package Depends
dpkg-deb -f "$cli_deb" Depends | grep libsqlite3 >/dev/null
dpkg-deb -f "$dev_deb" Depends | grep libsqlite3-dev >/dev/null
dpkg-deb -x "$cli_deb" "$work/unpacked"
"$work/unpacked/usr/bin/retrace" --version
test -x "$work/unpacked/usr/share/retrace/adapters/dsh-presenters.mjs"
dpkg-deb -c "$dev_deb" | grep "usr/include/retrace/testing/replay_stability.h" >/dev/null
dpkg-deb -c "$dev_deb" | grep "retrace-config.cmake" >/dev/null
echo "install test: ok"
