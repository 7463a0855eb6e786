#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fastmem-bench versus, RUNS times (a pause between runs), then for every
# cell the median of its per-run ratios (fastmem over glibc, each measured
# interleaved within its run) and their range.  On a shared machine the
# absolute speed of the same call moves a lot from minute to minute; the
# ratio within a run moves less, and its median over runs less again.
#
#   scripts/versus-runs.sh [BUILD_DIR]          (default: build)
#   RUNS=6 PAUSE=15 scripts/versus-runs.sh build
# Keeps the runs' CSV files in $KEEP if it is set.
set -eu

build=${1:-build}
runs=${RUNS:-6}
pause=${PAUSE:-15}
bench=$build/fastmem-bench
if [ ! -x "$bench" ]; then
	echo "versus-runs: $bench not found; build first" >&2
	exit 2
fi
dir=${KEEP:-$(mktemp -d)}
mkdir -p "$dir"
rm -f "$dir"/run*.csv
[ -n "${KEEP:-}" ] || trap 'rm -rf "$dir"' EXIT

i=1
while [ $i -le "$runs" ]; do
	echo "versus-runs: run $i of $runs" >&2
	"$bench" versus --csv --no-progress >"$dir/run$i.csv"
	[ $i -eq "$runs" ] || sleep "$pause"
	i=$((i + 1))
done
sed -n '1,8s/^# //p' "$dir/run1.csv"

# CSV columns: table,point,bytes,series,flags,unit,median,q1,q3,min,max,
# ratio,paired_ratio,tsc_per_op,samples,status (quoted fields hold no
# commas).  One line per cell in first-seen order; a cell that was not
# measured or gave a wrong result in some run is counted and flagged.
cat "$dir"/run*.csv | grep -v '^#' | grep -v '^table,' | grep . |
	awk -F, -v runs="$runs" '
	$5 == "\"ref\"" { next }
	{
		key = $1 SUBSEP $2 SUBSEP $4
		if (!(key in n)) { order[++cells] = key; n[key] = 0 }
		if ($16 != "ok") { bad[key]++; next }
		v[key, ++n[key]] = $12
	}
	END {
		for (c = 1; c <= cells; c++) {
			key = order[c]; split(key, f, SUBSEP)
			gsub(/"/, "", f[1]); gsub(/"/, "", f[2]); gsub(/"/, "", f[3])
			if (f[1] != table) {
				table = f[1]
				printf "== %s: ratio to the reference, %d runs\n", table, runs
				printf "   %-8s %-15s %7s %15s\n", "size", "series", "median", "range"
			}
			m = n[key]
			if (!m) {
				printf "   %-8s %-15s no valid run\n", f[2], f[3]
				continue
			}
			for (i = 1; i <= m; i++) a[i] = v[key, i] + 0
			for (i = 2; i <= m; i++)	# insertion sort
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
			extra = (key in bad) ? sprintf("  (%d runs not ok)", bad[key]) : ""
			printf "   %-8s %-15s %6.2fx %7.2f-%.2fx%s\n", f[2], f[3], med,
				a[1], a[m], extra
		}
	}'
