/* SPDX-License-Identifier: MIT */
/* fastmem-bench: the order of a cell's rows in each run (test/check_bench.c) */
#ifndef FASTMEM_RUN_ORDER_H
#define FASTMEM_RUN_ORDER_H

/*
 * The row that runs x-th in run r, of nj rows.  A row finds the caches as
 * its predecessor left them, so the orders form a Williams design: over
 * nj runs (2 nj when nj is odd) every row runs right after every other
 * row equally often, and in each position equally often.  Rotation alone
 * runs each row after the same neighbour: libfastmem loaded twice in
 * `replay` (its own row, always after glibc's, and the same library as a
 * --peer) then ran 0.87-0.96x itself on the fleet copies of the LLC arena
 * (Zen 5 guest, 5 runs).  Rotating forward and backward in turn, which
 * balances three rows but not five, left it at 0.90-0.96x on the recorded
 * programs there with three peers in the run, and within 2% of itself
 * with none (docs/measurements/zen5-guest.md, 2026-12-04).
 */
static inline int run_order(int r, int x, int nj)
{
	int y = x, b;

	if (nj & 1 && (r / nj) & 1)
		y = nj - 1 - x; /* the mirrored square */
	/* 0, 1, nj - 1, 2, nj - 2, ... */
	b = y & 1 ? (y + 1) / 2 : (nj - y / 2) % nj;
	return (b + r) % nj;
}

#endif
