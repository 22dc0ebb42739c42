// catalogd-server: catalogd's catalog HTTP server, built from operator-controller's own code, serving one catalog.
//
//	catalogd-server [-addr 127.0.0.1:8080] [-name catalog] [-store DIR] [-metas=true] [-graphql=true] FBC
//
// FBC is a catalog root or a single file, JSON only (see below): e.g. the body of fbc-registry's GET /api/v1/all
// or tools/catalogd-walk's output. The server answers, like catalogd with both feature gates on,
//
//	GET|HEAD /catalogs/NAME/api/v1/all           http.ServeContent of the stored catalog.jsonl (ranges, 304s)
//	GET|HEAD /catalogs/NAME/api/v1/metas?...     the index's sections of catalog.jsonl (-metas)
//	POST     /catalogs/NAME/api/v1/graphql       graphql-go over the index (-graphql)
//
// all behind gzhttp.GzipHandler, and prints one line to stderr when it listens:
// "catalogd-server: stored NAME (...) serving http://ADDR/catalogs/NAME/api/v1/".
//
// It is not built by cargo; build.sh (beside this file) compiles it inside a temp module named
// github.com/operator-framework/operator-controller that holds operator-controller's internal/catalogd
// graphql, service, server and storage packages (some lines patched for Go 1.19: build.sh lists them, and its
// SOURCES file gives the commit), graphql-go v0.8.1, golang.org/x/sync, klauspost/compress (rewritten for Go 1.19
// by go119.py) and small stubs. What this file re-types, by file:line of that operator-controller commit:
//
//   - cmd/catalogd/main.go:204 and 362-388: the storage root URL is "<protocol><external address>/catalogs/"
//     (here http://ADDR/catalogs/) and storage.NewLocalDirV1(storeDir, baseStorageURL, metasMode, graphqlMode),
//     the modes from the APIV1MetasHandler and GraphQLCatalogQueries feature gates (-metas, -graphql; both
//     default off in catalogd, on here).
//   - the catalog controller's call of localStorage.Store(ctx, catalog.Name, fsys) (storage/localdir.go:83-111:
//     catalog.jsonl, index.json and graphql-schema.json written under -store/NAME, then the GraphQL schema
//     pre-built), done once before listening. catalogd unpacks the catalog image's FBC root into fsys; here it
//     is FBC (a directory, or one file linked into a temp directory). The operator-registry declcfg stub's
//     WalkMetasFS reads JSON streams only; on an already-walked catalog (one compact JSON object per line, as
//     Meta.UnmarshalJSON re-encodes it) the stored catalog.jsonl is byte for byte the input.
//   - internal/catalogd/serverutil/serverutil.go:43-49 (http.Server: ReadTimeout 5s, WriteTimeout 5m) and
//     165-172 (storageServerHandlerWrapped): LocalStorage.StorageServerHandler() wrapped by
//     gzhttp.GzipHandler. The two outer wrappers there, catalogdmetrics.AddMetricsToHandler (a Prometheus
//     histogram per request) and logrLoggingHandler (gorilla handlers.CustomLoggingHandler logging every request
//     through logr), are left out: they pull in controller-runtime and Prometheus, and each only adds work per
//     request, so catalogd as deployed spends at least the CPU measured here. No TLS (serverutil.go:95-107 is
//     taken only with a certificate).
//
// GOMAXPROCS is the Go runtime's default: the CPUs the process may run on (1 under `taskset -c 0`).
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzhttp"

	"github.com/operator-framework/operator-controller/internal/catalogd/storage"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (host:port; port 0 picks one)")
	name := flag.String("name", "catalog", "catalog name (the NAME in /catalogs/NAME/api/v1/...)")
	storeDir := flag.String("store", "", "storage root directory (default: a temp directory, removed at exit)")
	metas := flag.Bool("metas", true, "serve /api/v1/metas (catalogd's APIV1MetasHandler feature gate)")
	graphql := flag.Bool("graphql", true, "serve /api/v1/graphql (catalogd's GraphQLCatalogQueries feature gate)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: catalogd-server [flags] FBC_DIR_OR_FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *addr, *name, *storeDir, *metas, *graphql); err != nil {
		fmt.Fprintln(os.Stderr, "catalogd-server:", err)
		os.Exit(1)
	}
}

func run(fbc, addr, name, storeDir string, metas, graphql bool) error {
	var cleanup []string
	defer func() {
		for _, d := range cleanup {
			os.RemoveAll(d)
		}
	}()
	if storeDir == "" {
		d, err := os.MkdirTemp("", "catalogd-server-store-")
		if err != nil {
			return err
		}
		cleanup = append(cleanup, d)
		storeDir = d
	}
	root, err := fbcRoot(fbc, &cleanup)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()

	// cmd/catalogd/main.go:204, 362-388
	baseStorageURL, err := url.Parse(fmt.Sprintf("%s/catalogs/", "http://"+ln.Addr().String()))
	if err != nil {
		return err
	}
	metasMode, graphqlMode := storage.MetasHandlerDisabled, storage.GraphQLQueriesDisabled
	if metas {
		metasMode = storage.MetasHandlerEnabled
	}
	if graphql {
		graphqlMode = storage.GraphQLQueriesEnabled
	}
	localStorage := storage.NewLocalDirV1(storeDir, baseStorageURL, metasMode, graphqlMode)

	started := time.Now()
	if err := localStorage.Store(context.Background(), name, os.DirFS(root)); err != nil {
		return fmt.Errorf("storing %s: %w", fbc, err)
	}
	stored := time.Since(started)

	// serverutil.go:165-172 (without the metrics and logging wrappers) and 43-49
	var handler http.Handler = localStorage.StorageServerHandler()
	handler = gzhttp.GzipHandler(handler)
	server := &http.Server{
		Handler:      handler,
		ReadTimeout:  5 * time.Second,
		WriteTimeout: 5 * time.Minute,
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sigs
		server.Close()
	}()

	fmt.Fprintf(os.Stderr, "catalogd-server: stored %s (%s in %v, under %s) serving %s\n",
		name, fbc, stored.Round(time.Millisecond), filepath.Join(storeDir, name), baseStorageURL.JoinPath(name, "api", "v1").String()+"/")
	if err := server.Serve(ln); err != nil && err != http.ErrServerClosed {
		return err
	}
	return nil
}

// fbcRoot returns fbc if it is a directory, else a temp directory holding a symlink to the file.
func fbcRoot(fbc string, cleanup *[]string) (string, error) {
	abs, err := filepath.Abs(fbc)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return abs, nil
	}
	d, err := os.MkdirTemp("", "catalogd-server-fbc-")
	if err != nil {
		return "", err
	}
	*cleanup = append(*cleanup, d)
	if err := os.Symlink(abs, filepath.Join(d, "catalog.json")); err != nil {
		return "", err
	}
	return d, nil
}
