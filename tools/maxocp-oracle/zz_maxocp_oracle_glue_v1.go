// HARNESS GLUE (not upstream cluster-olm-operator code). tools/maxocp-oracle/build.sh
// copies this file into pkg/controller/ of the small module it assembles, next to
// zz_extracted.go, which holds checkIncompatibility and
// propertyListFromPropertiesAnnotation copied verbatim from
// pkg/controller/incompatible_operator_controller.go. The rest of that file (the
// controller's Kubernetes, Helm and library-go plumbing) needs a far newer Go
// than 1.19 and is left out; this glue stands in for the one piece of it the two
// functions use, the controller's struct.
package controller

import (
	"encoding/json"

	semver "github.com/blang/semver/v4"
	"github.com/go-logr/logr"

	"github.com/openshift/cluster-olm-operator/internal/versionutils"
)

// incompatibleOperatorController carries the one field checkIncompatibility reads.
type incompatibleOperatorController struct {
	currentOCPMinorVersion *semver.Version
}

// OracleResult is what the controller made of one olm.properties annotation.
type OracleResult struct {
	// The maximum, when there were no errors and a property was found.
	Max *semver.Version
	// propertyListFromPropertiesAnnotation's error, or checkIncompatibility's list.
	Errors []error
	// The function that returned Errors.
	Stage string
	// Set when the first error ends with a message of encoding/json: the part before it.
	JSONWordsBefore *string
}

// OracleRead reads an olm.properties annotation the way
// getIncompatibleOperatorsFromHelmRelease and getIncompatibleOperatorsFromObjectSet
// do (their wrapping of the errors with the ClusterExtension and bundle names is
// left out), and reports the maximum checkIncompatibility compared.
func OracleRead(annotation string) OracleResult {
	props, err := propertyListFromPropertiesAnnotation(annotation)
	if err != nil {
		// the controller then wraps it: "could not convert olm.properties: %v"
		words := "failed to unmarshal properties annotation: "
		return OracleResult{Errors: []error{err}, Stage: "propertyListFromPropertiesAnnotation", JSONWordsBefore: &words}
	}
	// Any cluster version: it only decides isIncompatible, which is not recorded.
	c := &incompatibleOperatorController{currentOCPMinorVersion: &semver.Version{Major: 4, Minor: 16}}
	_, errs := c.checkIncompatibility(logr.Discard(), props)
	for _, p := range props {
		if p.Type != maxOpenShiftVersionProperty {
			continue
		}
		// The first such property is the one checkIncompatibility parsed first.
		if len(errs) > 0 {
			r := OracleResult{Errors: errs, Stage: "checkIncompatibility"}
			var v interface{}
			if json.Unmarshal(p.Value, &v) != nil {
				// ToAllowedSemver returned json.Unmarshal's error as it is: errs[0]
				words := "error converting to semver for version " + string(p.Value) + ": "
				r.JSONWordsBefore = &words
			}
			return r
		}
		max, err := versionutils.ToAllowedSemver(p.Value)
		if err != nil {
			// cannot happen: checkIncompatibility reported no error for this value
			return OracleResult{Errors: []error{err}, Stage: "harness"}
		}
		return OracleResult{Max: max}
	}
	if len(errs) > 0 {
		return OracleResult{Errors: errs, Stage: "checkIncompatibility"}
	}
	return OracleResult{}
}
