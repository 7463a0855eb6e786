/* SPDX-License-Identifier: MIT */
/*
 * aarch64-probe: prints "sve S dczva Z block B", what the CPU model under
 * test offers, found independently of libfastmem: S is HWCAP_SVE from
 * getauxval, B the block DCZID_EL0 reports (0 when DZP prohibits DC ZVA)
 * and Z whether libfastmem should use DC ZVA there: 1 when B is a block it
 * handles (16 to 512 bytes) and one DC ZVA, tried here on a buffer of 0xff,
 * zeroes exactly the B aligned bytes around the address given.
 * test/cross/run.sh compares that with the library's verdict.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>

#ifndef HWCAP_SVE
#define HWCAP_SVE (1ul << 22)
#endif

static int zva_zeroes(unsigned block)
{
	static volatile unsigned char buf[8192];
	/* three blocks, the middle one aligned */
	volatile unsigned char *q = buf + (-(uintptr_t)buf & (block - 1));

	for (unsigned i = 0; i < 3 * block; i++)
		q[i] = 0xff;
	__asm__ volatile("dc zva, %0" : : "r"(q + block + 5) : "memory");
	for (unsigned i = 0; i < 3 * block; i++) {
		int in_block = i >= block && i < 2 * block;
		if (q[i] != (in_block ? 0 : 0xff))
			return 0;
	}
	return 1;
}

int main(void)
{
	uint64_t dczid;
	unsigned block;
	int sve = !!(getauxval(AT_HWCAP) & HWCAP_SVE), zva = 0;

	__asm__ volatile("mrs %0, dczid_el0" : "=r"(dczid));
	block = dczid & 16 ? 0 : 4u << (dczid & 15);
	if (block >= 16 && block <= 512)
		zva = zva_zeroes(block);
	printf("sve %d dczva %d block %u\n", sve, zva, block);
	return 0;
}
