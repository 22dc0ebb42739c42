use super::*;
use bytes::Bytes;

/// Objects of one schema, `olm.bundle`, served from memory.
struct Fixed(Vec<String>);

impl types::Pages for Fixed {
    fn page(&self, schema: &str, offset: usize, limit: usize) -> Vec<RawObject> {
        if schema != "olm.bundle" {
            return Vec::new();
        }
        self.0
            .iter()
            .skip(offset)
            .take(limit)
            .filter_map(|t| RawObject::parse(Bytes::from(t.clone())))
            .collect()
    }
}

fn catalog(objects: Vec<String>) -> GraphqlCatalog {
    let mut schema = CatalogSchema::default();
    for text in &objects {
        let serde_json::Value::Object(object) = serde_json::from_str(text).unwrap() else {
            panic!("an object")
        };
        schema.add("olm.bundle", &object);
    }
    GraphqlCatalog {
        schema: types::build(&schema, Arc::new(Fixed(objects))).unwrap(),
    }
}

fn ask(catalog: &GraphqlCatalog, query: &str) -> String {
    let deadline = Instant::now() + QUERY_TIMEOUT;
    let checked = limits::check(query.to_string()).unwrap();
    String::from_utf8(catalog.answer(checked, deadline)).unwrap()
}

#[test]
fn values_come_out_as_catalogd_writes_them() {
    let c = catalog(vec![
        r#"{"name":"a<b","n":1,"props":[{"t":"x","v":{"k":"&"}},null],"schema":"olm.bundle","tags":["p"]}"#.into(),
    ]);
    assert_eq!(
        ask(&c, "{ olmbundles { name n props { t v } } }"),
        "{\"data\":{\"olmbundles\":[{\"n\":1,\"name\":\"a\\u003cb\",\"props\":[{\"t\":\"x\",\"v\":\"{\\\"k\\\":\\\"\\\\u0026\\\"}\"},null]}]}}\n"
    );
    let tags = ask(&c, "{ olmbundles { tags } }");
    assert!(
        tags.contains("expected iterable, but did not find one for field OlmBundle.tags."),
        "{tags}"
    );
    assert!(
        tags.contains("\"path\":[\"olmbundles\",0,\"tags\"]"),
        "{tags}"
    );
}

#[test]
fn a_query_past_its_deadline_or_budget_answers_one_error() {
    let c = catalog(vec![r#"{"name":"a","schema":"olm.bundle"}"#.into()]);
    let checked = limits::check("{ olmbundles { name } }".to_string()).unwrap();
    let late = String::from_utf8(c.answer(checked, Instant::now())).unwrap();
    assert_eq!(
        late,
        "{\"data\":null,\"errors\":[{\"message\":\"context deadline exceeded\",\"locations\":[]}]}\n"
    );
    let big = format!(
        r#"{{"name":"{}","schema":"olm.bundle"}}"#,
        "x".repeat(1 << 20)
    );
    let c = catalog(vec![big; 100]);
    let aliases: Vec<String> = (0..40)
        .map(|i| format!("a{i}: olmbundles {{ name }}"))
        .collect();
    let answer = ask(&c, &format!("{{ {} }}", aliases.join(" ")));
    assert!(
        answer.contains("query result exceeds the maximum size"),
        "{}",
        &answer[..200.min(answer.len())]
    );
}

#[test]
fn colliding_schemas_have_no_graphql_schema() {
    let mut schema = CatalogSchema::default();
    let object = serde_json::Map::new();
    schema.add("olm.bundle", &object);
    schema.add("olm-bundle", &object);
    let error = types::build(&schema, Arc::new(Fixed(Vec::new()))).unwrap_err();
    assert!(
        matches!(error, types::SchemaError::TypeCollision(..)),
        "{error}"
    );
    let mut schema = CatalogSchema::default();
    schema.add("query", &object);
    let error = types::build(&schema, Arc::new(Fixed(Vec::new()))).unwrap_err();
    assert_eq!(error, types::SchemaError::Duplicate("Query".into()));
}
