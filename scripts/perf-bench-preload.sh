#!/bin/sh
# SPDX-License-Identifier: MIT
#
# perf bench mem memcpy/memset -f default (the C library's functions) with
# and without libfastmem-preload.so, interleaved in one run: for each size,
# RUNS rounds of (plain, preloaded); prints the median GB/s of each and the
# ratio (> 1: the preload is faster).  A benchmark, not a test.
#
#   scripts/perf-bench-preload.sh [BUILD_DIR]   (default: build)
#   RUNS=5 LOOPS=5 SIZES="1MB 16MB 256MB 1GB" scripts/perf-bench-preload.sh
set -eu

build=${1:-build}
preload=$build/.libs/libfastmem-preload.so
runs=${RUNS:-5}
loops=${LOOPS:-5}
sizes=${SIZES:-1MB 16MB 256MB 1GB}

if ! command -v perf >/dev/null 2>&1; then
	echo "perf-bench-preload: perf not found (Debian: linux-perf)" >&2
	exit 2
fi
if [ ! -e "$preload" ]; then
	echo "perf-bench-preload: $preload not found; build first" >&2
	exit 2
fi
preload=$(cd "$(dirname "$preload")" && pwd)/$(basename "$preload")

# GB/s of one run (perf prints MB/sec below 1 GB/s); nothing if it failed
one() {
	perf bench mem "$1" -f default -s "$2" -l "$loops" 2>/dev/null |
		awk '$2 == "GB/sec" && $1 + 0 > 0 { print $1 }
		     $2 == "MB/sec" && $1 + 0 > 0 { print $1 / 1000 }'
}

median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-7s %-6s %10s %10s %7s   (%s runs, -l %s, median GB/s)\n' \
	op size glibc preloaded ratio "$runs" "$loops"
for op in memcpy memset; do
	for size in $sizes; do
		: >"$tmp/plain"
		: >"$tmp/pre"
		i=0
		while [ $i -lt "$runs" ]; do
			one "$op" "$size" >>"$tmp/plain"
			export LD_PRELOAD="$preload"
			one "$op" "$size" >>"$tmp/pre"
			unset LD_PRELOAD
			i=$((i + 1))
		done
		a=$(median <"$tmp/plain")
		b=$(median <"$tmp/pre")
		if [ -z "$a" ] || [ -z "$b" ]; then
			printf '%-7s %-6s   no result from perf bench\n' "$op" "$size"
			continue
		fi
		printf '%-7s %-6s %10.1f %10.1f %6.2fx\n' "$op" "$size" \
			"$a" "$b" "$(echo "$b $a" | awk '{ print $1 / $2 }')"
	done
done
