#!/usr/bin/env bash
# run.sh TARGET BUILDDIR
#
# Cross-build libfastmem for TARGET and test it under qemu-user, for CI.
# TARGET is one of
#   ppc64     64-bit big-endian PowerPC (powerpc64-linux-gnu, ELFv1),
#             CPU models "power7 970" by default
#   ppc64le   64-bit little-endian PowerPC (powerpc64le-linux-gnu, ELFv2),
#             CPU models "power8 power9 power10"
#   aarch64   AArch64 (aarch64-linux-gnu), CPU models "a64fx cortex-a57
#             max,sve-default-vector-length=16" (SVE-512 and 256-byte DC
#             ZVA; no SVE, 64-byte DC ZVA; SVE-128 as on Neoverse V2 and
#             Grace, 512-byte DC ZVA, in qemu 7.2)
#
#   1. Check for TARGET into BUILDDIR/check-deps (test/cross/build-check.sh:
#      Debian's source, built static);
#   2. configure this source tree into BUILDDIR/build (static libfastmem,
#      --enable-werror) and build it;
#   3. object-code checks: no call to the C library's memory functions
#      (test/no-libc-calls.sh), and the PowerPC Cell family has no
#      record-form instructions (microcoded on the Cell PPE);
#   4. for each CPU model (CROSS_CPUS, or the TARGET's default):
#        - a probe independent of libfastmem says what the model offers:
#          test/ppc/dcbz-probe (what one dcbz clears, AT_DCACHEBSIZE,
#          whether the hwcaps announce POWER8), or
#          test/cross/aarch64-probe (HWCAP_SVE, DC ZVA's block and whether
#          one DC ZVA zeroes exactly it);
#        - the programs are linked for the model: dynamically (run with
#          qemu -L SYSROOT), except on PowerPC models whose dcbz clears less
#          than the line: statically there, with every memset call, glibc's
#          own included, sent to the dcbz-free test/ppc/memset-nodcbz.c,
#          because glibc's memset trusts AT_DCACHEBSIZE there and leaves 3/4
#          of each zeroed line unzeroed (its strstr then hangs);
#        - fastmem-info, printed, and the library's verdict on each probed
#          feature compared with the probe's (the variants that need it
#          usable exactly when the probe found it);
#        - make check with TEST_RUNNER='QEMU -cpu MODEL ...';
#        - test/check_api once per variant forced through FASTMEM_<OP>=NAME:
#          a variant the CPU can run must be used (as fastmem-info confirms)
#          with nothing on stderr, one it cannot run must be refused with
#          "cannot run on this CPU" on stderr; the suite must pass either way;
#   5. a summary; the exit status is non-zero if anything failed.
#
# Idempotent: Check is built once, configure re-runs only when its
# arguments change, make rebuilds what changed; the programs are relinked
# for each CPU model (so BUILDDIR/build ends up linked for the last one).
# Needs (Debian): gcc-HOST and its libc6-dev-*-cross, qemu-user, make,
# pkg-config, apt-get (scripts/deps.sh --all installs them), plus autoconf
# automake libtool if the tree has no configure yet.
#
# Environment (optional):
#   CROSS_CPUS          CPU models to test (PPC_CPUS too, for ppc64)
#   CROSS_JOBS          make -j (default: number of CPUs)
#   CROSS_QUICK_AFTER   the first this many models run the full test sizes,
#                       the others FMTEST_QUICK=1 (default: all full)
#   FMTEST_QUICK        passed through to the test programs (not set here:
#                       full sizes take ~2 min per CPU model under qemu)
set -uo pipefail

prog=cross/run.sh

if [ $# -ne 2 ] || [ -z "$2" ]; then
    printf 'usage: %s ppc64|ppc64le|aarch64 BUILDDIR\n' "$0" >&2
    exit 2
fi
target=$1
case $target in
ppc64)
    host=powerpc64-linux-gnu qemu=qemu-ppc64 ldso=lib/ld64.so.1
    default_cpus="${PPC_CPUS:-power7 970}" family=ppc ;;
ppc64le)
    host=powerpc64le-linux-gnu qemu=qemu-ppc64le ldso=lib/ld64.so.2
    default_cpus="power8 power9 power10" family=ppc ;;
aarch64)
    host=aarch64-linux-gnu qemu=qemu-aarch64 ldso=lib/ld-linux-aarch64.so.1
    default_cpus="a64fx cortex-a57 max,sve-default-vector-length=16"
    family=aarch64 ;;
*)
    printf '%s: unknown target "%s" (ppc64, ppc64le, aarch64)\n' "$0" "$target" >&2
    exit 2 ;;
esac
sysroot=/usr/$host
prog="cross/run.sh $target"

# settings of the caller must not steer the tests
for v in $(compgen -e | grep '^FASTMEM_'); do
    unset "$v"
done

SECONDS=0
log() { printf '%s: [%4ss] %s\n' "$prog" "$SECONDS" "$*"; }
die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 2; }

srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P) ||
    die "cannot find the source tree"
[ -f "$srcdir/include/fastmem/fastmem.h" ] ||
    die "$srcdir does not look like the libfastmem source tree"
mkdir -p "$2" || die "cannot create $2"
top=$(cd "$2" && pwd -P)
deps=$top/check-deps
build=$top/build
logs=$top/logs
mkdir -p "$build" "$logs"
read -r -a cpus <<<"${CROSS_CPUS:-$default_cpus}"
jobs=${CROSS_JOBS:-${PPC_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}}
quick_after=${CROSS_QUICK_AFTER:-${#cpus[@]}}

# ---- prerequisites -------------------------------------------------------
missing=()
command -v "$host-gcc" >/dev/null 2>&1 || missing+=("gcc-$host")
command -v "$qemu" >/dev/null 2>&1 || missing+=(qemu-user)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
[ ${#missing[@]} -eq 0 ] ||
    die "missing tools; install them with: apt-get install ${missing[*]}"
# the dynamic loader and libc the test programs run with under qemu
[ -e "$sysroot/$ldso" ] ||
    die "$sysroot/$ldso not found (Debian: the libc6-*-cross package of $host)"
log "$("$host-gcc" --version | head -n 1)"
log "$("$qemu" --version | head -n 1)"

# ---- results -------------------------------------------------------------
names=()
states=()
times=()
failed=0

# record NAME STATUS SECONDS
record() {
    names+=("$1")
    states+=("$2")
    times+=("$3")
    [ "$2" = PASS ] || failed=1
}

# step NAME LOGFILE CMD...: run CMD with its output in LOGFILE, record it,
# show the log's tail if it fails.  Returns CMD's status.
step() {
    local name=$1 logfile=$2 start=$SECONDS rc
    shift 2
    log "$name ..."
    "$@" >"$logfile" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        record "$name" PASS $((SECONDS - start))
        log "$name: ok ($((SECONDS - start)) s)"
    else
        record "$name" FAIL $((SECONDS - start))
        log "$name: FAILED (status $rc, $((SECONDS - start)) s); last lines of $logfile:"
        tail -n 40 "$logfile" | sed 's/^/    /'
    fi
    return $rc
}

summary() {
    local i
    printf '\n%s: summary (%s s in all, log files in %s)\n' "$prog" "$SECONDS" "$logs"
    for i in "${!names[@]}"; do
        printf '  %-4s %6ss  %s\n' "${states[$i]}" "${times[$i]}" "${names[$i]}"
    done
    if [ $failed -eq 0 ]; then
        printf '%s: all passed\n' "$prog"
    else
        printf '%s: FAILED\n' "$prog"
    fi
}

finish() {
    summary
    exit $failed
}

# ---- 1. Check ------------------------------------------------------------
step "Check for $host" "$logs/build-check.log" \
    env CHECK_HOST="$host" "$srcdir/test/cross/build-check.sh" "$deps" || finish

# ---- 2. configure and build ----------------------------------------------
bootstrap() {
    [ -x "$srcdir/configure" ] && return 0
    command -v autoreconf >/dev/null 2>&1 ||
        { echo "no configure and no autoreconf (apt-get install autoconf automake libtool)"; return 1; }
    (cd "$srcdir" && autoreconf -fi)
}

build_triplet=$("$srcdir/build-aux/config.guess" 2>/dev/null || gcc -dumpmachine)
config_args=(
    --host="$host" --build="$build_triplet"
    --disable-shared --enable-werror
    "PKG_CONFIG=pkg-config --static"
    "PKG_CONFIG_LIBDIR=$deps/lib/pkgconfig"
)

configure() {
    local stamp=$build/.run-sh-configure
    bootstrap || return 1
    if [ -f "$build/Makefile" ] && [ -f "$stamp" ] &&
        [ "$(cat "$stamp")" = "$srcdir ${config_args[*]}" ]; then
        echo "already configured with the same arguments"
        return 0
    fi
    rm -f "$stamp"
    (cd "$build" && "$srcdir/configure" "${config_args[@]}") || return 1
    grep -q '^S\["HAVE_CHECK_TRUE"\]=""' "$build/config.status" ||
        { echo "configure did not find Check in $deps"; return 1; }
    printf '%s\n' "$srcdir ${config_args[*]}" >"$stamp"
}

step "configure" "$logs/configure.log" configure || finish
step "build" "$logs/build.log" make -C "$build" -j"$jobs" all || finish

# ---- 3. object code ------------------------------------------------------
objdump_prog=$host-objdump
command -v "$objdump_prog" >/dev/null 2>&1 || objdump_prog=objdump

no_record_forms() {
    local objs bad
    objs=$(find "$build/arch/ppc" -name '*cell*.o' | sort)
    [ -n "$objs" ] || { echo "no Cell object under $build/arch/ppc"; return 1; }
    # objdump -d: address, 4 bytes, mnemonic; a record form ends in "."
    # shellcheck disable=SC2086
    bad=$("$objdump_prog" -d $objs | awk '
        /^[0-9a-f]+ <.*>:$/ { fn = $2 }
        NF >= 6 && $6 ~ /\.$/ { print "  " fn ": " $6 " " $7 }')
    if [ -n "$bad" ]; then
        echo "record-form instructions (microcoded on the Cell PPE) in the Cell family:"
        echo "$bad"
        return 1
    fi
    echo "no record-form instructions in:"
    echo "$objs" | sed 's/^/  /'
}
# the library never calls the C library's memcpy/memset (nor a stack
# protector): test/no-libc-calls.sh on the cross-built objects
step "no calls to the C library's memory functions" "$logs/no-libc-calls.log" \
    env top_builddir="$build" OBJDUMP="$objdump_prog" \
    sh "$srcdir/test/no-libc-calls.sh"

if [ "$target" = ppc64 ]; then
    step "Cell object code has no record forms" "$logs/record-forms.log" \
        no_record_forms
fi

# ---- helpers (test/ppc/*.c, test/cross/*.c) --------------------------------
helpers() {
    case $family in
    ppc)
        "$host-gcc" -O2 -static -Wall -Wextra -Werror \
            "$srcdir/test/ppc/dcbz-probe.c" -o "$top/dcbz-probe" &&
            "$host-gcc" -O2 -Wall -Wextra -Werror -fno-builtin \
                -fno-tree-loop-distribute-patterns \
                -c "$srcdir/test/ppc/memset-nodcbz.c" -o "$top/memset-nodcbz.o"
        ;;
    aarch64)
        "$host-gcc" -O2 -static -Wall -Wextra -Werror \
            "$srcdir/test/cross/aarch64-probe.c" -o "$top/aarch64-probe"
        ;;
    esac
}
step "helper programs" "$logs/helpers.log" helpers || finish

cfg_ldflags=$(sed -n 's/^LDFLAGS = //p' "$build/Makefile")
cfg_libs=$(sed -n 's/^LIBS = //p' "$build/Makefile")

# link_programs MAKEARGS...: relink fastmem-info and the test programs with
# the given variable overrides (nothing: as configured)
link_programs() {
    find "$build/test" -type f -perm -u+x ! -name '*.sh' -print -delete
    rm -fv "$build/fastmem-info" "$build/fastmem-bench"
    make -C "$build" -j"$jobs" all check TESTS= "$@"
}

# ---- 4. per CPU model ----------------------------------------------------
# The variants of each op (name, ISA, usable) as fastmem-info prints them
# under a runner: "op name isa usable" lines.
variant_table() {
    env -i PATH="$PATH" $1 "$build/fastmem-info" | awk '
        /^(memcpy|memmove|memset|copy_page|clear_page) +selected / { op = $1; next }
        /^$/ { op = ""; next }
        # "          * NAME  ISA  FLAGS  usable|not usable: needs FEATURES"
        op != "" && /^          [ *] [a-z0-9_]+ +[^ ]+ +[^ ]+ +(usable|not usable: needs [^ ]+)$/ {
            f = ($1 == "*") ? 2 : 1
            print op, $f, $(f + 1), ($0 ~ / not usable: needs [^ ]+$/) ? 0 : 1
        }'
}

env_name() {
    case $1 in
    memcpy) echo FASTMEM_MEMCPY ;;
    memmove) echo FASTMEM_MEMMOVE ;;
    memset) echo FASTMEM_MEMSET ;;
    copy_page) echo FASTMEM_COPY_PAGE ;;
    clear_page) echo FASTMEM_CLEAR_PAGE ;;
    esac
}

# force RUNNER OP NAME USABLE: check_api with the variant forced
force_one() {
    local runner=$1 op=$2 name=$3 usable=$4 var out err sel
    var=$(env_name "$op")
    out=$logs/force.out
    err=$logs/force.err
    env -i PATH="$PATH" "$var=$name" $runner "$build/test/check_api" \
        >"$out" 2>"$err"
    local rc=$?
    cat "$out" "$err"
    if [ $rc -ne 0 ]; then
        echo "check_api failed with $var=$name (status $rc)"
        return 1
    fi
    sel=$(env -i PATH="$PATH" "$var=$name" $runner "$build/fastmem-info" 2>/dev/null |
        awk -v op="$op" '$1 == op && $2 == "selected" { print $3; exit }')
    if [ "$usable" = 1 ]; then
        if [ -s "$err" ]; then
            echo "$var=$name: unexpected output on stderr"
            return 1
        fi
        if [ "$sel" != "$name" ]; then
            echo "$var=$name: fastmem-info says $op uses '$sel'"
            return 1
        fi
    else
        if ! grep -q "$var=\"$name\" cannot run on this CPU" "$err"; then
            echo "$var=$name: not refused with \"cannot run on this CPU\" on stderr"
            return 1
        fi
        if [ "$sel" = "$name" ]; then
            echo "$var=$name: fastmem-info says $op uses it anyway"
            return 1
        fi
    fi
    echo "ok: $var=$name ($([ "$usable" = 1 ] && echo used || echo refused)); $op uses $sel"
}

# force_all RUNNER CPU: every non-portable variant of every op
force_all() {
    local runner=$1 cpu=$2 table op name isa usable n=0 bad=0
    table=$(variant_table "$runner") || return 1
    [ -n "$table" ] || { echo "no variants read from fastmem-info"; return 1; }
    while read -r op name isa usable; do
        [ "$name" = generic ] && continue
        n=$((n + 1))
        if ! force_one "$runner" "$op" "$name" "$usable" >"$logs/force-$cpu-$op-$name.log" 2>&1; then
            bad=$((bad + 1))
            echo "FAIL $op=$name (isa $isa, usable $usable): see $logs/force-$cpu-$op-$name.log"
            tail -n 5 "$logs/force-$cpu-$op-$name.log" | sed 's/^/    /'
        else
            tail -n 1 "$logs/force-$cpu-$op-$name.log"
        fi
    done <<<"$table"
    echo "$n variants forced, $bad failed"
    [ $bad -eq 0 ] && [ $n -gt 0 ]
}

# expect_usable RUNNER FEATURE WANT [SKIP]: the variants whose ISA names
# FEATURE (and none matching the regex SKIP) are usable (WANT=1) or not
expect_usable() {
    local runner=$1 feature=$2 want=$3 skip=${4:-^$} table got
    table=$(variant_table "$runner") || return 1
    got=$(awk -v f="$feature" -v skip="$skip" '
        $3 ~ ("(^|,)" f "(,|$)") && $3 !~ skip { print $4 }' <<<"$table" | sort -u)
    if [ "$got" != "$want" ]; then
        echo "$feature variants usable=${got:-none}, expected $want:"
        echo "$table"
        return 1
    fi
    echo "$feature variants usable=$want as expected"
}

# probe_model CPU: run the family's probe; set link_args, runner and the
# expectations ("FEATURE WANT [SKIP]" lines in expect) for CPU, or fail
probe_model() {
    local cpu=$1 probe dcbz line sve zva block
    link_args=()
    runner="$qemu -cpu $cpu -L $sysroot"
    case $family in
    ppc)
        probe=$("$qemu" -cpu "$cpu" "$top/dcbz-probe" 2>&1)
        read -r _ dcbz _ line _ power8 <<<"$probe"
        if ! [[ "$dcbz" =~ ^[0-9]+$ && "$line" =~ ^[0-9]+$ &&
            "$power8" =~ ^[01]$ ]]; then
            log "dcbz-probe under -cpu $cpu printed: $probe"
            return 1
        fi
        if [ "$dcbz" = "$line" ]; then
            expect="dcbz 1 cell|ppc970"
            log "$cpu: dcbz clears $dcbz bytes = AT_DCACHEBSIZE $line: dynamic programs"
        else
            expect="dcbz 0 cell|ppc970"
            runner="$qemu -cpu $cpu"
            link_args=("LDFLAGS=$cfg_ldflags -all-static -Wl,--wrap=memset"
                "LIBS=$cfg_libs $top/memset-nodcbz.o")
            log "$cpu: dcbz clears $dcbz bytes, AT_DCACHEBSIZE is $line: glibc's memset is broken here;"
            log "$cpu: static programs with memset from test/ppc/memset-nodcbz.c"
        fi
        expect=$(printf '%s\npower8 %s\n' "$expect" "$power8")
        probe_text="dcbz $dcbz of $line, power8 $power8"
        ;;
    aarch64)
        probe=$("$qemu" -cpu "$cpu" "$top/aarch64-probe" 2>&1)
        read -r _ sve _ zva _ block <<<"$probe"
        if ! [[ "$sve" =~ ^[01]$ && "$zva" =~ ^[01]$ && "$block" =~ ^[0-9]+$ ]]; then
            log "aarch64-probe under -cpu $cpu printed: $probe"
            return 1
        fi
        expect=$(printf 'sve %s\ndczva %s\n' "$sve" "$zva")
        probe_text="sve $sve, DC ZVA block $block usable $zva"
        ;;
    esac
}

for cpu in "${cpus[@]}"; do
    log "==== CPU model $cpu"
    if ! probe_model "$cpu"; then
        record "probe ($cpu)" FAIL 0
        continue
    fi
    record "probe ($cpu): $probe_text" PASS 0
    log "runner: $runner"
    step "link programs ($cpu)" "$logs/link-$cpu.log" \
        link_programs "${link_args[@]}" || continue

    if env -i PATH="$PATH" $runner "$build/fastmem-info" >"$logs/fastmem-info-$cpu.txt" 2>&1; then
        record "fastmem-info ($cpu)" PASS 0
    else
        record "fastmem-info ($cpu)" FAIL 0
    fi
    sed 's/^/    /' "$logs/fastmem-info-$cpu.txt"

    while read -r feature want skip; do
        step "library $feature verdict agrees ($cpu)" \
            "$logs/$feature-$cpu.log" \
            expect_usable "$runner" "$feature" "$want" "$skip"
    done <<<"$expect"

    # the first quick_after models with the full test sizes
    quick=${FMTEST_QUICK:-}
    [ "$quick_after" -gt 0 ] || quick=1
    quick_after=$((quick_after - 1))
    step "make check ($cpu${quick:+, quick})" "$logs/check-$cpu.log" \
        env FMTEST_QUICK="$quick" \
        make -C "$build" -j"$jobs" check TEST_RUNNER="$runner" "${link_args[@]}"
    for t in "$build"/test/*.log "$build"/test-suite.log; do
        [ -f "$t" ] && cp "$t" "$logs/$cpu-${t##*/}"
    done
    grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):' "$logs/check-$cpu.log" |
        sed 's/^/    /'

    step "forced variants ($cpu)" "$logs/force-$cpu.log" \
        force_all "$runner" "$cpu"
    sed 's/^/    /' "$logs/force-$cpu.log"
done

finish
