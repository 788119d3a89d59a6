//! CFG mutations.
