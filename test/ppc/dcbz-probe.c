/* SPDX-License-Identifier: MIT */
/*
 * dcbz-probe: prints "dcbz N line M power8 P", the bytes one dcbz clears,
 * the cache line the kernel (or qemu) reports in AT_DCACHEBSIZE, and
 * whether AT_HWCAP and AT_HWCAP2 announce VSX and ISA 2.07 (POWER8).  run.sh
 * uses it to know, independently of libfastmem, whether the CPU model it tests
 * on has a dcbz that disagrees with AT_DCACHEBSIZE: glibc's own memset then
 * leaves most of a zeroed buffer unzeroed (qemu-ppc64 -cpu 970).
 * Built static, and it calls no memset.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>

int main(void)
{
	static volatile unsigned char buf[2048];
	volatile unsigned char *p =
		buf + (-(uintptr_t)buf & 511) + 512; /* 512-aligned, inside */
	unsigned n = 0;

	for (unsigned i = 0; i < 512; i++)
		p[i] = 0xff;
	__asm__ volatile("dcbz 0,%0" : : "r"(p) : "memory");
	while (n < 512 && p[n] == 0)
		n++;
	printf("dcbz %u line %lu power8 %d\n", n, getauxval(AT_DCACHEBSIZE),
	       (getauxval(AT_HWCAP) & 0x00000080ul) /* VSX */ &&
		       (getauxval(AT_HWCAP2) & 0x80000000ul) /* ISA 2.07 */);
	return 0;
}
