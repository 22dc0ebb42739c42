use super::*;

fn read(text: &str) -> Result<ClusterState, StateError> {
    ClusterState::read("state.yaml", text.as_bytes(), &ParseLimits::default())
}

const SUBSCRIPTION: &str = r#"
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata:
  name: etcd
  namespace: operators
spec:
  channel: alpha
  name: etcd
  source: community
  sourceNamespace: olm
  installPlanApproval: Manual
  startingCSV: etcdoperator.v0.9.2
status:
  installedCSV: etcdoperator.v0.9.2
  currentCSV: etcdoperator.v0.9.4
  state: UpgradePending
"#;

#[test]
fn a_subscription_with_every_field() {
    let state = read(SUBSCRIPTION).expect("reads");
    let [s] = state.subscriptions.as_slice() else {
        panic!("one subscription: {state:?}");
    };
    assert_eq!(
        (
            s.name.as_str(),
            s.namespace.as_str(),
            s.package.as_str(),
            s.channel.as_str()
        ),
        ("etcd", "operators", "etcd", "alpha")
    );
    assert_eq!(
        (s.source.as_str(), s.source_namespace.as_str()),
        ("community", "olm")
    );
    assert_eq!(s.approval, Approval::Manual);
    assert_eq!(s.starting_csv, "etcdoperator.v0.9.2");
    assert_eq!(
        (
            s.installed_csv.as_str(),
            s.current_csv.as_str(),
            s.state.as_str()
        ),
        (
            "etcdoperator.v0.9.2",
            "etcdoperator.v0.9.4",
            "UpgradePending"
        )
    );
    assert_eq!((s.origin.document.document, s.origin.item), (1, None));
}

#[test]
fn a_list_as_kubectl_prints_it_and_several_documents() {
    let text = r#"
apiVersion: v1
kind: List
items:
- apiVersion: operators.coreos.com/v1alpha1
  kind: ClusterServiceVersion
  metadata:
    name: etcdoperator.v0.9.2
    namespace: operators
    annotations:
      olm.properties: '[{"type":"olm.maxOpenShiftVersion","value":"4.8"}]'
      operatorframework.io/properties: '{"properties":[{"type":"olm.maxOpenShiftVersion","value":"4.8"}]}'
      olm.operatorNamespace: operators
  spec:
    version: 0.9.2
    replaces: etcdoperator.v0.9.0
  status:
    phase: Succeeded
- apiVersion: operators.coreos.com/v1alpha1
  kind: ClusterServiceVersion
  metadata:
    name: etcdoperator.v0.9.2
    namespace: other
    labels:
      olm.copiedFrom: operators
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: unrelated
---
apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata:
  name: argocd
spec:
  namespace: argocd
  serviceAccount:
    name: argocd-installer
  source:
    sourceType: Catalog
    catalog:
      packageName: argocd-operator
      version: ">=0.6.0 <0.9.0"
      channels: [alpha, beta]
      upgradeConstraintPolicy: SelfCertified
status:
  install:
    bundle:
      name: argocd-operator.v0.6.0
      version: 0.6.0
"#;
    let state = read(text).expect("reads");
    let [csv] = state.csvs.as_slice() else {
        panic!("one CSV, the copy skipped: {state:?}");
    };
    assert_eq!(csv.name, "etcdoperator.v0.9.2");
    assert_eq!(
        (csv.version.as_str(), csv.replaces.as_str()),
        ("0.9.2", "etcdoperator.v0.9.0")
    );
    assert_eq!(csv.phase, "Succeeded");
    assert_eq!(
        csv.csv_properties.as_deref(),
        Some(r#"[{"type":"olm.maxOpenShiftVersion","value":"4.8"}]"#)
    );
    assert_eq!(
        csv.olm_properties.as_deref(),
        Some(r#"{"properties":[{"type":"olm.maxOpenShiftVersion","value":"4.8"}]}"#)
    );
    assert_eq!(csv.origin.item, Some(0));
    let skipped: Vec<(&str, Option<usize>)> = state
        .skipped
        .iter()
        .map(|s| (s.kind.as_str(), s.origin.item))
        .collect();
    assert_eq!(
        skipped,
        [("ClusterServiceVersion", Some(1)), ("ConfigMap", Some(2))]
    );
    let [ext] = state.extensions.as_slice() else {
        panic!("one extension: {state:?}");
    };
    assert_eq!(ext.package, "argocd-operator");
    assert_eq!(ext.version_range.as_deref(), Some(">=0.6.0 <0.9.0"));
    assert_eq!(ext.channels, ["alpha", "beta"]);
    assert_eq!(ext.policy, Policy::SelfCertified);
    assert_eq!(
        (ext.installed_name.as_str(), ext.installed_version.as_str()),
        ("argocd-operator.v0.6.0", "0.6.0")
    );
    assert_eq!(ext.origin.document.document, 2);
}

#[test]
fn json_as_kubectl_get_o_json_prints_it() {
    let text = r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"Subscription","metadata":{"name":"a"},"spec":{"name":"pkg"}}]}"#;
    let state = read(text).expect("reads");
    assert_eq!(state.subscriptions[0].package, "pkg");
    assert_eq!(state.subscriptions[0].approval, Approval::Automatic);
    assert_eq!(state.subscriptions[0].channel, "");
}

#[test]
fn errors_name_the_document_the_item_and_the_field() {
    let text = "kind: List\nitems:\n- kind: Subscription\n  metadata: {name: a}\n  spec: {name: pkg, channel: 3}\n";
    let err = read(text).expect_err("channel is a number");
    assert_eq!(
        err.to_string(),
        "state.yaml: document 1 (line 1), items[0]: Subscription \"a\": field spec.channel: must be a string, found a number"
    );
    let err = read("kind: Subscription\nmetadata: {name: a}\nspec: {}\n").expect_err("no package");
    assert!(
        err.to_string().ends_with("field spec.name: is required"),
        "{err}"
    );
    let err = read("kind: Subscription\nmetadata: {name: a}\nspec: {name: p, installPlanApproval: Sometimes}\n")
        .expect_err("bad approval");
    assert!(
        err.to_string()
            .contains("\"Sometimes\" is neither Automatic nor Manual"),
        "{err}"
    );
    let err = read("kind: ClusterExtension\nmetadata: {name: a}\nspec: {source: {sourceType: Catalog, catalog: {packageName: p, upgradeConstraintPolicy: Never}}}\n")
        .expect_err("bad policy");
    assert!(
        err.to_string()
            .contains("field spec.source.catalog.upgradeConstraintPolicy"),
        "{err}"
    );
    let err = read("kind: ClusterExtension\nmetadata: {name: a}\nspec: {source: [1]}\n")
        .expect_err("source a list");
    assert!(
        err.to_string()
            .contains("field spec.source: must be an object, found an array"),
        "{err}"
    );
    let err = read("kind: [").expect_err("not YAML");
    assert!(matches!(err, StateError::Parse(_)), "{err}");
}

#[test]
fn objects_that_are_not_olms_are_listed_as_skipped() {
    let state = read("kind: Pod\nmetadata: {name: p}\n---\nmetadata: {name: q}\n").expect("reads");
    let reasons: Vec<&str> = state.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "not a Subscription, ClusterServiceVersion or ClusterExtension",
            "no kind"
        ]
    );
}

proptest::proptest! {
    /// Any text, and any shape of the fields read, gives a state or an error, never a panic.
    #[test]
    fn never_panics_on_any_shape(
        kind in proptest::sample::select(vec!["Subscription", "ClusterServiceVersion", "ClusterExtension", "List", "X"]),
        field in proptest::sample::select(vec!["spec", "status", "metadata", "items", "spec.source", "spec.source.catalog"]),
        value in proptest::sample::select(vec!["1", "[]", "{}", "null", "\"s\"", "[1, {a: b}]", "{name: 3}", "{catalog: []}"]),
        noise in "[ -~\n]{0,40}",
    ) {
        let mut text = format!("kind: {kind}\nmetadata: {{name: n}}\n");
        let parts: Vec<&str> = field.split('.').collect();
        for (depth, part) in parts.iter().enumerate() {
            let indent = "  ".repeat(depth);
            if depth + 1 == parts.len() {
                text.push_str(&format!("{indent}{part}: {value}\n"));
            } else {
                text.push_str(&format!("{indent}{part}:\n"));
            }
        }
        let _ = read(&text);
        let _ = read(&format!("{text}{noise}"));
    }
}

#[test]
fn copies_are_known_by_each_of_olms_three_signs() {
    let csv = |extra: &str| {
        format!("kind: ClusterServiceVersion\nmetadata:\n  name: c\n  namespace: a\n{extra}")
    };
    let reasons = |text: String| -> Vec<String> {
        read(&text)
            .expect("reads")
            .skipped
            .into_iter()
            .map(|s| s.reason)
            .collect()
    };
    assert_eq!(
        reasons(csv("  labels: {olm.copiedFrom: b}\n")),
        ["a copied CSV (label olm.copiedFrom): the original is the one installed"]
    );
    assert_eq!(
        reasons(csv("status: {reason: Copied}\n")),
        ["a copied CSV (status.reason Copied): the original is the one installed"]
    );
    assert_eq!(
        reasons(csv("  annotations: {olm.operatorNamespace: b}\n")),
        [
            "a copied CSV (annotation olm.operatorNamespace \"b\", not its namespace \"a\"): the original is the one installed"
        ]
    );
    let original = read(&csv("  annotations: {olm.operatorNamespace: a}\n")).expect("reads");
    assert_eq!((original.csvs.len(), original.skipped.len()), (1, 0));
}
