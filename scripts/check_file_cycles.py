#!/usr/bin/env python3
"""Import cycles between the files of src/ (non-test code): edges from `crate::a::b` and `super::x`
paths to the file that defines the module; a reference to a parent module (its re-exports) does not
count. Prints each cycle and a count; exit 1 when there is one. Usage: python3 scripts/check_file_cycles.py src"""
import os, re, sys
src = sys.argv[1]
files = {}
for r, _, fs in os.walk(src):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(r, f)
            rel = os.path.relpath(p, src)[:-3]
            parts = rel.split('/')
            if parts[-1] == 'mod': parts = parts[:-1]
            if parts and parts[-1] in ('lib', 'main') and len(parts) == 1: parts = []
            files['::'.join(parts)] = p
def resolve(path):
    # longest prefix that is a file module
    segs = path.split('::')
    for i in range(len(segs), 0, -1):
        k = '::'.join(segs[:i])
        if k in files: return k
    return None
edges = {k: set() for k in files}
for mod, p in files.items():
    if p.endswith('_tests.rs') or p.endswith('/tests.rs') or '/bin/' in p: continue
    text = open(p).read()
    text = re.split(r'#\[cfg\(test\)\]', text)[0]
    me = mod.split('::') if mod else []
    is_dir = p.endswith('mod.rs')
    for m in re.finditer(r'\b(crate|super)((?:::[a-zA-Z_][a-zA-Z0-9_]*)+)', text):
        base, rest = m.group(1), m.group(2)[2:]
        if base == 'crate': full = rest
        else:
            parent = me if is_dir else me[:-1]
            # super from a file = its parent module; count extra supers
            segs = rest.split('::')
            up = parent[:]
            while segs and segs[0] == 'super': segs.pop(0); up = up[:-1]
            if not is_dir: pass
            full = '::'.join(up + segs) if is_dir is False else '::'.join(me[:-1] + segs)
        t = resolve(full)
        if t is not None and t != mod and not mod.startswith(t + '::') and t != '':
            # ignore references to a parent module (re-exports)
            if mod.split('::')[:len(t.split('::'))] == t.split('::'): continue
            edges[mod].add(t)
# Tarjan
idx, low, st, on, out, c = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: out.append(sorted(comp))
for v in edges:
    if v not in idx: sc(v)
for comp in out: print('file cycle:', ' '.join(comp))
print(len(out), 'file cycles')
sys.exit(1 if out else 0)
