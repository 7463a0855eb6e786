#!/usr/bin/env python3
# geometric mean of each column's ratio per table; median (range) over files
import sys, re, math, statistics as st
res = {}
order = []
for fn in sys.argv[1:]:
    title = None; cols = None; acc = {}
    for line in open(fn):
        if line.startswith('=='):
            title = line[3:].split(': ns')[0].strip(); cols = None; continue
        if title is None: continue
        if cols is None and re.match(r'\s*(distribution|size)\s', line):
            cols = line.split()[2:]; continue
        if cols is None or 'geometric' in line: continue
        rs = re.findall(r'([\d.]+)x', line)
        if len(rs) == len(cols) and rs:
            for c, r in zip(cols, rs): acc.setdefault((title, c), []).append(float(r))
    for k, v in acc.items():
        if k not in res: res[k] = []; order.append(k)
        res[k].append(math.exp(st.mean(map(math.log, v))))
last = None
for k in order:
    if k[0] != last: print('==', k[0]); last = k[0]
    v = res[k]
    print('   %-10s %.2f (%.2f-%.2f)' % (k[1], st.median(v), min(v), max(v)))
