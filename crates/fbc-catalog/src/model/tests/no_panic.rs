//! No panics, whatever the input: proptests that parse arbitrary bytes, mutated
//! catalogs and YAML-like token soup, and build a model from whatever loaded.
//! Here, beside the model, because they drive the whole pipeline from a file's
//! text to the model.

use super::*;
use crate::source::tests::parse_ok;
use proptest::prelude::*;

const YAML_CATALOG: &str = "---
schema: olm.package
name: foo
defaultChannel: alpha
---
schema: olm.channel
package: foo
name: alpha
entries:
  - name: foo.v0.1.0
  - name: foo.v0.2.0
    replaces: foo.v0.1.0
    skipRange: '< 0.2.0'
---
schema: olm.bundle
package: foo
name: foo.v0.1.0
image: quay.io/foo/bundle:v0.1.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 0.1.0}
  - type: olm.bundle.object
    value: {data: eyJraW5kIjoiQ2x1c3RlclNlcnZpY2VWZXJzaW9uIn0=}
---
schema: olm.bundle
package: foo
name: foo.v0.2.0
image: quay.io/foo/bundle:v0.2.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 0.2.0}
---
schema: olm.deprecations
package: foo
entries:
  - reference: {schema: olm.bundle, name: foo.v0.1.0}
    message: old
";

const JSON_CATALOG: &str = r#"{"schema":"olm.package","name":"foo","defaultChannel":"alpha"}
{"schema":"olm.channel","package":"foo","name":"alpha","entries":[{"name":"foo.v0.1.0"},{"name":"foo.v0.2.0","replaces":"foo.v0.1.0","skips":["foo.v0.0.9"]}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v0.1.0","image":"quay.io/foo/bundle:v0.1.0","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0"}}],"relatedImages":[{"name":"op","image":"quay.io/foo/op@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}]}
{"schema":"olm.bundle","package":"foo","name":"foo.v0.2.0","image":"quay.io/foo/bundle:v0.2.0","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"0.2.0"}},{"type":"olm.csv.metadata","value":{"displayName":"Foo"}}]}
{"schema":"my-schema","package":"foo","name":"custom"}
"#;

#[test]
fn the_fuzz_seed_catalogs_are_valid() {
    for (file, text) in [("c.yaml", YAML_CATALOG), ("c.json", JSON_CATALOG)] {
        let result = parse_ok(file, text);
        let loaded = Loaded {
            blobs: result.blobs,
            errors: result.errors,
            files: vec![],
        };
        if let Err(diags) = build(loaded) {
            panic!("{file}: {diags:?}");
        }
    }
}

/// Parses `text` and builds a model from whatever loaded; only panics matter.
fn load_and_build(text: &str) {
    let result = parse_file("fuzz.yaml", text);
    for b in &result.blobs {
        assert_eq!(&*b.origin.file, "fuzz.yaml");
        assert!(b.origin.document >= 1 && b.origin.line >= 1);
    }
    let loaded = Loaded {
        blobs: result.blobs,
        errors: result.errors,
        files: vec![],
    };
    let _ = build(loaded);
}

/// Applies one mutation: 0 replaces a byte, 1 deletes one, 2 inserts one, 3 truncates.
fn mutate(seed: &str, kind: u8, at: usize, byte: u8) -> String {
    let mut bytes = seed.as_bytes().to_vec();
    let at = at % (bytes.len() + 1);
    match kind % 4 {
        0 if at < bytes.len() => bytes[at] = byte,
        1 if at < bytes.len() => {
            bytes.remove(at);
        }
        2 => bytes.insert(at, byte),
        _ => bytes.truncate(at),
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Bytes that matter to YAML and JSON syntax, to make mutations interesting.
fn syntax_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        proptest::sample::select(b"{}[],:-#&*!|>'\"\n\t ?%@`\\.0~".to_vec()),
        any::<u8>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn parse_file_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        load_and_build(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn parse_file_never_panics_on_a_mutated_yaml_catalog(kind in 0u8..4, at in any::<usize>(), byte in syntax_byte()) {
        load_and_build(&mutate(YAML_CATALOG, kind, at, byte));
    }

    #[test]
    fn parse_file_never_panics_on_a_mutated_json_catalog(kind in 0u8..4, at in any::<usize>(), byte in syntax_byte()) {
        load_and_build(&mutate(JSON_CATALOG, kind, at, byte));
    }

    #[test]
    fn parse_file_never_panics_on_several_mutations(
        json_seed in any::<bool>(),
        edits in proptest::collection::vec((0u8..4, any::<usize>(), syntax_byte()), 1..6),
    ) {
        let mut text = if json_seed { JSON_CATALOG } else { YAML_CATALOG }.to_string();
        for (kind, at, byte) in edits {
            text = mutate(&text, kind, at, byte);
        }
        load_and_build(&text);
    }

    #[test]
    fn parse_file_never_panics_on_yaml_like_token_soup(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "---", "\n", " ", "  ", "- ", ": ", "{", "}", "[", "]", ",", "#", "&a ", "*a", "<<: ",
            "schema", "olm.package", "name", "\"", "'", "|", ">", "!!str ", "? ", "...", "\t", "{\"k\": 1}",
        ]), 0..40),
    ) {
        load_and_build(&tokens.concat());
    }
}
