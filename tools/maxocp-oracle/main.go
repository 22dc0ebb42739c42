// maxocp-oracle: runs the real Go code that reads olm.maxOpenShiftVersion on a list
// of cases and records what it answers.
//
// One harness, two binaries (build.sh builds both):
//
//   - maxocp-oracle-v0: this file plus reader_v0.go inside the extracted
//     operator-lifecycle-manager tree (OLM v0: helpers.go maxOpenShiftVersion,
//     fed through projection.PropertiesAnnotationFromPropertyList as the catalog
//     operator writes the annotation);
//   - maxocp-oracle-v1: this file plus reader_v1.go inside a small module made
//     of cluster-olm-operator's own code (OLM v1 on OpenShift:
//     propertyListFromPropertiesAnnotation, checkIncompatibility,
//     versionutils.ToAllowedSemver).
//
// Usage:
//
//	maxocp-oracle-v0 < cases.json > with-v0.json
//	maxocp-oracle-v1 < with-v0.json > with-both.json
//	maxocp-oracle-vN --version
//
// Input: {"cases": [CASE...], ...}. Each CASE has an "id" and either
// "properties" (a list of {"type", "value"}, the value being the property's raw
// JSON text held in a JSON string, so that text which is not JSON can be given)
// or "annotation" (the annotation text itself), and may have a "note". Other
// top-level fields, the note and the other reader's result are passed through
// unchanged, so the two binaries can be chained. Each binary sets its reader's
// field ("v0" or "v1") of every case and its own line of the top-level
// "oracles" object.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Set at build time (-ldflags -X main.provenance=...): tag/commit of the Go
// sources and the Go version.
var provenance = "unknown (built without build.sh)"

// Prop is one property as a case gives it.
type Prop struct {
	Type string `json:"type"`
	// The property's raw JSON text (not necessarily valid JSON).
	Value string `json:"value"`
}

// Case is one input; V0 and V1 are the recorded answers.
type Case struct {
	ID         string  `json:"id"`
	Note       string  `json:"note,omitempty"`
	Properties *[]Prop `json:"properties,omitempty"`
	Annotation *string `json:"annotation,omitempty"`
	V0         *Result `json:"v0,omitempty"`
	V1         *Result `json:"v1,omitempty"`
}

// Result is what one reader answered.
type Result struct {
	// "max", "none" (no olm.maxOpenShiftVersion property) or "error".
	Outcome string `json:"outcome"`
	// major.minor, for "max".
	Max string `json:"max,omitempty"`
	// The error text, for "error" (several errors joined by "\n", as
	// errors.Join prints them).
	Error string `json:"error,omitempty"`
	// v1 only: checkIncompatibility's error list, when it has more than one.
	Errors []string `json:"errors,omitempty"`
	// The function that returned the error.
	Stage string `json:"stage,omitempty"`
	// Set when Error holds a message of Go's encoding/json: Error is Before,
	// then encoding/json's own words, then After.
	JSONWords *JSONWords `json:"json_words,omitempty"`
	// For a "properties" case: the annotation text the reading function was
	// given (v0: as PropertiesAnnotationFromPropertyList wrote it; v1: the
	// olm.properties annotation as a bundle author would write it).
	Fed *string `json:"fed,omitempty"`
}

// JSONWords frames a message of Go's encoding/json inside an error text.
type JSONWords struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Printf("maxocp-oracle-%s: %s\n", readerName, provenance)
		return
	}
	if len(os.Args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: maxocp-oracle-%s < cases.json > out.json  |  --version\n", readerName)
		os.Exit(2)
	}
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "maxocp-oracle-%s: %v\n", readerName, err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("input: %w", err)
	}
	var cases []json.RawMessage
	if err := json.Unmarshal(top["cases"], &cases); err != nil {
		return fmt.Errorf("input .cases: %w", err)
	}
	seen := map[string]bool{}
	for i, raw := range cases {
		var c Case
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("case %d: %w", i, err)
		}
		if c.ID == "" || seen[c.ID] {
			return fmt.Errorf("case %d: missing or repeated id %q", i, c.ID)
		}
		seen[c.ID] = true
		if (c.Properties == nil) == (c.Annotation == nil) {
			return fmt.Errorf("case %q: give exactly one of properties and annotation", c.ID)
		}
		r := read(&c)
		switch readerName {
		case "v0":
			c.V0 = &r
		default:
			c.V1 = &r
		}
		if cases[i], err = marshal(c); err != nil {
			return err
		}
	}
	if top["cases"], err = marshal(cases); err != nil {
		return err
	}
	oracles := map[string]string{}
	if o, ok := top["oracles"]; ok {
		if err := json.Unmarshal(o, &oracles); err != nil {
			return fmt.Errorf("input .oracles: %w", err)
		}
	}
	oracles[readerName] = provenance
	if top["oracles"], err = marshal(oracles); err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(top); err != nil {
		return err
	}
	_, err = out.Write(buf.Bytes())
	return err
}

// marshal is json.Marshal without HTML escaping (the fixture stays readable).
func marshal(v interface{}) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

func errorResult(stage, text string, fed *string) Result {
	return Result{Outcome: "error", Error: text, Stage: stage, Fed: fed}
}

func majorMinor(major, minor uint64) string {
	return fmt.Sprintf("%d.%d", major, minor)
}
