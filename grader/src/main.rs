//! The `grader` binary: everything lives in the library; see `grader::cli`.

fn main() -> std::process::ExitCode {
    grader::cli::main_impl()
}
