#!/bin/sh
# The policies' streaming paths, at sizes the default thresholds (tens of
# MiB) never reach in the main run: the guard-page suite again
#  1. with a small, odd threshold, so every size above ~20 KB streams;
#  2. with the residency probe on and a small cold crossover, so that every
#     size above ~20 KB is probed (reading only inside the buffers, as the
#     guard pages check) and streams or not as the probe finds.
# (The main run has the probe on at the default crossovers; run 1 has it
# out of the way: a threshold set alone is a size policy.)  Only the calls
# of 16 KiB or more: nothing smaller reaches either setting, and the main
# run has checked every smaller size already.
: "${top_builddir:?}"
FMTEST_QUICK=1
FMTEST_MIN_SIZE=16384
export FMTEST_QUICK FMTEST_MIN_SIZE
unset FASTMEM_NT_THRESHOLD FASTMEM_STREAM_COLD FASTMEM_PROBE
# shellcheck disable=SC2086 # TEST_RUNNER is a command prefix
FASTMEM_NT_THRESHOLD=20001 ${TEST_RUNNER:-} "$top_builddir/test/check_variants" ||
	exit 1
# shellcheck disable=SC2086
exec env FASTMEM_STREAM_COLD=20001 FASTMEM_PROBE=on \
	${TEST_RUNNER:-} "$top_builddir/test/check_variants"
