//! `ilkit il gen|dump|stats|keep|verify|check-instantiations`: generated translation units,
//! binary IL files, display, statistics, device IL, invariants and substitution against
//! recorded template instantiations.

use crate::{emit, Failure};
use clap::{Args, Subcommand};
use ilkit::il::stats::{dump_il_table_stats, dump_sharing_stats};
use ilkit::il::Il;
use ilkit::import::binary_il::{read_il, write_il};
use ilkit::import::clang_json::{self, Import};
use ilkit::import::{Detected, Format};
use ilkit::walk::device::{
    kept_routine_names, kept_routine_table, mark_device, routine_flag_words, write_keep_report,
    DeviceOptions,
};
use std::path::{Path, PathBuf};

/// `ilkit il ...`.
#[derive(Subcommand, Debug)]
pub enum IlCommand {
    /// Write a generated translation unit as a binary IL file.
    Gen(GenArgs),
    /// Display the IL in walk order.
    Dump(DumpArgs),
    /// The "IL table use:" table, constant sharing counters and the keep-in-IL report.
    Stats(StatsArgs),
    /// Mark device code and write the device IL (and the kept routines' mangled names).
    Keep(KeepArgs),
    /// Check the world's invariants (`Il::verify`); exit 1 listing the problems if any.
    Verify(StatsArgs),
    /// Substitute each recorded template instantiation's arguments into its pattern and
    /// compare with the instantiation: (a) substituted non-type parameters, (b)
    /// declaration types, (c) bodies.
    CheckInstantiations(CheckArgs),
    /// Share every constant and measure the literals' groups against clang's canonical
    /// types and values (precision: shared literals clang agrees are equal; recall:
    /// literals clang calls equal that ilkit shares).
    CheckSharing(CheckArgs),
}

/// Arguments of `ilkit il check-instantiations`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A clang JSON AST (`.json`, `.json.gz`) or a binary IL file; `-` reads stdin.
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    format: CheckFormat,
}

/// Output formats of `ilkit il check-instantiations`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum CheckFormat {
    /// One line per part, then its classes of difference and out-of-scope cases.
    Text,
    /// One JSON object.
    Json,
}

/// Arguments of `ilkit il gen`.
#[derive(Args, Debug)]
pub struct GenArgs {
    /// Size: 1.0 is about 10^5 entries (at most 1000).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Generator seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The binary IL file to write.
    #[arg(long, short = 'o', value_name = "FILE")]
    out: PathBuf,
}

/// Arguments of `ilkit il dump`.
#[derive(Args, Debug)]
pub struct DumpArgs {
    /// A binary IL file or a clang JSON AST (`.json`, `.json.gz`); `-` reads stdin.
    file: PathBuf,
    /// Only what keep-in-IL keeps (device code).
    #[arg(long)]
    device: bool,
    /// First instantiate the generator's templates (substitute, fold, convert uses of T).
    #[arg(long)]
    instantiate: bool,
    /// Only the body of the routine with this name (or mangled name), as
    /// `walk_routine_scope_il` walks it (file-scope entries left out); every routine of
    /// that name with a body, in walk order.
    #[arg(long, value_name = "NAME")]
    routine: Option<String>,
}

/// Arguments of `ilkit il stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// A binary IL file or a clang JSON AST (`.json`, `.json.gz`); `-` reads stdin.
    file: PathBuf,
    /// Which function bodies a clang JSON import keeps.
    #[arg(long, value_enum, default_value_t = BodiesArg::Device)]
    bodies: BodiesArg,
}

/// `--bodies`: which function bodies a clang JSON import keeps.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum BodiesArg {
    /// Every body.
    All,
    /// Bodies device compilation may need; a host-only body's function region is closed
    /// when it ends, as the front end's allocator does.
    Device,
}

impl BodiesArg {
    fn options(self) -> clang_json::ImportOptions {
        clang_json::ImportOptions {
            bodies: match self {
                BodiesArg::All => clang_json::Bodies::All,
                BodiesArg::Device => clang_json::Bodies::Device,
            },
            ..Default::default()
        }
    }
}

/// Arguments of `ilkit il keep`.
#[derive(Args, Debug)]
pub struct KeepArgs {
    /// A binary IL file or a clang JSON AST (`.json`, `.json.gz`); `-` reads stdin.
    file: PathBuf,
    /// The device IL file to write.
    #[arg(long, short = 'o', value_name = "OUT")]
    out: PathBuf,
    /// Also write the kept routines' mangled names, one per line, sorted.
    #[arg(long, value_name = "LIST.txt")]
    kept_routines: Option<PathBuf>,
    /// Also write the kept routines with their declaration flags (clang JSON input).
    #[arg(long, value_name = "LIST.tsv")]
    kept_routines_detail: Option<PathBuf>,
    /// Root only kernels and device variables, not every externally visible non-inline
    /// `__device__` definition (clang JSON input).
    #[arg(long)]
    no_strong_device_roots: bool,
    /// Eliminate what is not kept from the world itself before writing
    /// (`eliminate_unneeded_il_entries`: unkept entries freed, bodies of routines kept as
    /// declarations dropped, edges to unkept entries cleared) and say what went; the file
    /// written is the same.
    #[arg(long)]
    eliminate: bool,
    /// Which function bodies a clang JSON import keeps (the device IL is the same either
    /// way).
    #[arg(long, value_enum, default_value_t = BodiesArg::Device)]
    bodies: BodiesArg,
}

/// Runs `ilkit il ...`.
pub fn run(c: IlCommand) -> Result<(), Failure> {
    match c {
        IlCommand::Gen(a) => gen(a),
        IlCommand::Dump(a) => dump(a),
        IlCommand::Stats(a) => stats(a),
        IlCommand::Keep(a) => keep(a),
        IlCommand::Verify(a) => verify(a),
        IlCommand::CheckInstantiations(a) => check_instantiations(a),
        IlCommand::CheckSharing(a) => check_sharing(a),
    }
}

/// A loaded world, and the clang import's side tables when it came from a JSON AST.
struct Loaded {
    il: Il,
    import: Option<Import>,
}

/// Loads a binary IL file, or imports a clang JSON AST (by the first bytes,
/// [`Detected::of_bytes`]: a binary IL file starts `ILKIT-IL`; LLVM IR or PTX text is
/// refused; anything else is read as JSON, gzipped or not, and the importer says where it
/// is not a clang AST). JSON is imported as a
/// stream: a 1.4 GB dump never sits in memory whole.
fn load(path: &Path) -> Result<Loaded, Failure> {
    load_with(path, clang_json::ImportOptions::default())
}

/// [`load`], the JSON import keeping what `opts` asks for.
fn load_with(path: &Path, opts: clang_json::ImportOptions) -> Result<Loaded, Failure> {
    use std::io::{BufRead, Read};
    let name = path.display().to_string();
    let fail = |e: std::io::Error| Failure::input(format!("{name}: cannot read: {e}"));
    let reader: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(fail)?)
    };
    let mut r = std::io::BufReader::with_capacity(1 << 20, reader);
    let head = r.fill_buf().map_err(fail)?;
    let detected = Detected::of_bytes(&name, head);
    if detected.format == Some(Format::BinaryIl) {
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes).map_err(fail)?;
        let bytes = ilkit::import::format::gunzip_if_gzip(bytes)
            .map_err(|e| Failure::input(format!("{name}: {e}")))?;
        let il = read_il(&bytes).map_err(|e| Failure::input(format!("{name}: {e}")))?;
        return Ok(Loaded { il, import: None });
    }
    if let Some(other @ (Format::LlvmIr | Format::Ptx)) = detected.format {
        return Err(Failure::input(format!(
            "{name}: this is {} text; `ilkit il` reads ilkit binary IL or a clang JSON AST",
            if other == Format::Ptx {
                "PTX"
            } else {
                "LLVM IR"
            }
        )));
    }
    let gz = detected.gzip;
    let mut il = Il::new();
    let imp = if gz {
        clang_json::import_reader_with(&mut il, flate2::read::MultiGzDecoder::new(r), opts)
    } else {
        clang_json::import_reader_with(&mut il, r, opts)
    }
    .map_err(|mut e| {
        e.file = Some(name.clone());
        Failure::input(e)
    })?;
    Ok(Loaded {
        il,
        import: Some(imp),
    })
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Failure + '_ {
    move |e| Failure::input(format!("{}: {e}", path.display()))
}

fn gen(a: GenArgs) -> Result<(), Failure> {
    if !(a.scale > 0.0 && a.scale <= 1000.0) {
        return Err(Failure::usage(format!(
            "--scale: must be in (0, 1000], found {}",
            a.scale
        )));
    }
    let mut il = ilkit::il::synth::generate(a.seed, a.scale);
    let bytes = write_il(&mut il, false).map_err(Failure::input)?;
    std::fs::write(&a.out, &bytes).map_err(io(&a.out))?;
    emit(&format!(
        "{}: {} entries, {} bytes\n",
        a.out.display(),
        il.len(),
        bytes.len()
    ))
}

fn dump(a: DumpArgs) -> Result<(), Failure> {
    let mut l = load(&a.file)?;
    if a.instantiate {
        ilkit::instantiate::instantiate_synth_templates(&mut l.il).map_err(Failure::input)?;
    }
    if a.device {
        mark_device(&mut l.il, DeviceOptions::default());
    }
    if let Some(name) = &a.routine {
        let il = &l.il;
        let targets: Vec<_> = il
            .kind_list(ilkit::il::EntryKind::Routine)
            .filter(|&r| {
                (il.name(r) == name.as_bytes() || il.routine(r).mangled_name() == name.as_bytes())
                    && il
                        .child_eix(r, ilkit::il::fields::ROUTINE_BODY_SCOPE)
                        .is_some()
            })
            .map(|r| il.id_of(r))
            .collect();
        if targets.is_empty() {
            return Err(Failure::input(format!(
                "{}: no routine named '{name}' with a body",
                a.file.display()
            )));
        }
        let mut text = String::new();
        for r in targets {
            text.push_str(
                &ilkit::walk::display::dump_routine(&mut l.il, r).map_err(Failure::input)?,
            );
        }
        return emit(&text);
    }
    let text = ilkit::walk::display::dump_il(&mut l.il, a.device).map_err(Failure::input)?;
    emit(&text)
}

fn stats(a: StatsArgs) -> Result<(), Failure> {
    let mut l = load_with(&a.file, a.bodies.options())?;
    let mut out: Vec<u8> = Vec::new();
    let w = |r: std::io::Result<()>| r.map_err(|e| Failure::input(e.to_string()));
    if let Some(imp) = &l.import {
        // The importer's report (nodes, opaque kinds, unresolved types), the table, the
        // keep report per kind and per file.
        w(clang_json::write_import_report(&imp.report, &mut out))?;
        w(dump_il_table_stats(&l.il, 0, &mut out))?;
        let dk = mark_device(&mut l.il, DeviceOptions::default());
        w(write_keep_report(&l.il, &imp.files, &dk, &mut out))?;
    } else {
        w(dump_il_table_stats(&l.il, 0, &mut out))?;
        let counters = ilkit::share::share_all_constants(&mut l.il);
        w(dump_sharing_stats(&counters, &mut out))?;
        let r = ilkit::walk::keep::mark_to_keep_in_il(&mut l.il, &[]);
        out.extend_from_slice(
            format!(
                "keep_in_il: {} roots, {} of {} entries kept\n",
                r.roots, r.kept, r.live
            )
            .as_bytes(),
        );
        for (k, n) in r.kept_per_kind {
            out.extend_from_slice(format!("  {:<32}{n:>10}\n", k.name()).as_bytes());
        }
    }
    emit(&String::from_utf8_lossy(&out))
}

fn verify(a: StatsArgs) -> Result<(), Failure> {
    let l = load_with(&a.file, a.bodies.options())?;
    let errs = l.il.verify();
    if errs.is_empty() {
        return emit(&format!(
            "{}: {} entries, verified\n",
            a.file.display(),
            l.il.len()
        ));
    }
    let mut msg = format!("{}: {} problems\n", a.file.display(), errs.len());
    for e in errs.iter().take(50) {
        msg.push_str(&format!("  {e}\n"));
    }
    Err(Failure::input(msg))
}

fn keep(a: KeepArgs) -> Result<(), Failure> {
    let mut l = load_with(&a.file, a.bodies.options())?;
    let opts = DeviceOptions {
        strong_device_roots: !a.no_strong_device_roots,
    };
    let dk = mark_device(&mut l.il, opts);
    let names = kept_routine_names(&l.il, &dk);
    let mut eliminated = String::new();
    if a.eliminate {
        let r = ilkit::walk::keep::eliminate_unneeded_il_entries(&mut l.il);
        let errs = l.il.verify();
        if !errs.is_empty() {
            return Err(Failure::input(format!(
                "{}: the world after elimination does not verify: {}",
                a.file.display(),
                errs[0]
            )));
        }
        eliminated = format!(
            "eliminated: {} entries freed, {} bodies dropped, {} edges cleared; {} entries left\n",
            r.freed,
            r.bodies_dropped,
            r.edges_cleared,
            l.il.len()
        );
    }
    let bytes = write_il(&mut l.il, true).map_err(Failure::input)?;
    std::fs::write(&a.out, &bytes).map_err(io(&a.out))?;
    if let Some(list) = &a.kept_routines {
        let text: String = names.iter().map(|n| format!("{n}\n")).collect();
        std::fs::write(list, text).map_err(io(list))?;
    }
    if let Some(detail) = &a.kept_routines_detail {
        let mut s = String::new();
        for (n, b) in kept_routine_table(&l.il, &dk) {
            s.push_str(&format!("{n}\t{}\n", routine_flag_words(b)));
        }
        std::fs::write(detail, s).map_err(io(detail))?;
    }
    emit(&format!(
        "{}: {} of {} entries kept, {} bytes\n{eliminated}",
        a.out.display(),
        dk.kept,
        dk.live,
        bytes.len()
    ))
}

fn check_sharing(a: CheckArgs) -> Result<(), Failure> {
    let opts = clang_json::ImportOptions {
        record_literals: true,
        ..Default::default()
    };
    let mut l = load_with(&a.file, opts)?;
    let name = a.file.display().to_string();
    let Some(imp) = l.import.take() else {
        return Err(Failure::input(format!(
            "{name}: binary IL keeps no clang literals; give the clang JSON AST"
        )));
    };
    let r = ilkit::share::check::check_sharing(&mut l.il, &imp.literals);
    match a.format {
        CheckFormat::Text => {
            let mut s = format!(
                "{name}: {} literals, {} not shareable by configuration\n",
                r.literals, r.not_shareable
            );
            s.push_str(&format!(
                "precision: {} of {} shared literals equal to clang's ({:.3}%); {} groups mix clang types\n",
                r.shared - r.wrongly_shared,
                r.shared,
                r.precision(),
                r.groups_mixing_types
            ));
            s.push_str(&format!(
                "recall: {} of {} literals clang calls equal are shared ({:.3}%)\n",
                r.clang_shared - r.missed,
                r.clang_shared,
                r.recall()
            ));
            for e in &r.examples {
                s.push_str(&format!("  {e}\n"));
            }
            emit(&s)
        }
        CheckFormat::Json => {
            let v = serde_json::json!({
                "file": name,
                "literals": r.literals,
                "not_shareable": r.not_shareable,
                "shared": r.shared,
                "wrongly_shared": r.wrongly_shared,
                "groups_mixing_types": r.groups_mixing_types,
                "clang_shared": r.clang_shared,
                "missed": r.missed,
                "precision": r.precision(),
                "recall": r.recall(),
                "examples": r.examples,
            });
            emit(&format!("{v}\n"))
        }
    }
}

fn check_instantiations(a: CheckArgs) -> Result<(), Failure> {
    use ilkit::instantiate::{check_instantiations, Tally};
    let mut l = load(&a.file)?;
    let name = a.file.display().to_string();
    let r = check_instantiations(&mut l.il).map_err(|e| Failure::input(format!("{name}: {e}")))?;
    let parts: [(&str, &str, &Tally); 3] = [
        ("a", "substituted non-type parameters", &r.nttp),
        ("b", "declaration types", &r.decl_types),
        ("c", "bodies", &r.bodies),
    ];
    match a.format {
        CheckFormat::Text => {
            let mut s = format!(
                "{name}: {} routine and {} class instantiations checked\n",
                r.routines, r.classes
            );
            for (k, v) in &r.instantiations_out_of_scope {
                s.push_str(&format!("  instantiations out of scope: {v} {k}\n"));
            }
            for (key, what, t) in parts {
                s.push_str(&format!(
                    "({key}) {what}: {} of {} agree ({:.2}%)\n",
                    t.agree,
                    t.checked,
                    t.percent()
                ));
                for (k, v) in &t.differences {
                    s.push_str(&format!("    differ: {v} {k}\n"));
                }
                for (k, v) in &t.out_of_scope {
                    s.push_str(&format!("    out of scope: {v} {k}\n"));
                }
            }
            emit(&s)
        }
        CheckFormat::Json => {
            let tally = |t: &Tally| {
                serde_json::json!({
                    "checked": t.checked,
                    "agree": t.agree,
                    "differences": t.differences,
                    "out_of_scope": t.out_of_scope,
                })
            };
            let v = serde_json::json!({
                "file": name,
                "routines": r.routines,
                "classes": r.classes,
                "instantiations_out_of_scope": r.instantiations_out_of_scope,
                "nttp": tally(&r.nttp),
                "decl_types": tally(&r.decl_types),
                "bodies": tally(&r.bodies),
            });
            emit(&format!("{v}\n"))
        }
    }
}
