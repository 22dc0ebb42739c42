// catalogd-graphql: an oracle for catalogd's `POST /catalogs/{name}/api/v1/graphql`.
//
//	catalogd-graphql CATALOG.jsonl QUERIES.jsonl
//
// CATALOG.jsonl is the catalog.jsonl catalogd stores (one declcfg.Meta blob per line, as catalogd-walk prints it
// or GET /api/v1/all serves it). Each line of QUERIES.jsonl is one raw HTTP request body (an empty line is an
// empty body). For each, one line is printed: {"status":N,"body":"<exact response body>"}.
//
// A query can kill catalogd: graphql-go v0.8.1's OverlappingFieldsCanBeMerged rule recurses without end on a
// cyclic fragment spread (graphql-go/graphql issue #742, fixed after v0.8.1 by PR #741), and Go's "fatal error:
// stack overflow" cannot be recovered, so the process dies and the client gets no response. To record that, the
// queries run in a child process (this program, re-executed with CATALOGD_GRAPHQL_FROM=k); when it dies, the
// query it was on is printed as {"status":0,"body":"","fatal":"<the runtime's first fatal/panic line>"} and a new
// child carries on with the next one. A panic in the handler, which net/http would recover by dropping the
// connection, is printed as {"status":0,"body":"","panic":"<value>"}.
//
// It is not built by cargo; build.sh (beside this file) compiles it inside a temp module named
// github.com/operator-framework/operator-controller holding, unchanged, operator-controller's
// internal/catalogd/graphql/{graphql.go,validation.go} and internal/catalogd/service/graphql_service.go, on
// graphql-go/graphql v0.8.1. Those do the schema discovery, the complexity validation, the schema build and
// graphql.Do. What this file re-types (it cannot be compiled with Go 1.19: the storage package uses cmp/slices,
// handlers.go uses Request.PathValue and apimachinery) is cited by file:line of operator-controller's
// internal/catalogd at the commit in build.sh's SOURCES file:
//
//   - store time, storage/localdir.go:115-183 and 272-313: the metas of the walk go, in file order, to
//     storeCatalogData (catalog.jsonl = the blobs concatenated: the input file itself), storeIndexData (index.go
//     newIndex, 114-137: byte sections per schema) and discoverAndStoreSchema (DiscoverSchemaFromChannel, then
//     MarshalCatalogSchema: graphql-schema.json); then Store pre-builds the schema with GetSchema (localdir.go:98).
//   - query time, LoadCatalogSchema (localdir.go:317-326: UnmarshalCatalogSchema of graphql-schema.json) and
//     NewObjectLoader (localdir.go:332-384 with index.go:102-112: a page of the schema's sections, in file order,
//     each read and json.Unmarshal'ed, skipping those that do not parse).
//   - the handler, server/handlers.go:204-236 (body decoding, the three 400s, ExecuteQuery, json.NewEncoder(w).
//     Encode(result)) and httpError, handlers.go:240-268, run against an httptest.ResponseRecorder.
//
// Meta.Schema/Package/Name are taken from each blob's "schema", "package" and "name" keys, matched
// case-insensitively, as operator-registry v1.73.0's extractUniqueMetaKeys (alpha/declcfg/declcfg.go:166-212) does
// (strings.EqualFold standing in for x/text cases.Fold; the two agree on these ASCII words).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"

	"github.com/operator-framework/operator-registry/alpha/declcfg"

	gql "github.com/operator-framework/operator-controller/internal/catalogd/graphql"
	"github.com/operator-framework/operator-controller/internal/catalogd/service"
)

const catalogName = "catalog"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: catalogd-graphql CATALOG.jsonl QUERIES.jsonl")
		os.Exit(2)
	}
	run := runParent
	if os.Getenv(childEnv) != "" {
		run = runChild
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "catalogd-graphql:", err)
		os.Exit(1)
	}
}

const childEnv = "CATALOGD_GRAPHQL_FROM"

type answer struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
	Fatal  string `json:"fatal,omitempty"`
	Panic  string `json:"panic,omitempty"`
}

func readBodies(queriesPath string) ([][]byte, error) {
	queries, err := os.ReadFile(queriesPath)
	if err != nil {
		return nil, err
	}
	bodies := bytes.Split(queries, []byte("\n"))
	if n := len(bodies); n > 0 && len(bodies[n-1]) == 0 {
		bodies = bodies[:n-1]
	}
	return bodies, nil
}

// runParent re-executes this program as a child from query `next` on, copies its answers, and stands in for the
// answer of a query during which the child died.
func runParent(catalogPath, queriesPath string) error {
	bodies, err := readBodies(queriesPath)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for next := 0; next < len(bodies); {
		cmd := exec.Command(self, catalogPath, queriesPath)
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", childEnv, next+1))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 && line[len(line)-1] == '\n' {
				if _, err := os.Stdout.Write(line); err != nil {
					return err
				}
				next++
			}
			if err != nil {
				break
			}
		}
		waitErr := cmd.Wait()
		if next >= len(bodies) {
			break
		}
		var exitErr *exec.ExitError
		if waitErr == nil || !errors.As(waitErr, &exitErr) || exitErr.ExitCode() != 2 {
			// exit status 2 is the Go runtime's for a fatal error or an unrecovered panic; 1 is run's own error
			os.Stderr.Write(stderr.Bytes())
			return fmt.Errorf("child stopped at query %d: %v", next+1, waitErr)
		}
		msg := ""
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
				msg = l
				break
			}
		}
		if msg == "" {
			os.Stderr.Write(stderr.Bytes())
			return fmt.Errorf("child died at query %d: %v", next+1, waitErr)
		}
		if err := out.Encode(answer{Fatal: msg}); err != nil {
			return err
		}
		next++
	}
	return nil
}

func runChild(catalogPath, queriesPath string) error {
	var from int
	if _, err := fmt.Sscan(os.Getenv(childEnv), &from); err != nil || from < 1 {
		return fmt.Errorf("bad %s", childEnv)
	}
	catalogData, err := os.ReadFile(catalogPath)
	if err != nil {
		return err
	}
	metas, err := readMetas(catalogData)
	if err != nil {
		return err
	}
	store, err := newStore(catalogData, metas)
	if err != nil {
		return err
	}
	svc := service.NewCachedGraphQLService(store)
	// localdir.go:97-107: Store pre-builds the GraphQL schema; a failure there fails the Store.
	if _, err := svc.GetSchema(context.Background(), catalogName); err != nil {
		return fmt.Errorf("failed to pre-build GraphQL schema for catalog %q: %w", catalogName, err)
	}

	bodies, err := readBodies(queriesPath)
	if err != nil {
		return err
	}
	// one write per answer, unbuffered, so that the parent has every answer given before a crash
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if from > len(bodies) {
		return nil
	}
	for _, body := range bodies[from-1:] {
		if err := enc.Encode(serve(svc, body)); err != nil {
			return err
		}
	}
	return nil
}

func serve(svc service.GraphQLService, body []byte) (a answer) {
	defer func() {
		if v := recover(); v != nil {
			a = answer{Panic: fmt.Sprint(v)}
		}
	}()
	req := httptest.NewRequest(http.MethodPost, "/catalogs/"+catalogName+"/api/v1/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	handleV1GraphQL(svc, rec, req)
	return answer{Status: rec.Code, Body: rec.Body.String()}
}

// readMetas splits catalog.jsonl into its blobs (each line with its "\n") and fills Meta's keys.
func readMetas(data []byte) ([]*declcfg.Meta, error) {
	var metas []*declcfg.Meta
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		blob := data[:n:n]
		data = data[n:]
		m := &declcfg.Meta{Blob: json.RawMessage(blob)}
		var blobMap map[string]interface{}
		if err := json.Unmarshal(blob, &blobMap); err != nil {
			return nil, fmt.Errorf("catalog line %d: %w", len(metas)+1, err)
		}
		for key, value := range blobMap {
			var ptr *string
			switch {
			case strings.EqualFold(key, "schema"):
				ptr = &m.Schema
			case strings.EqualFold(key, "package"):
				ptr = &m.Package
			case strings.EqualFold(key, "name"):
				ptr = &m.Name
			default:
				continue
			}
			s, ok := value.(string)
			if !ok {
				return nil, fmt.Errorf("catalog line %d: expected value for key %q to be a string", len(metas)+1, key)
			}
			*ptr = s
		}
		metas = append(metas, m)
	}
	return metas, nil
}

// store stands in for storage.LocalDirV1 holding one stored catalog (the files it writes, kept in memory).
type store struct {
	catalogData []byte               // catalog.jsonl
	bySchema    map[string][]section // index.json's by_schema
	schemaJSON  []byte               // graphql-schema.json
}

type section struct{ offset, length int64 }

func newStore(catalogData []byte, metas []*declcfg.Meta) (*store, error) {
	s := &store{catalogData: catalogData, bySchema: map[string][]section{}}
	// index.go:114-137 (newIndex), by_schema only: that is all GetSchemaSections reads.
	offset := int64(0)
	for _, meta := range metas {
		start := offset
		length := int64(len(meta.Blob))
		offset += length
		if meta.Schema != "" {
			s.bySchema[meta.Schema] = append(s.bySchema[meta.Schema], section{start, length})
		}
	}
	// localdir.go:301-313 (discoverAndStoreSchema): the metas arrive through a channel, in walk order.
	ch := make(chan *declcfg.Meta, 1)
	go func() {
		for _, m := range metas {
			ch <- m
		}
		close(ch)
	}()
	catalogSchema, err := gql.DiscoverSchemaFromChannel(ch)
	if err != nil {
		return nil, fmt.Errorf("error discovering schema: %w", err)
	}
	s.schemaJSON, err = gql.MarshalCatalogSchema(catalogSchema)
	if err != nil {
		return nil, fmt.Errorf("error marshaling catalog schema: %w", err)
	}
	return s, nil
}

// LoadCatalogSchema: localdir.go:317-326.
func (s *store) LoadCatalogSchema(catalog string) (*gql.CatalogSchema, error) {
	if catalog != catalogName {
		return nil, fs.ErrNotExist
	}
	return gql.UnmarshalCatalogSchema(s.schemaJSON)
}

// NewObjectLoader: localdir.go:332-384, reading catalog.jsonl from memory instead of os.Open.
func (s *store) NewObjectLoader(catalog string) (gql.ObjectLoader, error) {
	if catalog != catalogName {
		return nil, fmt.Errorf("error loading index for catalog %q: %w", catalog, fs.ErrNotExist)
	}
	return func(schemaName string, offset, limit int) ([]map[string]interface{}, error) {
		// index.go:102-112 (GetSchemaSections)
		sections, ok := s.bySchema[schemaName]
		if !ok {
			return nil, nil
		}
		if offset >= len(sections) {
			return nil, nil
		}
		sections = sections[offset:]

		if limit < len(sections) {
			sections = sections[:limit]
		}

		f := bytes.NewReader(s.catalogData)
		const maxEntrySize = 16 * 1024 * 1024 // 16 MiB
		results := make([]map[string]interface{}, 0, len(sections))
		for _, sec := range sections {
			if sec.length <= 0 || sec.length > maxEntrySize {
				return nil, fmt.Errorf("invalid section length %d at offset %d", sec.length, sec.offset)
			}
			buf := make([]byte, sec.length)
			if _, err := f.ReadAt(buf, sec.offset); err != nil {
				return nil, fmt.Errorf("error reading section at offset %d: %w", sec.offset, err)
			}

			var obj map[string]interface{}
			if err := json.Unmarshal(buf, &obj); err != nil {
				continue
			}
			results = append(results, obj)
		}

		return results, nil
	}, nil
}

// handleV1GraphQL: handlers.go:188-237. The method check, the nil-service check and the catalog-name check
// (188-202) do not depend on the body and are left out: the request is a POST to a valid, stored catalog.
func handleV1GraphQL(graphqlSvc service.GraphQLService, w http.ResponseWriter, r *http.Request) {
	catalog := catalogName

	// Limit request body size to prevent memory exhaustion attacks (1MB limit)
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)

	// Parse GraphQL query from request body
	var params struct {
		Query string `json:"query"`
	}
	if err := json.NewDecoder(r.Body).Decode(&params); err != nil {
		http.Error(w, "Invalid request body", http.StatusBadRequest)
		return
	}

	// Validate query
	if params.Query == "" {
		http.Error(w, "Query cannot be empty", http.StatusBadRequest)
		return
	}
	if len(params.Query) > 100000 { // 100KB limit
		http.Error(w, "Query too large", http.StatusBadRequest)
		return
	}

	result, err := graphqlSvc.ExecuteQuery(r.Context(), catalog, params.Query)
	if err != nil {
		httpError(w, err)
		return
	}

	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(result); err != nil {
		httpError(w, err)
		return
	}
}

// httpError: handlers.go:240-268 without the logging (and without the errInvalidParams/errInvalidCatalogName
// cases, which only the left-out checks produce).
func httpError(w http.ResponseWriter, err error) {
	var code int
	var message string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = http.StatusNotFound
		message = fmt.Sprintf("%d %s", code, http.StatusText(code))
	case errors.Is(err, fs.ErrPermission):
		code = http.StatusForbidden
		message = fmt.Sprintf("%d %s", code, http.StatusText(code))
	default:
		code = http.StatusInternalServerError
		message = fmt.Sprintf("%d %s", code, http.StatusText(code))
	}
	http.Error(w, message, code)
}
