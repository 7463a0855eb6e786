#!/bin/sh
# fastmem-info --pid PID on child processes started without and with
# libfastmem-preload.so, on a process that does not exist, on one it may
# not read (as root: fastmem-info run as nobody), and on a bad PID; and
# the parallel operations' automatic counts in fastmem-info's own report.
: "${top_builddir:?}"
set -eu

info=$top_builddir/fastmem-info
preload=${FMTEST_PRELOAD:-$top_builddir/.libs/libfastmem-preload.so}
dir=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || :; done
	rm -rf "$dir"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# no FASTMEM_* variable (make check exports some): the children hold only
# those the test gives them
for v in $(env | sed -n 's/^\(FASTMEM_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
[ -r "$preload" ] || fail "no preload library at $preload"

# child VAR=VALUE...: a sleeping child with that environment; its PID in $child
child() {
	env "$@" sleep 60 &
	child=$!
	pids="$pids $child"
	# wait until it runs sleep (not env) with its libraries mapped
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(cat "/proc/$child/comm" 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
}
# pid_report NAME PID [OPTIONS]: fastmem-info --pid's output in $dir/NAME
pid_report() {
	name=$1 pid=$2
	shift 2
	"$info" --pid "$pid" "$@" >"$dir/$name" 2>"$dir/$name.err" ||
		fail "fastmem-info --pid $pid $*: exit $?: $(cat "$dir/$name.err")"
}
has() {
	grep -q "$2" "$dir/$1" || fail "$1: no '$2' in: $(cat "$dir/$1")"
}

child
pid_report plain "$child"
has plain '^preload     no: libfastmem-preload.so is not mapped'
has plain '^library     not mapped'
has plain '^settings    no FASTMEM_\* variable'

child LD_PRELOAD="$preload" FASTMEM_MEMCPY=generic FASTMEM_NT_THRESHOLD=1M
pid_report forced "$child"
has forced '^preload     yes: mapped and named in its LD_PRELOAD'
has forced '^library     mapped: .*libfastmem\.so'
has forced '^variants    unknown: .*ptrace'
has forced '^settings    FASTMEM_MEMCPY=generic'
has forced '^            FASTMEM_NT_THRESHOLD=1M'
if command -v python3 >/dev/null 2>&1; then
	pid_report forced.json "$child" --json
	python3 - "$dir/forced.json" <<'EOF' || fail "--pid --json: $(cat "$dir/forced.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["preload"]["mapped"] and r["preload"]["in_ld_preload"], r
assert r["library"]["mapped"] and r["settings"]["FASTMEM_MEMCPY"] == "generic", r
assert r["maps_error"] is None and r["environ_error"] is None, r
EOF
fi

# the same settings as fastmem-info's own: its choice can be inferred
child LD_PRELOAD="$preload"
pid_report same "$child"
has same '^preload     yes'
has same "^variants    inferred: memcpy $("$info" --json | sed -n 's/.*"memcpy":{"selected":"\([^"]*\)".*/\1/p'),"
echo "fastmem-info --pid: without, with the preload and forced settings ok"

# a process that does not exist: one line, exit 1
true &
gone=$!
wait "$gone" || :
rc=0
"$info" --pid "$gone" >"$dir/gone" 2>"$dir/gone.err" || rc=$?
[ "$rc" = 1 ] || fail "--pid of a finished process: exit $rc"
grep -q "^fastmem-info: no process $gone" "$dir/gone.err" ||
	fail "--pid of a finished process: $(cat "$dir/gone.err")"
[ "$(wc -l <"$dir/gone.err")" = 1 ] || fail "--pid of a finished process: not one line"
rc=0
"$info" --pid 12x >/dev/null 2>"$dir/bad.err" || rc=$?
[ "$rc" = 2 ] && grep -q "a process id" "$dir/bad.err" ||
	fail "--pid 12x: exit $rc: $(cat "$dir/bad.err")"

# a process it may not read: as root, fastmem-info as nobody on our child
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$info" --version \
		>/dev/null 2>&1; then
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$info" \
		--pid "$child" >"$dir/denied" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "--pid of a root process as nobody: exit $rc"
	has denied "cannot read /proc/$child/maps: Permission denied (another user's process"
	has denied "cannot read /proc/$child/environ: Permission denied"
	echo "fastmem-info --pid: permission errors ok"
else
	echo "fastmem-info --pid: permission errors not checked (needs root and setpriv)"
fi

# its own process: a line per parallel operation with the basis of the count
"$info" >"$dir/self"
for op in memcpy memset clear_page; do
	has self "^            auto $op *untimed ([0-9]* threads\{0,1\} until the first large call)"
done
FASTMEM_THREADS=1 "$info" >"$dir/self1"
has self1 '^            auto memcpy *1 thread, set by environment (FASTMEM_THREADS)'
if command -v python3 >/dev/null 2>&1; then
	"$info" --json | python3 -c '
import json, sys
a = json.load(sys.stdin)["parallel"]["auto"]
assert set(a) == {"memcpy", "memset", "clear_page"}, a
assert all(v["basis"] == "untimed" and v["split_ratio"] is None for v in a.values()), a
' || fail "fastmem-info --json: no parallel.auto"
fi
# every FASTMEM_* variable of fastmem-info's own environment, known or not
FASTMEM_NT_THRESHOLD=4M FASTMEM_MEMCOPY=avx2 FASTMEM_QQQQQQQQQQQQ=1 \
	"$info" >"$dir/vars" 2>"$dir/vars.err"
# and the library's own warnings about the unknown ones: once each, however
# often fastmem-info asks for the settings
[ "$(wc -l <"$dir/vars.err")" = 2 ] ||
	fail "fastmem-info: not two warnings: $(cat "$dir/vars.err")"
has vars.err '^fastmem: FASTMEM_MEMCOPY is not a libfastmem setting; ignored (did you mean FASTMEM_MEMCPY?)$'
has vars.err '^fastmem: FASTMEM_QQQQQQQQQQQQ is not a libfastmem setting; ignored$'
has vars '^            FASTMEM_NT_THRESHOLD=4M$'
has vars '^            FASTMEM_MEMCOPY: not a setting, ignored (nearest: FASTMEM_MEMCPY)$'
has vars '^            FASTMEM_QQQQQQQQQQQQ: not a setting, ignored$'
echo "info-pid.sh: ok"
