#!/bin/sh
# fastmem-bench calibrate end to end: it writes its thresholds into the
# config file (keeping the lines it does not own and its own comments above
# them, dropping those above the lines it replaces, creating the directory
# when it uses the XDG default), --dry-run writes nothing, and a new
# process (fastmem-info) then reports exactly the written thresholds with
# source "config (PATH)".  A short cold-only run.  calibrate writes only
# what it measured beyond the cells' noise, and nothing with --quick: the
# runs take their cells as quiet (FMTEST_BENCH_FORCE_SPREAD=0, a hook for
# tests), and section 0 checks that a noisy measurement and --quick write
# nothing and say why.  Whether streaming wins on the machine that runs
# the test is not the test's business (on a loaded host it may not, and
# then there is nothing to write): the sections that must write take
# streaming as 1.5x faster at every size (FMTEST_BENCH_FORCE_RATIO, the
# other hook); sections 0 and 4 decide on what they measured.
: "${top_builddir:?}"
set -eu

# settings of the caller's shell would change what fastmem-info reports
unset FASTMEM_NT_THRESHOLD FASTMEM_DISABLE FASTMEM_MEMCPY FASTMEM_MEMMOVE \
	FASTMEM_MEMSET FASTMEM_COPY_PAGE FASTMEM_CLEAR_PAGE FASTMEM_THREADS
bench=$top_builddir/fastmem-bench
info=$top_builddir/fastmem-info
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is needed to read fastmem-info --json" >&2
	exit 77
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# has_lines LINES FILE: FILE holds LINES, one after the other, whole
has_lines() {
	python3 -c 'import sys
sys.exit(("\n%s\n" % sys.argv[1]) not in "\n" + open(sys.argv[2]).read())' \
		"$1" "$2"
}
short="--no-progress --batch 200 --basis cold --mode cold --sizes 64K,8M --region 128M -r 3"
FMTEST_BENCH_FORCE_SPREAD=0
export FMTEST_BENCH_FORCE_SPREAD

# 0. cells noisier than any effect (forced: every cell spread ±10^8 %), and
# --quick (cells as quiet as can be): nothing written, every decision says
# why, and the file is untouched
nconf=$dir/ncfg/fastmem.conf
mkdir -p "$dir/ncfg"
printf 'memmove = generic\nstream_cold.memcpy = 5M\n' >"$nconf"
cp "$nconf" "$dir/before"
for case in noisy quick; do
	if [ $case = noisy ]; then
		spread=1000000 extra=""
	else
		spread=0 extra="--quick"
	fi
	# shellcheck disable=SC2086
	FMTEST_BENCH_FORCE_SPREAD=$spread FASTMEM_CONFIG=$nconf "$bench" \
		calibrate $short --basis both --mode hot,cold $extra \
		>"$dir/$case.out" 2>&1 || fail "calibrate ($case) exited $?"
	cmp -s "$nconf" "$dir/before" ||
		fail "calibrate ($case) changed $nconf: $(cat "$nconf")"
	grep -q "^nothing to write to $nconf" "$dir/$case.out" ||
		fail "calibrate ($case) did not say it wrote nothing: $(cat "$dir/$case.out")"
	grep -q 'WRITTEN' "$dir/$case.out" &&
		fail "calibrate ($case) claims a key written: $(cat "$dir/$case.out")"
	# the summary lists every key it can write, each with its reason
	for key in nt_threshold.memcpy nt_threshold.memset stream_cold.memcpy \
		stream_cold.memset rep_from.memcpy rep_from.memset; do
		grep -q "^   $key.*: not written" "$dir/$case.out" ||
			fail "calibrate ($case): $key missing from the summary"
	done
done
# a decision that had a value says why it was not written (where neither
# copies nor sets have anything to compare, as in the portable build, none
# has a value, and step 1 skips the rest)
if [ "$(grep -c 'nothing to calibrate$' "$dir/noisy.out")" -lt 2 ]; then
	grep -q 'within the noise' "$dir/noisy.out" ||
		fail "calibrate (noisy): no decision blames the noise: $(cat "$dir/noisy.out")"
	grep -q 'FMTEST_BENCH_FORCE_SPREAD' "$dir/noisy.out" ||
		fail "calibrate (noisy): the forced spread is not named"
fi
if grep -q ' = [0-9a-z]*: not written' "$dir/quick.out"; then
	grep -q -- '--quick: a quick run' "$dir/quick.out" ||
		fail "calibrate --quick: a measured key without the --quick reason"
fi
echo "calibrate.sh: noisy cells and --quick write nothing, and say why"
# sections 1, 3 and 5 must write: their runs take streaming as the winner
won=FMTEST_BENCH_FORCE_RATIO=1.5

# 1. FASTMEM_CONFIG names an existing file with a line of the user's own
# and two of an earlier calibration's, each under our comments: a threads
# cap (a run without --parallel leaves it, and the comments above it stay)
# and a threshold (13M, no size this run measures: a new one replaces it,
# and its comment goes with it)
conf=$dir/cfg/fastmem.conf
mkdir -p "$dir/cfg"
old_threads='# fastmem-bench calibrate, 2000-01-01 00:00, libfastmem 0
# fastmem-bench calibrate --parallel: old cap
threads = 2'
old_thr='# fastmem-bench calibrate: copy, avx2_nt against avx2: old threshold
nt_threshold.memcpy = 13M'
# and a cold crossover, which a run that writes no new one leaves alone
old_cold='# fastmem-bench calibrate: copy cold: old cold crossover
stream_cold.memcpy = 5M'
printf '# mine\nmemmove = generic\n%s\n%s\n%s\nnt_threshold.memmove = 13M\n' \
	"$old_threads" "$old_thr" "$old_cold" >"$conf"
cp "$conf" "$dir/before"
# shellcheck disable=SC2086 # $short is a list of options
env "$won" FASTMEM_CONFIG=$conf "$bench" calibrate $short --dry-run \
	>"$dir/dry.out" 2>&1 ||
	fail "calibrate --dry-run exited $?"
cmp -s "$conf" "$dir/before" || fail "--dry-run changed $conf"
if grep -q "^nothing to write" "$dir/dry.out" &&
	grep -q "nothing to calibrate" "$dir/dry.out"; then
	# no streaming variant to compare on this CPU (generic, most ppc64)
	echo "SKIP: calibrate has nothing to calibrate here" >&2
	exit 77
fi
grep -q "would write to $conf" "$dir/dry.out" || fail "--dry-run output"
grep -q "FMTEST_BENCH_FORCE_RATIO" "$dir/dry.out" ||
	fail "the forced ratio is not named: $(cat "$dir/dry.out")"

# shellcheck disable=SC2086
env "$won" FASTMEM_CONFIG=$conf "$bench" calibrate $short >"$dir/out" ||
	fail "calibrate exited $?"
grep -q "^wrote $conf (from FASTMEM_CONFIG" "$dir/out" ||
	fail "calibrate did not say it wrote $conf"
grep -qx 'memmove = generic' "$conf" || fail "the user's line was dropped"
grep -qx '# mine' "$conf" || fail "the user's comment was dropped"
has_lines "$old_threads" "$conf" ||
	fail "our comments above a kept line were dropped: $(cat "$conf")"
if grep -qx 'nt_threshold.memcpy = 13M' "$conf"; then
	has_lines "$old_thr" "$conf" ||
		fail "our comment above a kept threshold was dropped"
elif grep -q 'old threshold$' "$conf"; then
	fail "the comment of a replaced threshold was kept: $(cat "$conf")"
fi
# the cold crossover is written only with --basis both: this run (basis
# cold) leaves the old line and its comment as they were
has_lines "$old_cold" "$conf" ||
	fail "a cold crossover this run did not write was dropped: $(cat "$conf")"
# a threshold under this run's header (the user's 13M line does not count)
awk '/^# fastmem-bench calibrate, / && !/2000-01-01/ { mine = 1 }
	mine && /^nt_threshold\./ { found = 1 }
	END { exit !found }' "$conf" ||
	fail "no threshold written: $(cat "$dir/out")"

# 2. a new process sees exactly what was written
FASTMEM_CONFIG=$conf "$info" --json >"$dir/info.json"
python3 - "$conf" "$dir/info.json" <<'EOF'
import json, sys

conf, info = sys.argv[1], json.load(open(sys.argv[2]))
ops = info["operations"]
units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
seen = 0
for line in open(conf):
    line = line.strip()
    if not line.startswith("nt_threshold."):
        continue
    key, val = (x.strip() for x in line.split("=", 1))
    op = key.split(".", 1)[1]
    if val == "never":
        want = None  # fastmem-info --json: null
    else:
        want = int(val.rstrip("KMG")) * units[val[-1] if val[-1] in "KMG" else ""]
    got = ops[op]
    assert got["nt_threshold"] == want, (op, got["nt_threshold"], want)
    assert got["nt_threshold_source"] == "config (%s)" % conf, got
    seen += 1
assert seen, "no nt_threshold lines"
mm = ops["memmove"]
assert (mm["selected"], mm["reason"]) == ("generic", "config (%s)" % conf), mm
print("calibrate.sh: %d thresholds read back from %s" % (seen, conf))
EOF

# 3. without FASTMEM_CONFIG: $XDG_CONFIG_HOME/fastmem/fastmem.conf, created
# shellcheck disable=SC2086
env -u FASTMEM_CONFIG "$won" XDG_CONFIG_HOME="$dir/xdg" "$bench" \
	calibrate $short >"$dir/xdg.out" || fail "calibrate (XDG) exited $?"
grep -q '^nt_threshold\.' "$dir/xdg/fastmem/fastmem.conf" ||
	fail "nothing written to \$XDG_CONFIG_HOME/fastmem/fastmem.conf"
env -u FASTMEM_CONFIG XDG_CONFIG_HOME="$dir/xdg" "$info" |
	grep -q "config ($dir/xdg/fastmem/fastmem.conf)" ||
	fail "fastmem-info does not read the XDG default"

# 4. --trace: a bad or missing file is refused before anything runs; with
# --dry-run the config stays byte-identical; a real run writes only keys a
# new process accepts (which keys, if any, depends on timing: not asserted)
distdir=${top_srcdir:-$top_builddir/../..}/docs/distributions
trace=$distdir/git-log-p.trace
[ -r "$trace" ] || fail "no shipped trace at $trace"
printf 'fastmem-trace 1\nmemcpy 12 oops\n' >"$dir/bad.trace"
for t in "$dir/bad.trace" "$dir/missing.trace"; do
	cp "$conf" "$dir/before"
	rc=0
	FASTMEM_CONFIG=$conf "$bench" calibrate --dry-run --trace "$t" \
		>"$dir/bad.out" 2>"$dir/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "--trace $t: exit $rc, not 2"
	grep -q "fastmem-bench calibrate: --trace $t" "$dir/bad.err" ||
		fail "--trace $t: no message naming it: $(cat "$dir/bad.err")"
	cmp -s "$conf" "$dir/before" || fail "--trace $t changed $conf"
done
cp "$conf" "$dir/before"
# shellcheck disable=SC2086
FASTMEM_CONFIG=$conf "$bench" calibrate $short --dry-run --trace "$trace" \
	>"$dir/tdry.out" 2>&1 || fail "calibrate --trace --dry-run exited $?"
cmp -s "$conf" "$dir/before" || fail "--trace --dry-run changed $conf"
grep -q "^== calibrate --trace: the memcpy variant" "$dir/tdry.out" ||
	fail "--trace: no variant report: $(cat "$dir/tdry.out")"
tconf=$dir/tcfg/fastmem.conf
mkdir -p "$dir/tcfg"
printf 'memmove = generic\nnt_threshold.clear_page = 8M\nstream_cold.memset = 2M\n' \
	>"$tconf"
# the current memcpy forced to generic, so that a variant key is likely
# (not required) to be written
# shellcheck disable=SC2086
FASTMEM_MEMCPY=generic FASTMEM_CONFIG=$tconf "$bench" calibrate $short \
	--trace "$trace" --json >"$dir/t.json" 2>"$dir/t.err" ||
	fail "calibrate --trace exited $?: $(cat "$dir/t.err")"
grep -qx 'nt_threshold.clear_page = 8M' "$tconf" ||
	fail "--trace dropped or rewrote nt_threshold.clear_page"
grep -qx 'memmove = generic' "$tconf" ||
	fail "--trace dropped the user's memmove line"
# git's memsets are at most 12 bytes: no limit of the set pair can change
# them, so it is not measured and its lines stay
grep -qx 'stream_cold.memset = 2M' "$tconf" ||
	fail "--trace dropped stream_cold.memset of a pair it did not measure"

FASTMEM_CONFIG=$tconf "$info" --json >"$dir/tinfo.json" 2>"$dir/tinfo.err"
[ ! -s "$dir/tinfo.err" ] ||
	fail "fastmem-info warns about what --trace wrote: $(cat "$dir/tinfo.err")"
python3 - "$tconf" "$dir/tinfo.json" "$dir/t.json" <<'EOF2'
import json, sys

conf, info = sys.argv[1], json.load(open(sys.argv[2]))
cal = json.load(open(sys.argv[3]))["calibration"]
assert "trace" in cal and cal["trace"]["files"], cal
ops = info["operations"]
for line in open(conf):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    key, val = (x.strip() for x in line.split("=", 1))
    if key in ("memcpy", "memmove", "memset"):
        assert ops[key]["selected"] == val, (key, ops[key])
        assert ops[key]["reason"] == "config (%s)" % conf, ops[key]
    elif key.startswith("nt_threshold."):
        src = ops[key.split(".", 1)[1]]["nt_threshold_source"]
        assert src == "config (%s)" % conf, (key, src)
    else:
        assert key.startswith(("stream_cold.", "rep_from.")), key
for v in cal["trace"]["variants"]:
    if v["chosen"]:
        assert ops[v["op"]]["selected"] == v["chosen"], v
print("calibrate.sh: --trace wrote only accepted keys")
EOF2

# 4b. --parallel: --dry-run writes nothing; a real run replaces the threads
# line with one (its value depends on timing: not asserted) that a new
# process reports as the cap of the parallel calls, from the config
pconf=$dir/pcfg/fastmem.conf
mkdir -p "$dir/pcfg"
printf 'threads = 7\nmemmove = generic\n' >"$pconf"
cp "$pconf" "$dir/before"
pshort="--no-progress --batch 200 --mode hot --sizes 4K -r 3 --parallel"
# shellcheck disable=SC2086
FASTMEM_CONFIG=$pconf "$bench" calibrate $pshort --dry-run \
	>"$dir/pdry.out" 2>&1 || fail "calibrate --parallel --dry-run exited $?"
cmp -s "$pconf" "$dir/before" || fail "--parallel --dry-run changed $pconf"
# shellcheck disable=SC2086
FASTMEM_CONFIG=$pconf "$bench" calibrate $pshort --json >"$dir/p.json" \
	2>"$dir/p.err" || fail "calibrate --parallel exited $?: $(cat "$dir/p.err")"
grep -qx 'memmove = generic' "$pconf" || fail "--parallel dropped a user line"
FASTMEM_CONFIG=$pconf "$info" --json >"$dir/pinfo.json"
python3 - "$pconf" "$dir/pinfo.json" "$dir/p.json" <<'EOF3'
import json, sys

conf, info = sys.argv[1], json.load(open(sys.argv[2]))
cal = json.load(open(sys.argv[3]))["calibration"]["parallel"]
lines = [l.split("=")[1].strip() for l in open(conf) if l.startswith("threads")]
assert len(lines) == 1, lines
par = info["parallel"]
if info["parallel"]["cpus"] < 2 or cal["threads"] == 0:
    # one CPU, or the best count within the noise of the 5% line: kept
    assert cal["threads"] == 0 and lines == ["7"], (cal, lines)
else:
    assert 1 <= cal["threads"] <= par["cpus"], cal
    assert lines == [str(cal["threads"])], (lines, cal)
    assert par["cap"] == cal["threads"], par
    assert par["cap_source"] == "config (%s)" % conf, par
    assert par["threads"] <= cal["threads"], par
print("calibrate.sh: --parallel wrote threads =", lines[0])
EOF3

# 4c. the rep crossovers (x86 with ERMS), measured hot: whatever they find
# (timing: not asserted), the JSON reports both, a key is written exactly
# when a crossover was found, and a new process uses it (notes: "(config)")
rconf=$dir/rcfg/fastmem.conf
mkdir -p "$dir/rcfg"
: >"$rconf"
FASTMEM_CONFIG=$rconf "$bench" calibrate --batch 200 --no-progress --mode hot \
	--sizes 4K -r 3 --json >"$dir/r.json" 2>"$dir/r.err" ||
	fail "calibrate --mode hot exited $?: $(cat "$dir/r.err")"
FASTMEM_CONFIG=$rconf "$info" --json >"$dir/rinfo.json"
python3 - "$rconf" "$dir/rinfo.json" "$dir/r.json" <<'EOF4'
import json, sys

conf, info = sys.argv[1], json.load(open(sys.argv[2]))
rep = json.load(open(sys.argv[3]))["calibration"]["rep"]
assert [r["key"] for r in rep] == ["rep_from.memcpy", "rep_from.memset"], rep
lines = {}
for line in open(conf):
    if line.startswith("rep_from"):
        key, val = (x.strip() for x in line.split("=", 1))
        lines[key] = val
for r in rep:
    if r["from"] is None:
        assert r["key"] not in lines, (r, lines)
    else:
        assert r["measured"] and r["key"] in lines, (r, lines)
for key in lines:
    what = "copies rep movsb from" if key.endswith("memcpy") else "rep stosb from"
    assert what in info["notes"] and "(config)" in info["notes"], info["notes"]
print("calibrate.sh: rep crossovers", [(r["key"], r["from"]) for r in rep])
EOF4

# 5. --system writes the system config (here FASTMEM_SYSTEM_CONFIG's), as
# root only, 0644 whatever the umask, and a new process reads it; a user's
# own config still outranks it
sys=$dir/etc/fastmem.conf
if [ "$(id -u)" = 0 ]; then
	# shellcheck disable=SC2086
	(umask 002 && env "$won" FASTMEM_CONFIG= FASTMEM_SYSTEM_CONFIG=$sys \
		"$bench" calibrate $short --system >"$dir/sys.out") ||
		fail "calibrate --system exited $?"
	grep -q "^wrote $sys (from --system" "$dir/sys.out" ||
		fail "calibrate --system did not say it wrote $sys"
	[ "$(stat -c %a "$sys")" = 644 ] || fail "$sys is not 0644"
	FASTMEM_CONFIG= FASTMEM_SYSTEM_CONFIG=$sys "$info" 2>"$dir/sys.err" |
		grep -q "streams from .*: config ($sys)" ||
		fail "fastmem-info does not read the system config: $(cat "$dir/sys.err")"
	FASTMEM_CONFIG=$conf FASTMEM_SYSTEM_CONFIG=$sys "$info" |
		grep -q "streams from .*: config ($conf)" ||
		fail "the system config outranks the user's"
else
	# shellcheck disable=SC2086
	if FASTMEM_SYSTEM_CONFIG=$sys "$bench" calibrate $short --system \
		>/dev/null 2>"$dir/sys.err"; then
		fail "calibrate --system succeeded without root"
	fi
	grep -q "only root may do" "$dir/sys.err" ||
		fail "calibrate --system without root: $(cat "$dir/sys.err")"
	[ ! -e "$sys" ] || fail "calibrate --system wrote $sys without root"
fi
echo "calibrate.sh: ok"
