//! Both version-range grammars (blang for OLM v0, Masterminds for OLM v1) and
//! both version readers on arbitrary text; a range that parses is matched against
//! versions. Holds: no panic; a range printed back (`Display`) parses again to
//! the same range (for blang, unless the printed text holds an `x`).
#![no_main]
use fbc_catalog::version_range::{blang, masterminds};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = fbc_fuzz::text(data) else {
        return;
    };
    let versions = ["0.0.1", "1.0.0", "1.2.3-rc.1", "2.0.0+build.1", "10.20.30"]
        .map(|v| semver::Version::parse(v).ok());
    if let Ok(range) = blang::parse(text) {
        let shown = range.to_string();
        // A token holding an `x` is a wildcard, so a version whose prerelease or build
        // holds one (`=1.0.0+x`) prints as text that reads differently (docs/fuzzing.md).
        if !shown.contains('x') {
            assert_eq!(blang::parse(&shown), Ok(range.clone()), "blang: {shown}");
        }
        versions.iter().flatten().for_each(|v| {
            let _ = range.matches(v);
        });
    }
    if let Ok(range) = masterminds::parse(text) {
        let shown = range.to_string();
        assert_eq!(
            masterminds::parse(&shown),
            Ok(range.clone()),
            "Masterminds: {shown}"
        );
        versions.iter().flatten().for_each(|v| {
            let _ = masterminds::matches_bundle_version(&range, v);
            let _ = range.matches_including_prereleases(v);
        });
    }
    let _ = blang::parse_strict(text);
    let _ = blang::parse_tolerant(text);
});
