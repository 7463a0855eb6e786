/* SPDX-License-Identifier: MIT */
/*
 * The Cell family (copy_cell, copy_cell_auto, copy_page_cell,
 * copy_page_cell_auto): dcbzcopy.h with glibc's Cell distances, touching
 * the source 6 lines ahead (memory is >400 cycles away from the in-order
 * PPE) and zeroing the destination 4 lines ahead.  Compiled with
 * -mtune=cell; the Cell PPE runs record forms such as andi. in microcode,
 * and test/cross/run.sh checks this object has none.
 */
#define FAMILY cell
#define DCBT_AHEAD 6
#define DCBZ_AHEAD 4
#define POLICY_MIN 512

#include "dcbzcopy.h"
