use super::*;
use fbc_catalog::model::Meta;
use std::io::Read;

fn meta(schema: &str, package: &str, name: &str) -> Meta {
    Meta {
        schema: schema.into(),
        package: package.into(),
        name: name.into(),
        origin: fbc_catalog::source::Origin {
            file: "catalog.json".into(),
            document: 1,
            line: 1,
        },
    }
}

fn view() -> HttpView {
    view_with(Gzip::Kept)
}

fn view_with(gzip: Gzip) -> HttpView {
    let rows = vec![
        meta("olm.package", "", "a"),
        meta("olm.channel", "a", "stable"),
        meta("olm.bundle", "a", "a.v1"),
        meta("olm.package", "", "b"),
        meta("olm.bundle", "b", "b.v1"),
    ];
    let json = rows
        .iter()
        .map(|m| {
            Bytes::from(format!(
                "{{\"name\":\"{}\",\"schema\":\"{}\"}}",
                m.name, m.schema
            ))
        })
        .collect();
    let table = MetaTable::with_json(rows, json);
    HttpView::build(
        &table,
        CatalogDigest(7),
        UNIX_EPOCH + Duration::from_millis(1_500),
        gzip,
    )
    .unwrap()
}

fn gunzip(parts: &Parts) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&parts.to_vec()[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn all_is_every_meta_one_per_line() {
    let view = view();
    let all = view.all();
    let text = String::from_utf8(all.identity.to_vec()).unwrap();
    assert_eq!(text.lines().count(), 5);
    assert!(text.ends_with("\"schema\":\"olm.bundle\"}\n"));
    assert_eq!(gunzip(&all.gzip), all.identity.to_vec());
    assert_eq!(all.identity.len, all.identity.to_vec().len() as u64);
}

#[test]
fn a_view_under_a_memory_target_keeps_no_gzip_and_answers_the_same_bytes() {
    let (kept, on_request) = (view(), view_with(Gzip::OnRequest));
    assert!(!kept.gzip_on_request() && on_request.gzip_on_request());
    assert_eq!(on_request.bytes().gzip, 0);
    assert!(kept.bytes().gzip > 0);
    assert_eq!(on_request.all().gzip.to_vec(), kept.all().gzip.to_vec());
    let chosen = [0, 3];
    let selected = on_request.select(&chosen);
    assert_eq!(
        gunzip(&selected.gzip),
        kept.select(&chosen).identity.to_vec()
    );
    assert_eq!(on_request.bytes().segments, 0, "no segments kept either");
}

#[test]
fn selections_are_slices_in_walk_order_and_gzip_alike() {
    let view = view();
    let chosen = [1, 2, 4];
    let selected = view.select(&chosen);
    assert_eq!(selected.identity.parts.len(), 2, "adjacent metas join");
    let text = String::from_utf8(selected.identity.to_vec()).unwrap();
    assert_eq!(
        text,
        "{\"name\":\"stable\",\"schema\":\"olm.channel\"}\n{\"name\":\"a.v1\",\"schema\":\"olm.bundle\"}\n{\"name\":\"b.v1\",\"schema\":\"olm.bundle\"}\n"
    );
    assert_eq!(gunzip(&selected.gzip), selected.identity.to_vec());
    let none = view.select(&[]);
    assert_eq!(none.identity.len, 0);
    assert_eq!(gunzip(&none.gzip), b"");
}

#[test]
fn validators_name_the_digest_and_whole_seconds() {
    let view = view();
    assert!(view.etag.starts_with("\"00000000000000000000000000000007-"));
    assert!(view.etag_gzip.ends_with("-gzip\""));
    assert_eq!(view.last_modified, UNIX_EPOCH + Duration::from_secs(1));
}

#[test]
fn large_json_lines_are_mapped_and_keep_every_byte_even_past_their_size() {
    let line = vec![b'x'; 4096];
    let mut mapped = JsonLines::with_capacity(JsonLines::MAPPED_FROM);
    assert!(matches!(mapped, JsonLines::Mapped { .. }));
    let lines = JsonLines::MAPPED_FROM / line.len() + 3;
    let mut ends = Vec::new();
    for _ in 0..lines {
        ends.push(mapped.push_line(&line));
    }
    assert!(
        matches!(mapped, JsonLines::Heap(_)),
        "overflow moves to the heap"
    );
    let bytes = mapped.freeze();
    assert_eq!(bytes.len(), lines * (line.len() + 1));
    assert_eq!(*ends.last().unwrap(), bytes.len());
    assert!(
        bytes
            .chunks(line.len() + 1)
            .all(|l| l[..line.len()] == line[..] && l[line.len()] == b'\n')
    );

    let mut exact = JsonLines::with_capacity(2 * (line.len() + 1) + JsonLines::MAPPED_FROM);
    exact.push_line(&line);
    let frozen = exact.freeze();
    assert_eq!(frozen.len(), line.len() + 1, "only what was written");

    let small = JsonLines::with_capacity(10);
    assert!(matches!(small, JsonLines::Heap(_)));
}
