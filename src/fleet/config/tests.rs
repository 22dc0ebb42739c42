use super::*;
use proptest::prelude::*;

const GOOD: &str = "\
catalogs:
- name: community          # /catalogs/community/…
  source: /configs/community
  port: 50051
  pollInterval: 10m
  priority: 0
- name: redhat
  source: quay.io/example/redhat-catalog:v4.20
  priority: -100
  limits:
    maxFileSize: 64MiB
    loadTimeout: 90s
    maxLayers: 20
";

#[test]
fn the_issue_s_example_reads_in_order_with_every_field() {
    let specs = parse("catalogs.yaml", GOOD).unwrap();
    assert_eq!(specs.len(), 2);
    let community = &specs[0];
    assert_eq!(community.name, "community");
    assert_eq!(community.source, "/configs/community");
    assert_eq!(community.port, Some(50051));
    assert_eq!(community.poll_interval, Some(Duration::from_secs(600)));
    assert_eq!(community.origin, "catalogs.yaml:2");
    let redhat = &specs[1];
    assert_eq!(redhat.port, None);
    assert_eq!(redhat.priority, -100);
    assert_eq!(redhat.limits.max_file_size, Some(64 << 20));
    assert_eq!(redhat.limits.load_timeout, Some(Duration::from_secs(90)));
    assert_eq!(redhat.limits.max_layers, Some(20));
    assert_eq!(redhat.origin, "catalogs.yaml:7");
}

#[test]
fn an_empty_file_is_no_catalogs() {
    assert_eq!(parse("c.yaml", "").unwrap(), vec![]);
    assert_eq!(parse("c.yaml", "catalogs: []\n").unwrap(), vec![]);
}

#[test]
fn errors_name_the_file_line_entry_and_field() {
    let typo = "catalogs:\n- name: a\n  source: /x\n  pollIntervall: 5m\n";
    let e = parse("c.yaml", typo).unwrap_err();
    assert!(e.origin.starts_with("c.yaml:"), "{e}");
    assert!(e.message.contains("pollIntervall"), "{e}");

    let bad_name = "catalogs:\n- name: a\n  source: /x\n- name: Not_A_Name\n  source: /y\n";
    let e = parse("c.yaml", bad_name).unwrap_err();
    assert_eq!(e.origin, "c.yaml:4");
    assert!(
        e.message.starts_with("catalogs[1]: name \"Not_A_Name\""),
        "{e}"
    );

    let bad_port = "catalogs:\n- name: a\n  source: /x\n  port: 70000\n";
    let e = parse("c.yaml", bad_port).unwrap_err();
    assert!(e.origin.starts_with("c.yaml:4"), "{e}");

    let bad_poll = "catalogs:\n- name: a\n  source: /x\n  pollInterval: soon\n";
    let e = parse("c.yaml", bad_poll).unwrap_err();
    assert!(e.message.contains("invalid duration"), "{e}");

    let short_poll = "catalogs:\n- name: a\n  source: q.io/a:1\n  pollInterval: 10ms\n";
    let e = parse("c.yaml", short_poll).unwrap_err();
    assert!(e.message.contains("at least 1s"), "{e}");
}

#[test]
fn a_filter_is_read_and_an_empty_one_refused() {
    let text = "catalogs:\n- name: a\n  source: /x\n  filter: /etc/f.yaml\n";
    let specs = parse("c.yaml", text).unwrap();
    assert_eq!(specs[0].filter.as_deref(), Some(Path::new("/etc/f.yaml")));
    let text = "catalogs:\n- name: a\n  source: /x\n  filter: \"\"\n";
    let e = parse("c.yaml", text).unwrap_err();
    assert!(e.message.contains("filter must name a file"), "{e}");
}

#[test]
fn hostile_yaml_is_refused_not_expanded() {
    let aliases = "x: &a [1,2]\ncatalogs:\n- name: a\n  source: *a\n";
    assert!(parse("c.yaml", aliases).is_err());
    let deep = format!("catalogs: {}{}", "[".repeat(64), "]".repeat(64));
    assert!(parse("c.yaml", &deep).is_err());
    let two = "catalogs: []\n---\ncatalogs: []\n";
    assert!(parse("c.yaml", two).is_err());
    let many: String = std::iter::once("catalogs:\n".to_owned())
        .chain((0..=MAX_CATALOGS).map(|i| format!("- {{name: c{i}, source: /x}}\n")))
        .collect();
    let e = parse("c.yaml", &many).unwrap_err();
    assert!(e.message.contains("at most"), "{e}");
}

#[test]
fn names_and_ports_are_each_catalog_s_own() {
    let twice = parse(
        "c.yaml",
        "catalogs:\n- {name: a, source: /x, port: 5001}\n- {name: a, source: /y}\n",
    )
    .unwrap();
    let e = check_all(&twice, &[]).unwrap_err();
    assert!(e.message.contains("also given at c.yaml:2"), "{e}");
    let same_port = parse(
        "c.yaml",
        "catalogs:\n- {name: a, source: /x, port: 5001}\n- {name: b, source: /y, port: 5001}\n",
    )
    .unwrap();
    let e = check_all(&same_port, &[]).unwrap_err();
    assert!(
        e.message.contains("port 5001 is also the port of \"a\""),
        "{e}"
    );
    let listeners = parse("c.yaml", "catalogs:\n- {name: a, source: /x, port: 8080}\n").unwrap();
    assert!(check_all(&listeners, &[8080]).is_err());
    let any_port = parse(
        "c.yaml",
        "catalogs:\n- {name: a, source: /x, port: 0}\n- {name: b, source: /y, port: 0}\n",
    )
    .unwrap();
    assert!(check_all(&any_port, &[0]).is_ok());
}

#[test]
fn catalog_flags_take_a_name_a_source_and_options() {
    let spec = parse_flag("community=/configs/community,port=50052,priority=5").unwrap();
    assert_eq!(spec.name, "community");
    assert_eq!(spec.source, "/configs/community");
    assert_eq!(spec.port, Some(50052));
    assert_eq!(spec.priority, 5);
    let image = parse_flag("ops=registry.example:5000/ops/catalog:latest,pollInterval=5m").unwrap();
    assert_eq!(image.source, "registry.example:5000/ops/catalog:latest");
    assert_eq!(image.poll_interval, Some(Duration::from_secs(300)));
    for bad in [
        "community",
        "community=",
        "Bad=/x",
        "a=/x,port=x",
        "a=/x,colour=blue",
        "a=/x,port",
    ] {
        let e = parse_flag(bad).unwrap_err();
        assert_eq!(e.origin, format!("--catalog {bad}"));
    }
}

proptest! {
    #[test]
    fn any_text_is_read_or_refused_without_a_panic(text in "\\PC{0,400}") {
        let _ = parse("c.yaml", &text);
    }

    #[test]
    fn any_yamlish_text_is_read_or_refused_without_a_panic(
        lines in proptest::collection::vec(
            "(catalogs:|- |  |name: |source: |port: |[a-z0-9/:.]{0,12}|\\[|\\]|\\{|\\}|&a |\\*a|#|-1|70000|\n)+",
            0..20,
        )
    ) {
        let _ = parse("c.yaml", &lines.concat());
    }

    #[test]
    fn any_flag_value_is_read_or_refused_without_a_panic(value in "\\PC{0,120}") {
        let _ = parse_flag(&value);
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_the_config_file_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("catalogs.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    // Opening a FIFO for reading blocks until a writer comes: the read runs on its
    // own thread so that a regression fails here instead of hanging the suite.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(read_file(&fifo).map(|_| ()).map_err(|e| e.message));
    });
    let answer = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("reading a FIFO config must not block");
    let message = answer.unwrap_err();
    assert!(message.contains("not a regular file"), "{message}");
}
