# Shared by scripts/demo and scripts/test: install what is missing, configure, build.
# Sourced, not executed.
set -euo pipefail

RETRACE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RETRACE_BUILD="${RETRACE_BUILD:-$RETRACE_ROOT/build}"

# Debian 12 packages the build, tests and benchmarks need (README "Dependencies").
RETRACE_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libsqlite3-dev libzstd-dev zstd libsimdjson-dev libcli11-dev libgtest-dev libgmock-dev ripgrep
  libboost-dev libspdlog-dev libmimalloc-dev libssl-dev openssl ca-certificates
  nlohmann-json3-dev dpkg-dev libicu-dev bubblewrap python3 clang
)

# The compiler the scripts build with: clang, which builds retrace about a third faster
# than g++ 12 with the same -O3 (a fresh `retrace` 214 s against 310 s on 2 cores) and
# gives the same speed (docs/PERFORMANCE.md). A plain `cmake` build uses the system's
# default compiler; CI builds the product with g++ too (.ci/run), so both keep working.
RETRACE_CXX="${RETRACE_CXX:-clang++}"


# What only the tests need, each a Debian package named like its command: npm fetches the
# upstream dsh packages and Node 22 that the parity tests run (bench/setup_upstream.sh), and
# Chromium renders the HTML page.
RETRACE_TEST_PACKAGES=(npm chromium)

# Installs the missing packages among "$@" (default: RETRACE_PACKAGES).
retrace_install_deps() {
  local wanted=("$@")
  ((${#wanted[@]})) || wanted=("${RETRACE_PACKAGES[@]}")
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "retrace: installing missing Debian packages: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
}

# Configures and builds the given targets (default: everything).
retrace_build() {
  cmake -S "$RETRACE_ROOT" -B "$RETRACE_BUILD" -G Ninja -DCMAKE_CXX_COMPILER="$RETRACE_CXX" \
    -DCMAKE_BUILD_TYPE=Release -DRETRACE_WERROR=ON >/dev/null
  local targets=()
  (($#)) && targets=(--target "$@")
  cmake --build "$RETRACE_BUILD" -j "$(nproc)" "${targets[@]}"
}

# Configures the AddressSanitizer build, $RETRACE_BUILD-address, and prints its path:
# clang with ASan and UBSan (no recovery) and libFuzzer's coverage, the C library's malloc
# (mimalloc would hide allocations from the sanitizer), line tables for the stacks. One
# build serves scripts/fuzz (the fuzz targets) and scripts/sanitize address (the tests),
# so the libraries both use are compiled once.
# The tool runtime's bodies are coroutines (retrace_engine tells Boost.Asio that clang
# has them: engine/CMakeLists.txt), and clang 14 cannot emit UBSan's function-type check
# in a coroutine ("Cannot represent a difference across sections"), so that one check (of
# calls through mistyped function pointers, which C++ code seldom makes) is off.
retrace_configure_asan() {
  retrace_install_deps clang libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes
  local build="$RETRACE_BUILD-address"
  local flags="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize=function"
  flags+=" -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
  cmake -S "$RETRACE_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DRETRACE_FUZZ=ON -DRETRACE_MIMALLOC=OFF -DRETRACE_BUILD_BENCH=OFF >/dev/null
  echo "$build"
}
