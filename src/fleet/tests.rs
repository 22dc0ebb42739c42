use super::*;
use crate::snapshot::Publisher;

fn member(name: &str, priority: i32, loaded: bool) -> Member {
    let (mut publisher, catalog) = Publisher::new();
    if loaded {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/example");
        let catalog = crate::snapshot::load::load(&root, &Default::default()).unwrap();
        publisher.publish(catalog, None);
    }
    Member {
        name: Arc::from(name),
        catalog,
        status: Arc::new(SourceStatus::new(None, None, false)),
        priority,
        source: format!("/configs/{name}"),
        port: None,
    }
}

#[test]
fn members_are_found_by_name_and_listed_in_name_order() {
    let fleet = Fleet::new(true);
    fleet.put(Arc::new(member("redhat", 0, true)));
    fleet.put(Arc::new(member("community", -5, true)));
    fleet.put(Arc::new(member("certified", 10, false)));
    let names: Vec<_> = fleet.members().iter().map(|m| m.name.to_string()).collect();
    assert_eq!(names, ["certified", "community", "redhat"]);
    assert_eq!(fleet.get("community").unwrap().priority, -5);
    assert!(fleet.get("other").is_none());
    assert_eq!(&*fleet.first().unwrap().name, "certified");
    fleet.put(Arc::new(member("community", 20, true)));
    assert_eq!(fleet.members().len(), 3);
    assert_eq!(&*fleet.first().unwrap().name, "community");
    assert!(fleet.remove("community").is_some());
    assert!(fleet.remove("community").is_none());
    assert_eq!(fleet.members().len(), 2);
}

#[test]
fn health_names_catalogs_when_there_are_several() {
    let fleet = Fleet::new(true);
    assert_eq!(fleet.health(""), Health::NotServing);
    fleet.put(Arc::new(member("a", 0, true)));
    fleet.put(Arc::new(member("b", 0, false)));
    assert_eq!(fleet.health("a"), Health::Serving);
    assert_eq!(fleet.health("b"), Health::NotServing);
    assert_eq!(fleet.health("c"), Health::Unknown);
    assert_eq!(fleet.health(""), Health::NotServing);
    fleet.remove("b");
    assert_eq!(fleet.health(""), Health::Serving);
    fleet.start_draining();
    assert_eq!(fleet.health(""), Health::NotServing);
    assert_eq!(fleet.health("a"), Health::NotServing);
}

#[test]
fn one_catalog_answers_for_any_name_as_opm_serve_does() {
    let fleet = Fleet::single(member("example", 0, true));
    for name in ["", "Registry", "anything"] {
        assert_eq!(fleet.health(name), Health::Serving);
    }
}
