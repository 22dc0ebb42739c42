//! The cache image: spans inside the data section, the data section last.

use super::*;

fn with_spans(core: (u64, u64), manifests: Vec<u64>) -> Result<RegistryView, DecodeError> {
    let p = PIndex {
        bodies: vec![PBody {
            core_at: core.0,
            core_len: core.1,
            manifests,
            version: "1.0.0".into(),
            ..Default::default()
        }],
        stats: vec![0; 6],
        data: Bytes::from_static(b"abcd"),
        ..Default::default()
    };
    RegistryView::from_bytes(p.encode_to_vec().into())
}

#[test]
fn spans_are_slices_of_the_data_section_and_must_lie_inside_it() {
    let ix = with_spans((1, 3), vec![0, 2, 2, 2]).expect("in range");
    assert_eq!(&ix.bodies[0].core[..], b"bcd");
    let manifests: Vec<&[u8]> = ix.bodies[0].manifests.iter().map(|c| &c[..]).collect();
    assert_eq!(manifests, [&b"ab"[..], &b"cd"[..]]);
    assert!(with_spans((2, 3), vec![]).is_err(), "core past the end");
    assert!(
        with_spans((0, 1), vec![3, 2]).is_err(),
        "manifest past the end"
    );
    assert!(with_spans((0, 1), vec![u64::MAX, 2]).is_err(), "overflow");
    assert!(with_spans((0, 1), vec![0]).is_err(), "half a pair");
}

#[test]
fn the_data_section_comes_last_and_tables_do_not_read_it() {
    let dir = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/catalog-a"
    ));
    let tables = fbc_catalog::tables::testing::from_dir(dir).expect("fixture");
    let built = RegistryView::build(&tables).expect("indexable");
    let mut bytes = built.to_bytes();
    let mut data = DataSection::default();
    let _ = built.to_message(&mut data);
    let data_len = data.len() as usize;
    assert!(data_len > 0 && data_len < bytes.len());
    // Blank the data: the tables still decode, every chunk now reads zeros.
    let start = bytes.len() - data_len;
    bytes[start..].fill(0);
    let blanked = RegistryView::from_bytes(bytes.into()).expect("tables intact");
    assert_eq!(blanked.stats(), built.stats());
    assert!(
        blanked
            .bodies
            .iter()
            .all(|b| b.core.iter().all(|x| *x == 0))
    );
}
