//! Catalog templates (`olm.template.basic`, `olm.semver`, substitutes) on
//! arbitrary text: the kind detected, each parser, the images each would pull.
//! Holds: no panic.
#![no_main]
use fbc_catalog::template::{self, basic, semver, substitutes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = fbc_fuzz::text(data) else {
        return;
    };
    let _ = template::detect(text);
    let _ = basic::images(text);
    if let Ok(t) = semver::parse(text) {
        let _ = t.images();
    }
    if let Ok(t) = substitutes::parse(text) {
        let _ = t.images();
    }
});
