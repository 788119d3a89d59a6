//! Systems over the IL: keep-in-IL device marking (more walks to come: the file-scope
//! walker, display, binary IL, copy).

pub mod keep;
