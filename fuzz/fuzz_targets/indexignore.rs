//! `.indexignore` patterns (gitignore grammar) on arbitrary text, then paths
//! matched against them. Holds: no panic.
#![no_main]
use fbc_catalog::source::ignore_rules::IgnoreRules;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = fbc_fuzz::text(data) else {
        return;
    };
    let Ok(rules) = IgnoreRules::from_texts(&[(".indexignore", text), ("sub/.indexignore", text)])
    else {
        return;
    };
    for path in [
        "catalog.yaml",
        "sub/x.json",
        "sub/dir/README.md",
        ".hidden/a.yaml",
        text,
    ] {
        let _ = rules.is_ignored(path);
    }
});
