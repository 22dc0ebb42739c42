//! OLM v0's channel order and its errors, on small sets.

use super::*;

fn entries(
    spec: &[(&'static str, &'static str, &'static [&'static str])],
) -> (Vec<Vec<String>>, Vec<(&'static str, &'static str)>) {
    let skips = spec
        .iter()
        .map(|(_, _, s)| s.iter().map(|x| x.to_string()).collect())
        .collect();
    (skips, spec.iter().map(|(n, r, _)| (*n, *r)).collect())
}

fn order(
    spec: &[(&'static str, &'static str, &'static [&'static str])],
) -> Result<Vec<&'static str>, String> {
    let (skips, names) = entries(spec);
    let set: Vec<ChainEntry> = names
        .iter()
        .zip(&skips)
        .map(|((name, replaces), skips)| ChainEntry {
            name,
            replaces,
            skips,
        })
        .collect();
    sort_channel(&set, "p", "stable")
        .map(|order| order.into_iter().map(|i| names[i].0).collect())
        .map_err(|e| e.to_string())
}

#[test]
fn the_head_comes_first_and_skipped_entries_are_left_out() {
    // Seed 000's example: 1.2.2 replaces 1.2.1 and skips 1.2.0.
    let got = order(&[
        ("foo.v1.1.0", "", &[]),
        ("foo.v1.2.0", "foo.v1.1.0", &[]),
        ("foo.v1.2.1", "foo.v1.2.0", &[]),
        ("foo.v1.2.2", "foo.v1.2.1", &["foo.v1.2.0"]),
        ("foo.v1.2.3", "foo.v1.2.2", &[]),
    ]);
    assert_eq!(
        got,
        Ok(vec!["foo.v1.2.3", "foo.v1.2.2", "foo.v1.2.1", "foo.v1.1.0"])
    );
}

#[test]
fn replaces_naming_an_entry_outside_the_set_ends_the_walk_and_unreached_entries_drop() {
    // b replaces a, which the set lacks; c skips b and replaces nothing in the set.
    assert_eq!(order(&[("b", "a", &[]), ("c", "x", &["b"])]), Ok(vec!["c"]));
    assert_eq!(order(&[]), Ok(vec![]));
}

#[test]
fn olms_three_errors_read_word_for_word() {
    assert_eq!(
        order(&[("a", "b", &[]), ("b", "a", &[])]),
        Err(r#"no channel heads (entries not replaced by another entry) found in channel "stable" of package "p""#.into())
    );
    assert_eq!(
        order(&[("h", "a", &[]), ("a", "b", &[]), ("b", "c", &[]), ("c", "a", &[])]),
        Err(r#"a cycle exists in the chain of replacement beginning with "h" in channel "stable" of package "p""#.into())
    );
    assert_eq!(
        order(&[("a.v2", "a.v1", &[]), ("a.v1", "", &[]), ("b.v1", "", &[]), ("c.v2", "c.v1", &["c.v1"]), ("c.v1", "", &[])]),
        Err("a unique replacement chain within a channel is required to determine the relative order between channel entries, \
             but 3 replacement chains were found in channel \"stable\" of package \"p\": a.v2...a.v1, b.v1, c.v2"
            .into())
    );
}
