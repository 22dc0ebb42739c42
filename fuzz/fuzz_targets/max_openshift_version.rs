//! `olm.maxOpenShiftVersion` as both OLMs read it: a CSV annotation (OLM v0's
//! `operatorframework.io/properties`, OLM v1's `olm.properties`) and a property
//! value. Holds: no panic; a value read once reads the same again.
#![no_main]
use fbc_catalog::cluster::openshift::{self, Reader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = fbc_fuzz::text(data) else {
        return;
    };
    let _ = openshift::from_v0_annotation(text);
    let _ = openshift::from_csv_annotation(text);
    for reader in [Reader::V0, Reader::V1] {
        let once = openshift::from_properties([(openshift::PROPERTY, text)], reader);
        let again = openshift::from_properties([(openshift::PROPERTY, text)], reader);
        assert_eq!(once, again, "reading is deterministic");
    }
});
