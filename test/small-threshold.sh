#!/bin/sh
# The policies' streaming paths, at sizes the default thresholds (tens of
# MiB) never reach in the main run: the guard-page suite again with a small,
# odd threshold, so every size above ~20 KB streams.
: "${top_builddir:?}"
FASTMEM_NT_THRESHOLD=20001 FASTMEM_TEST_QUICK=1
export FASTMEM_NT_THRESHOLD FASTMEM_TEST_QUICK
# shellcheck disable=SC2086 # TEST_RUNNER is a command prefix
exec ${TEST_RUNNER:-} "$top_builddir/test/check_variants"
