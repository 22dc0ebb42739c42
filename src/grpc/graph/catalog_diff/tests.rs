use super::*;

fn info() -> pb::SnapshotInfo {
    pb::SnapshotInfo {
        generation: 7,
        ..Default::default()
    }
}

#[test]
fn an_export_is_cut_into_chunks_of_at_most_a_mebibyte_the_first_naming_the_snapshot() {
    let big = bytes::Bytes::from(vec![b'x'; 2 * CHUNK + 5]);
    let small = bytes::Bytes::from_static(b"{}\n");
    let chunks = Chunks {
        parts: [big, bytes::Bytes::new(), small].into_iter().collect(),
        info: Some(info()),
    };
    let messages: Vec<pb::ExportCatalogResponse> = chunks.map(Result::unwrap).collect();
    let sizes: Vec<usize> = messages.iter().map(|m| m.data.len()).collect();
    assert_eq!(sizes, [CHUNK, CHUNK, 5, 3]);
    assert_eq!(messages[0].snapshot.as_ref().map(|s| s.generation), Some(7));
    assert!(messages[1..].iter().all(|m| m.snapshot.is_none()));
}

#[test]
fn an_empty_catalog_still_names_its_snapshot() {
    let chunks = Chunks {
        parts: std::collections::VecDeque::new(),
        info: Some(info()),
    };
    let messages: Vec<pb::ExportCatalogResponse> = chunks.map(Result::unwrap).collect();
    assert_eq!(messages.len(), 1);
    assert!(messages[0].data.is_empty() && messages[0].snapshot.is_some());
}

#[test]
fn a_sent_catalog_that_does_not_parse_is_invalid_argument() {
    let status = answer(&Tables::empty(), b"{not json", info()).unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let yaml = b"schema: olm.package\nname: p\ndefaultChannel: c\n";
    let status = answer(&Tables::empty(), yaml, info()).unwrap_err();
    assert!(status.message().contains("does not validate"), "{status:?}");
}
