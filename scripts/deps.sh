#!/bin/sh
# Install the Debian packages ptm needs to build and test, and only those missing.
# Idempotent; silent when everything is present. Usage: scripts/deps.sh [--fuzz] [--bench]
#   --fuzz   also install clang and its sanitizer/fuzzer runtime (make fuzz,
#            fuzz-plan, fuzz-data, fuzz-trace)
#   --bench  also install the benchmarks' peers (make bench, make bench-peers):
#            R's glmnet, liblinear's command-line tools and gensim (scikit-learn
#            is installed always: the tests use it)
set -eu

pkgs="make gcc flex bison libyaml-dev liblua5.4-dev zlib1g-dev check pkg-config libopenmpi-dev openmpi-bin"
pkgs="$pkgs librsvg2-bin libxml2-utils" # tests/cli.sh checks the SVG of ptm plan
pkgs="$pkgs graphviz" # and that Graphviz reads its --dot
pkgs="$pkgs libjansson-dev" # ptm plan and ptm report read run traces (JSON) with jansson
# tests/cli.sh loads the page of ptm report in headless chromium (about 350 MB:
# a test that a real browser shows the page, which no validator does)
pkgs="$pkgs chromium"
# tests/cli.sh checks the intercepts and examples/kmeans against scikit-learn
# (/usr/bin/python3)
pkgs="$pkgs python3-sklearn python3-scipy python3-numpy"
for arg in "$@"; do
    case "$arg" in
    --fuzz) pkgs="$pkgs clang libclang-rt-14-dev" ;;
    --bench) pkgs="$pkgs r-cran-glmnet r-cran-matrix"
        pkgs="$pkgs liblinear-tools python3-gensim" ;;
    *) echo "usage: scripts/deps.sh [--fuzz] [--bench]" >&2; exit 2 ;;
    esac
done

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
        echo "deps: need root to install:$missing" >&2; exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
# shellcheck disable=SC2086
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >&2
