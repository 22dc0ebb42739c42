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
        rows: objects.len(),
        fields: schema.field_count(),
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

/// A view of `count` metas of schema `x.custom`, each with `keys` keys of its own.
fn view_of_distinct_keys(count: usize, keys: usize) -> Arc<HttpView> {
    use fbc_catalog::model::Meta;
    use fbc_catalog::tables::metas::MetaTable;
    let rows: Vec<Meta> = (0..count)
        .map(|i| Meta {
            schema: "x.custom".into(),
            package: "p".into(),
            name: format!("m{i}"),
            origin: fbc_catalog::source::Origin {
                file: "catalog.json".into(),
                document: i + 1,
                line: i + 1,
            },
        })
        .collect();
    let json = (0..count)
        .map(|i| {
            let fields: Vec<String> = (0..keys).map(|k| format!("\"f{i}x{k}\":{k}")).collect();
            Bytes::from(format!("{{\"schema\":\"x.custom\",{}}}", fields.join(",")))
        })
        .collect();
    let table = MetaTable::with_json(rows, json);
    let view = HttpView::build(
        &table,
        Default::default(),
        std::time::UNIX_EPOCH,
        Default::default(),
    )
    .unwrap();
    Arc::new(view)
}

#[test]
fn a_schema_of_too_many_fields_is_refused_before_it_is_built() {
    let small = GraphqlCatalog::build(view_of_distinct_keys(10, 10)).unwrap();
    assert_eq!(small.fields(), 10 * 10 + 1, "each key, and `schema`");
    let over = types::MAX_SCHEMA_FIELDS / 50 + 1;
    let error = GraphqlCatalog::build(view_of_distinct_keys(over, 50)).unwrap_err();
    assert!(
        matches!(error, types::SchemaError::TooLarge { fields } if fields > types::MAX_SCHEMA_FIELDS),
        "{error}"
    );
    assert!(
        error.to_string().contains("20000 GraphQL fields"),
        "{error}"
    );
}
