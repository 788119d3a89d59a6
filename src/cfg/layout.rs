//! Block layout.
