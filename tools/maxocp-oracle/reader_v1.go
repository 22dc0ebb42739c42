// OLM v1's reader on OpenShift (openshift/cluster-olm-operator). build.sh copies
// this file, with main.go, to cmd/maxocp-oracle-v1/ of a small module made of
// cluster-olm-operator's own code (see build.sh); zz_maxocp_oracle_glue_v1.go
// goes to its pkg/controller/.
//
// The path a value takes in OLM v1 on OpenShift, and the one taken here:
//  1. The bundle's CSV carries the annotation olm.properties, a JSON list of
//     properties. operator-controller copies the annotation text, unchanged, to
//     the Helm release's chart metadata (or the ClusterObjectSet). A
//     "properties" case becomes that annotation as an author would write it:
//     [{"type":<type as a JSON string>,"value":<the raw value text>},...].
//     An "annotation" case is used as it is.
//  2. cluster-olm-operator's incompatible-operator controller reads it with
//     propertyListFromPropertiesAnnotation, then checkIncompatibility, which
//     calls versionutils.ToAllowedSemver on each olm.maxOpenShiftVersion value
//     (pkg/controller/incompatible_operator_controller.go).
package main

import (
	"encoding/json"
	"strings"

	"github.com/openshift/cluster-olm-operator/pkg/controller"
)

const readerName = "v1"

func read(c *Case) Result {
	var annotation string
	var fed *string
	if c.Annotation != nil {
		annotation = *c.Annotation
	} else {
		var b strings.Builder
		b.WriteString("[")
		for i, p := range *c.Properties {
			if i > 0 {
				b.WriteString(",")
			}
			typ, err := json.Marshal(p.Type)
			if err != nil {
				return errorResult("harness", err.Error(), nil)
			}
			b.WriteString(`{"type":` + string(typ) + `,"value":` + p.Value + `}`)
		}
		b.WriteString("]")
		a := b.String()
		annotation, fed = a, &a
	}
	got := controller.OracleRead(annotation)
	switch {
	case len(got.Errors) > 0:
		texts := make([]string, len(got.Errors))
		for i, e := range got.Errors {
			texts[i] = e.Error()
		}
		// getIncompatibleOperatorsFrom* join checkIncompatibility's errors with
		// errors.Join (Go 1.20), which prints them one per line.
		r := errorResult(got.Stage, strings.Join(texts, "\n"), fed)
		if len(texts) > 1 {
			r.Errors = texts
		}
		if got.JSONWordsBefore != nil {
			// only the first error can hold encoding/json's words
			r.JSONWords = &JSONWords{Before: *got.JSONWordsBefore, After: strings.TrimPrefix(r.Error, texts[0])}
		}
		return r
	case got.Max == nil:
		return Result{Outcome: "none", Fed: fed}
	case got.Max.Patch != 0 || len(got.Max.Pre) != 0 || len(got.Max.Build) != 0:
		// ToAllowedSemver only passes major.minor to ParseTolerant; record it if not.
		return errorResult("harness", "ToAllowedSemver returned "+got.Max.String(), fed)
	default:
		return Result{Outcome: "max", Max: majorMinor(got.Max.Major, got.Max.Minor), Fed: fed}
	}
}
