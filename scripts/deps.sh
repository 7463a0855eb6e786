#!/bin/bash
# Install what libfastmem needs on Debian 12.  `deps.sh` installs the build
# dependencies; `deps.sh --all` also those of every test suite (i686,
# ppc64, ppc64le and aarch64 cross builds under qemu, valgrind, the preload
# programs, plots).
#
# Two traps, both measured on Debian 12:
#  - gcc-multilib conflicts with the ppc64 cross compiler, so the i686 build
#    uses lib32gcc-12-dev + libc6-dev-i386 instead (see scripts/i686-cc);
#  - after `dpkg --add-architecture i386`, `apt-get update` can exit 100 on a
#    mirror index size mismatch although installs work: do not abort on it.
#    For the same reason never install linux-libc-dev:i386 (its version can
#    lag amd64's, and apt then removes libc6-dev).
set -euo pipefail

all=no
[ "${1:-}" = --all ] && all=yes

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

base=(build-essential autoconf automake libtool pkg-config check libcpuid-dev)
# Cross compilers come without their C libraries under
# --no-install-recommends: name them, or the cross stages fail with
# "C compiler cannot create executables" on a fresh machine.
tests=(valgrind qemu-user gcc-powerpc64-linux-gnu libc6-dev-ppc64-cross
	gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross lib32gcc-12-dev
	libc6-dev-i386 coreutils gzip xz-utils python3 git linux-perf
	gnuplot-nox ca-certificates clang libclang-rt-14-dev util-linux
	libcap2-bin libpython3.11-testsuite)
i386=(check:i386)

if [ $all = yes ] && ! dpkg --print-foreign-architectures | grep -qx i386; then
	$SUDO dpkg --add-architecture i386
fi
$SUDO apt-get update -q || echo "deps.sh: apt-get update reported an error; installing anyway" >&2
pkgs=("${base[@]}")
[ $all = yes ] && pkgs+=("${tests[@]}" "${i386[@]}")
$SUDO apt-get install -y -q --no-install-recommends "${pkgs[@]}"
