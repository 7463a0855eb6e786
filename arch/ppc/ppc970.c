/* SPDX-License-Identifier: MIT */
/*
 * The 970 family (copy_ppc970, copy_ppc970_auto, copy_page_ppc970,
 * copy_page_ppc970_auto): dcbzcopy.h with shorter distances than the Cell's,
 * since the out-of-order 970 has hardware prefetch streams of its own and
 * dcbt mainly starts them early: touch 4 lines ahead, zero 2 ahead (chosen,
 * not measured: no 970 is at hand).  Compiled with -mtune=970.
 *
 * A 970 whose HID5 makes dcbz clear 32 bytes (as Mac OS X sets it, and as
 * qemu's 970 model behaves) fails the probe in cpu.c, and this family is
 * then not usable.
 */
#define FAMILY ppc970
#define DCBT_AHEAD 4
#define DCBZ_AHEAD 2
#define POLICY_MIN 512

#include "dcbzcopy.h"
