/* SPDX-License-Identifier: MIT */
/*
 * fastmem-bench's order of a cell's rows (tools/run-order.h): each run a
 * permutation of the rows, and over a period every row right after every
 * other equally often and in every position equally often.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "run-order.h"

enum { MAX_ROWS = 48 }; /* MAX_SERIES in tools/bench.h */

START_TEST(test_run_order_balanced)
{
	static int after[MAX_ROWS][MAX_ROWS], at[MAX_ROWS][MAX_ROWS];
	int nj = _i, period = nj & 1 ? 2 * nj : nj;
	int want_after = nj & 1 ? 2 : 1;

	memset(after, 0, sizeof(after));
	memset(at, 0, sizeof(at));
	for (int r = 0; r < period; r++) {
		int seen[MAX_ROWS] = { 0 }, prev = -1;

		for (int x = 0; x < nj; x++) {
			int i = run_order(r, x, nj);

			ck_assert_msg(i >= 0 && i < nj,
				      "%d rows, run %d: row %d out of range",
				      nj, r, i);
			ck_assert_msg(!seen[i]++,
				      "%d rows, run %d: row %d twice", nj, r,
				      i);
			at[i][x]++;
			if (prev >= 0)
				after[prev][i]++;
			prev = i;
		}
	}
	for (int a = 0; a < nj; a++)
		for (int b = 0; b < nj; b++) {
			ck_assert_msg(at[a][b] == period / nj,
				      "%d rows: row %d at position %d %d "
				      "times in %d runs",
				      nj, a, b, at[a][b], period);
			if (a != b)
				ck_assert_msg(after[a][b] == want_after,
					      "%d rows: row %d after row %d "
					      "%d times in %d runs",
					      nj, b, a, after[a][b], period);
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("order");

	tcase_add_loop_test(tc, test_run_order_balanced, 1, MAX_ROWS + 1);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
