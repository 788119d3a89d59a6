//! Constant sharing against clang's own answer: over every clang JSON AST in the corpus
//! and the fixtures, literals ilkit shares have clang's canonical type and value
//! (precision) and literals clang calls equal are shared (recall).

use ilkit::import::clang_json::{import_file_with, import_reader_with, Bodies, ImportOptions};
use ilkit::share::check::{check_sharing, SharingCheck};

mod common;

const RECORD: ImportOptions = ImportOptions {
    record_literals: true,
    bodies: Bodies::All,
};

fn check_file(path: &std::path::Path) -> SharingCheck {
    let mut il = ilkit::il::Il::new();
    let imp = import_file_with(&mut il, path, RECORD).unwrap();
    check_sharing(&mut il, &imp.literals)
}

fn check_json(json: &str) -> SharingCheck {
    let mut il = ilkit::il::Il::new();
    let imp = import_reader_with(&mut il, json.as_bytes(), RECORD).unwrap();
    check_sharing(&mut il, &imp.literals)
}

#[test]
fn corpus_sharing_agrees_with_clangs_canonical_types_and_values() {
    let files = common::clang_asts();
    assert!(files.len() >= 10, "{files:?}");
    let (mut shared, mut wrong, mut clang_shared, mut missed) = (0, 0, 0, 0);
    for f in &files {
        let r = check_file(f);
        assert!(r.literals > 0, "{}: no literals recorded", f.display());
        assert_eq!(r.groups_mixing_types, 0, "{}: {r:#?}", f.display());
        shared += r.shared;
        wrong += r.wrongly_shared;
        clang_shared += r.clang_shared;
        missed += r.missed;
    }
    let precision = 100.0 * (shared - wrong) as f64 / shared as f64;
    let recall = 100.0 * (clang_shared - missed) as f64 / clang_shared as f64;
    assert!(
        precision >= 99.9,
        "precision {precision:.3} % ({wrong} of {shared})"
    );
    assert!(
        recall >= 99.0,
        "recall {recall:.3} % ({missed} of {clang_shared})"
    );
}

fn var(id: u32, ty: &str, lit: &str, value: &str) -> String {
    format!(
        r#"{{"id":"0x{id:x}","kind":"VarDecl","name":"v{id}","type":{{"qualType":"{ty}"}},"init":"c","inner":[{{"id":"0x{:x}","kind":"{lit}","type":{{"qualType":"{ty}"}},"value":"{value}"}}]}}"#,
        id + 1000
    )
}

fn tu(vars: &[String]) -> String {
    format!(
        r#"{{"id":"0x1","kind":"TranslationUnitDecl","inner":[{}]}}"#,
        vars.join(",")
    )
}

/// `char` 0 and `bool` false are different constants, as are `long` and `long long`
/// of one value; `int` 7 twice is one.
#[test]
fn builtin_integer_types_of_one_size_stay_apart() {
    let r = check_json(&tu(&[
        var(2, "char", "CharacterLiteral", "0"),
        var(3, "bool", "CXXBoolLiteralExpr", "false"),
        var(4, "long", "IntegerLiteral", "5"),
        var(5, "long long", "IntegerLiteral", "5"),
        var(6, "int", "IntegerLiteral", "7"),
        var(7, "int", "IntegerLiteral", "7"),
    ]));
    assert_eq!(
        (r.shared, r.wrongly_shared, r.groups_mixing_types),
        (2, 0, 0),
        "{r:#?}"
    );
    assert_eq!((r.clang_shared, r.missed), (2, 0), "{r:#?}");
}

/// Two `long double` values whose nearest doubles are both 0 are not one constant.
#[test]
fn long_doubles_keep_their_exact_values() {
    let r = check_json(&tu(&[
        var(
            2,
            "long double",
            "FloatingLiteral",
            "3.64519953188247460253E-4951",
        ),
        var(
            3,
            "long double",
            "FloatingLiteral",
            "3.36210314311209350626E-4932",
        ),
        var(
            4,
            "long double",
            "FloatingLiteral",
            "3.36210314311209350626E-4932",
        ),
    ]));
    assert_eq!((r.shared, r.wrongly_shared), (2, 0), "{r:#?}");
    assert_eq!((r.clang_shared, r.missed), (2, 0), "{r:#?}");
}
