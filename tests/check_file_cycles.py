#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No call cycles between the files of one lib/ folder (docs/architecture.md, "Layers"): within
a solver the storage primitives are at the bottom and every file calls only downward, so each
can be read, tested and replaced from the bottom up. Reads the library's static archive with
nm: an edge a -> b when a.c uses a symbol b.c defines. Fails naming each cycle and its calls.
Also, in every folder of lib/, a header named for a source file declares that file's functions
only (each function's declaration is where its definition is).
Usage: check_file_cycles.py ARCHIVE [LIB_DIR]"""
import collections
import re
import subprocess
import sys

archive = sys.argv[1]
out = subprocess.run(["nm", archive], capture_output=True, text=True, check=True).stdout
defs, uses, member = {}, collections.defaultdict(set), None
for line in out.splitlines():
    m = re.match(r"^(\S+)\.c\.o:$", line)  # meson names objects folder_file.c.o
    if m:
        member = m.group(1).rsplit("/", 1)[-1]
        continue
    p = line.split()
    if member is None or not p:
        continue
    if len(p) == 3 and p[1] in "TDBRC":
        defs[p[2]] = member
    elif len(p) == 2 and p[0] == "U":
        uses[member].add(p[1])
folders = collections.defaultdict(set)
for f in set(defs.values()) | set(uses):
    folders[f.split("_", 1)[0]].add(f)
edges = collections.defaultdict(set)
for f, syms in uses.items():
    for s in syms:
        g = defs.get(s)
        if g and g != f and g.split("_", 1)[0] == f.split("_", 1)[0]:
            edges[f].add((g, s))


def components(nodes):
    """Strongly connected components (Tarjan), in a fixed order."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w, _ in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


bad = 0
for folder in sorted(folders):
    for comp in components(folders[folder]):
        if len(comp) < 2:
            continue
        bad += 1
        print(f"lib/{folder}: the files {', '.join(c.split('_', 1)[1] + '.c' for c in comp)} call each other:")
        for a in comp:
            for b, s in sorted(edges[a]):
                if b in comp:
                    print(f"    {a.split('_', 1)[1]}.c -> {b.split('_', 1)[1]}.c ({s})")
# the folders themselves: a call into a folder that calls back is a cycle of layers
fedges = collections.defaultdict(set)
for f, syms in uses.items():
    for s in syms:
        g = defs.get(s)
        if g and g.split("_", 1)[0] != f.split("_", 1)[0]:
            fedges[f.split("_", 1)[0]].add((g.split("_", 1)[0], f, g, s))
edges_saved = edges
edges = collections.defaultdict(set, {a: {(b, "") for b, *_ in v} for a, v in fedges.items()})
for comp in components(set(folders)):
    if len(comp) < 2:
        continue
    bad += 1
    print(f"the folders lib/{', lib/'.join(comp)} call each other:")
    for a in comp:
        for b, f, g, s in sorted(fedges[a]):
            if b in comp:
                print(f"    {f}.c -> {g}.c ({s})")
edges = edges_saved
# headers of one file
if len(sys.argv) > 2:
    import glob
    import os

    lib = sys.argv[2]
    for folder in sorted(d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d))):  # every layer
        for h in sorted(glob.glob(os.path.join(lib, folder, "*.h"))):
            base = os.path.basename(h)[:-2]
            if not os.path.exists(os.path.join(lib, folder, base + ".c")):
                continue
            text = re.sub(r"/\*.*?\*/", " ", open(h).read(), flags=re.S)
            text = re.sub(r"//[^\n]*", " ", text)
            for m in re.finditer(r"^(?!static|typedef|#|extern|struct|enum|\s)[^;{}()]*?\b([a-z_][a-z0-9_]*)\s*\([^;{}]*\);",
                                 text, flags=re.M):
                name = m.group(1)
                where = defs.get(name)
                if where != f"{folder}_{base}":
                    bad += 1
                    print(f"lib/{folder}/{base}.h declares {name}, defined in "
                          f"{(where.split('_', 1)[1] + '.c') if where else 'no file'}")
if not defs:
    print("no symbols read from", archive)
    sys.exit(1)
if bad == 0:
    print(f"file cycles: none in {len(folders)} folders (every file calls only downward); headers named for a file: that file's functions")
sys.exit(1 if bad else 0)
