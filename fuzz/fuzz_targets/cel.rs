//! An `olm.constraint` CEL rule compiled as OLM v0 compiles it, then evaluated
//! against a bundle's properties. Holds: no panic.
#![no_main]
use fbc_catalog::resolve::cel::CelRule;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = fbc_fuzz::text(data) else {
        return;
    };
    let Ok(rule) = CelRule::compile(text) else {
        return;
    };
    let properties = [
        ("olm.package", r#"{"packageName":"op","version":"1.2.3"}"#),
        (
            "olm.gvk",
            r#"{"group":"example.com","version":"v1","kind":"Widget"}"#,
        ),
        ("certified", "true"),
        ("olm.maxOpenShiftVersion", "4.17"),
    ];
    let _ = rule.test(properties.into_iter());
});
