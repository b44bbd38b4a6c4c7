//! Column helpers shared by the table schemas.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field};

pub(super) fn utf8(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

pub(super) fn utf8_list(name: &str) -> Field {
    Field::new(
        name,
        DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
        false,
    )
}
