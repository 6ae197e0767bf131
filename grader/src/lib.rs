//! The grader: builds a student's submission, runs it on an assignment's cases inside limits, compares
//! its output with the reference transcripts, and scores it against the rubric.
//!
//! One module per pipeline stage, data flowing one way:
//! [`load`] → [`build`] → [`run`] → [`compare`] → [`score`] → [`report`]; [`grade`] strings them
//! together, [`bless`] regenerates expected transcripts, [`cli`] is the command line.

pub mod bless;
pub mod build;
pub mod cli;
pub mod compare;
pub mod grade;
pub mod load;
pub mod report;
pub mod run;
pub mod score;
