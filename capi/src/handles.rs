//! The registry of live handles: every handle the library gives out is recorded with its
//! type, so a null, freed, foreign or mistyped pointer is answered with an error code
//! instead of being dereferenced. (A freed handle whose address a new handle of the same
//! type has taken since is that new handle: addresses are all the registry knows.)

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::{Failure, IlkitStatus};

/// A type handed to C as an opaque handle.
pub(crate) trait Handle: Sized + 'static {
    /// The type's tag in the registry.
    const TAG: u8;
    /// The type's name in error messages.
    const NAME: &'static str;
}

/// Live handles: address -> tag. Addresses are sparse, so a map.
static LIVE: Mutex<Option<HashMap<usize, u8>>> = Mutex::new(None);

fn with_live<R>(f: impl FnOnce(&mut HashMap<usize, u8>) -> R) -> R {
    let mut guard = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
    f(guard.get_or_insert_with(HashMap::new))
}

/// Boxes `value` and records the box as a live handle.
pub(crate) fn register<T: Handle>(value: T) -> *mut T {
    let p = Box::into_raw(Box::new(value));
    with_live(|m| m.insert(p as usize, T::TAG));
    p
}

fn check<T: Handle>(p: *const T) -> Result<(), Failure> {
    if p.is_null() {
        return Err(Failure::new(
            IlkitStatus::NullPointer,
            format!("{} handle is null", T::NAME),
        ));
    }
    match with_live(|m| m.get(&(p as usize)).copied()) {
        Some(tag) if tag == T::TAG => Ok(()),
        Some(_) => Err(Failure::new(
            IlkitStatus::BadHandle,
            format!("{p:p} is a handle of another type, not an {}", T::NAME),
        )),
        None => Err(Failure::new(
            IlkitStatus::BadHandle,
            format!(
                "{p:p} is not a live {} handle (never made, or freed)",
                T::NAME
            ),
        )),
    }
}

/// The value behind a live handle of type `T`.
///
/// # Safety
/// No other thread may free the handle while the returned reference lives (the
/// functions' documented thread-safety contract).
pub(crate) unsafe fn get<'a, T: Handle>(p: *const T) -> Result<&'a T, Failure> {
    check(p)?;
    // SAFETY: `p` is in the registry with `T`'s tag, so it came from `Box::into_raw` of a
    // `T` in `register` and has not been freed (freeing removes it first); the caller
    // promises no concurrent free.
    Ok(unsafe { &*p })
}

/// The value behind a live handle of type `T`, mutably.
///
/// # Safety
/// As [`get`], and no other reference to the value may be in use (the caller's
/// contract: no concurrent use of the same handle).
pub(crate) unsafe fn get_mut<'a, T: Handle>(p: *mut T) -> Result<&'a mut T, Failure> {
    check(p)?;
    // SAFETY: as in `get`; exclusivity is the caller's documented contract.
    Ok(unsafe { &mut *p })
}

/// Takes a live handle of type `T` out of the registry and drops its value. A null
/// pointer is no handle and nothing to do.
///
/// # Safety
/// No other thread may use the handle during or after this call.
pub(crate) unsafe fn free<T: Handle>(p: *mut T) -> Result<(), Failure> {
    if p.is_null() {
        return Ok(());
    }
    let removed = with_live(|m| match m.get(&(p as usize)) {
        Some(&tag) if tag == T::TAG => m.remove(&(p as usize)).is_some(),
        _ => false,
    });
    if !removed {
        check(p)?;
        return Err(Failure::new(
            IlkitStatus::BadHandle,
            format!("{p:p} is not a live {} handle", T::NAME),
        ));
    }
    // SAFETY: the registry held `p` with `T`'s tag and we removed it under the lock, so
    // this is the one place that turns it back into its box.
    drop(unsafe { Box::from_raw(p) });
    Ok(())
}
