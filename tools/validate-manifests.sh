#!/usr/bin/env bash
# Validates deploy/ against the Kubernetes schemas, strictly (unknown fields are
# errors): the core kinds with kubernetes-validate (PyPI; it bundles the
# schemas, so nothing is downloaded), the CatalogSource with jsonschema against
# deploy/schemas/catalogsource.json (OLM's CRD is not in those schemas). Then
# proves the check can fail: a copy with one misspelt field must be refused.
# Needs: pip install kubernetes-validate jsonschema pyyaml
set -euo pipefail
cd "$(dirname "$0")/.."
version="${KUBERNETES_VERSION:-1.33.0}"

core=(deploy/replicas/*.yaml)
kubernetes-validate --strict --quiet -k "$version" "${core[@]}"

check_catalogsource() {
  python3 - "$1" <<'PY'
import json, sys, yaml, jsonschema
schema = json.load(open("deploy/schemas/catalogsource.json"))
for doc in yaml.safe_load_all(open(sys.argv[1])):
    jsonschema.validate(doc, schema)
PY
}
check_catalogsource deploy/catalogsource.yaml

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
sed 's/readOnlyRootFilesystem/readOnlyRootFilesytem/' deploy/replicas/deployment.yaml > "$scratch/bad.yaml"
if kubernetes-validate --strict --quiet -k "$version" "$scratch/bad.yaml" >/dev/null 2>&1; then
  echo "kubernetes-validate accepted a misspelt field" >&2; exit 1
fi
sed 's/securityContextConfig: restricted/securityContextConfig: strict/' deploy/catalogsource.yaml > "$scratch/bad-cs.yaml"
if check_catalogsource "$scratch/bad-cs.yaml" >/dev/null 2>&1; then
  echo "the CatalogSource schema accepted a bad enum value" >&2; exit 1
fi
echo "deploy/: ${#core[@]} core manifests (Kubernetes $version, strict) and the CatalogSource are valid"
