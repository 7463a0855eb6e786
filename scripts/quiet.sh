#!/bin/sh
# SPDX-License-Identifier: MIT
#
# quiet.sh CMD [ARGS...]: run CMD alone on the last CPU.  Every other task
# that may move is moved to the other CPUs for the run, and given its own
# CPU set back afterwards, also when CMD fails or is interrupted: a task
# left pinned would pin every process it starts later (a CI run started
# from a shell left on CPU 0 took 450 s for a native stage that took
# 316 s on both CPUs).  The measurement pages call it /tmp/quiet.sh; as root (moving
# other users' tasks needs it).
#
#   scripts/quiet.sh ./build/fastmem-bench replay
set -u
if [ $# -eq 0 ]; then
	echo "usage: quiet.sh CMD [ARGS...]" >&2
	exit 2
fi
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -lt 2 ]; then
	echo "quiet.sh: one CPU online: running the command unpinned" >&2
	exec "$@"
fi
last=$((ncpu - 1))
saved=$(mktemp) || exit 2
# the mask taskset -p prints for the other CPUs
others=$(taskset -c "0-$((last - 1))" sh -c 'taskset -p $$') || exit 2
others=${others##*: }
# tasks started during the run with the narrowed set inherited it: every
# CPU for them
restore() {
	while read -r pid mask; do
		taskset -p "$mask" "$pid" >/dev/null 2>&1
	done <"$saved"
	for pid in $(ps -eo pid=); do
		grep -q "^$pid " "$saved" && continue
		mask=$(taskset -p "$pid" 2>/dev/null) || continue
		[ "${mask##*: }" = "$others" ] &&
			taskset -pc "0-$last" "$pid" >/dev/null 2>&1
	done
	rm -f "$saved"
}
trap 'restore; exit 130' INT TERM
for pid in $(ps -eo pid=); do
	[ "$pid" = $$ ] && continue
	mask=$(taskset -p "$pid" 2>/dev/null) || continue
	echo "$pid ${mask##*: }" >>"$saved"
	taskset -pc "0-$((last - 1))" "$pid" >/dev/null 2>&1
done
taskset -c "$last" "$@"
rc=$?
restore
exit $rc
