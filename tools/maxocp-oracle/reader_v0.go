// OLM v0's reader (operator-lifecycle-manager). build.sh copies this file, with
// main.go, to cmd/maxocp-oracle-v0/ of the extracted operator-lifecycle-manager
// tree; zz_maxocp_oracle_glue.go goes to pkg/controller/operators/openshift/.
//
// The path a value takes in OLM v0, and the one taken here:
//  1. The catalog operator writes the bundle's property list, as the catalog
//     served it, onto the CSV it creates: annotation
//     operatorframework.io/properties = projection.PropertiesAnnotationFromPropertyList(props)
//     (pkg/controller/registry/resolver/steps.go NewStepResourceFromBundle).
//     A "properties" case goes through that same function.
//  2. The olm-operator's ClusterOperator controller reads that annotation with
//     helpers.go maxOpenShiftVersion(csv). An "annotation" case is put on the
//     CSV as it is.
package main

import (
	"strings"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/pkg/api"

	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/operators/openshift"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver/projection"
)

const readerName = "v0"

const unmarshalPrefix = "failed to unmarshal properties annotation: "

func read(c *Case) Result {
	var annotation string
	var fed *string
	if c.Annotation != nil {
		annotation = *c.Annotation
	} else {
		props := make([]*api.Property, 0, len(*c.Properties))
		for _, p := range *c.Properties {
			props = append(props, &api.Property{Type: p.Type, Value: p.Value})
		}
		a, err := projection.PropertiesAnnotationFromPropertyList(props)
		if err != nil {
			// json.Marshal refused a value that is not JSON: OLM cannot write the
			// annotation (the install step fails before the check ever runs).
			r := errorResult("projection.PropertiesAnnotationFromPropertyList", err.Error(), nil)
			if words := "failed to marshal properties annotation: "; strings.HasPrefix(r.Error, words) {
				r.JSONWords = &JSONWords{Before: words}
			}
			return r
		}
		annotation, fed = a, &a
	}
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	csv.SetAnnotations(map[string]string{projection.PropertiesAnnotationKey: annotation})
	max, err := openshift.OracleMaxOpenShiftVersion(csv)
	if err != nil {
		r := errorResult("openshift.maxOpenShiftVersion", err.Error(), fed)
		if strings.HasPrefix(r.Error, unmarshalPrefix) {
			r.JSONWords = &JSONWords{Before: unmarshalPrefix}
		}
		return r
	}
	if max == nil {
		return Result{Outcome: "none", Fed: fed}
	}
	if max.Patch != 0 || len(max.Pre) != 0 || len(max.Build) != 0 {
		// maxOpenShiftVersion returns {Major, Minor} only; record it if not.
		return errorResult("harness", "maxOpenShiftVersion returned "+max.String(), fed)
	}
	return Result{Outcome: "max", Max: majorMinor(max.Major, max.Minor), Fed: fed}
}
