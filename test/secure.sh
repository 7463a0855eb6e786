#!/bin/bash
# A privileged program linked with libfastmem ignores its caller: run as an
# unprivileged user, a setuid-root, a setgid-root and two file-capability
# copies of fastmem-info must not read FASTMEM_* variables, the file named by
# FASTMEM_CONFIG or the caller's XDG config, must show none of those files'
# bytes, and must still apply the system config.  (The setuid copy is caught
# by its differing ids, the setgid one by its unreadable /proc/self/auxv; the
# cap_dac_read_search copy can read its auxv, its environment and the
# secret, so only the AT_SECURE entry stands between it and them.)  A system
# config that root does not own, that others may write, or that is a
# symbolic link (to /proc/self/environ, say) is ignored with a warning.
#
# Usage: test/secure.sh FASTMEM-INFO
#   FASTMEM-INFO: a fastmem-info linked statically with libfastmem (a
#   --disable-shared build), whose system config path (configure
#   --sysconfdir) is a directory this script may write.  Needs root (it
#   makes setuid files and runs them as nobody); exits 77 (skip) otherwise.
set -u
info=${1:?usage: secure.sh FASTMEM-INFO}
fail=0
checks=0
ok() { checks=$((checks + 1)); }
bad() {
	echo "FAIL: $*"
	fail=$((fail + 1))
	checks=$((checks + 1))
}

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (makes setuid files, runs them as nobody)"
	exit 77
fi
if ! command -v setpriv >/dev/null || ! command -v python3 >/dev/null; then
	echo "SKIP: needs setpriv (util-linux) and python3"
	exit 77
fi
if ! head -c 4 "$info" | grep -q ELF; then
	echo "FAIL: $info is not an ELF program (build with --disable-shared)"
	exit 1
fi

dir=$(mktemp -d /tmp/fastmem-secure-test.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
if findmnt -n -o OPTIONS -T "$dir" | grep -qw nosuid; then
	echo "SKIP: $dir is on a nosuid file system"
	exit 77
fi

field() { # JSON-FILE PYTHON-EXPRESSION-OVER-j
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# The system config this build reads (the caller cannot move it).
env -i "$info" --json >"$dir/plain.json" || { bad "fastmem-info --json"; exit 1; }
sys=$(field "$dir/plain.json" 'j["settings"]["system_config"]["path"]')
case $sys in
/tmp/*) ;;
*)
	echo "SKIP: system config $sys is not a scratch path (configure this" \
		"build with --sysconfdir=/tmp/...)"
	exit 77
	;;
esac
mkdir -p "$(dirname "$sys")"
chmod 755 "$(dirname "$sys")"
# a setting to see applied, and a bad line whose text must not be echoed
printf 'memcpy = generic\nnt_threshold = 3M\nSYSTEM-LINE-NOT-SHOWN = 1\n' >"$sys"
chown root:root "$sys"
chmod 644 "$sys"

# A root-only file that the caller names, with a line every warning would
# quote, and settings that must not take effect.
secret=$dir/secret
printf 'TOP-SECRET-TOKEN-4711\nmemmove = generic\nmemcpy = erms\n' >"$secret"
chmod 640 "$secret" # the setgid-root copy could read it
# the caller's XDG default, world-readable: it must not apply either
mkdir -p "$dir/xdg/fastmem"
printf 'XDG-TOKEN-0815\nmemmove = generic\n' >"$dir/xdg/fastmem/fastmem.conf"
chmod -R a+rX "$dir/xdg"

install -o root -g root -m 4755 "$info" "$dir/info-setuid"
install -o root -g root -m 2755 "$info" "$dir/info-setgid"
install -o root -g root -m 0755 "$info" "$dir/info-caps"
install -o root -g root -m 0755 "$info" "$dir/info-dac"
have_caps=no
if command -v setcap >/dev/null && setcap cap_net_raw+ep "$dir/info-caps" &&
	setcap cap_dac_read_search+ep "$dir/info-dac"; then
	have_caps=yes
fi

caller_env=(FASTMEM_CONFIG="$secret" FASTMEM_MEMCPY=sse2 FASTMEM_MEMSET=generic
	FASTMEM_NT_THRESHOLD=1K FASTMEM_DISABLE=avx2,erms FASTMEM_SYSTEM_CONFIG=/dev/null
	FASTMEM_UNKNOWN_TO_LIBFASTMEM=1 HOME=/root XDG_CONFIG_HOME=/root)
xdg_env=(FASTMEM_MEMSET=generic XDG_CONFIG_HOME="$dir/xdg")
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- env -i "$@"
}

# --- positive control: the same program and settings, not privileged -----
# (proves this script would see a leak and a setting taking effect)
env -i "${caller_env[@]}" FASTMEM_SYSTEM_CONFIG="$sys" "$dir/info-setuid" \
	--json >"$dir/root.json" 2>"$dir/root.err"
[ "$(field "$dir/root.json" 'j["operations"]["memmove"]["reason"]')" = \
	"config ($secret)" ] && ok ||
	bad "control: the caller's config was not read when not privileged"
env -i "${xdg_env[@]}" "$dir/info-setuid" --json >"$dir/root-xdg.json" \
	2>"$dir/root-xdg.err"
grep -q XDG-TOKEN-0815 "$dir/root-xdg.err" && ok ||
	bad "control: the XDG config's bad line was not quoted when not privileged"
[ "$(field "$dir/root-xdg.json" 'j["operations"]["memset"]["reason"]')" = \
	"environment (FASTMEM_MEMSET)" ] && ok ||
	bad "control: FASTMEM_MEMSET did not apply when not privileged"
grep -q 'FASTMEM_UNKNOWN_TO_LIBFASTMEM is not a libfastmem setting' \
	"$dir/root.err" && ok ||
	bad "control: no warning about an unknown variable when not privileged"
[ "$(field "$dir/root.json" 'j["settings"]["secure"]')" = False ] && ok ||
	bad "control: secure mode without privilege"
[ "$(field "$dir/root.json" 'j["operations"]["memcpy"]["selected"]')" = sse2 ] &&
	ok || bad "control: FASTMEM_MEMCPY did not apply"

# --- privileged runs -------------------------------------------------------
run_privileged() { # NAME PROGRAM
	local name=$1 prog=$2 out=$dir/$1.json err=$dir/$1.err
	if ! as_nobody "${caller_env[@]}" "$prog" --json >"$out" 2>"$err"; then
		bad "$name: fastmem-info failed: $(head -3 "$err")"
		return
	fi
	as_nobody "${caller_env[@]}" "$prog" >"$dir/$name.txt" 2>&1
	as_nobody "${xdg_env[@]}" "$prog" --json >"$dir/$name-xdg.json" \
		2>"$dir/$name-xdg.err"
	if grep -q -e TOP-SECRET -e 'memcpy = erms' -e SYSTEM-LINE-NOT-SHOWN \
		-e XDG-TOKEN "$out" "$err" "$dir/$name.txt" "$dir/$name-xdg.json" \
		"$dir/$name-xdg.err"; then
		bad "$name: bytes of a file reached the output: $(cat "$err")"
	else
		ok
	fi
	[ "$(field "$out" 'j["settings"]["secure"]')" = True ] && ok ||
		bad "$name: not in secure mode"
	# the environment is not read: not even an unknown name is mentioned
	grep -q 'not a libfastmem setting' "$err" &&
		bad "$name: warned about the caller's variables: $(cat "$err")" ||
		ok
	grep -q 'secure mode: caller settings ignored' "$dir/$name.txt" && ok ||
		bad "$name: fastmem-info text does not say secure mode"
	[ "$(field "$out" 'j["settings"]["user_config"]["state"]')" = \
		"ignored: secure-execution mode" ] && ok ||
		bad "$name: user config state"
	[ "$(field "$out" 'j["settings"]["system_config"]["path"]')" = "$sys" ] &&
		ok || bad "$name: FASTMEM_SYSTEM_CONFIG moved the system config"
	local sel reason nt feats usable memset memmove
	sel=$(field "$out" 'j["operations"]["memcpy"]["selected"]')
	reason=$(field "$out" 'j["operations"]["memcpy"]["reason"]')
	memset=$(field "$out" 'j["operations"]["memset"]["reason"]')
	memmove=$(field "$out" 'j["operations"]["memmove"]["reason"]')
	nt=$(field "$out" 'j["operations"]["memset"]["nt_threshold"]')
	feats=$(field "$out" 'j["cpu"]["features"]')
	usable=$(field "$out" 'j["cpu"]["usable_features"]')
	[ "$sel/$reason" = "generic/config ($sys)" ] && ok ||
		bad "$name: memcpy is $sel ($reason), want generic from $sys"
	[ "$memset" = auto ] && ok || bad "$name: FASTMEM_MEMSET applied ($memset)"
	[ "$memmove" = auto ] && ok || bad "$name: the caller's config applied"
	[ "$nt" = $((3 << 20)) ] && ok ||
		bad "$name: nt_threshold $nt, want the system config's 3M"
	[ "$feats" = "$usable" ] && ok || bad "$name: FASTMEM_DISABLE applied"
	[ "$(field "$dir/$name-xdg.json" 'j["operations"]["memmove"]["reason"]')" = \
		auto ] && ok || bad "$name: the caller's XDG config applied"
}
run_privileged setuid "$dir/info-setuid"
run_privileged setgid "$dir/info-setgid"
if [ $have_caps = yes ]; then
	run_privileged caps "$dir/info-caps"
	run_privileged dac "$dir/info-dac"
else
	echo "note: setcap unavailable; the file-capability case was not run"
fi

# --- a system config that is not root's alone is ignored, with a warning ----
unsafe() { # NAME WANT-IN-WARNING
	local name=$1 want=$2
	env -i "$info" --json >"$dir/$name.json" 2>"$dir/$name.err"
	grep -q "system config \"$sys\" $want; ignored" "$dir/$name.err" && ok ||
		bad "$name: no warning '$want': $(cat "$dir/$name.err")"
	[ "$(field "$dir/$name.json" 'j["operations"]["memcpy"]["reason"]')" = auto ] &&
		ok || bad "$name: the unsafe system config was applied"
}
chown 65534 "$sys"
unsafe owner "is not owned by root (or is a symbolic link)"
chown root "$sys"
chmod 664 "$sys"
unsafe group-writable "is writable by group or others"
chmod 646 "$sys"
unsafe other-writable "is writable by group or others"
chmod 644 "$sys"
rm "$sys"
mkfifo "$sys"
unsafe fifo "is not a regular file"
rm "$sys"
# a link to a root-owned file whose lines the caller controls
ln -s /proc/self/environ "$sys"
unsafe symlink "is not owned by root (or is a symbolic link)"
rm "$sys"

echo "secure.sh: $((checks - fail)) passed, $fail failed"
[ $fail -eq 0 ]
