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
