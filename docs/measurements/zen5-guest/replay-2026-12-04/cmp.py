#!/usr/bin/env python3
# speed of build B relative to A per cell: B files have own=B peer=A, A files own=A peer=B
import sys, re, glob, statistics as st
def parse(fn):
    cells = {}; title = None
    for line in open(fn):
        if line.startswith('=='):
            title = line[3:].split(':')[0].strip(); continue
        if title is None or 'geometric' in line or line.startswith('verdict'): continue
        m = re.match(r'\s*(\S+)\s+([\d.]+ ?[mu]?)\s+±\d+%\s+([\d.]+)\s+±\d+%\s+[\d.]+x\s+([\d.]+)\s+±\d+%\s+[\d.]+x', line)
        if m:
            cells[(title, m.group(1))] = (float(m.group(3)), float(m.group(4)))
    return cells
d = sys.argv[1]
A = [parse(f) for f in sorted(glob.glob(d + '/A.*'))]
B = [parse(f) for f in sorted(glob.glob(d + '/B.*'))]
keys = list(B[0].keys())
lo = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
last = None
for k in keys:
    rb = [c[k][1] / c[k][0] for c in B if k in c]   # A ns / B ns
    ra = [c[k][0] / c[k][1] for c in A if k in c]   # A ns / B ns
    both = rb + ra
    med = st.median(both)
    if abs(med - 1) < lo: continue
    if k[0] != last: print('==', k[0]); last = k[0]
    print('%-18s B/A %.3f  (Bfiles %.3f, Afiles %.3f)  range %.3f-%.3f' % (k[1], med, st.median(rb), st.median(ra), min(both), max(both)))
print('--- geometric mean of B/A per table')
import math
titles = []
for k in keys:
    if k[0] not in titles: titles.append(k[0])
for t in titles:
    ks = [k for k in keys if k[0] == t]
    per = []
    for c in B: per.append(math.exp(st.mean([math.log(c[k][1]/c[k][0]) for k in ks if k in c])))
    for c in A: per.append(math.exp(st.mean([math.log(c[k][0]/c[k][1]) for k in ks if k in c])))
    print('%-90s %.3f (%.3f-%.3f)' % (t, st.median(per), min(per), max(per)))
