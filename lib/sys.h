/* SPDX-License-Identifier: MIT */
/*
 * The system calls libfastmem needs before the world exists (inside an
 * ifunc resolver, libc not yet usable): openat, read, write, close, statx
 * and the four uid/gid queries, as inline syscall instructions.  On
 * architectures without a version here the environment and config files
 * are not read (the automatic choices stand).
 */
#ifndef FASTMEM_SYS_H
#define FASTMEM_SYS_H

#include <fcntl.h>
#include <linux/stat.h>
#include <sys/syscall.h>

#ifndef AT_EMPTY_PATH /* <fcntl.h> has it only with _GNU_SOURCE */
#define AT_EMPTY_PATH 0x1000
#endif

#if defined(__x86_64__)
#define FM_HAVE_RAW_SYSCALLS 1
static inline long fm_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long fm_syscall5(long nr, long a, long b, long c, long d, long e)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__i386__)
#define FM_HAVE_RAW_SYSCALLS 1
static inline long fm_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c)
			 : "memory");
	return ret;
}

static inline long fm_syscall5(long nr, long a, long b, long c, long d, long e)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return ret;
}
#elif defined(__powerpc64__)
#define FM_HAVE_RAW_SYSCALLS 1
static inline long fm_syscall3(long nr, long a, long b, long c)
{
	register long r0 __asm__("r0") = nr;
	register long r3 __asm__("r3") = a;
	register long r4 __asm__("r4") = b;
	register long r5 __asm__("r5") = c;

	/* errors come back positive with cr0.SO set: make them negative */
	__asm__ volatile("sc\n\tbns+ 1f\n\tneg %1,%1\n1:"
			 : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5)
			 :
			 : "r6", "r7", "r8", "r9", "r10", "r11", "r12", "cr0",
			   "ctr", "xer", "memory");
	return r3;
}

static inline long fm_syscall5(long nr, long a, long b, long c, long d, long e)
{
	register long r0 __asm__("r0") = nr;
	register long r3 __asm__("r3") = a;
	register long r4 __asm__("r4") = b;
	register long r5 __asm__("r5") = c;
	register long r6 __asm__("r6") = d;
	register long r7 __asm__("r7") = e;

	__asm__ volatile("sc\n\tbns+ 1f\n\tneg %1,%1\n1:"
			 : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6),
			   "+r"(r7)
			 :
			 : "r8", "r9", "r10", "r11", "r12", "cr0", "ctr", "xer",
			   "memory");
	return r3;
}
#elif defined(__aarch64__)
#define FM_HAVE_RAW_SYSCALLS 1
static inline long fm_syscall3(long nr, long a, long b, long c)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2)
			 : "memory");
	return x0;
}

static inline long fm_syscall5(long nr, long a, long b, long c, long d, long e)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4)
			 : "memory");
	return x0;
}
#else
#define FM_HAVE_RAW_SYSCALLS 0
static inline long fm_syscall3(long nr, long a, long b, long c)
{
	(void)nr, (void)a, (void)b, (void)c;
	return -38; /* ENOSYS */
}

static inline long fm_syscall5(long nr, long a, long b, long c, long d, long e)
{
	(void)nr, (void)a, (void)b, (void)c, (void)d, (void)e;
	return -38; /* ENOSYS */
}
#endif

static inline int fm_open(const char *path)
{
	return (int)fm_syscall3(SYS_openat, AT_FDCWD, (long)path,
				O_RDONLY | O_CLOEXEC);
}

/* For files the caller may have named: never block (a FIFO, a terminal),
 * never become the controlling terminal; optionally never follow a
 * symbolic link in the last component. */
static inline int fm_open_nonblock(const char *path, int nofollow)
{
	return (int)fm_syscall3(SYS_openat, AT_FDCWD, (long)path,
				O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
					(nofollow ? O_NOFOLLOW : 0));
}

/* What statx must report for its answer to be used. */
#define FM_STATX_NEEDED (STATX_TYPE | STATX_MODE | STATX_UID)

/* Type, mode, owner and size of an open file (0, or -errno). */
static inline long fm_fstatx(int fd, struct statx *st)
{
	return fm_syscall5(SYS_statx, fd, (long)"", AT_EMPTY_PATH,
			   STATX_TYPE | STATX_MODE | STATX_UID | STATX_SIZE,
			   (long)st);
}

/* The same for a path, following links. */
static inline long fm_statx_path(const char *path, struct statx *st)
{
	return fm_syscall5(SYS_statx, AT_FDCWD, (long)path, 0,
			   STATX_TYPE | STATX_MODE | STATX_UID, (long)st);
}

/* Real and effective ids, for secure-execution mode. */
#if defined(SYS_getuid32)
#define FM_SYS_GETUID SYS_getuid32
#define FM_SYS_GETEUID SYS_geteuid32
#define FM_SYS_GETGID SYS_getgid32
#define FM_SYS_GETEGID SYS_getegid32
#else
#define FM_SYS_GETUID SYS_getuid
#define FM_SYS_GETEUID SYS_geteuid
#define FM_SYS_GETGID SYS_getgid
#define FM_SYS_GETEGID SYS_getegid
#endif

static inline long fm_id(long nr)
{
	return fm_syscall3(nr, 0, 0, 0);
}

static inline long fm_read(int fd, void *buf, size_t n)
{
	return fm_syscall3(SYS_read, fd, (long)buf, (long)n);
}

static inline long fm_write(int fd, const void *buf, size_t n)
{
	return fm_syscall3(SYS_write, fd, (long)buf, (long)n);
}

static inline void fm_close(int fd)
{
	fm_syscall3(SYS_close, fd, 0, 0);
}

#endif /* FASTMEM_SYS_H */
