#!/bin/sh
# "Is it faster for my program?": fastmem-bench run on real programs and
# replay's verdict on traces.  No speed is asserted: the shape of the
# output, the errors, and the direction of a verdict where a run is slowed
# on purpose (a 0.3 s sleep on one side only, through --with-env) are.
: "${top_builddir:?}"
set -eu

unset FASTMEM_NT_THRESHOLD FASTMEM_DISABLE FASTMEM_MEMCPY FASTMEM_MEMMOVE \
	FASTMEM_MEMSET FASTMEM_COPY_PAGE FASTMEM_CLEAR_PAGE FASTMEM_TRACE
bench=$top_builddir/fastmem-bench
src=${top_srcdir:-$top_builddir/..}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
python=$(command -v python3 || true)

# run_ok NAME ARGS...: exit 0, output in $dir/NAME.out
run_ok() {
	name=$1
	shift
	"$bench" run --no-progress "$@" >"$dir/$name.out" 2>"$dir/$name.err" ||
		fail "fastmem-bench run $*: exit $?: $(tail -2 "$dir/$name.err")"
}
# verdict NAME: the verdict line of a run
verdict() {
	grep '^verdict: ' "$dir/$1.out" ||
		fail "run $1: no verdict line: $(tail -3 "$dir/$1.out")"
}

# a real program: the medians of both sides and one of the three verdicts
if [ -n "$python" ]; then
	run_ok py --runs 3 -- "$python" -c 'import json; print(len(json.dumps(list(range(20000)))))'
	grep -q '^== run: 3 runs each way' "$dir/py.out" || fail "run: no table"
	grep -Eq '^wall +[0-9.]+ s +[0-9.]+ s +[-+][0-9.]+%' "$dir/py.out" ||
		fail "run: no wall line: $(cat "$dir/py.out")"
	grep -Eq '^cpu +[0-9.]+ s +[0-9.]+ s' "$dir/py.out" || fail "run: no cpu line"
	verdict py | grep -Eq '^verdict: (faster by [0-9.]+% ± [0-9.]+%|slower by [0-9.]+% ± [0-9.]+%|no difference measurable at this noise)' ||
		fail "run: bad verdict: $(verdict py)"
	grep -q 'same [0-9]* bytes on standard output' "$dir/py.out" ||
		fail "run: does not say the outputs agreed"
	grep -q 'libfastmem-preload.so' "$dir/py.out" ||
		fail "run: does not name the preload library"
	echo "bench-run.sh: run on python3: $(verdict py)"
fi

# both directions, from a side slowed on purpose (the program sleeps when
# a variable --with-env sets is there, or when it is not)
run_ok slow --runs 3 --with-env SLOW=1 -- sh -c '[ -z "$SLOW" ] || sleep 0.3; echo ok'
verdict slow | grep -q '^verdict: slower by' ||
	fail "a run slowed with the preload: $(verdict slow)"
run_ok fast --runs 3 --with-env FAST=1 -- sh -c '[ -n "$FAST" ] || sleep 0.3; echo ok'
verdict fast | grep -q '^verdict: faster by' ||
	fail "a run slowed without the preload: $(verdict fast)"
echo "bench-run.sh: run's verdicts: $(verdict slow), $(verdict fast)"

# fewer than 3 runs: no verdict, and said so
run_ok two --runs 2 -- true
verdict two | grep -q 'too few runs' || fail "--runs 2: $(verdict two)"

# errors: one line, exit 1 (the program) or 2 (usage)
expect_error() {
	want=$1 pattern=$2
	shift 2
	rc=0
	"$bench" run --no-progress "$@" >"$dir/e.out" 2>"$dir/e.err" || rc=$?
	[ "$rc" = "$want" ] || fail "run $*: exit $rc, not $want"
	[ "$(wc -l <"$dir/e.err")" = 1 ] ||
		fail "run $*: not one line: $(cat "$dir/e.err")"
	grep -q "$pattern" "$dir/e.err" ||
		fail "run $*: '$(cat "$dir/e.err")' does not say '$pattern'"
}
expect_error 1 'standard output differs with the preload' \
	--with-env OUT=2 -- sh -c 'echo "${OUT:-1}"'
expect_error 1 'exits differently with the preload' \
	--with-env RC=3 -- sh -c 'exit "${RC:-0}"'
expect_error 1 'differs from run to run' -- sh -c 'echo $$'
expect_error 2 'not found in PATH' -- fastmem-no-such-program
expect_error 2 'no PROGRAM' --runs 3
expect_error 2 'no preload library' --preload "$dir/none.so" -- true
expect_error 2 "VAR=VALUE" --with-env NOVALUE -- true
expect_error 2 "runs" --runs 0 -- true
echo "bench-run.sh: run's errors ok"

# JSON: one object with the run and its verdict
if [ -n "$python" ]; then
	"$bench" run --no-progress --json --runs 3 -- true >"$dir/run.json" ||
		fail "run --json exited $?"
	"$python" - "$dir/run.json" <<'EOF' || fail "run --json: $(cat "$dir/run.json")"
import json, sys
r = json.load(open(sys.argv[1]))["run"]
assert r["runs"] == 3 and r["verdict"] in ("faster", "slower", "none"), r
assert r["wall"]["without_median_s"] > 0 and "gain_error" in r["cpu"], r
EOF
fi

# --trace: the program's calls recorded and replayed, with the run time
if [ -n "$python" ]; then
	run_ok trace --runs 3 --trace "$dir/py.trace" -- "$python" -c \
		'import json; [json.dumps(list(range(5000))) for i in range(20)]'
	head -1 "$dir/py.trace" | grep -q '^fastmem-trace 1' ||
		fail "run --trace wrote no trace"
	grep -q '^verdict py: ' "$dir/trace.out" ||
		fail "run --trace: no replay verdict: $(tail -5 "$dir/trace.out")"
	grep -q 'share of the run in these calls with libc: ' "$dir/trace.out" ||
		fail "run --trace: no share of the run"
	grep -q '^replay predicts a saving of .* run measured ' "$dir/trace.out" ||
		fail "run --trace: no prediction beside the measurement"
	if grep -q 'records no run time' "$dir/trace.out"; then
		fail "run --trace: the run time was not used"
	fi
	echo "bench-run.sh: run --trace: $(grep '^replay predicts' "$dir/trace.out")"
	# the same as JSON: the run, then the trace's verdict and prediction
	"$bench" run --no-progress --json --runs 1 --trace "$dir/py2.trace" -- \
		"$python" -c 'import json; [json.dumps(list(range(5000))) for i in range(20)]' \
		>"$dir/trace.json" || fail "run --trace --json exited $?"
	"$python" - "$dir/trace.json" <<'EOF' || fail "run --trace --json: $(cat "$dir/trace.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["run"]["runs"] == 1 and j["run"]["verdict"] == "none", j["run"]
v = j["verdicts"][0]
assert v["name"] == "py2" and v["run_seconds"] > 0 and len(v["arenas"]) == 3, v
assert j["predicted"]["known"] is True, j["predicted"]
EOF
fi

# replay's verdict on a shipped trace: weighted, per million calls (a
# trace records no run time), and one of the verdict forms
fast="-r 3 --batch 50 --no-progress --no-thp --region 64M --no-fixed"
# shellcheck disable=SC2086
"$bench" replay $fast "$src/docs/distributions/git-log-p.trace" \
	>"$dir/replay.out" || fail "replay git-log-p exited $?"
grep -q '^verdict git-log-p: 61.9 k memcpy/memmove and 145 memset calls' \
	"$dir/replay.out" || fail "replay: the verdict does not weigh the counts"
grep -q 'the trace records no run time' "$dir/replay.out" ||
	fail "replay: does not say the trace has no run time"
for a in L1 LLC memory; do
	grep -Eq "^  $a +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s" "$dir/replay.out" ||
		fail "replay verdict: no $a row"
done
grep -Eq '^verdict git-log-p: (faster: saves|slower: costs|no difference measurable|depends on where the data is)' \
	"$dir/replay.out" || fail "replay: bad verdict: $(grep '^verdict' "$dir/replay.out")"
echo "bench-run.sh: $(grep '^verdict git-log-p: [fsnd]' "$dir/replay.out")"

# a tiny trace (the sort | gzip of issue #24: 97 calls) says so
printf 'fastmem-trace 1\ncalls memcpy 50\ncalls memmove 0\ncalls memset 47\nmemcpy 16 50\nmemset 32 47\n' \
	>"$dir/tiny.trace"
# shellcheck disable=SC2086
"$bench" replay $fast "$dir/tiny.trace" >"$dir/tiny.out" ||
	fail "replay of a tiny trace exited $?"
grep -q '^verdict tiny: 50 memcpy + 0 memmove + 47 memset calls: too few calls' \
	"$dir/tiny.out" || fail "replay of a tiny trace: $(tail -2 "$dir/tiny.out")"
# processes that shared a FASTMEM_TRACE path without %p: the file says so
# in a comment, and replay, which skips comments, must say it too: once,
# on stderr, naming the file (#24)
preload=$top_builddir/.libs/libfastmem-preload.so
FASTMEM_TRACE=$dir/shared.trace LD_PRELOAD=$preload \
	sh -c 'seq 300 | sort -r; seq 300 | sort; :' >/dev/null
[ "$(grep -c '^# warning: FASTMEM_TRACE has no %p' "$dir/shared.trace")" -ge 2 ] ||
	fail "shared trace: not two sections with the warning: $(cat "$dir/shared.trace")"
# shellcheck disable=SC2086
"$bench" replay $fast "$dir/shared.trace" >"$dir/shared.out" \
	2>"$dir/shared.err" || fail "replay of a shared trace exited $?"
[ "$(grep -c 'warning' "$dir/shared.err")" = 1 ] &&
	grep -q "^fastmem-bench replay: $dir/shared.trace: warning: FASTMEM_TRACE has no %p and other processes of this run write here too (pid [0-9]" \
		"$dir/shared.err" ||
	fail "replay of a shared trace: not one warning naming the file: $(cat "$dir/shared.err")"
grep -q warning "$dir/shared.out" &&
	fail "replay of a shared trace: the warning went to stdout"
echo "bench-run.sh: ok"
