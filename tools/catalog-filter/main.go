// catalog-filter: a command-line driver for sherine-k/catalog-filter's mirror filter
// (pkg/filter/mirror-config/v1alpha1, the filter oc-mirror v2 runs on a catalog), used as a reference peer.
//
//	catalog-filter --config FILE [--full] CATALOG_DIR > filtered.json
//
// It loads CATALOG_DIR with operator-registry's declcfg.LoadFS (os.DirFS, one worker, so that metas keep the
// walk order and, when several things are wrong, the same error is reported every run), reads FILE (YAML or
// JSON, apiVersion olm.operatorframework.io/filter/mirror/v1alpha1, kind FilterConfiguration) with the
// library's LoadFilterConfiguration, which also validates it, builds NewMirrorFilter(config, InFull(--full),
// WithLogger(a logger writing nowhere)), runs FilterCatalog and writes the result with declcfg.WriteJSON (the
// stream `opm render` writes: per package, in name order, the package, its channels and bundles by name, its
// other metas, its deprecations; then global metas). An error is written to stderr as "catalog-filter: " and
// the library's (or loader's) own message, unchanged (errors.Join'ed ones span lines), exit status 1; bad usage: 2.
//
// It is not built by cargo. Build it inside an opm v1.32.0 source tree with the library copied in and
// rewritten for Go 1.19, see build.sh beside this file:
//
//	tools/catalog-filter/build.sh --mirror OPERATOR_REGISTRY_GIT [OUT_DIR]   # assembles /tmp/catalog-filter-src
//	OUT_DIR/catalog-filter --config tools/catalog-filter/examples/heads-only.yaml CATALOG_DIR
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	mirror "github.com/operator-framework/operator-registry/third_party/catalog-filter/pkg/filter/mirror-config/v1alpha1"
)

const usage = "usage: catalog-filter --config FILE [--full] CATALOG_DIR"

func main() {
	var configPath, dir string
	full := false
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--full" || a == "-full":
			full = true
		case a == "--config" || a == "-config":
			if i+1 == len(args) {
				bad("--config needs a file")
			}
			i++
			configPath = args[i]
		case strings.HasPrefix(a, "--config="):
			configPath = strings.TrimPrefix(a, "--config=")
		case a == "-h" || a == "--help":
			fmt.Println(usage)
			return
		case strings.HasPrefix(a, "-") && a != "-":
			bad("unknown option " + a)
		case dir != "":
			bad("more than one CATALOG_DIR")
		default:
			dir = a
		}
	}
	if configPath == "" || dir == "" {
		bad("")
	}
	if err := run(configPath, dir, full); err != nil {
		fmt.Fprintln(os.Stderr, "catalog-filter:", err)
		os.Exit(1)
	}
}

func bad(msg string) {
	if msg != "" {
		fmt.Fprintln(os.Stderr, "catalog-filter:", msg)
	}
	fmt.Fprintln(os.Stderr, usage)
	os.Exit(2)
}

func run(configPath, dir string, full bool) error {
	ctx := context.Background()
	f, err := os.Open(configPath)
	if err != nil {
		return err
	}
	config, err := mirror.LoadFilterConfiguration(f)
	f.Close()
	if err != nil {
		return err
	}
	if st, err := os.Stat(dir); err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	fbc, err := declcfg.LoadFS(ctx, os.DirFS(dir), declcfg.WithConcurrency(1))
	if err != nil {
		return err
	}
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	filter := mirror.NewMirrorFilter(*config, mirror.InFull(full), mirror.WithLogger(logrus.NewEntry(quiet)))
	out, err := filter.FilterCatalog(ctx, fbc)
	if err != nil {
		return err
	}
	if out == nil { // only for a nil input, which LoadFS never returns
		return nil
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if err := declcfg.WriteJSON(*out, w); err != nil {
		return err
	}
	return w.Flush()
}
