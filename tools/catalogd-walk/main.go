// catalogd-walk: an oracle for catalogd's `GET /catalogs/{name}/api/v1/all` (its "all.json" file).
//
// catalogd (operator-framework/operator-controller) writes that file as the concatenation, in
// declcfg.WalkMetasFS order with WithConcurrency(1), of every declcfg.Meta.Blob, each ending in "\n".
// This program does the same with operator-registry's own alpha/declcfg code: it walks DIR (the catalog
// root, honouring .indexignore, files in fs.WalkDir lexical order, metas in document order) and writes each
// Meta.Blob to stdout. In v1.32.0 WalkMetasFS has no context/concurrency options and is always sequential;
// Meta.UnmarshalJSON re-encodes the blob through json.Encoder (SetEscapeHTML(false)), so it already ends in
// "\n" (one would be added if a non-empty blob did not). A YAML document holding only comments decodes as JSON
// null, which sigs.k8s.io/yaml (v1.3 here, v1.6 in catalogd) stores without calling Meta.UnmarshalJSON: the meta
// has an empty Blob, and catalogd's f.Write(m.Blob) writes nothing for it, so neither does this program.
//
// It is not built by cargo. Build it inside an opm v1.32.0 source tree (the one ../shared/peers/opm/build.sh
// assembles: v1.32.0 sources on v1.26.5's vendor/), see build.sh beside this file:
//
//	tools/catalogd-walk/build.sh --mirror OPERATOR_REGISTRY_GIT [OUT_DIR]   # assembles /tmp/catalogd-walk-src
//	tools/catalogd-walk/build.sh --tree ASSEMBLED_SRC [OUT_DIR]             # or reuse an assembled tree
//	OUT_DIR/catalogd-walk CATALOG_DIR | sha256sum   (OUT_DIR: ~/.cache/fbc-peers/catalogd-walk by default)
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: catalogd-walk CATALOG_DIR")
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	err := declcfg.WalkMetasFS(os.DirFS(os.Args[1]), func(path string, meta *declcfg.Meta, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		w.Write(meta.Blob)
		if n := len(meta.Blob); n > 0 && meta.Blob[n-1] != '\n' {
			w.WriteByte('\n')
		}
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogd-walk:", err)
		os.Exit(1)
	}
}
