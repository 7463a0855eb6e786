#!/usr/bin/env python3
# peer.py FILE...: for fastmem-bench replay outputs with one --peer, the
# peer's time over fm_memset's per arena and distribution (>1: the peer is
# slower), median over the files, and each row's ratios to libc.
import re
import statistics
import sys

rows = {}
for name in sys.argv[1:]:
    arena = None
    for line in open(name):
        m = re.match(r'== memset, replayed, .*\((L1|LLC|memory)\)', line)
        if m:
            arena = m.group(1)
            continue
        f = line.split()
        if arena and len(f) >= 9 and f[0].startswith('Memset'):
            libc, fm, peer = float(f[1]), float(f[3]), float(f[6])
            rows.setdefault((arena, f[0]), []).append((peer / fm, libc / fm,
                                                      libc / peer))
for (arena, dist), v in sorted(rows.items()):
    med = statistics.median
    print('%-6s %-24s peer/fm %.3f   fm %.2fx  peer %.2fx  (%s)' % (
        arena, dist, med(x[0] for x in v), med(x[1] for x in v),
        med(x[2] for x in v), ' '.join('%.2f' % x[0] for x in v)))
