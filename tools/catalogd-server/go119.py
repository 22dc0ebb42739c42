#!/usr/bin/env python3
"""Mechanical Go 1.20-1.24 -> Go 1.19 rewrites of klauspost/compress, used by build.sh (beside this file).

    go119.py GO MODULE_DIR PKG...

Builds PKG... (import paths inside MODULE_DIR, e.g. ./gzhttp) with `GO build -gcflags=-e`, reads the compiler's
errors and rewrites only the lines they point at, again and again until the packages build (or an error is left
that no rule covers: it is printed and the script fails). Each rewrite keeps the meaning of the original:

  range over an integer (Go 1.22), the compiler says `cannot range over E (variable|value|constant ... of type T)`:
      for v := range E {   ->  for v, go119N := T(0), T(E); v < go119N; v++ {
      for range E {        ->  for go119i, go119N := T(0), T(E); go119i < go119N; go119i++ {
      for v = range E {    ->  for v = T(0); v < T(E); v++ {      (E: identifiers, selectors, conversions only;
                                                                 after the loop v is E, not E-1: the one use,
                                                                 flate/huffman_code.go, does not read it)
    E is evaluated once and v has type T, as with range; the one difference, an assignment to v inside the body
    changing the iteration, is refused (the script fails if the body assigns v).
  min, max (Go 1.21 builtins), `undefined: min|max`: a file go119_builtins.go in that package declares generic
    min/max over the ordered types with the builtins' result (the first of equal values; no NaN handling: none
    of the rewritten packages compares floats).
  clear (Go 1.21 builtin), `undefined: clear`, a statement `clear(x)`: -> go119ClearSlice(x), or, when the
    compiler then says x is no slice, go119ClearMap(x) (both in go119_builtins.go: zero every element, delete
    every key).
  unsafe.SliceData (Go 1.20): `unsafe.SliceData(b)` -> `(*byte)(unsafe.Pointer((*reflect.SliceHeader)(unsafe.Pointer(&b)).Data))`
    (only for []byte b, the one use: internal/le).
  slices.Max (Go 1.21), the import "slices" not in GOROOT: `slices.Max(` -> `go119SlicesMax(` and the import
    dropped; go119_builtins.go gains go119SlicesMax (panics on an empty slice, as slices.Max does).
Every rewritten line keeps its line number (one line in, one line out), so file:line references of the
original stay valid. The list of rewrites is printed.
"""
import os
import re
import subprocess
import sys

GO, ROOT, PKGS = sys.argv[1], sys.argv[2], sys.argv[3:]

BUILTINS = '''// Code added by tools/catalogd-server/go119.py: Go 1.21 builtins for Go 1.19.

package {pkg}

type go119Ordered interface {{
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~string
}}

func min[T go119Ordered](x T, y ...T) T {{
	for _, v := range y {{
		if v < x {{
			x = v
		}}
	}}
	return x
}}

func max[T go119Ordered](x T, y ...T) T {{
	for _, v := range y {{
		if v > x {{
			x = v
		}}
	}}
	return x
}}

func go119ClearSlice[S ~[]E, E any](s S) {{
	var zero E
	for i := range s {{
		s[i] = zero
	}}
}}

func go119ClearMap[M ~map[K]V, K comparable, V any](m M) {{
	for k := range m {{
		delete(m, k)
	}}
}}

func go119SlicesMax[S ~[]E, E go119Ordered](x S) E {{
	if len(x) < 1 {{
		panic("slices.Max: empty list")
	}}
	m := x[0]
	for i := 1; i < len(x); i++ {{
		if x[i] > m {{
			m = x[i]
		}}
	}}
	return m
}}
'''

ERR = re.compile(r'^(?P<file>[^:\s]+\.go):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$')
RANGE = re.compile(r'cannot range over (?P<expr>.+) \((?:(?:variable|value|constant(?: [^ ]+)?) of (?:type|int type) '
                   r'(?P<type>[^)]+)|untyped (?P<untyped>int) constant[^)]*)\)')
FOR_RANGE = re.compile(r'^(?P<indent>\s*)for\s+(?:(?P<var>\w+)\s*(?P<op>:?=)\s*)?range\s+(?P<expr>.+?)\s*\{\s*$')

env = dict(os.environ, GOFLAGS='-mod=mod', GOPROXY='off', GOTOOLCHAIN='local', CGO_ENABLED='0', GOWORK='off')
counter = [0]
changes = []


def build():
    p = subprocess.run([GO, 'build', '-gcflags=-e', *PKGS], cwd=ROOT, env=env, capture_output=True, text=True)
    return p.returncode, p.stderr


def read(path):
    with open(path) as f:
        return f.read().split('\n')


def write(path, lines):
    with open(path, 'w') as f:
        f.write('\n'.join(lines))


def body_assigns(lines, start, var, indent):
    """True if the loop body starting after line index start assigns var (v = ..., v++, v += ...)."""
    pat = re.compile(rf'(^|[^\w.]){re.escape(var)}\s*(=[^=]|\+\+|--|[-+*/%&|^]=|<<=|>>=)')
    for line in lines[start + 1:]:
        if line.startswith(indent + '}'):
            return False
        if pat.search(line):
            return True
    return False


def ensure_builtins(pkgdir):
    path = os.path.join(pkgdir, 'go119_builtins.go')
    if not os.path.exists(path):
        pkg = None
        for name in sorted(os.listdir(pkgdir)):
            if name.endswith('.go') and not name.endswith('_test.go'):
                m = re.search(r'^package (\w+)', open(os.path.join(pkgdir, name)).read(), re.M)
                if m:
                    pkg = m.group(1)
                    break
        with open(path, 'w') as f:
            f.write(BUILTINS.format(pkg=pkg))
        changes.append(f'{os.path.relpath(path, ROOT)}: added (min, max, go119ClearSlice, go119ClearMap, go119SlicesMax)')


def fix_missing_std(stderr):
    """package slices is not in GOROOT: rewrite slices.Max in the importing files."""
    done = False
    for m in re.finditer(r'^(?P<file>[^:\s]+\.go):\d+:\d+: package slices is not in GOROOT', stderr, re.M):
        path = os.path.join(ROOT, m.group('file'))
        lines = read(path)
        for i, line in enumerate(lines):
            if line.strip() == '"slices"':
                lines[i] = ''
                changes.append(f'{m.group("file")}:{i + 1}: import "slices" dropped')
            elif 'slices.' in line:
                if re.search(r'slices\.(?!Max\()', line):
                    sys.exit(f'go119.py: no rule for {m.group("file")}:{i + 1}: {line.strip()}')
                lines[i] = line.replace('slices.Max(', 'go119SlicesMax(')
                changes.append(f'{m.group("file")}:{i + 1}: slices.Max -> go119SlicesMax')
        write(path, lines)
        ensure_builtins(os.path.dirname(path))
        done = True
    return done


def main():
    for _ in range(200):
        rc, stderr = build()
        if rc == 0:
            print('\n'.join(changes))
            return
        if fix_missing_std(stderr):
            continue
        fixed = False
        edits = {}
        unknown = []
        for raw in stderr.splitlines():
            m = ERR.match(raw.strip())
            if not m:
                continue
            f, ln, msg = m.group('file'), int(m.group('line')), m.group('msg')
            path = os.path.normpath(os.path.join(ROOT, f))
            r = RANGE.match(msg)
            if r:
                edits.setdefault(path, {})[ln] = ('range', r.group('type') or r.group('untyped'))
            elif msg in ('undefined: min', 'undefined: max'):
                ensure_builtins(os.path.dirname(path))
                fixed = True
            elif msg == 'undefined: clear':
                ensure_builtins(os.path.dirname(path))
                edits.setdefault(path, {})[ln] = ('clear', None)
            elif 'go119ClearSlice' in open(path).read().split('\n')[ln - 1] and 'does not match' in msg:
                edits.setdefault(path, {})[ln] = ('clearmap', None)
            elif msg == 'undefined: unsafe.SliceData':
                edits.setdefault(path, {})[ln] = ('slicedata', None)
            else:
                unknown.append(raw)
        for path, byline in edits.items():
            lines = read(path)
            rel = os.path.relpath(path, ROOT)
            for ln, (kind, typ) in sorted(byline.items()):
                line = lines[ln - 1]
                if kind == 'range':
                    fm = FOR_RANGE.match(line)
                    if not fm:
                        sys.exit(f'go119.py: no rule for {rel}:{ln}: {line.strip()}')
                    counter[0] += 1
                    n = f'go119N{counter[0]}'
                    var = fm.group('var') or f'go119i{counter[0]}'
                    if fm.group('var') and body_assigns(lines, ln - 1, var, fm.group('indent')):
                        sys.exit(f'go119.py: {rel}:{ln}: the loop body assigns {var}; refusing to rewrite')
                    expr = fm.group('expr')
                    if fm.group('op') == '=':
                        # assignment form: v is declared before the loop; E must be free of side effects
                        if not re.fullmatch(r'[\w.()]+', expr):
                            sys.exit(f'go119.py: no rule for {rel}:{ln}: {line.strip()}')
                        lines[ln - 1] = f'{fm.group("indent")}for {var} = {typ}(0); {var} < {typ}({expr}); {var}++ {{'
                    else:
                        lines[ln - 1] = (f'{fm.group("indent")}for {var}, {n} := {typ}(0), {typ}({expr}); '
                                         f'{var} < {n}; {var}++ {{')
                elif kind == 'clear':
                    if not re.fullmatch(r'\s*clear\([\w.]+\)\s*', line):
                        sys.exit(f'go119.py: no rule for {rel}:{ln}: {line.strip()}')
                    lines[ln - 1] = line.replace('clear(', 'go119ClearSlice(')
                elif kind == 'clearmap':
                    lines[ln - 1] = line.replace('go119ClearSlice(', 'go119ClearMap(')
                elif kind == 'slicedata':
                    new = re.sub(r'unsafe\.SliceData\((\w+)\)',
                                 r'(*byte)(unsafe.Pointer((*reflect.SliceHeader)(unsafe.Pointer(&\1)).Data))', line)
                    lines[ln - 1] = new
                    if not any('"reflect"' in l for l in lines):
                        i = next(i for i, l in enumerate(lines) if l.strip() == '"unsafe"')
                        # keep line numbers: put the import on the "unsafe" line
                        lines[i] = lines[i].replace('"unsafe"', '"unsafe"; "reflect"')
                changes.append(f'{rel}:{ln}: {line.strip()}  ->  {lines[ln - 1].strip()}')
                fixed = True
            write(path, lines)
        if unknown and not fixed:
            sys.exit('go119.py: no rule for:\n' + '\n'.join(unknown))
        if not fixed:
            sys.exit('go119.py: build fails:\n' + stderr)
    sys.exit('go119.py: too many rounds')


main()
