//! What every game's `[scenario]` expansion shares: typed parsing with precise errors, and unit cases
//! (driver commands answered by the game's Rust driver).

use serde::Deserialize;

use crate::driver::LineDriver;
use crate::{Expansion, ScenarioError};

/// Deserialises a `[scenario]` table; an unknown or mistyped key is an error saying which.
pub fn parse<T: serde::de::DeserializeOwned>(table: &toml::Table) -> Result<T, ScenarioError> {
    toml::Value::Table(table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| ScenarioError::new(format!("scenario: {}", e.message())))
}

/// An expansion error, as a `Result` to return.
pub fn error<T>(message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(message))
}

/// `[scenario]` of a unit case.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct UnitScenario {
    /// The driver commands, one line each.
    commands: Vec<String>,
}

/// Expands a unit case with the game's driver `D`: the commands (as the driver completes them) typed
/// and the driver's answers.
pub fn expand_unit<D: LineDriver>(scenario: &toml::Table) -> Result<Expansion, ScenarioError> {
    let s: UnitScenario = parse(scenario)?;
    if s.commands.is_empty() {
        return error("scenario: `commands` is empty");
    }
    if let Some((i, c)) = s.commands.iter().enumerate().find(|(_, c)| c.contains(['\n', '\r'])) {
        return error(format!("command {} ({c:?}) holds a line break", i + 1));
    }
    let (typed, stdout) = crate::driver::run_completed_script::<D, _>(&s.commands)?;
    Ok(Expansion::typed(&typed, stdout.into_bytes()))
}
