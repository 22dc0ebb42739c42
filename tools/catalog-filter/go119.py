#!/usr/bin/env python3
"""Mechanical Go 1.20/1.21 -> Go 1.19 rewrites of sherine-k/catalog-filter, used by build.sh (beside this file).

    go119.py NEW_IMPORT_PREFIX PKG_DIR...     (paths in the output are relative to the working directory)

Rewrites the non-test .go files of each PKG_DIR in place (one line in, one line out, so file:line references of
the original stay valid) and prints every change. The rules, each keeping the meaning of the original:

  import path  "github.com/sherine-k/catalog-filter/..." -> "NEW_IMPORT_PREFIX/..." (where build.sh put the copy).
  slices (Go 1.21, not in Go 1.19's GOROOT): the import line is blanked and
      slices.DeleteFunc(        -> go119SlicesDeleteFunc(        Go 1.22+'s code: del called once per element, in
                                                                 order; kept elements moved down; the obsolete
                                                                 tail zeroed (clear, as since Go 1.22); s[:i]
      slices.ContainsFunc(      -> go119SlicesContainsFunc(      IndexFunc(s, f) >= 0
      slices.BinarySearchFunc(  -> go119SlicesBinarySearchFunc(  Go's code verbatim (same probes, same result)
      slices.SortFunc(          -> go119SlicesSortFunc(          sort.Slice with less = cmp(a, b) < 0. Not stable,
                                                                 like slices.SortFunc; both give the one sorted
                                                                 order when no two elements compare equal, which
                                                                 holds at the only call that runs (mirror-filter.go
                                                                 sorts kept bundles by (package, name), drawn from
                                                                 a set keyed by that pair; the other call is in
                                                                 keepPackageDefaultChannel, which nothing calls).
  errors.Join (Go 1.20) -> go119ErrorsJoin(: Go 1.20's errors.Join (nil when every argument is nil; otherwise a
      *joinError of the non-nil errors whose Error() joins their messages with "\n", Unwrap() []error). The
      "errors" import is blanked when nothing else in the file uses it.
Each rewritten package gets a file go119_shims.go holding the functions it needs. Any other use of a package
Go 1.19 lacks (slices, maps, cmp, iter, or an slices.* function without a rule) fails the script.

Go 1.22 per-iteration loop variables: the module is compiled as go 1.19 (shared loop variables). That changes
nothing here: no closure, goroutine or retained pointer outlives the iteration that made it (the closures passed
to DeleteFunc/ContainsFunc run inside the iteration; setDefaultChannel(&pkg, ...) does not keep the pointer).
"""
import os
import re
import sys

PREFIX, DIRS = sys.argv[1], sys.argv[2:]
OLD_PREFIX = 'github.com/sherine-k/catalog-filter'

SHIMS = {
    'go119SlicesDeleteFunc': '''
// go119SlicesDeleteFunc is slices.DeleteFunc as of Go 1.22 (what catalog-filter's toolchain, go1.23+, builds).
func go119SlicesDeleteFunc[S ~[]E, E any](s S, del func(E) bool) S {
	i := -1
	for k := range s {
		if del(s[k]) {
			i = k
			break
		}
	}
	if i == -1 {
		return s
	}
	for j := i + 1; j < len(s); j++ {
		if v := s[j]; !del(v) {
			s[i] = v
			i++
		}
	}
	var zero E
	for k := i; k < len(s); k++ {
		s[k] = zero
	}
	return s[:i]
}
''',
    'go119SlicesContainsFunc': '''
// go119SlicesContainsFunc is slices.ContainsFunc (Go 1.21): IndexFunc(s, f) >= 0.
func go119SlicesContainsFunc[S ~[]E, E any](s S, f func(E) bool) bool {
	for i := range s {
		if f(s[i]) {
			return true
		}
	}
	return false
}
''',
    'go119SlicesBinarySearchFunc': '''
// go119SlicesBinarySearchFunc is slices.BinarySearchFunc (Go 1.21), verbatim.
func go119SlicesBinarySearchFunc[S ~[]E, E, T any](x S, target T, cmp func(E, T) int) (int, bool) {
	n := len(x)
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if cmp(x[h], target) < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < n && cmp(x[i], target) == 0
}
''',
    'go119SlicesSortFunc': '''
// go119SlicesSortFunc is slices.SortFunc (Go 1.21) for elements no two of which compare equal: then the sorted
// order is unique and sort.Slice (also pdqsort, also not stable) yields it.
func go119SlicesSortFunc[S ~[]E, E any](x S, cmp func(a, b E) int) {
	sort.Slice(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}
''',
    'go119ErrorsJoin': '''
// go119ErrorsJoin is errors.Join (Go 1.20): nil if every err is nil, else an error wrapping the non-nil ones
// whose message is theirs joined by newlines.
func go119ErrorsJoin(errs ...error) error {
	n := 0
	for _, err := range errs {
		if err != nil {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	e := &go119JoinError{errs: make([]error, 0, n)}
	for _, err := range errs {
		if err != nil {
			e.errs = append(e.errs, err)
		}
	}
	return e
}

type go119JoinError struct {
	errs []error
}

func (e *go119JoinError) Error() string {
	var b []byte
	for i, err := range e.errs {
		if i > 0 {
			b = append(b, '\\n')
		}
		b = append(b, err.Error()...)
	}
	return string(b)
}

// Unwrap has Go 1.20's multi-error signature, kept for fidelity (Go 1.19's errors.Is/As and vet do not know it;
// nothing here unwraps these errors).
func (e *go119JoinError) Unwrap() []error {
	return e.errs
}
''',
}
SLICES_RULES = {'DeleteFunc', 'ContainsFunc', 'BinarySearchFunc', 'SortFunc'}
MISSING_STD = ('slices', 'maps', 'cmp', 'iter', 'log/slog', 'unique')

changes = []
for d in DIRS:
    needed = set()
    pkg = None
    for name in sorted(os.listdir(d)):
        if not name.endswith('.go') or name.endswith('_test.go') or name == 'go119_shims.go':
            continue
        path = os.path.join(d, name)
        rel = os.path.relpath(path)
        lines = open(path).read().split('\n')
        pkg = pkg or re.search(r'^package (\w+)', '\n'.join(lines), re.M).group(1)
        uses_slices = uses_errors_join = False
        for i, line in enumerate(lines):
            new = line
            if f'"{OLD_PREFIX}/' in new:
                new = new.replace(f'"{OLD_PREFIX}/', f'"{PREFIX}/')
            for fn in re.findall(r'\bslices\.(\w+)', new):
                if fn not in SLICES_RULES:
                    sys.exit(f'go119.py: no rule for slices.{fn} at {rel}:{i + 1}')
                new = new.replace(f'slices.{fn}(', f'go119Slices{fn}(')
                needed.add(f'go119Slices{fn}')
                uses_slices = True
            if 'errors.Join(' in new:
                new = new.replace('errors.Join(', 'go119ErrorsJoin(')
                needed.add('go119ErrorsJoin')
                uses_errors_join = True
            if new != line:
                lines[i] = new
                changes.append(f'{rel}:{i + 1}: {line.strip()}  ->  {new.strip()}')
        for i, line in enumerate(lines):
            m = re.fullmatch(r'\s*(?:\w+\s+)?"([\w/]+)"\s*', line)
            if not m:
                continue
            if m.group(1) == 'slices' and uses_slices:
                lines[i] = ''
                changes.append(f'{rel}:{i + 1}: import "slices" blanked')
            elif m.group(1) == 'errors' and uses_errors_join and not re.search(r'\berrors\.', '\n'.join(lines)):
                lines[i] = ''
                changes.append(f'{rel}:{i + 1}: import "errors" blanked (only errors.Join was used)')
            elif m.group(1) in MISSING_STD:
                sys.exit(f'go119.py: {rel}:{i + 1} imports "{m.group(1)}", which Go 1.19 lacks and no rule covers')
        open(path, 'w').write('\n'.join(lines))
    if needed:
        imports = '\nimport "sort"\n' if 'go119SlicesSortFunc' in needed else ''
        with open(os.path.join(d, 'go119_shims.go'), 'w') as f:
            f.write('// Code added by tools/catalog-filter/go119.py: Go 1.20/1.21 standard library functions for Go 1.19.\n\n'
                    f'package {pkg}\n{imports}' + ''.join(SHIMS[n] for n in sorted(needed)))
        changes.append(f'{os.path.relpath(d)}/go119_shims.go: added '
                       f'({", ".join(sorted(needed))})')
print('\n'.join(changes))
