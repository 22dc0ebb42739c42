//! Both version-range grammars (blang for OLM v0, Masterminds for OLM v1) and
//! both version readers on arbitrary text; a range that parses is matched against
//! versions. Holds: no panic.
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
        versions.iter().flatten().for_each(|v| {
            let _ = range.matches(v);
        });
    }
    if let Ok(range) = masterminds::parse(text) {
        versions.iter().flatten().for_each(|v| {
            let _ = masterminds::matches_bundle_version(&range, v);
            let _ = range.matches_including_prereleases(v);
        });
    }
    let _ = blang::parse_strict(text);
    let _ = blang::parse_tolerant(text);
});
