use super::*;
use proptest::prelude::*;

fn p(s: &str) -> ImagePath {
    entry_path(Path::new(s)).expect("a valid path")
}

#[test]
fn names_are_normalised_and_hostile_ones_refused() {
    assert_eq!(p("./configs/a.json"), p("configs/a.json"));
    assert_eq!(p("configs/./a.json/"), p("configs/a.json"));
    assert_eq!(entry_path(Path::new("/etc/x")), Err(PathProblem::Absolute));
    assert_eq!(
        entry_path(Path::new("a/../../x")),
        Err(PathProblem::ParentDir)
    );
    assert_eq!(entry_path(Path::new("a/../b")), Err(PathProblem::ParentDir));
    assert_eq!(
        entry_path(Path::new(&"a/".repeat(3000))),
        Err(PathProblem::TooLong)
    );
}

#[test]
fn link_targets_resolve_from_the_link_or_the_root() {
    let link = p("configs/pkg/alias.json");
    assert_eq!(
        link_target(&link, Path::new("catalog.json")),
        Ok(p("configs/pkg/catalog.json"))
    );
    assert_eq!(
        link_target(&link, Path::new("../x.json")),
        Ok(p("configs/x.json"))
    );
    assert_eq!(
        link_target(&link, Path::new("/configs/y")),
        Ok(p("configs/y"))
    );
    assert_eq!(
        link_target(&link, Path::new("../../../x")),
        Err(PathProblem::ParentDir)
    );
    assert_eq!(
        link_target(&link, Path::new("d/../x")),
        Err(PathProblem::ParentDir)
    );
}

#[test]
fn relative_links_lead_where_asked() {
    let os = |s: &str| -> Vec<OsString> { s.split('/').map(OsString::from).collect() };
    assert_eq!(
        relative_link(&os("a/b/link"), &os("a/c/t")),
        PathBuf::from("../c/t")
    );
    assert_eq!(relative_link(&os("link"), &os("a/t")), PathBuf::from("a/t"));
    assert_eq!(relative_link(&os("a/link"), &[]), PathBuf::from(".."));
    assert_eq!(relative_link(&os("a/link"), &os("a")), PathBuf::from("."));
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just(String::new()),
        "[a-z]{1,3}"
    ]
}

proptest! {
    /// Whatever the name, an accepted path has only normal components, so joined to a root it
    /// stays below the root.
    #[test]
    fn an_accepted_entry_path_stays_below_the_root(parts in prop::collection::vec(segment(), 0..8), lead in any::<bool>()) {
        let name = format!("{}{}", if lead { "/" } else { "" }, parts.join("/"));
        if let Ok(path) = entry_path(Path::new(&name)) {
            prop_assert!(path.components().iter().all(|c| c != ".." && c != "." && !c.is_empty()));
        }
    }

    /// A resolved link target is a plain path, and the relative text written for it leads
    /// back to it from the link.
    #[test]
    fn a_resolved_link_round_trips_through_its_relative_text(
        link in prop::collection::vec("[a-c]", 1..5),
        target in prop::collection::vec(segment(), 0..6),
    ) {
        let entry = p(&link.join("/"));
        if let Ok(resolved) = link_target(&entry, Path::new(&target.join("/"))) {
            let text = relative_link(entry.components(), resolved.components());
            let again = link_target(&entry, &text).expect("our own text resolves");
            prop_assert_eq!(again, resolved);
        }
    }
}
