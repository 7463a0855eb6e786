/* SPDX-License-Identifier: MIT */
/*
 * fastmem-info's parts beside its own process's report.
 */
#ifndef FASTMEM_TOOLS_INFO_H
#define FASTMEM_TOOLS_INFO_H

/*
 * fastmem-info --pid PID: whether process PID has the preload or the
 * library mapped, what can be said of its variants, and its FASTMEM_*
 * variables, read from /proc.  The exit status: 0, 1 if the process does
 * not exist or a part could not be read (said on stdout or stderr), 2 for
 * a PID that is not a number.
 */
int info_pid(const char *pid, int json);

#endif /* FASTMEM_TOOLS_INFO_H */
