#!/usr/bin/env bash
# build-check.sh PREFIX
#
# Build a static Check unit-test library (https://libcheck.github.io) for
# big-endian ppc64 and install it into PREFIX:
#   PREFIX/lib/libcheck.a  PREFIX/include/check.h  PREFIX/lib/pkgconfig/check.pc
#
# Debian ships no ppc64 `check` package, so this fetches Debian's *source*
# package with `apt-get source`, using a private, throw-away apt configuration
# (its own sources list, list directory and cache), so nothing under /etc/apt,
# /var/lib/apt or /var/cache/apt is touched.  The deb-src entries are derived
# at run time from the machine's own `deb` entries for its release.
#
# Use afterwards, e.g.:
#   PKG_CONFIG_LIBDIR=PREFIX/lib/pkgconfig pkg-config --static --cflags --libs check
#
# Environment (all optional):
#   CHECK_HOST     target triplet            (default: powerpc64-linux-gnu)
#   CHECK_DEB_SRC  one-line deb-src entry to use instead of deriving one, e.g.
#                  "deb-src http://MIRROR/debian bookworm main"
#   KEEP_TMP=1     keep the temporary build directory (for debugging)
#
# Needs: ${CHECK_HOST}-gcc, make, apt-get, tar (no dpkg-dev: only the upstream
# orig tarball is used, see below).
set -euo pipefail

prog=${0##*/}
host=${CHECK_HOST:-powerpc64-linux-gnu}

SECONDS=0
log() { printf '%s: [%3ss] %s\n' "$prog" "$SECONDS" "$*"; }
die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }

if [ $# -ne 1 ] || [ -z "$1" ]; then
    printf 'usage: %s PREFIX\n' "$prog" >&2
    exit 2
fi

prefix=$1
if [ -f "$prefix/lib/pkgconfig/check.pc" ]; then
    log "Check already installed in $prefix (found $prefix/lib/pkgconfig/check.pc); nothing to do"
    exit 0
fi

# ---- prerequisites -------------------------------------------------------
command -v "$host-gcc" >/dev/null 2>&1 ||
    die "cross compiler $host-gcc not found (Debian: apt-get install gcc-${host})"
for tool in make apt-get tar; do
    command -v "$tool" >/dev/null 2>&1 || die "required tool '$tool' not found"
done
created_prefix=0
[ -d "$prefix" ] || created_prefix=1
mkdir -p "$prefix" || die "cannot create $prefix"
prefix=$(cd "$prefix" && pwd -P) || die "cannot resolve $prefix"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/build-check.XXXXXX") || die "mktemp failed"
cleanup() {
    local rc=$?
    # On failure, do not leave behind an (empty) PREFIX that we created.
    if [ "$rc" -ne 0 ] && [ "$created_prefix" = 1 ]; then
        rmdir "$prefix" 2>/dev/null || true
    fi
    if [ "${KEEP_TMP:-0}" = 1 ]; then
        log "keeping temporary directory $tmp"
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- private apt configuration with deb-src entries ----------------------
aptdir=$tmp/apt
mkdir -p "$aptdir/sources.list.d" "$aptdir/lists/partial" \
         "$aptdir/cache/archives/partial"
: >"$aptdir/sources.list"

if [ -n "${CHECK_DEB_SRC:-}" ]; then
    printf '%s\n' "$CHECK_DEB_SRC" >"$aptdir/sources.list.d/check-src.list"
else
    codename=
    if [ -r /etc/os-release ]; then
        # shellcheck disable=SC1091
        codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
    fi
    [ -n "$codename" ] || die "cannot tell the Debian release (no VERSION_CODENAME in /etc/os-release); set CHECK_DEB_SRC"

    # Files apt itself would read: sources.list and sources.list.d/*.{list,sources}.
    list_files=()
    sources_files=()
    [ -f /etc/apt/sources.list ] && list_files+=(/etc/apt/sources.list)
    for f in /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] && list_files+=("$f")
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && sources_files+=("$f")
    done

    # One-line format: turn "deb [opts] URI SUITE COMP..." for this release
    # (SUITE = codename or codename-updates/-security/...) into deb-src.
    if [ ${#list_files[@]} -gt 0 ]; then
        awk -v cn="$codename" '
            /^[ \t]*deb[ \t]/ {
                line = $0
                sub(/^[ \t]*deb[ \t]+/, "", line)
                opts = ""
                if (line ~ /^\[/) {
                    opts = substr(line, 1, index(line, "]"))
                    line = substr(line, index(line, "]") + 1)
                }
                n = split(line, w, /[ \t]+/)
                k = (w[1] == "") ? 2 : 1       # skip empty field from leading blank
                uri = w[k]; suite = w[k + 1]
                if (suite !~ ("^" cn "(-[a-z]+)?/?$")) next
                comps = ""
                for (i = k + 2; i <= n; i++) comps = comps " " w[i]
                print "deb-src " (opts == "" ? "" : opts " ") uri " " suite comps
            }' "${list_files[@]}" >"$aptdir/sources.list.d/check-src.list"
    fi

    # deb822 format: copy enabled stanzas of Types "deb" whose Suites include
    # this release, with Types changed to deb-src and other suites dropped.
    if [ ${#sources_files[@]} -gt 0 ]; then
        for f in "${sources_files[@]}"; do
            awk -v cn="$codename" '
                function flush(   i, ok, n, s, kept) {
                    if (nl == 0) return
                    ok = (types ~ /(^|[ \t])deb([ \t]|$)/) && (tolower(enabled) != "no")
                    kept = ""
                    n = split(suites, s, /[ \t]+/)
                    for (i = 1; i <= n; i++)
                        if (s[i] ~ ("^" cn "(-[a-z]+)?/?$")) kept = kept " " s[i]
                    if (ok && kept != "") {
                        for (i = 1; i <= nl; i++) {
                            if (L[i] ~ /^Types:/) print "Types: deb-src"
                            else if (L[i] ~ /^Suites:/) print "Suites:" kept
                            else print L[i]
                        }
                        print ""
                    }
                    nl = 0; types = ""; suites = ""; enabled = ""
                }
                /^#/ { next }
                /^[ \t]*$/ { flush(); next }
                {
                    L[++nl] = $0
                    if ($0 ~ /^Types:/)   { types = $0;   sub(/^Types:[ \t]*/, "", types) }
                    if ($0 ~ /^Suites:/)  { suites = $0;  sub(/^Suites:[ \t]*/, "", suites) }
                    if ($0 ~ /^Enabled:/) { enabled = $0; sub(/^Enabled:[ \t]*/, "", enabled) }
                }
                END { flush() }' "$f"
        done >"$aptdir/sources.list.d/check-src.sources"
    fi

    if ! grep -qs . "$aptdir/sources.list.d/check-src.list" "$aptdir/sources.list.d/check-src.sources"; then
        die "found no 'deb' entry for '$codename' in /etc/apt/sources.list{,.d/} to derive a deb-src entry from; set CHECK_DEB_SRC"
    fi
fi
find "$aptdir/sources.list.d" -type f -empty -delete

apt_opts=(
    -q -y
    -o "Dir::Etc::SourceList=$aptdir/sources.list"
    -o "Dir::Etc::SourceParts=$aptdir/sources.list.d"
    -o "Dir::State::Lists=$aptdir/lists"
    -o "Dir::Cache=$aptdir/cache"
    -o "Dir::Cache::pkgcache="
    -o "Dir::Cache::srcpkgcache="
    -o "Acquire::Languages=none"
    -o "APT::Sandbox::User=root"
)

log "deb-src entries used:"
cat "$aptdir"/sources.list.d/* | sed -e '/^$/d' -e 's/^/    /'

log "fetching deb-src indices (private apt state in $aptdir)"
if ! apt-get "${apt_opts[@]}" update </dev/null >"$tmp/apt-update.log" 2>&1; then
    # Partial failures (e.g. one unreachable suite) are not fatal as long as
    # `apt-get source` below still finds the package.
    log "warning: 'apt-get update' reported errors:"
    sed 's/^/    /' "$tmp/apt-update.log" >&2
fi

src=$tmp/src
mkdir -p "$src"
log "downloading Debian source package 'check'"
if ! (cd "$src" && apt-get "${apt_opts[@]}" --download-only --tar-only source check </dev/null \
        >"$tmp/apt-source.log" 2>&1); then
    sed 's/^/    /' "$tmp/apt-update.log" "$tmp/apt-source.log" >&2
    die "apt-get source check failed (see output above)"
fi

# Use the pristine upstream tarball, not Debian's patched tree: Debian's
# 01pkgconfig.patch rewrites check.pc to link "-lcheck_pic" (a library only
# Debian's packaging builds), and its other patches concern docs, checkmk
# and the test suite, not the library.
orig=$(find "$src" -maxdepth 1 -name 'check_*.orig.tar.*' | head -n 1)
[ -n "$orig" ] || die "apt-get source downloaded no check_*.orig.tar.* (got: $(ls "$src"))"
log "unpacking ${orig##*/}"
srcdir=$src/check
mkdir -p "$srcdir"
tar -xf "$orig" -C "$srcdir" --strip-components=1 || die "cannot unpack ${orig##*/}"
[ -x "$srcdir/configure" ] || die "${orig##*/} has no configure script"

# ---- configure, build, stage, install -----------------------------------
build=$tmp/build
mkdir -p "$build"
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

# Run-time checks cannot run when cross compiling and configure then assumes
# the worst (adding replacement functions); glibc is known to pass them.
cache_vars=()
case $host in
    *-linux-gnu*)
        cache_vars=(ac_cv_func_malloc_0_nonnull=yes ac_cv_func_realloc_0_nonnull=yes
                    hw_cv_func_snprintf_c99=yes hw_cv_func_vsnprintf_c99=yes) ;;
esac

log "configuring for --host=$host (prefix $prefix)"
# --disable-build-docs: the manual is not needed (and could want makeinfo).
# dash, where present, runs configure's ~200 checks noticeably faster than bash.
cfg_shell=/bin/sh
[ -x /bin/dash ] && cfg_shell=/bin/dash
(cd "$build" && CONFIG_SHELL=$cfg_shell "$cfg_shell" "$srcdir/configure" \
    --host="$host" --prefix="$prefix" \
    --disable-shared --enable-static --enable-subunit=no \
    --disable-build-docs --disable-dependency-tracking \
    "${cache_vars[@]}" >"$tmp/configure.log" 2>&1) || {
    tail -n 40 "$tmp/configure.log" >&2
    [ -f "$build/config.log" ] && tail -n 40 "$build/config.log" >&2
    die "configure failed (last lines above)"
}

# Only the library: the top-level "all" would also link the whole test suite
# (tests/ has noinst programs), which roughly doubles the build time.
log "building lib/ and src/"
(cd "$build" && make -j"$jobs" -C lib && make -j"$jobs" -C src) >"$tmp/make.log" 2>&1 || {
    tail -n 60 "$tmp/make.log" >&2
    die "make failed (last lines above)"
}

# Install into a staging directory first and copy check.pc last, so that an
# interrupted run never leaves the check.pc marker behind without the rest.
# src/: libcheck.a (+ .la), check.h; top level: check_stdint.h, check.pc.
stage=$tmp/stage
(cd "$build" && make -C src install DESTDIR="$stage" &&
    make install-includeHEADERS install-pcdataDATA DESTDIR="$stage") \
    >"$tmp/install.log" 2>&1 || {
    tail -n 40 "$tmp/install.log" >&2
    die "make install failed (last lines above)"
}
staged=$stage$prefix
for f in lib/libcheck.a include/check.h lib/pkgconfig/check.pc; do
    [ -f "$staged/$f" ] || die "build did not produce $f"
done
mv "$staged/lib/pkgconfig/check.pc" "$tmp/check.pc"
cp -R "$staged/." "$prefix/" || die "cannot copy into $prefix"
mkdir -p "$prefix/lib/pkgconfig"
cp "$tmp/check.pc" "$prefix/lib/pkgconfig/check.pc" || die "cannot install check.pc"

version=$(sed -n 's/^Version:[[:space:]]*//p' "$prefix/lib/pkgconfig/check.pc")
log "installed Check ${version:-?} for $host into $prefix in ${SECONDS} s"
