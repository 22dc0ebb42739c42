// HARNESS GLUE (not upstream OLM code). tools/maxocp-oracle/build.sh copies this
// file into pkg/controller/operators/openshift/ of the extracted
// operator-lifecycle-manager tree so that the maxocp-oracle harness can call the
// package's unexported maxOpenShiftVersion (helpers.go) as it is.
package openshift

import (
	semver "github.com/blang/semver/v4"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
)

// OracleMaxOpenShiftVersion is maxOpenShiftVersion, unchanged.
func OracleMaxOpenShiftVersion(csv *operatorsv1alpha1.ClusterServiceVersion) (*semver.Version, error) {
	return maxOpenShiftVersion(csv)
}
