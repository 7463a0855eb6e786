#!/bin/sh
# ab.sh DIR A_BUILD B_BUILD ROUNDS [replay options]: an A/B of two builds.
# Each round runs A's fastmem-bench replay with B's library as
# --peer fm=, then B's with A's, into DIR/A.N and DIR/B.N, for
# `summarise.py ab DIR`.  QUIET: a command to run each replay under (the
# measurements here used a script that moved every other task to CPU 0
# and ran the replay on CPU 1).
set -eu
dir=$1 a=$2 b=$3 r=$4
shift 4
mkdir -p "$dir"
cp "$a/.libs/libfastmem.so.0.1.0" "$dir/libA.so"
cp "$b/.libs/libfastmem.so.0.1.0" "$dir/libB.so"
for i in $(seq 1 "$r"); do
	(cd "$a" && ${QUIET:-} ./fastmem-bench replay --peer fm="$dir/libB.so" \
		"$@" >"$dir/A.$i" 2>&1)
	(cd "$b" && ${QUIET:-} ./fastmem-bench replay --peer fm="$dir/libA.so" \
		"$@" >"$dir/B.$i" 2>&1)
done
