//! `ilkit il check-instantiations` and `instantiate::check_instantiations`: ilkit's
//! substitution against the instantiations clang dumped, on the checked-in clang fixtures
//! (`tests/fixtures/clang`, see the README there). The corpus dumps are checked in
//! `tests/corpus.rs` (`cuda_subst::*`); PERF.md has their numbers.

use ilkit::il::Il;
use ilkit::import::clang_json::import_file;
use ilkit::instantiate::{check_instantiations, InstantiationReport, Tally};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clang")
        .join(name)
}

fn check(name: &str) -> InstantiationReport {
    let mut il = Il::new();
    import_file(&mut il, &fixture(name)).unwrap();
    check_instantiations(&mut il).unwrap()
}

/// (checked, agree, [(difference, n)], [(out of scope, n)]) of a tally.
type Counts = (u64, u64, Vec<(&'static str, u64)>, Vec<(&'static str, u64)>);

fn counts(t: &Tally) -> Counts {
    (
        t.checked,
        t.agree,
        t.differences.iter().map(|(k, v)| (*k, *v)).collect(),
        t.out_of_scope.iter().map(|(k, v)| (*k, *v)).collect(),
    )
}

const CONCRETE: &str =
    "pattern type holds no parameter (the importer resolved a dependent spelling to a concrete type)";
const LOOKUP: &str = "dependent name lookup (overload resolution)";
const BUILTIN: &str = "instance checks a builtin call against the builtin's prototype (clang's own; overload resolution for `__builtin_operator_new`/`delete`)";
const OTHER_TEMPLATE: &str = "a parameter of another template (a callee's default argument, a nested template), substituted where clang used it";
const AUTO: &str = "dependent type the importer keeps unresolved (decltype, a builtin template, `auto` without an initializer type)";
const OPERATOR: &str =
    "instance calls an overloaded operator, constructor or conversion function (overload resolution)";

#[test]
fn kernels_fixture_agrees() {
    let r = check("kernels.json.gz");
    // sq<float>, sq<double>, binary<float, ops::Add>, Arr<float, 4>::get; Arr<float, 4>.
    assert_eq!((r.routines, r.classes), (4, 1), "{r:?}");
    assert!(r.instantiations_out_of_scope.is_empty(), "{r:?}");
    assert_eq!(counts(&r.nttp), (0, 0, vec![], vec![]));
    // `T v[N]` of Arr<float, 4> included: the bound substituted and folded.
    assert_eq!(counts(&r.decl_types), (16, 16, vec![], vec![]));
    // sq's two bodies agree; binary's `op(a[i], b[i])` is an overloaded operator() in
    // the instance; Arr::get's `v[i]` names a member of a dependent class.
    assert_eq!(
        counts(&r.bodies),
        (2, 2, vec![], vec![(LOOKUP, 1), (OPERATOR, 1)])
    );
}

#[test]
fn templates_fixture_agrees() {
    let r = check("templates.json.gz");
    // lib::Vec<int *> comes from the partial specialization Vec<T *, Alloc<T *>>,
    // recognised by deducing T = int from its arguments: its field `T **data` checks.
    // `Alloc<float>` and `Alloc<int *>` are named (default arguments) and never
    // instantiated: clang declares them only, and there is nothing to compare.
    assert_eq!((r.routines, r.classes), (1, 2), "{r:?}");
    assert_eq!(
        r.instantiations_out_of_scope
            .into_iter()
            .collect::<Vec<_>>(),
        vec![(
            "class specialization declared only (clang instantiated no definition: nothing to compare)",
            2
        )]
    );
    assert_eq!(counts(&r.nttp), (0, 0, vec![], vec![]));
    assert_eq!(counts(&r.decl_types), (7, 7, vec![], vec![]));
    assert_eq!(counts(&r.bodies), (0, 0, vec![], vec![(LOOKUP, 1)]));
}

#[test]
fn nttp_fixture_values_and_types_agree() {
    let r = check("nttp.json.gz");
    // mix<...> twice, scale<float>, Ring<float, 8>::at and ::size; Ring<float, 8>.
    assert_eq!((r.routines, r.classes), (5, 1), "{r:?}");
    // int, bool, unsigned (4294967295u), char, enum and function-pointer arguments:
    // every substituted parameter's value and type, after folding and conversion.
    assert_eq!(counts(&r.nttp), (20, 20, vec![], vec![]));
    assert_eq!(counts(&r.decl_types), (17, 17, vec![], vec![]));
    // scale<float>, Ring::size and both mix<...> agree: mix compares `L == COL` where
    // clang's replacement for the enum parameter is an unsigned literal under a cast to
    // the enum, ilkit's a constant of the enum type (the comparison folds an integral
    // conversion of a constant on both sides); Ring::at indexes a member of a dependent
    // class.
    assert_eq!(counts(&r.bodies), (4, 4, vec![], vec![(LOOKUP, 1)]));
}

#[test]
fn subst_fixture_dependent_types_agree() {
    let r = check("subst.json.gz");
    // reduce<float, 4, 2>, reduce<int, 8, 1>, first<Buf<float, 6>>; Buf<float, 6>.
    assert_eq!((r.routines, r.classes), (3, 1), "{r:?}");
    assert_eq!(counts(&r.nttp), (8, 8, vec![], vec![]));
    // Every declaration type is compared. Agreeing: the dependent array bounds `T r[M]`,
    // `int idx[per]` (a constexpr local), `float w[W - 1 > 0 ? W - 1 : 1][M]`,
    // `V pair[2][M]` (a local alias of `typename Traits<T>::vec`: a dependent member of
    // a dependent template-id), `int half[N / 2 + 1]` of Buf, the `auto` locals (a
    // lambda, `M * 2`), and `typename B::value_type` (a member of the parameter's
    // class). `typename Traits<T>::acc` is spelled twice (reduce's return type and `s`):
    // both are dependent template-ids (the routine's own type is read as a pattern's).
    assert_eq!(counts(&r.decl_types), (28, 28, vec![], vec![]));
}

/// `specs.cu`: a specialization's members spell it unqualified and without its
/// defaulted arguments (`iter<char *, str<char>>`); the importer finds the
/// specialization, not the pattern, so their declaration types agree with
/// substitution's.
#[test]
fn specialization_spelled_without_defaults_resolves() {
    let r = check("specs.json.gz");
    assert_eq!((r.routines, r.classes), (3, 3), "{r:?}");
    assert_eq!(counts(&r.decl_types), (7, 7, vec![], vec![]));
}

/// `depid.cu`: inside a class template pattern, `iter<pointer, vec>` (an argument
/// dependent only through a member typedef and the injected class name, as libstdc++'s
/// vector spells its iterator) is a dependent template-id; substitution resolves it to
/// the specialization each instantiation names.
#[test]
fn dependent_template_id_in_a_pattern_resolves() {
    let r = check("depid.json.gz");
    assert_eq!((r.routines, r.classes), (4, 4), "{r:?}");
    // The two instances' parameter, return and field types, and their member typedefs'
    // definitions (`pointer`, `iterator`).
    assert_eq!(counts(&r.decl_types), (14, 14, vec![], vec![]));
}

/// `conv.cu`: what instantiation computes beyond the pattern's tree. A routine argument
/// of a function-pointer parameter called (`op(x, y)`: the address constant against
/// clang's `&twice`), dependent casts given their kinds (`(T *) tile`: `BitCast` of a
/// decayed array; `static_cast<node<V> *>(base)`: `BaseToDerived`; `(int) v`), pointer
/// difference (`ptrdiff_t`) and pointer plus integer, a subscript of a const array (the
/// element's `const` kept), a call of a static member typed as declared, a conditional
/// of two `bool` arms, an enumerator argument compared with an enumerator. Set aside: a
/// builtin call clang checks against its prototype (`__builtin_memcpy`), an assignment
/// converting through a constructor overload resolution picks. A parameter typed with an
/// alias template's function pointer over the template's parameter (`store_t<T>`: the
/// routine type's parameters substituted) is called with its arguments converted to the
/// parameter types. `arm<2>` and `arm<1>`: the arm `if constexpr` discards is an empty
/// block in clang's instance, and is not compared.
#[test]
fn conversions_and_result_types_agree() {
    let r = check("conv.json.gz");
    // pick<int *, int *> from pick<A *, A *> (more specialized than pick<A, A>, which
    // matches too), pick<int, int> from pick<A, A>, pick<int, float> from the primary.
    // first_of<int, float, char> binds its pack `Rest` (the importer records a pack
    // argument as a list of its elements); count_of(1, 2.0f, 'c'), a function template
    // with a parameter pack, is checked too (`packs.cu` has more).
    assert_eq!((r.routines, r.classes), (19, 5), "{r:?}");
    assert!(r.instantiations_out_of_scope.is_empty(), "{r:?}");
    // The generic lambda's call operator names `N`, its enclosing template's parameter.
    assert_eq!(counts(&r.nttp), (8, 8, vec![], vec![(OTHER_TEMPLATE, 1)]));
    // The lambda's `auto v` and its deduced return type are what (b) misses.
    assert_eq!(
        counts(&r.decl_types),
        (60, 58, vec![(AUTO, 1), (CONCRETE, 1)], vec![])
    );
    assert_eq!(
        counts(&r.bodies),
        (
            14,
            14,
            vec![],
            vec![
                (LOOKUP, 2),
                (OPERATOR, 1),
                (BUILTIN, 1),
                ("lambda in body", 1)
            ]
        )
    );
}

/// `packs.cu`: function templates with parameter packs. Each function parameter pack
/// expands to the instance's parameters, one per element, typed with the pack's type
/// substituted for that element (`zero(Ts &&...)` called with lvalues: `int &`, the
/// references collapsed); `f(args...)`, `{Ns...}` and `{(refs = 0, 0)...}` expand to
/// one expression per element; `sizeof...` names the pack; `total<1, 2, 3>`'s
/// substituted elements are (a), its `int a[] = {Ns...}` is `int[3]` (b); `first(1.0f)`
/// expands its pack to nothing. `sum`'s fold is set aside: clang's JSON does not print
/// a fold's operator.
#[test]
fn parameter_packs_expand() {
    let r = check("packs.json.gz");
    assert_eq!((r.routines, r.classes), (9, 0), "{r:?}");
    assert!(r.instantiations_out_of_scope.is_empty(), "{r:?}");
    assert_eq!(counts(&r.nttp), (3, 3, vec![], vec![]));
    assert_eq!(counts(&r.decl_types), (32, 32, vec![], vec![]));
    assert_eq!(
        counts(&r.bodies),
        (
            8,
            8,
            vec![],
            vec![(
                "fold expression (clang's JSON does not record its operator)",
                1
            )]
        )
    );
}

/// A dump that leaves a function template's pattern out (the corpus's filtered dumps
/// drop external headers' declarations) starts the template with an instantiation: a
/// declaration with a mangled name is never taken for the pattern, so nothing is
/// compared against an instance standing in for it. `packs_nopattern.json.gz` is
/// `packs.json.gz` without the pattern of `first` (see the fixtures' README).
#[test]
fn an_instantiation_is_never_the_pattern() {
    let r = check("packs_nopattern.json.gz");
    // `first<float>` and `first<float, int, char>` have no pattern to be checked against.
    assert_eq!((r.routines, r.classes), (7, 0), "{r:?}");
    assert!(r.decl_types.differences.is_empty(), "{r:?}");
    assert!(r.bodies.differences.is_empty(), "{r:?}");
}

/// `spell.cu`: spellings substitution must resolve as clang does. `Box<T>` in `unbox`
/// names `Box<T, false>` (its defaulted argument left out); `constant<bool, true>` is the
/// specialization clang lists with the argument -1 (a 1-bit `true`); `Box<struct item>`
/// inside a pattern depends on no parameter and names the one specialization, in the
/// pattern as in the instance; `c.value && x` converts `x` to `bool`; `b.v.k + n` is an
/// `int`, not the `const int` of its operand. `str<char>::find`'s `size_type` is
/// `typename traits_t::size_type` with `traits_t` a member typedef naming
/// `alloc_traits<my_alloc<T>>`: a dependent member, found in `alloc_traits<my_alloc<char>>`
/// (not the pattern's own `typename A::size_type`, whose `A` nothing here binds).
#[test]
fn library_spellings_resolve() {
    let r = check("spell.json.gz");
    assert_eq!((r.routines, r.classes), (5, 7), "{r:?}");
    assert_eq!(counts(&r.decl_types), (20, 20, vec![], vec![]));
    assert_eq!(counts(&r.bodies), (4, 4, vec![], vec![(LOOKUP, 1)]));
}

/// `spell_nopattern.json.gz` is `spell.json.gz` without `Box`'s pattern (as a filtered
/// dump leaves out a library's templates, keeping the specializations the TU uses):
/// `Box<T>` in `unbox`'s pattern is still a dependent template-id, resolved among the
/// specializations of that name; no specialization of `Box` stands in for its pattern.
#[test]
fn template_ids_resolve_without_the_class_pattern() {
    let r = check("spell_nopattern.json.gz");
    assert_eq!((r.routines, r.classes), (5, 4), "{r:?}");
    assert_eq!(counts(&r.decl_types), (17, 17, vec![], vec![]));
    assert_eq!(counts(&r.bodies), (4, 4, vec![], vec![(LOOKUP, 1)]));
}

/// `consteval.cu`: `float t[r][N]` with `constexpr int r = rows(N, false)`, `rows` a
/// constexpr function with an `if`, a `switch` whose labels fall through and whose
/// `default` leaves with `break`, and a local: the bound is evaluated for each of
/// `fill<1>`, `fill<2>`, `fill<5>`, `fill<200>` (1, 2, 1, 7). Before the body was
/// evaluated only a `return expr;` body folded, and the four arrays differed.
/// `deep<25>`'s bound calls a doubly recursive `fib` (some 250,000 calls): the
/// evaluation stops at its statement budget and leaves that one bound unfolded.
#[test]
fn constexpr_functions_evaluate_in_array_bounds() {
    let r = check("consteval.json.gz");
    assert_eq!((r.routines, r.classes), (5, 0), "{r:?}");
    assert_eq!(counts(&r.nttp), (5, 5, vec![], vec![]));
    assert_eq!(
        counts(&r.decl_types),
        (20, 19, vec![("array bound", 1)], vec![])
    );
}

fn ilkit(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ilkit"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_prints_agreement_per_part() {
    let k = fixture("kernels.json.gz");
    let (code, out, err) = ilkit(&["il", "check-instantiations", &k.to_string_lossy()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("4 routine and 1 class instantiations checked"),
        "{out}"
    );
    assert!(
        out.contains("(a) substituted non-type parameters: 0 of 0 agree"),
        "{out}"
    );
    assert!(
        out.contains("(b) declaration types: 16 of 16 agree (100.00%)"),
        "{out}"
    );
    assert!(out.contains("(c) bodies: 2 of 2 agree (100.00%)"), "{out}");
    assert!(out.contains(&format!("out of scope: 1 {LOOKUP}")), "{out}");
    let n = fixture("nttp.json.gz");
    let (code, out, err) = ilkit(&[
        "il",
        "check-instantiations",
        &n.to_string_lossy(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["nttp"]["checked"], 20);
    assert_eq!(v["nttp"]["agree"], 20);
    assert_eq!(v["routines"], 5);
}

#[test]
fn cli_bad_input_is_an_error_not_a_panic() {
    let dir = std::env::temp_dir().join(format!("ilkit-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, b"{\"kind\": \"TranslationUnitDecl\", \"inner\": [").unwrap();
    let (code, _, err) = ilkit(&["il", "check-instantiations", &bad.to_string_lossy()]);
    assert_ne!(code, 0);
    assert!(err.contains("bad.json"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
