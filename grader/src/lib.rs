//! The grader: builds a student's submission, runs it on an assignment's cases inside limits, compares
//! its output with the reference transcripts, and scores it against the rubric.
//!
//! One module per pipeline stage, data flowing one way:
//! [`load`] → [`build`] → [`run`] → [`compare`] → [`score`] → [`report`]; [`grade`] strings them
//! together, [`bless`] regenerates expected transcripts, [`cli`] is the command line.
//!
//! A class: [`roster`] (who handed in what) → [`batch`] (each student through [`grade`], outputs on
//! disk) → [`gradebook`] (the class's grades, from the records on disk) → [`export`] (grades and
//! feedback in the layouts Canvas and Moodle import).
//!
//! Publishing: [`pack`] (a student pack for `grader check`, a Gradescope autograder zip).
//!
//! For the instructor: [`audit`] (mutation analysis of the cases: which defects they miss, what one
//! defect costs), [`similarity`] (which submissions of a class share code beyond the base code).

pub mod atomic;
pub mod audit;
pub mod batch;
pub mod bless;
pub mod build;
pub mod cli;
pub mod compare;
pub mod context;
pub mod export;
pub mod grade;
pub mod gradebook;
pub mod interactive;
pub mod languages;
pub mod load;
pub mod pack;
pub mod points;
pub mod report;
pub mod review;
pub mod roster;
pub mod run;
pub mod score;
pub mod similarity;
pub mod timelimit;
pub mod verify;
