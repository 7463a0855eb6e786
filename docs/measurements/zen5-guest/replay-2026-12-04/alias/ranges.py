#!/usr/bin/env python3
"""Write MemcpyRangeLO-HI.csv and MemsetRangeLO-HI.csv into the current
directory: sizes uniform over one range each, in LLVM libc's format, for
`fastmem-bench replay FILE...` (the name says copy or set)."""
RANGES = [(1, 32), (33, 64), (65, 128), (129, 256), (257, 512),
          (513, 1024), (1025, 2048), (2049, 4096)]
for op in ('Memcpy', 'Memset'):
    for lo, hi in RANGES:
        p = [0.0] * (hi + 1)
        for i in range(lo, hi + 1):
            p[i] = 1.0 / (hi - lo + 1)
        with open('%sRange%d-%d.csv' % (op, lo, hi), 'w') as f:
            f.write(','.join('%g' % x for x in p) + '\n')
