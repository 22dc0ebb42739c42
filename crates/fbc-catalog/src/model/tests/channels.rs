//! `olm.channel` blobs and the graph rules: names and entries, heads, `replaces`
//! cycles, stranded bundles, `skips` and `skipRange`.

use super::*;

#[test]
fn a_channel_of_an_unknown_package_is_reported() {
    let d = only(
        &Catalog::new().add(EXTRA, &channel_doc("bar", "beta", "  - name: bar.v0.1.0\n")),
        "unknown package \"bar\" for channel \"beta\"",
    );
    assert_names(&d, EXTRA, "bar", "", "");
}

#[test]
fn a_channel_without_a_package_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            "schema: olm.channel\nname: beta\nentries:\n  - name: foo.v0.1.0\n",
        ),
        "package name must be set for channel \"beta\"",
    );
    assert_names(&d, EXTRA, "", "", "");
}

#[test]
fn a_channel_without_a_name_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            "schema: olm.channel\npackage: foo\nentries:\n  - name: foo.v0.1.0\n",
        ),
        "channel has no name",
    );
    assert_names(&d, EXTRA, "foo", "", "");
}

#[test]
fn a_duplicate_channel_is_reported_on_the_second_blob() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            &channel_doc("foo", "alpha", "  - name: foo.v0.2.0\n"),
        ),
        "duplicate channel \"alpha\" (first defined at foo/channels.yaml: document 1 (line 1))",
    );
    assert_names(&d, EXTRA, "foo", "alpha", "");
}

#[test]
fn a_duplicate_entry_in_a_channel_is_reported() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - name: foo.v0.1.0\n",
        ),
        "duplicate entry \"foo.v0.1.0\"",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_channel_entry_without_a_name_is_reported() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - replaces: foo.v0.2.0\n",
        ),
        "entries[2]: name must be set",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

/// `entries: [..., null]`: the reference decodes the null as an entry with an empty
/// name and rejects the channel; here the null is dropped without a word, while an
/// entry object without a name is reported.
#[test]
fn a_null_channel_entry_is_reported() {
    let diags = Catalog::new()
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - null\n",
        )
        .diagnostics();
    let d = find(&diags, "entries[2]");
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_channel_with_no_entries_is_reported() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            "schema: olm.channel\npackage: foo\nname: beta\nentries: []\n",
        ),
        "channel must contain at least one bundle",
    );
    assert_names(&d, EXTRA, "foo", "beta", "");
}

#[test]
fn a_channel_entry_without_a_bundle_blob_is_reported_with_its_name() {
    let d = only(
        &Catalog::new().edit(BUNDLES, &bundle_doc("foo", "foo.v0.1.0", "0.1.0"), ""),
        "no olm.bundle blobs found in package \"foo\" for olm.channel entries [foo.v0.1.0]",
    );
    assert_eq!(
        d.message,
        "no olm.bundle blobs found in package \"foo\" for olm.channel entries [foo.v0.1.0]"
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn entries_without_bundle_blobs_are_reported_in_every_channel() {
    let diags = Catalog::new()
        .add(EXTRA, &channel_doc("foo", "beta", "  - name: foo.v0.3.0\n"))
        .add(
            EXTRA,
            &channel_doc("foo", "stable", "  - name: foo.v0.4.0\n"),
        )
        .diagnostics();
    assert_eq!(diags.len(), 2, "{}", lines(&diags));
    let beta = find(&diags, "olm.channel entries [foo.v0.3.0]");
    assert_names(&beta, EXTRA, "foo", "beta", "");
    let stable = find(&diags, "olm.channel entries [foo.v0.4.0]");
    assert_names(&stable, EXTRA, "foo", "stable", "");
    assert_eq!(stable.location.document, Some(2));
}

#[test]
fn a_replaces_cycle_leaves_a_channel_without_a_head() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "  - name: foo.v0.1.0\n",
            "  - name: foo.v0.1.0\n    replaces: foo.v0.2.0\n",
        ),
        "no channel head found in graph",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_channel_with_two_heads_is_reported_with_both_names_sorted() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "  - name: foo.v0.1.0\n  - name: foo.v0.2.0\n    replaces: foo.v0.1.0\n",
            "  - name: foo.v0.2.0\n  - name: foo.v0.1.0\n",
        ),
        "multiple channel heads found in graph: foo.v0.1.0, foo.v0.2.0",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_replaces_cycle_below_the_head_is_reported_with_its_path() {
    let d = only(
        &Catalog::new()
            .add(BUNDLES, &bundle_doc("foo", "foo.v0.3.0", "0.3.0"))
            .edit(
                CHANNELS,
                "  - name: foo.v0.1.0\n",
                "  - name: foo.v0.1.0\n    replaces: foo.v0.2.0\n",
            )
            .edit(
                CHANNELS,
                "    replaces: foo.v0.1.0\n",
                "    replaces: foo.v0.1.0\n  - name: foo.v0.3.0\n    replaces: foo.v0.2.0\n",
            ),
        "detected cycle in replaces chain of upgrade graph: foo.v0.3.0 -> foo.v0.2.0 -> foo.v0.1.0 -> foo.v0.2.0",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

#[test]
fn a_bundle_neither_on_the_replaces_chain_nor_skipped_is_stranded() {
    let d = only(
        &Catalog::new()
            .add(BUNDLES, &bundle_doc("foo", "foo.v0.3.0", "0.3.0"))
            .edit(
                CHANNELS,
                "    replaces: foo.v0.1.0\n",
                "    replaces: foo.v0.1.0\n  - name: foo.v0.3.0\n    skips: [foo.v0.2.0]\n",
            ),
        "channel contains one or more stranded bundles: foo.v0.1.0",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
}

/// `foo.v0.4.0 replaces foo.v0.3.0, skips [foo.v0.2.0]`, `foo.v0.3.0 replaces
/// foo.v0.2.0`, `foo.v0.2.0 replaces foo.v0.1.0`: today's walk stops at the
/// skipped foo.v0.2.0, so foo.v0.1.0 is stranded; opm before v1.58.0 walks on.
fn skipped_on_the_chain() -> Catalog {
    Catalog::new()
        .add(BUNDLES, &bundle_doc("foo", "foo.v0.3.0", "0.3.0"))
        .add(BUNDLES, &bundle_doc("foo", "foo.v0.4.0", "0.4.0"))
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - name: foo.v0.3.0\n    replaces: foo.v0.2.0\n  - name: foo.v0.4.0\n    replaces: foo.v0.3.0\n    skips: [foo.v0.2.0]\n",
        )
}

#[test]
fn below_a_skipped_chain_entry_is_stranded_today_and_accepted_with_a_warning_by_the_legacy_rule() {
    let catalog = skipped_on_the_chain();
    let d = only(
        &catalog,
        "channel contains one or more stranded bundles: foo.v0.1.0",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "");
    let built = build_with(catalog.loaded(), ChainRule::Legacy).expect("opm v1.32 accepts it");
    let ch = built.model.packages[0].channel("alpha").expect("alpha");
    assert_eq!(ch.head_entry().name, "foo.v0.4.0");
    assert_eq!(built.warnings.len(), 1, "{}", lines(&built.warnings));
    let w = &built.warnings[0];
    assert_eq!(
        w.message,
        "channel contains one or more stranded bundles: foo.v0.1.0"
    );
    assert_eq!(w.kind, Kind::Graph);
    assert!(
        w.hint.as_deref().is_some_and(|h| h.contains("v1.58.0")),
        "{w:?}"
    );
    assert_names(w, CHANNELS, "foo", "alpha", "");
    let strict = build_with(catalog.loaded(), ChainRule::Current).expect_err("today's rule");
    assert_eq!(strict.len(), 1);
}

#[test]
fn the_legacy_rule_still_refuses_what_old_opm_refused() {
    // foo.v0.3.0 skips foo.v0.2.0 without replacing anything: foo.v0.1.0 is
    // on no chain under either rule.
    let catalog = Catalog::new()
        .add(BUNDLES, &bundle_doc("foo", "foo.v0.3.0", "0.3.0"))
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - name: foo.v0.3.0\n    skips: [foo.v0.2.0]\n",
        );
    let errors = build_with(catalog.loaded(), ChainRule::Legacy).expect_err("refused");
    assert_eq!(
        errors[0].message,
        "channel contains one or more stranded bundles: foo.v0.1.0"
    );
}

#[test]
fn only_the_tail_may_replace_an_absent_bundle_and_skipped_bundles_are_not_stranded() {
    let model = Catalog::new()
        .add(BUNDLES, &bundle_doc("foo", "foo.v0.3.0", "0.3.0"))
        .edit(CHANNELS, "  - name: foo.v0.1.0\n", "  - name: foo.v0.1.0\n    replaces: foo.v0.0.1\n")
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n  - name: foo.v0.3.0\n    replaces: foo.v0.1.0\n    skips: [foo.v0.2.0]\n",
        )
        .model();
    let ch = model.packages[0].channel("alpha").expect("alpha");
    assert_eq!(ch.head_entry().name, "foo.v0.3.0");
    assert_eq!(ch.head_entry().skips, ["foo.v0.2.0"]);
}

#[test]
fn an_empty_skip_is_reported_on_its_entry() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n    skips:\n      - \"\"\n",
        ),
        "skip[0] is empty",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "foo.v0.2.0");
}

#[test]
fn an_invalid_skip_range_is_reported_on_its_entry() {
    let d = only(
        &Catalog::new().edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n    skipRange: '>=1.0, <2.0'\n",
        ),
        "invalid skipRange \">=1.0, <2.0\"",
    );
    assert_names(&d, CHANNELS, "foo", "alpha", "foo.v0.2.0");
}

#[test]
fn a_skip_range_with_a_space_after_the_operator_is_valid() {
    let model = Catalog::new()
        .edit(
            CHANNELS,
            "    replaces: foo.v0.1.0\n",
            "    replaces: foo.v0.1.0\n    skipRange: '< 0.6.0'\n",
        )
        .model();
    let ch = model.packages[0].channel("alpha").expect("alpha");
    assert_eq!(ch.head_entry().skip_range, "< 0.6.0");
}

#[test]
fn a_channel_whose_entries_are_not_objects_is_a_parse_error() {
    let d = only(
        &Catalog::new().add(
            EXTRA,
            "schema: olm.channel\npackage: foo\nname: beta\nentries: [foo.v0.1.0]\n",
        ),
        "parse channel: entries[0] must be an object, found a string",
    );
    assert_names(&d, EXTRA, "foo", "beta", "");
}
