import sys, re, math, statistics as st
a, b, pat = sys.argv[1], sys.argv[2], sys.argv[3]
for fn in sys.argv[4:]:
    title=None; cols=None; acc={}
    for line in open(fn):
        if line.startswith('=='): title=line[3:].split(': ns')[0].strip(); cols=None; continue
        if title is None: continue
        if cols is None and re.match(r'\s*(distribution|size)\s', line): cols=line.split()[2:]; continue
        if cols is None or 'geometric' in line: continue
        rs=re.findall(r'([\d.]+)x', line)
        if len(rs)==len(cols) and a in cols and b in cols:
            acc.setdefault(title,[]).append(math.log(float(rs[cols.index(a)])/float(rs[cols.index(b)])))
    print('%-16s'%fn, ' '.join('%.3f'%math.exp(st.mean(v)) for t,v in acc.items() if re.search(pat,t)))
