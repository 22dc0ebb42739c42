//! The names the formats define: the operator framework's configs label, the OCI layout's tag
//! annotation, the manifest media types asked for.
//!
//! In: nothing. Out: constants, shared by the parsers above and the test images.

/// The image-config label naming the catalog's directory inside the image.
pub const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";

/// The annotation an OCI layout's `index.json` names tags with.
pub const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// The media types asked for (the `Accept` of a manifest request), best first.
pub const ACCEPTED_MANIFEST_TYPES: &[&str] = &[
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
];
