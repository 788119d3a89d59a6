//! The schema of `components/`, readable at run time (tests, tools, display).
#![allow(missing_docs, dead_code)]

include!("../../components/schema.rs");
include!("../../components/entries.rs");
