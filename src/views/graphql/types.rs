//! catalogd's GraphQL types, as an async-graphql dynamic schema.
//!
//! In: the [`CatalogSchema`] derived from a snapshot's metas, and the pages its
//! root fields read. Out: the executable schema catalogd's
//! `BuildDynamicGraphQLSchema` builds (operator-controller
//! `internal/catalogd/graphql/graphql.go`): one object type per FBC schema, a
//! list type per list-of-objects field, a root field per schema (`olm.bundle` →
//! `olmbundles(limit: Int = 100, offset: Int = 0)`) and `summary`. Types, fields
//! and root fields are registered in sorted order, so introspection lists them
//! as graphql-go does (`__Type.fields` sorted) and everything else Go leaves to
//! map order comes out sorted.

use super::coerce;
use super::exec::Exec;
use super::raw::{Element, RawObject};
use async_graphql::dynamic::{
    Field, FieldFuture, FieldValue, InputValue, Object, ResolverContext, Schema, TypeRef,
};
use async_graphql::{ServerError, Value};
use fbc_catalog::catalogd::schema::{
    CatalogSchema, FieldInfo, Scalar, root_field_name, sanitize_type_name,
};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The rows a root field pages through.
pub trait Pages: Send + Sync + 'static {
    /// The objects of `schema` at `offset..offset + limit`, in walk order
    /// (objects that are not JSON objects are skipped, as catalogd's loader does).
    fn page(&self, schema: &str, offset: usize, limit: usize) -> Vec<RawObject>;
}

/// Why a catalog has no GraphQL schema (catalogd refuses to store such a
/// catalog; only this endpoint fails here).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// Two schemas give the same type name.
    #[error("type name collision: schemas {0:?} and {1:?} both sanitize to GraphQL type {2:?}")]
    TypeCollision(String, String, String),
    /// Two schemas give the same root field.
    #[error("query field collision: schemas {0:?} and {1:?} both map to field {2:?}")]
    FieldCollision(String, String, String),
    /// A type name is taken already (by a nested type, a built-in or the summary).
    #[error("Schema must contain unique named types but contains multiple types named {0:?}.")]
    Duplicate(String),
    /// A root field is not a GraphQL name (a schema starting with a digit).
    #[error("Names must match /^[_a-zA-Z][_a-zA-Z0-9]*$/ but {0:?} does not.")]
    BadName(String),
    /// async-graphql refused the schema.
    #[error("{0}")]
    Build(String),
    /// The schemas derive more fields than [`MAX_SCHEMA_FIELDS`].
    #[error(
        "the catalog's schemas derive more than {MAX_SCHEMA_FIELDS} GraphQL fields ({fields} so far); this server builds no schema that large"
    )]
    TooLarge {
        /// Fields counted when the build stopped.
        fields: usize,
    },
}

/// The most fields a derived schema may have (ours: catalogd has no cap). The
/// five shared real catalogs derive 21 to 26 fields; a catalog whose metas each
/// bring new keys derives one field per key, and async-graphql holds about
/// 1.3 KB per field (a 3.2 MB catalog of 200,000 distinct keys made a 255 MB
/// schema), so without a cap a few megabytes of catalog cost gigabytes.
pub const MAX_SCHEMA_FIELDS: usize = 20_000;

/// Names no derived type may take.
const RESERVED: &[&str] = &[
    "Query",
    "CatalogSummary",
    "SchemaSummary",
    "String",
    "Int",
    "Float",
    "Boolean",
    "ID",
];

/// Builds the schema over `catalog`, reading objects through `pages`.
pub fn build(catalog: &CatalogSchema, pages: Arc<dyn Pages>) -> Result<Schema, SchemaError> {
    check_names(catalog)?;
    let mut builder = Schema::build("Query", None, None);
    let mut query = Object::new("Query");
    let mut taken: BTreeSet<String> = RESERVED.iter().map(|s| s.to_string()).collect();
    let mut roots: Vec<(String, Field)> = Vec::new();
    for (schema, info) in &catalog.schemas {
        let type_name = sanitize_type_name(schema);
        let mut object = Object::new(&type_name);
        for (field, field_info) in &info.fields {
            let (field, nested) = object_field(&type_name, field, field_info, Lookup::ByName);
            if let Some(nested) = nested {
                if !taken.insert(nested.type_name().to_string()) {
                    return Err(SchemaError::Duplicate(nested.type_name().into()));
                }
                builder = builder.register(nested);
            }
            object = object.field(field);
        }
        if !taken.insert(type_name.clone()) {
            return Err(SchemaError::Duplicate(type_name));
        }
        builder = builder.register(object);
        roots.push((
            root_field_name(schema),
            root_field(schema, &type_name, &pages),
        ));
    }
    roots.push(("summary".into(), summary_field(catalog)));
    roots.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, field) in roots {
        query = query.field(field);
    }
    builder = builder.register(query);
    for object in summary_types() {
        builder = builder.register(object);
    }
    builder
        .finish()
        .map_err(|e| SchemaError::Build(e.to_string()))
}

/// catalogd's collision checks, then GraphQL's rule for names.
fn check_names(catalog: &CatalogSchema) -> Result<(), SchemaError> {
    let mut types: BTreeMap<String, &str> = BTreeMap::new();
    let mut fields: BTreeMap<String, &str> = BTreeMap::new();
    for schema in catalog.schemas.keys() {
        let type_name = sanitize_type_name(schema);
        if let Some(other) = types.insert(type_name.clone(), schema) {
            return Err(SchemaError::TypeCollision(
                other.into(),
                schema.clone(),
                type_name,
            ));
        }
        let field = root_field_name(schema);
        if let Some(other) = fields.insert(field.clone(), schema) {
            return Err(SchemaError::FieldCollision(
                other.into(),
                schema.clone(),
                field,
            ));
        }
        if !field.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return Err(SchemaError::BadName(field));
        }
    }
    Ok(())
}

/// How a field finds its value in an object.
#[derive(Clone, Copy)]
enum Lookup {
    /// Top-level fields: the key whose GraphQL name it is.
    ByName,
    /// Fields of list elements: the key spelled as the field first.
    KeyThenName,
}

/// What a field's value becomes.
#[derive(Clone, Copy)]
enum Shape {
    Scalar(Scalar),
    /// A list of scalars: catalogd's resolver hands graphql-go JSON text, which
    /// is not iterable (graphql-go's error; catalogd never returns these).
    ScalarList,
    /// A list of objects of a nested type.
    Objects,
}

/// A field of an object type, and the nested type it introduces (if any).
fn object_field(
    parent: &str,
    name: &str,
    info: &FieldInfo,
    lookup: Lookup,
) -> (Field, Option<Object>) {
    let (shape, ty, nested) = if !info.nested.is_empty() {
        let nested_name = format!("{parent}{}", sanitize_type_name(name));
        let mut nested = Object::new(&nested_name);
        for (field, field_info) in &info.nested {
            nested =
                nested.field(object_field(&nested_name, field, field_info, Lookup::KeyThenName).0);
        }
        (
            Shape::Objects,
            TypeRef::named_list(nested_name),
            Some(nested),
        )
    } else if info.is_array {
        (
            Shape::ScalarList,
            TypeRef::named_list(info.scalar.name()),
            None,
        )
    } else {
        let scalar = info.scalar;
        (Shape::Scalar(scalar), TypeRef::named(scalar.name()), None)
    };
    let (parent, field) = (parent.to_string(), name.to_string());
    let field_def = Field::new(name, ty, move |ctx| {
        FieldFuture::Value(resolve_field(&ctx, &parent, &field, shape, lookup))
    });
    (field_def, nested)
}

fn resolve_field<'a>(
    ctx: &ResolverContext<'a>,
    parent: &str,
    field: &str,
    shape: Shape,
    lookup: Lookup,
) -> Option<FieldValue<'a>> {
    let exec = ctx.data::<Arc<Exec>>().ok()?;
    if !exec.charge(0) {
        return None;
    }
    let object = ctx.parent_value.downcast_ref::<RawObject>()?;
    let text = match lookup {
        Lookup::ByName => object.by_name(field),
        Lookup::KeyThenName => object.by_key_then_name(field),
    }?;
    if text == "null" || !exec.charge(text.len()) {
        return None;
    }
    match shape {
        Shape::Scalar(scalar) => coerce::scalar(scalar, text).map(FieldValue::value),
        Shape::ScalarList => {
            not_iterable(ctx, parent, field);
            None
        }
        Shape::Objects => {
            let Some(elements) = object.elements(text) else {
                not_iterable(ctx, parent, field);
                return None;
            };
            let items = elements
                .into_iter()
                .enumerate()
                .map(|(i, element)| match element {
                    Element::Null => {
                        exec.null_element(ctx, i);
                        FieldValue::owned_any(RawObject::default())
                    }
                    Element::Object(object) => FieldValue::owned_any(object),
                });
            Some(FieldValue::list(items.collect::<Vec<_>>()))
        }
    }
}

/// graphql-go's `completeListValue` error for a value that is not a list.
fn not_iterable(ctx: &ResolverContext<'_>, parent: &str, field: &str) {
    let message =
        format!("User Error: expected iterable, but did not find one for field {parent}.{field}.");
    ctx.add_error(ctx.set_error_path(ServerError::new(message, Some(ctx.item.pos))));
}

/// `olmbundles(limit, offset)`: a page of a schema's objects (a limit outside
/// 1..=100 is 100, a negative offset 0).
fn root_field(schema: &str, type_name: &str, pages: &Arc<dyn Pages>) -> Field {
    let (schema, pages) = (schema.to_string(), Arc::clone(pages));
    Field::new(
        root_field_name(&schema),
        TypeRef::named_list(type_name),
        move |ctx| {
            let Ok(exec) = ctx.data::<Arc<Exec>>() else {
                return FieldFuture::Value(None);
            };
            let arg = |name| ctx.args.get(name).and_then(|v| v.i64().ok()).unwrap_or(0);
            let limit = match arg("limit") {
                l @ 1..=100 => l as usize,
                _ => 100,
            };
            let offset = usize::try_from(arg("offset").max(0)).unwrap_or(usize::MAX);
            if !exec.charge(0) {
                return FieldFuture::Value(None);
            }
            let objects = pages.page(&schema, offset, limit);
            let items: Vec<FieldValue> = objects.into_iter().map(FieldValue::owned_any).collect();
            FieldFuture::Value(Some(FieldValue::list(items)))
        },
    )
    .argument(
        InputValue::new("limit", TypeRef::named(TypeRef::INT))
            .default_value(100)
            .description("Maximum number of items to return"),
    )
    .argument(
        InputValue::new("offset", TypeRef::named(TypeRef::INT))
            .default_value(0)
            .description("Number of items to skip"),
    )
}

/// One schema's line of `summary`.
struct SchemaSummary {
    name: String,
    total_objects: usize,
    total_fields: usize,
}

/// `summary { totalSchemas schemas { name totalObjects totalFields } }`, schemas
/// sorted by name (catalogd's order is Go map order).
fn summary_field(catalog: &CatalogSchema) -> Field {
    let schemas: Arc<Vec<SchemaSummary>> = Arc::new(
        catalog
            .schemas
            .iter()
            .map(|(name, info)| SchemaSummary {
                name: name.clone(),
                total_objects: info.total_objects,
                total_fields: info.fields.len(),
            })
            .collect(),
    );
    Field::new("summary", TypeRef::named("CatalogSummary"), move |_| {
        FieldFuture::Value(Some(FieldValue::owned_any(Arc::clone(&schemas))))
    })
}

fn summary_types() -> [Object; 2] {
    let summary = Object::new("CatalogSummary")
        .field(Field::new(
            "schemas",
            TypeRef::named_list("SchemaSummary"),
            |ctx| {
                let list = ctx.parent_value.downcast_ref::<Arc<Vec<SchemaSummary>>>();
                let items = list
                    .map(|list| FieldValue::list(list.iter().map(|s| FieldValue::borrowed_any(s))));
                FieldFuture::Value(items)
            },
        ))
        .field(Field::new(
            "totalSchemas",
            TypeRef::named(TypeRef::INT),
            |ctx| {
                let list = ctx.parent_value.downcast_ref::<Arc<Vec<SchemaSummary>>>();
                FieldFuture::from_value(list.map(|l| Value::from(l.len() as i64)))
            },
        ));
    let one = |ctx: &ResolverContext<'_>, f: fn(&SchemaSummary) -> Value| {
        ctx.parent_value.downcast_ref::<SchemaSummary>().map(f)
    };
    let schema = Object::new("SchemaSummary")
        .field(Field::new(
            "name",
            TypeRef::named(TypeRef::STRING),
            move |ctx| FieldFuture::from_value(one(&ctx, |s| Value::from(s.name.clone()))),
        ))
        .field(Field::new(
            "totalFields",
            TypeRef::named(TypeRef::INT),
            move |ctx| FieldFuture::from_value(one(&ctx, |s| Value::from(s.total_fields as i64))),
        ))
        .field(Field::new(
            "totalObjects",
            TypeRef::named(TypeRef::INT),
            move |ctx| FieldFuture::from_value(one(&ctx, |s| Value::from(s.total_objects as i64))),
        ));
    [summary, schema]
}
