//! The Gradescope autograder zip: every case, this grader, `setup.sh` (the Debian packages the
//! recipes need, the files they read made readable) and `run_autograder`.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::*;
use crate::report::HiddenVisibility;
use crate::run::Containment;

/// A Gradescope bundle that was written.
#[derive(Debug, Clone)]
pub struct GradescopeBundle {
    /// The zip.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Its entries.
    pub entries: usize,
    /// Cases in it, hidden ones included.
    pub cases: usize,
    /// Hidden cases among them.
    pub hidden_cases: usize,
    /// Debian packages `setup.sh` installs.
    pub packages: Vec<&'static str>,
}

/// How to write a Gradescope bundle.
#[derive(Debug, Clone)]
pub struct BundleOptions {
    /// The grader executable to ship (Gradescope runs it on its own Linux image).
    pub grader_binary: PathBuf,
    /// Written into `run_autograder`: refuse to grade unless programs are contained this well.
    pub require_containment: Option<Containment>,
    /// Written into `run_autograder`: when students see the tests of hidden cases.
    pub hidden_visibility: HiddenVisibility,
}

/// Quotes a string for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Debian packages the recipes need at grading time.
fn packages(assignment: &Assignment) -> Vec<&'static str> {
    let mut packages = vec!["gcc", "libc6-dev"];
    let programs = assignment
        .builds
        .values()
        .flat_map(|recipe| recipe.commands.iter().map(|c| &c[0]).chain(recipe.run.first()));
    // What the commands run, and what their scripts need (a recipe's `requires`).
    let required = assignment.builds.values().flat_map(|recipe| recipe.requires.iter());
    let names: Vec<&str> =
        programs.chain(required).map(|program| program.rsplit('/').next().unwrap_or(program)).collect();
    if names.iter().any(|name| matches!(*name, "java" | "javac" | "jar")) {
        packages.push("default-jdk-headless");
    }
    if names.contains(&"checkstyle") {
        packages.push("checkstyle");
    }
    // A recipe by language: that language's tools; by the submission's endings, every language's
    // (and the validator's, the reference's: any language too).
    use crate::languages::{Choice, Language};
    for recipe in assignment.builds.values() {
        let languages: Vec<Language> = match recipe.language.map(|l| l.choice) {
            None => Vec::new(),
            Some(Choice::Only(language)) => vec![language],
            Some(Choice::ByExtension) => Language::ALL.to_vec(),
        };
        for language in languages {
            packages.extend(
                language.debian_packages().iter().filter(|p| !packages.contains(p)).collect::<Vec<_>>(),
            );
        }
    }
    if assignment.package.is_some() && !packages.contains(&"python3") {
        packages.push("python3");
    }
    packages.dedup();
    packages
}

/// `setup.sh` for an assignment.
fn setup_script(assignment: &Assignment, packages: &[&str]) -> String {
    let mut readable: Vec<String> =
        recipe_files(assignment).iter().map(|f| format!("cases/{}/{f}", assignment.id)).collect();
    if uses_common(assignment) && common_dir(assignment).is_dir() {
        readable.push("cases/common".to_owned());
    }
    let readable: Vec<String> = readable.iter().map(|f| shell_quote(f)).collect();
    include_str!("setup.sh")
        .replace("@ASSIGNMENT@", &assignment.id)
        .replace("@PACKAGES@", &packages.join(" "))
        .replace("@READABLE@", &readable.join(" "))
}

/// `run_autograder` for an assignment.
fn run_script(assignment: &Assignment, options: &BundleOptions) -> String {
    // Only globs that need no quoting go into the bash array that is expanded unquoted.
    let safe = |p: &&str| p.chars().all(|c| c.is_ascii_alphanumeric() || "*?._-[]".contains(c));
    let patterns: Vec<String> =
        assignment.submission_files.iter().map(glob::Pattern::as_str).filter(safe).map(shell_quote).collect();
    // Patterns with folders (`**/*.java`) find the files anywhere in the upload: nothing to go down to.
    let whole_tree = assignment.submission_files.iter().any(|p| p.as_str().contains('/'));
    include_str!("run_autograder.sh")
        .replace("@ASSIGNMENT@", &shell_quote(&assignment.id))
        .replace("@PATTERNS@", &patterns.join(" "))
        .replace("@WHOLE_TREE@", if whole_tree { "1" } else { "" })
        .replace(
            "@REQUIRE_CONTAINMENT@",
            &shell_quote(options.require_containment.map_or("", Containment::name)),
        )
        .replace("@HIDDEN_VISIBILITY@", &shell_quote(options.hidden_visibility.name()))
}

/// The README at the root of a bundle: what is in it and what it protects.
fn bundle_readme(
    assignment: &Assignment,
    hidden: usize,
    packages: &[&str],
    hidden_visibility: HiddenVisibility,
) -> String {
    format!(
        "# Gradescope autograder for `{id}` ({title})\n\n\
         Written by `grader gradescope-bundle`. It holds every case of the assignment, the {hidden} hidden\n\
         ones included: keep it private, upload it only as the autograder of a Gradescope assignment.\n\n\
         - `setup.sh`: run once when Gradescope builds the image: installs {packages} with apt, copies\n\
           `grader` to /usr/local/bin, makes `cases/` readable by root only (but for the files the\n\
           build recipes name), and prints `grader doctor` into the build log.\n\
         - `run_autograder`: run for each submission: `grader grade /autograder/submission -a {id}\n\
           --format gradescope -o /autograder/results/results.json --cases /autograder/source/cases`.\n\
           The tests of hidden cases show their verdict and points only, with Gradescope's visibility\n\
           `{hidden_visibility}` (`grader gradescope-bundle --hidden-visibility` chooses it).\n\
           If the grader cannot grade (no source file in the submission, a build it cannot start), its\n\
           results.json gives the reason and no points; if it is missing or dies, the script writes\n\
           such a file itself. A submission uploaded as a folder (or folders in folders, as a zip of a\n\
           folder unpacks) is graded from the innermost one that holds its files. Builds go\n\
           to a fresh folder in /autograder/cache (root's, mode 0711: programs without namespaces reach\n\
           their own executable there, and cannot list the folder), removed at the end.\n\
         - `grader`: the grader that wrote this bundle. It must run on Gradescope's image: build it on a\n\
           system whose glibc is no newer than the image's (Ubuntu 22.04: 2.35), or pass\n\
           `--grader-binary` a build that does.\n\
         - `cases/{id}/` (and `cases/common/` where the recipes use it).\n\n\
         Nothing is downloaded at grading time. The paths are Gradescope's by default and can be moved\n\
         for a trial run: `AUTOGRADER_ROOT` (default /autograder), `AUTOGRADER_SOURCE`,\n\
         `AUTOGRADER_SUBMISSION`, `AUTOGRADER_RESULTS`, `GRADER_BIN` (default /usr/local/bin/grader),\n\
         `GRADER_CACHE_DIR` (a build cache kept between runs); for setup.sh `GRADER_BIN_DIR` and\n\
         `GRADER_SKIP_APT=1`.\n\n\
         ## What keeps a submission from reading the hidden cases\n\n\
         Gradescope runs the autograder as root. The grader contains each program at the strongest level\n\
         the machine allows (`grader doctor` in the build log says which):\n\n\
         - `full` or `namespaces-without-cgroups`: the program runs as `nobody` in a private root that\n\
           holds no case at all; `cases/` being readable by root only is a second wall.\n\
         - `rlimits-only` (a Docker container that forbids namespaces, which may be Gradescope's): the\n\
           program runs as a user of its own (uids 61000-61999) in a temporary folder of its own, with rlimits.\n\
           setup.sh made every case readable by root only (folders can be entered, not listed), so the\n\
           program cannot read them.\n\
           This is weaker than a sandbox (the program sees the machine's files that everyone may read,\n\
           and the network); `grader --require-containment namespaces-without-cgroups\n\
           gradescope-bundle ...` refuses to grade there instead, with a results.json saying why.\n",
        id = assignment.id,
        title = assignment.title,
        packages = packages.join(", "),
        hidden_visibility = hidden_visibility.name(),
    )
}

/// Writes a Gradescope autograder zip of assignment `id` at `out`, atomically (a temporary file in
/// the same folder, renamed): `setup.sh`, `run_autograder` and the grader binary (mode 755),
/// `README.md`, and `cases/<id>/` whole (hidden cases included) with `cases/common/` where the
/// recipes use it. Entry names are relative and never climb (`..`).
///
/// # Errors
///
/// A malformed assignment, an unreadable grader binary, an output inside the cases, a disk error.
pub fn write_gradescope_bundle(
    cases_root: &Path,
    id: &str,
    out: &Path,
    options: &BundleOptions,
) -> Result<GradescopeBundle, PackError> {
    let assignment = load::load(cases_root, id)?;
    // An assignment named by its folder's path is packed under its id, as `run_autograder` names it.
    let id = assignment.id.as_str();
    refuse_inside(out, &[assignment.dir.clone(), common_dir(&assignment)])?;
    let binary_error = |source| PackError::GraderBinary { path: options.grader_binary.clone(), source };
    let mut binary = fs::File::open(&options.grader_binary).map_err(binary_error)?;
    if !binary.metadata().map_err(binary_error)?.is_file() {
        return Err(binary_error(io::Error::other("not a file")));
    }
    let hidden = assignment.cases.iter().filter(|c| c.visibility == Visibility::Hidden).count();
    let packages = packages(&assignment);

    let folder = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    // `-o gs/autograder.zip` makes `gs/`, as `grader pack` makes its folder.
    fs::create_dir_all(folder).map_err(io_error(folder))?;
    let temp = tempfile::Builder::new().prefix(".bundle-").tempfile_in(folder).map_err(io_error(folder))?;
    let zip_error = |source| PackError::Zip { path: out.to_owned(), source };
    let mut zip = zip::ZipWriter::new(BufWriter::new(temp.as_file()));
    let options_for = |mode: u32| {
        zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode)
    };
    let mut entries = 0;
    let mut add = |zip: &mut zip::ZipWriter<BufWriter<&fs::File>>,
                   name: &str,
                   mode: u32,
                   content: &mut dyn io::Read| {
        zip.start_file(name, options_for(mode)).map_err(zip_error)?;
        io::copy(content, zip).map_err(io_error(out))?;
        entries += 1;
        Ok::<(), PackError>(())
    };
    add(&mut zip, "setup.sh", 0o755, &mut setup_script(&assignment, &packages).as_bytes())?;
    add(&mut zip, "run_autograder", 0o755, &mut run_script(&assignment, options).as_bytes())?;
    let readme = bundle_readme(&assignment, hidden, &packages, options.hidden_visibility);
    add(&mut zip, "README.md", 0o644, &mut readme.as_bytes())?;
    add(&mut zip, "grader", 0o755, &mut binary)?;
    let mut trees = vec![(assignment.dir.clone(), format!("cases/{id}"))];
    if uses_common(&assignment) && common_dir(&assignment).is_dir() {
        trees.push((common_dir(&assignment), "cases/common".to_owned()));
    }
    for (dir, prefix) in trees {
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry.map_err(|e| PackError::Io {
                path: dir.clone(),
                source: e.into_io_error().unwrap_or_else(|| io::Error::other("a loop of symbolic links")),
            })?;
            if !entry.path().is_file() {
                continue;
            }
            let name = format!("{prefix}/{}", relative(&dir, entry.path())?);
            let meta = fs::metadata(entry.path()).map_err(io_error(entry.path()))?;
            let mode = if meta.permissions().mode() & 0o111 != 0 { 0o755 } else { 0o644 };
            let mut file = fs::File::open(entry.path()).map_err(io_error(entry.path()))?;
            add(&mut zip, &name, mode, &mut file)?;
        }
    }
    let mut writer = zip.finish().map_err(zip_error)?;
    writer.flush().map_err(io_error(out))?;
    drop(writer);
    temp.as_file().sync_all().map_err(io_error(out))?;
    temp.persist(out).map_err(|e| PackError::Io { path: out.to_owned(), source: e.error })?;
    let bytes = fs::metadata(out).map_err(io_error(out))?.len();
    Ok(GradescopeBundle {
        path: out.to_owned(),
        bytes,
        entries,
        cases: assignment.cases.len(),
        hidden_cases: hidden,
        packages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packages_are_what_the_recipes_run_and_require() {
        let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let java = load::load_assignment(&cases, "backgammon-ai").expect("backgammon-ai loads");
        assert_eq!(packages(&java), ["gcc", "libc6-dev", "default-jdk-headless", "checkstyle"]);
        let c = load::load_assignment(&cases, "trouble").expect("trouble loads");
        assert_eq!(packages(&c), ["gcc", "libc6-dev"]);
    }

    #[test]
    fn shell_quoting_survives_a_quote() {
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn run_autograder_carries_the_required_containment() {
        let assignment =
            load::load_assignment(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases"), "trouble")
                .expect("trouble loads");
        let options = |require_containment, hidden_visibility| BundleOptions {
            grader_binary: PathBuf::from("grader"),
            require_containment,
            hidden_visibility,
        };
        let script = run_script(
            &assignment,
            &options(Some(Containment::NamespacesWithoutCgroups), HiddenVisibility::AfterDueDate),
        );
        assert!(script.contains("REQUIRE_CONTAINMENT='namespaces-without-cgroups'\n"), "{script}");
        assert!(script.contains("PATTERNS=('*.c' '*.h')\n"), "{script}");
        assert!(script.contains("WHOLE_TREE=\n"), "{script}");
        assert!(script.contains("HIDDEN_VISIBILITY='after_due_date'\n"), "{script}");
        let plain = run_script(&assignment, &options(None, HiddenVisibility::Visible));
        assert!(
            plain.contains("REQUIRE_CONTAINMENT=''\n") && plain.contains("HIDDEN_VISIBILITY='visible'\n")
        );
        let java =
            load::load_assignment(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases"), "backgammon-ai")
                .expect("backgammon-ai loads");
        assert!(run_script(&java, &options(None, HiddenVisibility::Visible)).contains("WHOLE_TREE=1\n"));
    }
}
