#!/bin/bash
# Fresh Debian 12 -> every test suite of libfastmem:
#   native      make check (-Werror), make distcheck
#   sanitizers  make check built with -fsanitize=address,undefined
#   clang       the suites built with clang (-Werror), quick sizes
#   valgrind    a reduced run under memcheck (valgrind hides AVX-512)
#   tsan        the parallel calls' thread pool under ThreadSanitizer
#   i686        -m32 build, whole suite under qemu-i386 (MMX variants)
#   ppc64       cross build, suite under qemu-ppc64 -cpu power7 and -cpu 970
#   ppc64le     cross build, suite under qemu-ppc64le -cpu power8, power9 and
#               power10 (VSX), every variant forced once
#   aarch64     cross build, suite under qemu-aarch64 -cpu a64fx, cortex-a57
#               and max with 128-bit SVE (SVE, DC ZVA), every variant forced
#               once
#   generic     the portable build (configure --disable-arch-variants: the
#               C variants of CPUs with no arch/ directory), its suites
#   secure      setuid/setgid/file-capability fastmem-info run as nobody
#               ignores the caller's settings and files (needs root)
#   fuzz        the settings parsers under libFuzzer with ASan/UBSan (~1 min)
#   (native includes the preload tests: unmodified programs with and without
#   libfastmem-preload.so, plain and with LD_BIND_NOW=1)
# Usage: scripts/test-all.sh [--no-deps] [STAGE...]   (as root or with sudo)
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=$(nproc)

deps=yes
if [ "${1:-}" = --no-deps ]; then
	deps=no
	shift
fi
stages=("$@")
[ ${#stages[@]} -gt 0 ] ||
	stages=(native secure fuzz sanitizers clang valgrind tsan generic i686
		ppc64 ppc64le aarch64)

if [ $deps = yes ]; then
	scripts/deps.sh --all || exit 1
fi
autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; exit 1; }

results=()
failed=0
t_all=$SECONDS

# Show the logs of failed tests so CI output explains itself.
show_failures() {
	local dir=$1
	for log in "$dir"/test/*.log "$dir"/test/*/*.log; do
		[ -f "$log" ] || continue
		# a .trs says ":test-result: FAIL" (automake's parallel harness)
		if grep -qE '^:test-result: (FAIL|ERROR|XPASS)' \
			"${log%.log}.trs" 2>/dev/null; then
			echo "----- $log"
			tail -n 60 "$log"
		fi
	done
}

# Configure SRC into DIR with ARGS (unless already configured the same way).
configure() {
	local dir=$1
	shift
	mkdir -p "$dir"
	(cd "$dir" && "$top/configure" -q --enable-werror "$@")
}

check_in() {
	local dir=$1
	shift
	if ! make -C "$dir" -j"$jobs" -s >/dev/null; then
		make -C "$dir" -s 2>&1 | tail -30
		return 1
	fi
	make -C "$dir" -j"$jobs" check "$@" >"$dir/check.out" 2>&1
	local rc=$?
	grep -E '^(PASS|FAIL|SKIP|XFAIL|ERROR|# )' "$dir/check.out"
	[ $rc -eq 0 ] || show_failures "$dir"
	return $rc
}

# A failed distcheck leaves its tree: show the failed tests' logs from it
# (automake's test-suite.log holds them), not only make's last lines.
distcheck_failed() {
	local log
	tail -40 build/native/distcheck.out 2>/dev/null
	for log in build/native/libfastmem-*/_build/sub/test-suite.log; do
		[ -f "$log" ] || continue
		echo "----- $log"
		tail -n 150 "$log"
	done
}

# distcheck checks what the tarball builds and installs; the full sizes
# ran just before, so its own make check runs the quick ones, in parallel
# like the first (no test's verdict depends on the machine being idle),
# and of the preload programs only the cases built from the tarball's own
# sources (the others run Debian's programs, the same from any tree)
stage_native() {
	configure build/native && check_in build/native &&
		FMTEST_QUICK=1 FMTEST_CASES="interpose early stress" \
		make -C build/native -j"$jobs" -s distcheck \
			DISTCHECK_CONFIGURE_FLAGS=--enable-werror \
			>build/native/distcheck.out 2>&1 ||
		{ distcheck_failed; return 1; }
	grep -E 'archives ready|\.tar' build/native/distcheck.out | head -3
}

stage_sanitizers() {
	configure build/asan --disable-static --enable-sanitizers=address,undefined \
		CFLAGS="-O1 -g" &&
		FMTEST_QUICK=1 ASAN_OPTIONS=detect_leaks=0 \
			check_in build/asan TESTS="test/check_variants test/check_api test/check_env test/check_parallel"
}

# The suites, the object-code checks and the preload programs: what a
# second compiler or configuration is checked with (not the benchmark
# scripts, which time every subcommand for minutes: the native stage runs
# them).
second_build_tests="test/check_variants test/check_api test/check_env \
	test/check_parallel test/check_trace test/check_hangs \
	test/no-libc-calls.sh test/resolver-relocs.sh test/sizes.sh \
	test/underlinked.sh test/small-threshold.sh test/info-pid.sh \
	test/preload/programs.sh"

stage_clang() {
	configure build/clang CC=clang &&
		FMTEST_QUICK=1 check_in build/clang \
			TESTS="$second_build_tests test/check_policy"
}

stage_valgrind() {
	# reuses the native build; children too (Check forks per test)
	FMTEST_QUICK=1 check_in build/native \
		TESTS="test/check_variants test/check_api test/check_parallel" \
		LOG_COMPILER="valgrind -q --error-exitcode=3 --trace-children=yes --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --vgdb=no" \
		TEST_SUITE_LOG=valgrind-suite.log
}

stage_tsan() {
	# GCC's ThreadSanitizer (libtsan2 comes with gcc-12).
	# die_after_fork=0: the fork test starts threads in the child of a
	# multithreaded parent on purpose (the pool is rebuilt there).
	# Twice: with the automatic variants, and with the portable C ones,
	# whose stores (unlike rep movsb's) ThreadSanitizer sees, so that a
	# chunk written after the caller stopped waiting is a reported race.
	local tsan="halt_on_error=1 die_after_fork=0"
	configure build/tsan --disable-static --enable-sanitizers=thread \
		CFLAGS="-O1 -g" &&
		FMTEST_QUICK=1 TSAN_OPTIONS=$tsan \
			check_in build/tsan TESTS="test/check_parallel" &&
		FMTEST_QUICK=1 TSAN_OPTIONS=$tsan \
			FASTMEM_MEMCPY=generic FASTMEM_MEMSET=generic \
			FASTMEM_CLEAR_PAGE=generic \
			check_in build/tsan TESTS="test/check_parallel"
}

# What a CPU with no arch/ directory gets (lib/generic.c, arch/generic/
# cpu.c), built here with configure --disable-arch-variants and tested at
# quick sizes (the native stage runs the benchmark scripts, generic rows
# included).
stage_generic() {
	configure build/generic --disable-arch-variants &&
		FMTEST_QUICK=1 check_in build/generic TESTS="$second_build_tests"
}

stage_i686() {
	PKG_CONFIG_LIBDIR=/usr/lib/i386-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		configure build/i686 --host=i686-linux-gnu CC="$top/scripts/i686-cc" \
		TEST_RUNNER=qemu-i386 &&
		FMTEST_QUICK=1 check_in build/i686
}

# Full test sizes on the first CPU model, quick ones on the others: each
# full run costs 2-3 minutes of emulation, and the stages stay near 4.
stage_ppc64() {
	CROSS_QUICK_AFTER=1 bash test/cross/run.sh ppc64 "$top/build/ppc64"
}

stage_ppc64le() {
	CROSS_QUICK_AFTER=1 bash test/cross/run.sh ppc64le "$top/build/ppc64le"
}

stage_aarch64() {
	# Full sizes on cortex-a57 only: under -cpu a64fx qemu emulates SVE
	# slowly (make check at full sizes took 396 s there of the stage's
	# 644 s in CI, 2026-12-02); a64fx and max run the quick sizes.
	CROSS_QUICK_AFTER=1 \
		CROSS_CPUS="cortex-a57 a64fx max,sve-default-vector-length=16" \
		bash test/cross/run.sh aarch64 "$top/build/aarch64"
}

# A static build whose system config lives in a scratch directory, so that
# the test can write it; its fastmem-info is made setuid and run as nobody.
# Built with Debian's hardening flags (dpkg-buildflags), as a distribution
# would: their stack protector made static programs crash before main.
stage_secure() {
	local etc
	etc=$(mktemp -d /tmp/fastmem-secure-etc.XXXXXX) && chmod 755 "$etc" &&
		configure build/secure --disable-shared --sysconfdir="$etc" \
			CFLAGS="-g -O2 -fstack-protector-strong -Wformat \
				-Werror=format-security" \
			CPPFLAGS="-Wdate-time -D_FORTIFY_SOURCE=2" \
			LDFLAGS="-Wl,-z,relro" &&
		make -C build/secure -j"$jobs" -s fastmem-info >/dev/null &&
		top_builddir=build/secure sh test/no-libc-calls.sh &&
		bash test/secure.sh build/secure/fastmem-info
	local rc=$?
	rm -rf "$etc"
	return $rc
}

stage_fuzz() {
	FUZZ_TIME=${FUZZ_TIME:-60} bash test/fuzz/run.sh build/fuzz
}

for s in "${stages[@]}"; do
	echo "=== $s"
	t=$SECONDS
	"stage_$s"
	case $? in
	0) r=passed ;;
	77) r=SKIPPED ;; # a stage that cannot run here says why
	*)
		r=FAILED
		failed=$((failed + 1))
		;;
	esac
	results+=("$(printf '%-11s %-7s %4ds' "$s" "$r" $((SECONDS - t)))")
	echo "=== $s $r in $((SECONDS - t))s"
done

echo
echo "=== summary ($((SECONDS - t_all))s)"
printf '%s\n' "${results[@]}"
# Check's own counts, over every suite that ran
cat build/*/test/*.log build/*/build/test/*.log 2>/dev/null |
	awk '/^[0-9]+%: Checks: / { gsub(",", ""); n += $3; f += $5 + $7 }
	     END { printf "Check: %d passed, %d failed\n", n - f, f }'
echo "$(( ${#stages[@]} - failed )) passed, $failed failed"
[ $failed -eq 0 ]
