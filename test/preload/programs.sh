#!/usr/bin/env bash
# programs.sh - run programs nobody here wrote with and without the libfastmem
# preload library and require byte-identical results.
#
# Every case runs the same command three times:
#   plain     no LD_PRELOAD
#   preload   LD_PRELOAD=$FMTEST_PRELOAD
#   bindnow   LD_PRELOAD=$FMTEST_PRELOAD LD_BIND_NOW=1
# and fails when a preloaded run exits non-zero or crashes, when its stdout or
# any output file differs from the plain run by a single byte, or when it
# prints anything on stderr that the plain run did not print.
#
# Automake test protocol: exit 0 pass, 1 fail, 77 skip.  The whole script
# skips only when the preload library is missing; a case whose program is not
# installed is reported as SKIP and the others still run.
#
# Environment:
#   FMTEST_PRELOAD          absolute path of libfastmem-preload.so (required)
#   FMTEST_STRESS           path of the compiled stress program (optional)
#   top_srcdir              the source tree (test/preload/early*.c); default
#                           two directories above this script
#   TMPDIR                  where temporary files go (default /tmp)
#   FMTEST_DATA_MIB         size of the generated data file (default 100,
#                           64 with FMTEST_QUICK)
#   FMTEST_STRESS_SECONDS   duration of each stress run (default 2, 1 with
#                           FMTEST_QUICK)
#   FMTEST_RUN_TIMEOUT      seconds before one run is killed (default 300)
#   FMTEST_KEEP_TMP         if non-empty, keep the temporary directory
#   FMTEST_CASES            if set, only run the cases whose names it lists
#                           (space-separated)
#
# Debian packages used: coreutils, diffutils, gzip, sed, mawk (awk), xz-utils,
# python3, git, gcc (+ libc6-dev), linux-perf, binutils (nm), openssl
# (optional: fast data generation; python3 or awk are the fallbacks).

# The case_* functions are only called indirectly (by name, from bash -c).
# shellcheck disable=SC2317

set -u -o pipefail

export LC_ALL=C TZ=UTC
unset LD_PRELOAD LD_BIND_NOW LD_DEBUG LD_DEBUG_OUTPUT

# ---------------------------------------------------------------------------
# Inputs.

if [[ -z ${FMTEST_PRELOAD:-} ]]; then
	echo "SKIP: FMTEST_PRELOAD is not set"
	exit 77
fi
if [[ ! -f $FMTEST_PRELOAD ]]; then
	echo "SKIP: preload library $FMTEST_PRELOAD not found"
	exit 77
fi
case $FMTEST_PRELOAD in
/*) ;;
*) FMTEST_PRELOAD=$PWD/$FMTEST_PRELOAD ;;
esac
export FMTEST_PRELOAD
if [[ -n ${FMTEST_STRESS:-} && $FMTEST_STRESS != /* ]]; then
	FMTEST_STRESS=$PWD/$FMTEST_STRESS
fi
export FMTEST_STRESS
EARLY_SRC=${top_srcdir:-$(dirname "$0")/../..}/test/preload
[[ -d $EARLY_SRC ]] && EARLY_SRC=$(cd "$EARLY_SRC" && pwd)
export EARLY_SRC

# FMTEST_QUICK (distcheck's second run, the generic and clang stages):
# 64 MiB, the least the python3 case copies, and one second of stress
if [[ -n ${FMTEST_QUICK:-} && ${FMTEST_QUICK:-} != 0 ]]; then
	DATA_MIB=${FMTEST_DATA_MIB:-64}
	STRESS_SECONDS=${FMTEST_STRESS_SECONDS:-1}
else
	DATA_MIB=${FMTEST_DATA_MIB:-100}
	STRESS_SECONDS=${FMTEST_STRESS_SECONDS:-2}
fi
RUN_TIMEOUT=${FMTEST_RUN_TIMEOUT:-300}
export DATA_MIB STRESS_SECONDS

n_pass=0 n_fail=0 n_skip=0

pass() { echo "PASS: $1"; n_pass=$((n_pass + 1)); }
fail() { echo "FAIL: $1 ($2)"; n_fail=$((n_fail + 1)); }
skip() { echo "SKIP: $1 ($2)"; n_skip=$((n_skip + 1)); }

summary() {
	local line="$n_pass passed, $n_fail failed"
	((n_skip > 0)) && line+=", $n_skip skipped"
	echo "$line"
	((n_fail > 0)) && exit 1
	((n_pass == 0)) && exit 77
	exit 0
}

# ld.so splits LD_PRELOAD at spaces and colons.
if [[ $FMTEST_PRELOAD == *[[:space:]:]* ]]; then
	fail setup "preload path '$FMTEST_PRELOAD' contains a space or colon, which LD_PRELOAD cannot express"
	summary
fi

have() { command -v "$1" >/dev/null 2>&1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fastmem-programs.XXXXXX") || {
	echo "programs.sh: cannot create a temporary directory" >&2
	exit 99
}
cleanup() {
	if [[ -n ${FMTEST_KEEP_TMP:-} ]]; then
		echo "programs.sh: temporary files kept in $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
RUN_PID=
on_signal() {
	if [[ -n $RUN_PID ]]; then
		kill -TERM "$RUN_PID" 2>/dev/null
		wait "$RUN_PID" 2>/dev/null
	fi
	exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP
export WORK

# ---------------------------------------------------------------------------
# Test data, generated once (without the preload) and shared by all cases.

# gen_random BYTES FILE: write BYTES deterministic pseudo-random bytes to
# FILE, quickly if openssl or python3 is there.
gen_random() {
	local n=$1 f=$2
	if have openssl; then
		# AES-128-CTR keystream with a fixed key: fast and reproducible.
		head -c "$n" < <(openssl enc -aes-128-ctr -nosalt \
			-K 6661737465737464617461206b657921 \
			-iv 000000000000000000000000000000 -in /dev/zero 2>/dev/null) >"$f"
		[[ $(stat -c %s "$f") -eq $n ]] && return 0
	fi
	if have python3; then
		python3 -c '
import random, sys
r, n, out = random.Random(20240601), int(sys.argv[1]), sys.stdout.buffer
while n > 0:
    k = min(n, 1 << 22)
    out.write(r.getrandbits(8 * k).to_bytes(k, "little"))
    n -= k
' "$n" >"$f"
		[[ $(stat -c %s "$f") -eq $n ]] && return 0
	fi
	# Slow path: 1 MiB of awk-generated hex text, repeated with a counter.
	local blk i=0
	blk=$(awk 'BEGIN { x = 12345; for (i = 0; i < 16384; i++) {
		x = (x * 69069 + 1) % 4294967296
		printf "%08x %08x %08x %08x %08x %08x %08x\n", x, x % 65521, x % 9973,
			(x * 7) % 2147483647, x % 251, (x * 3) % 2147483629, i }}')
	{
		while ((i * ${#blk} < n)); do
			printf '%s %d\n' "$blk" "$i"
			i=$((i + 1))
		done
	} | head -c "$n" >"$f"
	[[ $(stat -c %s "$f") -eq $n ]]
}

DATA=$WORK/data.bin      # DATA_MIB MiB of pseudo-random bytes
TEXT=$WORK/text.txt      # ~20 MiB of text, ~650k lines of varying length
SORTED=$WORK/sorted.txt  # TEXT sorted (plain sort)
MIX=$WORK/mix.bin        # ~20 MiB compressible mix for gzip/xz
SRC=$WORK/src            # sources for gcc and python
export DATA TEXT SORTED MIX SRC

setup_data() {
	local mib=1048576 i
	gen_random $((DATA_MIB * mib)) "$DATA" || return 1
	DATA_SHA=$(sha256sum <"$DATA") || return 1
	DATA_SHA=${DATA_SHA%% *}
	export DATA_SHA

	# base64 text cut into lines at '+' and '/': lines of random length
	# (0 to a few hundred bytes), including empty ones.
	# shellcheck disable=SC2020 # two single characters, both to newline
	{ head -c $((15 * mib)) "$DATA" | base64 -w0 | tr '+/' '\n\n' && echo; } >"$TEXT" || return 1
	sort "$TEXT" >"$SORTED" || return 1

	head -c 65536 "$DATA" >"$WORK/blk64k" || return 1
	head -c 20000 "$TEXT" >"$WORK/blk20k" || return 1
	{
		seq 1 1500000
		head -c $((3 * mib / 2)) "$DATA" | od -An -tx1 -v -w32
		tail -c $((2 * mib)) "$DATA"
		for ((i = 0; i < 32; i++)); do cat "$WORK/blk64k"; done
		for ((i = 0; i < 100; i++)); do cat "$WORK/blk20k"; done
	} >"$MIX" || return 1
	rm -f "$WORK/blk64k" "$WORK/blk20k"

	mkdir -p "$SRC" || return 1
	write_sources
}

write_sources() {
	cat >"$SRC/prog.c" <<'EOF'
/* A small program that moves a lot of memory around with libc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	char name[40];
	unsigned key;
	double value;
};

static int by_key(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

int main(void)
{
	enum { N = 50000 };
	struct rec *r = malloc(N * sizeof *r), tmp;
	size_t cap = 4u << 20, len = 0;
	char *buf = malloc(cap);
	unsigned x = 12345, h = 5381;

	if (!r || !buf)
		return 1;
	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		memset(&r[i], 0, sizeof r[i]);
		snprintf(r[i].name, sizeof r[i].name, "item-%08x-%d", x, i);
		r[i].key = x >> 20;
		r[i].value = i * 0.5;
	}
	qsort(r, N, sizeof *r, by_key);
	for (int i = 0; i + 1 < N; i += 2) {
		tmp = r[i];
		r[i] = r[i + 1];
		r[i + 1] = tmp;
	}
	for (int i = 0; i < N; i++) {
		size_t l = strlen(r[i].name);
		if (len + l + 1 > cap)
			break;
		memcpy(buf + len, r[i].name, l);
		len += l;
		buf[len++] = (char)(i % 2 ? '\n' : ' ');
	}
	/* Overlapping moves in both directions. */
	for (size_t k = 1; k < 4096 && k < len; k += 97) {
		memmove(buf + k, buf, len - k);
		memmove(buf, buf + k / 2, len - k / 2);
	}
	memset(buf + len / 3, '#', len / 5);
	for (size_t i = 0; i < len; i++)
		h = h * 33u ^ (unsigned char)buf[i];
	printf("%u records, %zu bytes, hash %08x\n", N, len, h);
	printf("first %s key %u, last %s key %u\n", r[0].name, r[0].key,
	       r[N - 1].name, r[N - 1].key);
	free(buf);
	free(r);
	return 0;
}
EOF
	# A translation unit with large initialisers and string literals.
	awk 'BEGIN {
		x = 7
		print "const unsigned table[60000] = {"
		for (i = 0; i < 60000; i++) {
			x = (x * 69069 + 1) % 4294967296
			printf "%u,%s", x, (i % 8 == 7 ? "\n" : " ")
		}
		print "};"
		print "const char *const strings[] = {"
		for (i = 0; i < 3000; i++) {
			x = (x * 69069 + 1) % 4294967296
			printf "\"string %d %x %x %x\",\n", i, x, x % 65521, x % 251
		}
		print "};"
		print "struct big { char c[4096]; };"
		print "void fill(struct big *out, const struct big *in, int n)"
		print "{ for (int i = 0; i < n; i++) out[i] = in[n - 1 - i]; }"
	}' >"$SRC/table.c"

	cat >"$SRC/bytes.py" <<'EOF'
"""Slice, join, copy and hash large bytes/bytearray/memoryview objects."""
import hashlib
import io
import sys
import zlib

path, size = sys.argv[1], int(sys.argv[2])
with open(path, "rb") as f:
    b = f.read(size)
assert len(b) == size, (len(b), size)
N = size


def p(label, x):
    print(f"{label:34s} {len(x):10d} {hashlib.sha1(x).hexdigest()}")


p("bytes", b)

# Slices at odd offsets.
for a, z in ((1, None), (3, -5), (4095, 4095 + 40000003), (N // 2 + 1, N)):
    p(f"slice [{a}:{z}]", b[a:z])

# Joins of chunks of assorted sizes.
for chunk, limit in ((3, 1 << 20), (61, 8 << 20), (4096, N), (1000003, N)):
    parts = [b[i:min(i + chunk, limit)] for i in range(0, limit, chunk)]
    j = b"".join(parts)
    assert j == b[:limit]
    p(f"join chunk={chunk}", j)
    if chunk < 5000:
        p(f"join reversed chunk={chunk}", b"|".join(reversed(parts)))
    del parts, j

# Repetition.
p("bytes * 3", b[:N // 4 + 1] * 3)
p("bytearray repeat", bytearray(b[:12347]) * 1000)

# bytearray edits: each one moves the tail of a 64 MiB buffer.
ba = bytearray(b)
del ba[1000:1003]
ba[5:5] = b"hello, world"
ba.insert(0, 65)
ba[N // 2:N // 2] = b[:1 << 20]
del ba[7:7 + (1 << 20) + 13]
ba.extend(b[:4097])
ba += b[-12345:]
p("bytearray edits", ba)

# Overlapping memoryview assignments in both directions.
ba = bytearray(b)
mv = memoryview(ba)
mv[1:1 + N // 2] = mv[0:N // 2]
mv[0:N // 2] = mv[3:3 + N // 2]
mv[N // 3:N // 3 + 1000003] = mv[N // 3 + 17:N // 3 + 17 + 1000003]
p("memoryview overlap", ba)
del mv

# Non-overlapping memoryview copies into a fresh buffer.
c = bytearray(N)
mc, mb = memoryview(c), memoryview(b)
for off, ln in ((0, N), (1, N - 1), (N // 3, 12345), (N - 4097, 4097),
                (777, 1 << 20), (N // 2, N // 4 + 3)):
    mc[off:off + ln] = mb[N - off - ln:N - off]
p("memoryview copies", c)
p("bytes(memoryview)", bytes(mb[7:7 + N // 2]))
del mc, mb

# Streams and compression.
s = io.BytesIO()
for i in range(0, N, 1 << 18):
    s.write(b[i:i + (1 << 18) + 5])
p("BytesIO", s.getvalue())
z = zlib.compress(b[:8 << 20] + bytes(1 << 20) + b[:1 << 20], 1)
p("zlib", z)
assert zlib.decompress(z) == b[:8 << 20] + bytes(1 << 20) + b[:1 << 20]
print("ok")
EOF
}

# ---------------------------------------------------------------------------
# Cases.  Each case_* function runs in a fresh scratch directory (its cwd) and
# writes what is to be compared to stdout and to files under $OUT.  It runs
# under 'set -e -o pipefail'; any failing command fails the run.

case_cp() {
	cp "$DATA" "$OUT/copy"
	cmp "$DATA" "$OUT/copy"
	cp --sparse=always "$DATA" sparse
	cmp "$DATA" sparse
	cat "$DATA" >catted
	cmp "$DATA" catted
}

case_sort() {
	sort "$TEXT" >"$OUT/sorted"
	cmp "$SORTED" "$OUT/sorted"
	# Small buffer: temporary files and merges.
	sort -S 1M -T . --batch-size=4 "$TEXT" | sha256sum
	sort -r -u -t a -k 2 "$TEXT" | sha256sum
	sort -m "$SORTED" "$SORTED" | sha256sum
}

case_sha256sum() {
	sha256sum "$DATA" "$TEXT" | sed "s|$WORK/||"
	sha256sum <"$DATA"
	sha512sum <"$MIX"
	b2sum <"$TEXT"
	md5sum <"$SORTED"
}

dd_case() {
	local sum
	sum=$(dd if="$DATA" status=none "$@" | sha256sum)
	echo "dd $*: $sum"
	[[ ${sum%% *} == "$DATA_SHA" ]]
}
case_dd_bs1M() { dd_case bs=1M; }
case_dd_bs16M() { dd_case bs=16M; }
case_dd_bs1000003() { dd_case bs=1000003; }
case_dd_reblock() {
	dd_case ibs=1000003 obs=65536
	dd_case ibs=4096 obs=1000003
}

case_tac() {
	tac "$DATA" | sha256sum
	tac "$TEXT" | tac | cmp - "$TEXT"
	tac -s x -r -b "$TEXT" | sha256sum
}

case_sed_awk() {
	sed -e 's/a/bb/g' -e 's/[0-9]\{3,\}/<&>/' "$TEXT" | sha256sum
	awk '{ n += length($0); s = s substr($0, 1, 3) } NR % 1000 == 0 { print n, s; s = "" }' "$TEXT" |
		sha256sum
}

case_gzip() {
	gzip -1 -n -c "$DATA" >data.gz
	sha256sum <data.gz
	gzip -d -c data.gz | cmp - "$DATA"
	gzip -9 -n -c "$MIX" >"$OUT/mix.gz"
	gzip -d -c "$OUT/mix.gz" | cmp - "$MIX"
}

# xz is slow on incompressible data (~1.5 MB/s at -1), so it gets MIX, which
# still contains 2 MiB of random bytes.
case_xz() {
	xz -1 -T1 -c "$MIX" >"$OUT/mix.xz"
	xz -d -T1 -c "$OUT/mix.xz" | cmp - "$MIX"
	head -c 5000000 "$MIX" | xz -0 -T1 --format=lzma | xz -d | sha256sum
}

case_python3() {
	"$PYTHON" -B "$SRC/bytes.py" "$DATA" $((64 << 20))
}

case_git() {
	export HOME=$PWD/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com
	export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com
	export GIT_AUTHOR_DATE='2020-02-02T12:00:00Z' GIT_COMMITTER_DATE='2020-02-02T12:00:00Z'
	mkdir -p home
	git init -q -b main repo
	cd repo || return
	git config pack.threads 1
	git config gc.auto 0
	git config core.autocrlf false
	mkdir -p src data
	head -c 300000 "$TEXT" >src/words.txt
	head -c 1048576 "$DATA" >data/blob.bin
	cp "$SRC/prog.c" src/prog.c
	printf 'line %d\n' $(seq 1 2000) >src/lines.txt
	git add -A
	git commit -q -m 'initial import'
	sed -i 's/a/A/g' src/words.txt
	printf 'line inserted\n' >>src/lines.txt
	sed -i '500,520d' src/lines.txt
	tail -c 500000 "$DATA" >>data/blob.bin
	git add -A
	GIT_COMMITTER_DATE='2020-02-03T12:00:00Z' git commit -q -m 'second commit'
	git mv src/prog.c src/main.c
	GIT_COMMITTER_DATE='2020-02-04T12:00:00Z' git commit -q -m 'rename'
	git log --stat --format='%H %an <%ae> %ad %cd %s' --date=iso-strict
	git diff HEAD~2 HEAD -- src/lines.txt
	git diff --stat HEAD~2 HEAD
	git cat-file -p 'HEAD^{tree}'
	git repack -a -d -f -q --window=50 --depth=50
	git count-objects -v | grep -v -e '^size' -e '^prune'
	git verify-pack -v .git/objects/pack/*.idx | sort | sha256sum
	git fsck --full --strict --no-progress
	git archive --format=tar HEAD | sha256sum
	git show HEAD~1:data/blob.bin | cmp - data/blob.bin
}

case_gcc() {
	# Map the per-run working directory away so objects are comparable.
	local map=("-ffile-prefix-map=$PWD=." "-ffile-prefix-map=$SRC=src")
	gcc -std=gnu11 -O2 -g -Wall "${map[@]}" -c "$SRC/prog.c" -o "$OUT/prog.o"
	gcc -std=gnu11 -O2 -g "${map[@]}" -c "$SRC/table.c" -o "$OUT/table.o"
	gcc -std=gnu11 -O1 "${map[@]}" -S "$SRC/table.c" -o "$OUT/table.s"
	gcc -o prog "$OUT/prog.o"
	./prog
}

# memcpy and friends from .preinit_array, a library constructor, a program
# constructor and main (test/preload/early*.c), each checked against loops
case_early() {
	local f=(-std=gnu11 -O2 -Wall -Wextra -fno-builtin
		-fno-tree-loop-distribute-patterns)
	gcc "${f[@]}" -fPIC -shared "$EARLY_SRC/early-lib.c" -o libearly.so
	gcc "${f[@]}" "$EARLY_SRC/early.c" -o early -L. -learly \
		-Wl,-rpath,"$PWD"
	./early
	# and with the streaming paths in reach of its larger sizes (only the
	# preloaded runs read the variable; the output is the same)
	FASTMEM_NT_THRESHOLD=16K ./early
}

case_stress() {
	"$FMTEST_STRESS" "$STRESS_SECONDS"
}

case_perf_memcpy() {
	"$PERF" bench mem memcpy -f default -s 1MB -l 20
}
case_perf_memset() {
	"$PERF" bench mem memset -f default -s 1MB -l 20
}

# ---------------------------------------------------------------------------
# Running and judging.

# run_one DIR MODE FUNC: run FUNC in MODE, leaving stdout, stderr, rc and
# out/ in DIR/MODE.
run_one() {
	local d=$1/$2
	mkdir -p "$d/out" "$d/scratch" || return 1
	# shellcheck disable=SC2016 # expanded by the inner shell
	OUT=$d/out timeout -k 10 "$RUN_TIMEOUT" bash -c '
		ulimit -c 0
		cd "$1" || exit 125
		mkdir -p tmp && export TMPDIR=$PWD/tmp || exit 125
		case $2 in
		preload) export LD_PRELOAD=$FMTEST_PRELOAD ;;
		bindnow) export LD_PRELOAD=$FMTEST_PRELOAD LD_BIND_NOW=1 ;;
		esac
		set -e -o pipefail
		"$3"
	' programs.sh "$d/scratch" "$2" "$3" \
		</dev/null >"$d/stdout" 2>"$d/stderr" &
	# In the background so that a signal to this script is handled at once.
	RUN_PID=$!
	wait "$RUN_PID"
	echo $? >"$d/rc"
	RUN_PID=
	rm -rf "$d/scratch"
}

describe_rc() {
	local rc=$1
	if ((rc == 124)); then
		echo "timed out after $RUN_TIMEOUT s"
	elif ((rc == 125)); then
		echo "could not be started"
	elif ((rc > 128 && rc < 160)); then
		echo "killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128)))"
	else
		echo "exited with status $rc"
	fi
}

# why_line FILE: the most telling line of a failed run's stderr (the last
# one that mentions an error, else the last non-empty one), shortened.
why_line() {
	local l
	l=$(grep -i -E 'error|fatal|fail|abort|fault|mismatch|killed|denied' "$1" 2>/dev/null | tail -n 1)
	[[ -n $l ]] || l=$(grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1)
	((${#l} > 200)) && l=${l:0:200}...
	printf '%s' "$l"
}

# show FILE: copy the end of FILE to our stderr as '#' comment lines, for
# the log.
show() {
	[[ -s $1 ]] || return 0
	echo "#   --- ${1#"$WORK"/} (last lines):" >&2
	tail -n 12 "$1" | cut -c 1-300 | sed 's/^/#   /' >&2
}

# compare_dirs A B: print the first difference between two output trees.
compare_dirs() {
	local a=$1 b=$2 f
	if ! diff -q <(cd "$a" && find . -type f | sort) <(cd "$b" && find . -type f | sort) >/dev/null; then
		echo "different set of output files"
		return
	fi
	while IFS= read -r f; do
		if ! cmp -s "$a/$f" "$b/$f"; then
			echo "output file ${f#./} differs: $(cmp "$a/$f" "$b/$f" 2>&1 | sed 's/.* differ: //')"
			return
		fi
	done < <(cd "$a" && find . -type f | sort)
}

# judge NAME COMPARE DIR: print the verdict for a case.
judge() {
	local name=$1 compare=$2 dir=$3 m label rc why new
	local p=$dir/plain
	rc=$(<"$p/rc")
	if ((rc != 0)); then
		why="plain run without preload $(describe_rc "$rc")"
		[[ -s $p/stderr ]] && why+=": $(why_line "$p/stderr")"
		fail "$name" "$why"
		show "$p/stderr"
		return
	fi
	for m in preload bindnow; do
		if [[ $m == preload ]]; then
			label="preloaded run"
		else
			label="preloaded run with LD_BIND_NOW=1"
		fi
		rc=$(<"$dir/$m/rc")
		if ((rc != 0)); then
			why="$label $(describe_rc "$rc")"
			[[ -s $dir/$m/stderr ]] && why+=": $(why_line "$dir/$m/stderr")"
			fail "$name" "$why"
			show "$dir/$m/stderr"
			return
		fi
		# Lines (counted with repeats) on the preloaded run's stderr only.
		comm -13 <(sort "$p/stderr") <(sort "$dir/$m/stderr") >"$dir/$m/new-stderr"
		if [[ -s $dir/$m/new-stderr ]]; then
			new=$(head -n 1 "$dir/$m/new-stderr" | cut -c 1-200)
			fail "$name" "$label printed on stderr: ${new:-(a blank line)}"
			show "$dir/$m/stderr"
			return
		fi
		[[ $compare == compare ]] || continue
		if ! cmp -s "$p/stdout" "$dir/$m/stdout"; then
			fail "$name" "$label: stdout differs: $(cmp "$p/stdout" "$dir/$m/stdout" 2>&1 | sed 's/.* differ: //')"
			diff -a "$p/stdout" "$dir/$m/stdout" | head -n 8 | cut -c 1-300 | sed 's/^/#   /' >&2
			return
		fi
		why=$(compare_dirs "$p/out" "$dir/$m/out")
		if [[ -n $why ]]; then
			fail "$name" "$label: $why"
			return
		fi
	done
	pass "$name"
}

wanted() {
	[[ -z ${FMTEST_CASES:-} ]] && return 0
	[[ " $FMTEST_CASES " == *" $1 "* ]]
}

# run_case NAME compare|nocompare FUNC [PROGRAM...]
run_case() {
	local name=$1 compare=$2 fn=$3 prog m
	shift 3
	wanted "$name" || return 0
	for prog; do
		if ! have "$prog"; then
			skip "$name" "program $prog not installed"
			return
		fi
	done
	local dir=$WORK/case-$name t0=$SECONDS
	for m in plain preload bindnow; do
		run_one "$dir" "$m" "$fn"
	done
	judge "$name" "$compare" "$dir"
	echo "# $name: $((SECONDS - t0)) s" >&2
	[[ -n ${FMTEST_KEEP_TMP:-} ]] || rm -rf "$dir"
}

# ---------------------------------------------------------------------------
# The 'interpose' case: make sure the other cases are not vacuous.  With
# LD_BIND_NOW=1 and LD_DEBUG=bindings, every reference to one of the replaced
# functions in the probed programs must bind to the preload library, and
# memcpy, memmove and memset must each have been seen at least once.  When nm
# is available, the library must also export all the replaced functions.

REPLACED=(memcpy memmove memset mempcpy bcopy bzero explicit_bzero
	__memcpy_chk __memmove_chk __memset_chk __mempcpy_chk)

case_interpose() {
	local name=interpose dir=$WORK/case-interpose sym missing=() lib
	wanted "$name" || return 0
	mkdir -p "$dir"

	if have nm; then
		local exported
		exported=$(nm -D --defined-only "$FMTEST_PRELOAD" 2>/dev/null |
			awk '$2 ~ /^[TWi]$/ { print $3 }' | sed 's/@.*//')
		for sym in "${REPLACED[@]}"; do
			grep -qx -- "$sym" <<<"$exported" || missing+=("$sym")
		done
		if ((${#missing[@]})); then
			fail "$name" "preload library does not export ${missing[*]}"
			return
		fi
	fi

	local -a probes=()
	have sort && probes+=("sort --version")
	have gzip && probes+=("gzip --version")
	have xz && probes+=("xz --version")
	have git && probes+=("git --version")
	[[ -n ${PYTHON:-} ]] && probes+=("$PYTHON -c pass")
	[[ -n ${PERF:-} ]] && probes+=("$PERF --version")
	[[ -n ${FMTEST_STRESS:-} && -x ${FMTEST_STRESS:-} ]] && probes+=("$FMTEST_STRESS 0 1")
	if have gcc; then
		lib=$(gcc -print-prog-name=cc1 2>/dev/null)
		[[ -x $lib ]] && probes+=("$lib --version")
	fi
	local probe
	for probe in "${probes[@]}"; do
		# shellcheck disable=SC2086 # probes are simple word lists
		{ LD_PRELOAD=$FMTEST_PRELOAD LD_BIND_NOW=1 LD_DEBUG=bindings \
			LD_DEBUG_OUTPUT=$dir/ld timeout 60 $probe </dev/null >/dev/null; } 2>/dev/null
	done

	local pattern bindings wrong seen=()
	pattern=$(printf '%s|' "${REPLACED[@]}")
	pattern="normal symbol \`(${pattern%|})'"
	bindings=$(cat "$dir"/ld.* 2>/dev/null | grep -E "$pattern" |
		sed -E 's/.* to ([^ ]+) \[[0-9]+\]: normal symbol `([^'"'"']+)'"'"'.*/\2 \1/' | sort -u)
	wrong=$(awk -v lib="$FMTEST_PRELOAD" '$2 != lib { print $1 " -> " $2 }' <<<"$bindings" |
		paste -sd, - | sed 's/,/, /g' | cut -c 1-400)
	for sym in memcpy memmove memset; do
		grep -q "^$sym " <<<"$bindings" || seen+=("$sym")
	done
	[[ -n ${FMTEST_KEEP_TMP:-} ]] || rm -rf "$dir"
	if [[ -n $wrong ]]; then
		fail "$name" "not interposed: $wrong"
	elif ((${#seen[@]})); then
		fail "$name" "no probed program bound ${seen[*]} to the preload library"
	else
		pass "$name"
	fi
}

# ---------------------------------------------------------------------------
# Locate optional programs.

PYTHON=
if [[ -x /usr/bin/python3 ]]; then
	PYTHON=/usr/bin/python3
elif have python3; then
	PYTHON=$(command -v python3)
fi
export PYTHON

# perf: Debian's /usr/bin/perf may be a wrapper that only says that no perf
# for the running kernel is installed; fall back to versioned binaries.
PERF=
PERF_WHY="program perf not installed"
perf_works() {
	"$1" bench mem memcpy -f default -s 1KB -l 1 >/dev/null 2>&1
}
find_perf() {
	local c
	for c in $(command -v perf 2>/dev/null) /usr/bin/perf_* /usr/lib/linux-tools*/perf \
		/usr/lib/linux-tools/*/perf; do
		[[ -x $c ]] || continue
		PERF_WHY="program perf is installed but 'perf bench mem' does not run"
		if perf_works "$c"; then
			PERF=$c
			return 0
		fi
	done
	return 1
}
find_perf
export PERF

# ---------------------------------------------------------------------------
# Main.

mapfile -t case_functions < <(compgen -A function case_)
export -f dd_case "${case_functions[@]}"

start=$SECONDS
if ! setup_data; then
	fail setup "could not generate the test data in $WORK"
	summary
fi

case_interpose
run_case cp compare case_cp cp cat cmp
run_case sort compare case_sort sort sha256sum
run_case sha256sum compare case_sha256sum sha256sum sha512sum b2sum md5sum
run_case dd-bs1M compare case_dd_bs1M dd sha256sum
run_case dd-bs16M compare case_dd_bs16M dd sha256sum
run_case dd-bs1000003 compare case_dd_bs1000003 dd sha256sum
run_case dd-reblock compare case_dd_reblock dd sha256sum
run_case tac compare case_tac tac sha256sum
run_case sed-awk compare case_sed_awk sed awk sha256sum
run_case gzip compare case_gzip gzip
run_case xz compare case_xz xz
if [[ -n $PYTHON ]]; then
	run_case python3 compare case_python3
elif wanted python3; then
	skip python3 "program python3 not installed"
fi
run_case git compare case_git git
run_case gcc compare case_gcc gcc
if [[ -f $EARLY_SRC/early.c ]]; then
	run_case early compare case_early gcc
elif wanted early; then
	skip early "sources not found in $EARLY_SRC (set top_srcdir)"
fi
if [[ -z ${FMTEST_STRESS:-} ]]; then
	wanted stress && skip stress "FMTEST_STRESS not set"
elif [[ ! -x $FMTEST_STRESS ]]; then
	wanted stress && fail stress "stress program $FMTEST_STRESS not found or not executable"
else
	run_case stress nocompare case_stress
fi
for c in memcpy memset; do
	if [[ -n $PERF ]]; then
		run_case perf-$c nocompare case_perf_$c
	elif wanted perf-$c; then
		skip perf-$c "$PERF_WHY"
	fi
done

echo "# $((SECONDS - start)) s, preload $FMTEST_PRELOAD" >&2
summary
