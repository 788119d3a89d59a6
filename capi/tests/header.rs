//! `include/ilkit.h` is what cbindgen makes of this crate today: the test regenerates
//! the header and fails when the checked-in one differs. `ILKIT_BLESS=1 cargo test -p
//! ilkit-capi --test header` writes the new header instead.

use std::path::Path;

#[test]
fn header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("capi/cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let header = crate_dir.join("../include/ilkit.h");
    if std::env::var_os("ILKIT_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&header, &fresh).expect("write include/ilkit.h");
        return;
    }
    let current = std::fs::read(&header).unwrap_or_default();
    assert!(
        current == fresh,
        "include/ilkit.h is stale: regenerate it with `ILKIT_BLESS=1 cargo test -p ilkit-capi \
         --test header` and commit it"
    );
}
