//! `ilkit cfg`.
