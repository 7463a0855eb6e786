#!/bin/bash
# Fresh Debian 12 -> built libfastmem, fastmem-info, and a short benchmark
# against the C library.  Usage: scripts/demo.sh   (as root or with sudo)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
autoreconf -fi
mkdir -p build
(cd build && ../configure -q && make -j"$(nproc)" -s)
echo
./build/fastmem-info
echo
./build/fastmem-bench versus --quick
