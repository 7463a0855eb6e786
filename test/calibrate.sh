#!/bin/sh
# fastmem-bench calibrate end to end: it writes its thresholds into the
# config file (keeping the lines it does not own, creating the directory
# when it uses the XDG default), --dry-run writes nothing, and a new
# process (fastmem-info) then reports exactly the written thresholds with
# source "config (PATH)".  A short cold-only run, so that streaming wins
# somewhere and there is always something to write.
: "${top_builddir:?}"
set -eu

# settings of the caller's shell would change what fastmem-info reports
unset FASTMEM_NT_THRESHOLD FASTMEM_DISABLE FASTMEM_MEMCPY FASTMEM_MEMMOVE \
	FASTMEM_MEMSET FASTMEM_COPY_PAGE FASTMEM_CLEAR_PAGE
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
short="--quick --no-progress --basis cold --mode cold --sizes 64K,8M --region 128M -r 3"

# 1. FASTMEM_CONFIG names an existing file with a line of the user's own
conf=$dir/cfg/fastmem.conf
mkdir -p "$dir/cfg"
printf '# mine\nmemmove = generic\n' >"$conf"
cp "$conf" "$dir/before"
# shellcheck disable=SC2086 # $short is a list of options
FASTMEM_CONFIG=$conf "$bench" calibrate $short --dry-run >"$dir/dry.out" 2>&1 ||
	fail "calibrate --dry-run exited $?"
cmp -s "$conf" "$dir/before" || fail "--dry-run changed $conf"
if grep -q "^nothing to write" "$dir/dry.out" &&
	grep -q "nothing to calibrate" "$dir/dry.out"; then
	# no streaming variant to compare on this CPU (generic, most ppc64)
	echo "SKIP: calibrate has nothing to calibrate here" >&2
	exit 77
fi
grep -q "would write to $conf" "$dir/dry.out" || fail "--dry-run output"

# shellcheck disable=SC2086
FASTMEM_CONFIG=$conf "$bench" calibrate $short >"$dir/out" ||
	fail "calibrate exited $?"
grep -q "^wrote $conf (from FASTMEM_CONFIG" "$dir/out" ||
	fail "calibrate did not say it wrote $conf"
grep -qx 'memmove = generic' "$conf" || fail "the user's line was dropped"
grep -qx '# mine' "$conf" || fail "the user's comment was dropped"
grep -q '^nt_threshold\.' "$conf" ||
	fail "no threshold written (cold streaming never won?): $(cat "$dir/out")"

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
env -u FASTMEM_CONFIG XDG_CONFIG_HOME="$dir/xdg" "$bench" calibrate $short \
	>"$dir/xdg.out" || fail "calibrate (XDG) exited $?"
grep -q '^nt_threshold\.' "$dir/xdg/fastmem/fastmem.conf" ||
	fail "nothing written to \$XDG_CONFIG_HOME/fastmem/fastmem.conf"
env -u FASTMEM_CONFIG XDG_CONFIG_HOME="$dir/xdg" "$info" |
	grep -q "config ($dir/xdg/fastmem/fastmem.conf)" ||
	fail "fastmem-info does not read the XDG default"

# 4. --system writes the system config (here FASTMEM_SYSTEM_CONFIG's), as
# root only, 0644 whatever the umask, and a new process reads it; a user's
# own config still outranks it
sys=$dir/etc/fastmem.conf
if [ "$(id -u)" = 0 ]; then
	# shellcheck disable=SC2086
	(umask 002 && FASTMEM_CONFIG= FASTMEM_SYSTEM_CONFIG=$sys "$bench" \
		calibrate $short --system >"$dir/sys.out") ||
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
