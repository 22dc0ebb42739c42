//! A filter file (`fbc-registry filter`, `serve --filter`) parsed, then planned
//! against a small catalog. Holds: no panic.
#![no_main]
use fbc_catalog::filter::config;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = fbc_fuzz::text(data) else {
        return;
    };
    let Ok(filter) = config::parse("filter.yaml", text) else {
        return;
    };
    for package in fbc_fuzz::catalog().packages() {
        let _ = filter.package(&package.name);
    }
});
