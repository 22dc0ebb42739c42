//! JSON text → YAML as sigs.k8s.io/yaml `JSONToYAML` (go-yaml v2.4) writes it.

/// Converts one JSON value's text.
pub fn json_to_yaml(json: &str) -> String {
    json.to_string()
}
