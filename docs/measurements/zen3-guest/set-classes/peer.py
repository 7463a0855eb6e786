#!/usr/bin/env python3
# peer.py [--memcpy] FILE...: for fastmem-bench replay outputs with one
# --peer, the peer's time over fm_memset's (with --memcpy, fm_memcpy's) per
# arena and row (>1: the peer is slower), median over the files, and each
# row's ratios to libc; then, per arena, the geometric mean of the medians
# over the fleet distributions, the class files (classes.py) and the
# recorded programs.
import math
import re
import statistics
import sys

args = sys.argv[1:]
op = 'memset'
if args[:1] == ['--memcpy']:
    op, args = 'memcpy', args[1:]
rows = {}
for name in args:
    arena = None
    for line in open(name):
        m = re.match(r'== %s, replayed, .*\((L1|LLC|memory)\)' % op, line)
        if line.startswith('=='):
            arena = m.group(1) if m else None
            continue
        f = line.split()
        if arena and len(f) >= 9 and f[-1].endswith('x'):
            libc, fm, peer = float(f[1]), float(f[3]), float(f[6])
            rows.setdefault((arena, f[0]), []).append((peer / fm, libc / fm,
                                                      libc / peer))
med = statistics.median
groups = {}
for (arena, dist), v in sorted(rows.items()):
    print('%-6s %-24s peer/fm %.3f   fm %.2fx  peer %.2fx  (%s)' % (
        arena, dist, med(x[0] for x in v), med(x[1] for x in v),
        med(x[2] for x in v), ' '.join('%.2f' % x[0] for x in v)))
    kind = ('recorded' if not dist.startswith('Mem') else
            'class' if '_' in dist else 'fleet')
    groups.setdefault((arena, kind), []).append(med(x[0] for x in v))
for (arena, kind), v in sorted(groups.items()):
    print('%-6s %-8s geometric mean of peer/fm %.3f over %d' % (
        arena, kind, math.exp(sum(map(math.log, v)) / len(v)), len(v)))
