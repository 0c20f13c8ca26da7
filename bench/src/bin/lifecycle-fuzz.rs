//! `nice cargo run --release -p lifecycle-bench --bin lifecycle-fuzz -- --inputs 10000000`
//!
//! Mutation fuzzing of the dump loader, the watch-page decoder and every
//! message classifier (the targets are in `lifecycle_bench::fuzz`), from the
//! seeds in tests/fuzz-corpus/. Deterministic for a seed; prints cases per
//! second and totals; an input that panics is written to --crashes and the
//! run goes on. Inputs with an outcome not seen before are added to the
//! corpus, up to --keep files. docs/fuzzing.md has the runs.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;
use lifecycle_bench::fuzz::{Rng, Target, mutate, run};

#[derive(Parser)]
#[command(about = "Fuzz the loaders and classifiers from a seed corpus")]
struct Args {
    /// Inputs to run in all.
    #[arg(long, default_value_t = 1_000_000)]
    inputs: u64,
    /// Seed of the mutation choices: the same seed runs the same inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The seed corpus; inputs with a new outcome are saved here too.
    #[arg(long, default_value = "tests/fuzz-corpus")]
    corpus: PathBuf,
    /// At most this many files in the corpus after the run.
    #[arg(long, default_value_t = 350)]
    keep: usize,
    /// Threads, each with its share of the inputs.
    #[arg(long, default_value_t = 1)]
    threads: u64,
    /// Where inputs that panic are written.
    #[arg(long, default_value = "target/fuzz-crashes")]
    crashes: PathBuf,
}

fn fnv(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in data {
        h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn save(dir: &Path, prefix: &str, data: &[u8]) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{prefix}-{:016x}", fnv(data)));
    std::fs::write(&path, data).with_context(|| format!("writing {}", path.display()))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let seeds = read_seeds(&args.corpus)?;
    let files_before = seeds.len();

    // Panics are counted and their inputs kept; the hook stays quiet.
    std::panic::set_hook(Box::new(|_| {}));
    let mut outcomes: HashSet<u64> = HashSet::new();
    for (target, seed) in &seeds {
        if let Ok(outcome) = catch_unwind(AssertUnwindSafe(|| run(*target, seed))) {
            outcomes.insert(outcome);
        }
    }
    let start = Instant::now();
    let threads = args.threads.max(1);
    let room = args.keep.saturating_sub(files_before) / threads as usize;
    // Each thread: its own share of the inputs, its own generator (seed and
    // thread number), its own corpus growth; the same run for the same
    // --seed and --threads.
    let results: Vec<Result<(u64, usize)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let fuzzer = Fuzzer {
                    thread: t,
                    threads,
                    args: &args,
                    seeds: seeds.clone(),
                    outcomes: outcomes.clone(),
                    room,
                    start,
                };
                scope.spawn(move || fuzzer.run())
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a fuzz thread"))
            .collect()
    });
    let (mut panics, mut kept) = (0, 0);
    for result in results {
        let (p, k) = result?;
        panics += p;
        kept += k;
    }
    println!(
        "done: {} inputs from {files_before} seeds (seed {}), {} s, {panics} panics, corpus {} files",
        args.inputs,
        args.seed,
        start.elapsed().as_secs(),
        files_before + kept
    );
    if panics > 0 {
        bail!(
            "{panics} inputs panicked; they are in {}",
            args.crashes.display()
        );
    }
    Ok(())
}

/// The corpus's files in name order, each with the target its name prefix
/// names.
fn read_seeds(corpus: &Path) -> Result<Vec<(Target, Vec<u8>)>> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(corpus)
        .with_context(|| format!("reading {}", corpus.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    names.sort();
    let mut seeds = Vec::new();
    for name in &names {
        let file = name.file_name().unwrap_or_default().to_string_lossy();
        seeds.push((Target::of_file_name(&file), std::fs::read(name)?));
    }
    if seeds.is_empty() {
        bail!("{}: no seeds", corpus.display());
    }
    Ok(seeds)
}

/// One thread's share of the run.
struct Fuzzer<'a> {
    thread: u64,
    threads: u64,
    args: &'a Args,
    /// The corpus, grown by this thread's new outcomes.
    seeds: Vec<(Target, Vec<u8>)>,
    outcomes: HashSet<u64>,
    /// How many inputs this thread may add to the corpus.
    room: usize,
    start: Instant,
}

impl Fuzzer<'_> {
    /// Runs this thread's inputs; returns how many panicked and how many were
    /// kept in the corpus.
    fn run(mut self) -> Result<(u64, usize)> {
        let (t, threads, args) = (self.thread, self.threads, self.args);
        let share = args.inputs / threads + u64::from(t < args.inputs % threads);
        let mut rng = Rng::new(args.seed.wrapping_add(t.wrapping_mul(0x1000_0000)));
        let (mut panics, mut kept, mut bytes) = (0u64, 0usize, 0u64);
        let mut last = Instant::now();
        for n in 1..=share {
            let a = rng.below(self.seeds.len());
            let b = rng.below(self.seeds.len());
            let target = self.seeds[a].0;
            let input = mutate(&mut rng, &self.seeds[a].1, &self.seeds[b].1);
            bytes += input.len() as u64;
            match catch_unwind(AssertUnwindSafe(|| run(target, &input))) {
                Ok(outcome) => {
                    if self.outcomes.insert(outcome) && kept < self.room && input.len() <= 8 * 1024
                    {
                        save(&args.corpus, target.prefix(), &input)?;
                        self.seeds.push((target, input));
                        kept += 1;
                    }
                }
                Err(panic) => {
                    panics += 1;
                    eprintln!(
                        "thread {t}, input {n} ({}): panic: {}",
                        target.prefix(),
                        panic_message(&*panic)
                    );
                    save(&args.crashes, target.prefix(), &input)?;
                }
            }
            if last.elapsed().as_secs() >= 30 || n == share {
                last = Instant::now();
                let secs = self.start.elapsed().as_secs_f64();
                println!(
                    "thread {t}: {n} inputs in {secs:.0} s ({:.0}/s, {:.0} bytes average), {} outcomes, {kept} kept, {panics} panics",
                    n as f64 / secs,
                    bytes as f64 / n as f64,
                    self.outcomes.len(),
                );
            }
        }
        Ok((panics, kept))
    }
}

/// What a panic said, when it said it in text.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("?")
}
