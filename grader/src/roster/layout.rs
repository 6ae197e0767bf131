//! What the names of a course platform's download say: whose submission a folder or a file is, what
//! the file was called when the student handed it in, and whether it was late.
//!
//! - Moodle, "in folders": `Full Name_12345_assignsubmission_file_/` (the files) and
//!   `Full Name_12345_assignsubmission_onlinetext_/` (text typed into Moodle, `onlinetext.html`);
//!   flat: `Full Name_12345_assignsubmission_file_main.c`. Moodle's names carry no late mark.
//! - Canvas: `login_12345_678_main.c`, `login_LATE_12345_678_main.c` for a late submission; a file
//!   handed in again under a name Canvas already had is renamed `main-1.c`, `main-2.c`, ...

use std::sync::LazyLock;

use regex::Regex;

static MOODLE_FOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_?$").expect("valid regex")
});
static MOODLE_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.+)$")
        .expect("valid regex")
});
static CANVAS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<login>[^_]+)(?P<late>_(?i:late))?_(?P<id>\d+)_\d+_(?P<file>.+)$").expect("valid regex")
});
static RESUBMITTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?P<stem>.+)-(?P<n>\d+)(?P<ext>\.[^.]+)?$").expect("valid regex"));

/// Moodle's plugin of text typed into the page rather than files.
const ONLINE_TEXT: &str = "onlinetext";

/// Whose a Moodle folder is, and whether it holds an online text rather than files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct MoodleFolder {
    /// The participant id.
    pub id: String,
    /// The student's full name.
    pub name: String,
    /// Text typed into Moodle (`assignsubmission_onlinetext`), not files.
    pub online_text: bool,
}

/// A Moodle folder's name, read.
pub(super) fn moodle_folder(name: &str) -> Option<MoodleFolder> {
    MOODLE_FOLDER.captures(name).map(|c| MoodleFolder {
        id: c["id"].to_owned(),
        name: c["name"].to_owned(),
        online_text: &c["plugin"] == ONLINE_TEXT,
    })
}

/// A file of a course platform's flat download: whose it is and what it was called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PlatformFile {
    /// Which platform named it.
    pub platform: Platform,
    /// The student's id.
    pub id: String,
    /// The student's name (Moodle) or login (Canvas).
    pub name: String,
    /// The file's own name, as the platform gives it (`main-1.c` for a Canvas resubmission).
    pub file: String,
    /// Marked late (Canvas's `_LATE_`); Moodle marks nothing.
    pub late: Option<bool>,
    /// Text typed into Moodle (`assignsubmission_onlinetext`), not a file handed in.
    pub online_text: bool,
}

/// The course platforms whose names the roster reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Platform {
    /// Moodle's flat download.
    Moodle,
    /// Canvas's download.
    Canvas,
}

/// A loose file's name, read as a Moodle flat download's or a Canvas download's.
pub(super) fn platform_file(name: &str) -> Option<PlatformFile> {
    if let Some(c) = MOODLE_FILE.captures(name) {
        return Some(PlatformFile {
            platform: Platform::Moodle,
            id: c["id"].to_owned(),
            name: c["name"].to_owned(),
            file: c["file"].to_owned(),
            late: None,
            online_text: &c["plugin"] == ONLINE_TEXT,
        });
    }
    CANVAS.captures(name).map(|c| PlatformFile {
        platform: Platform::Canvas,
        id: c["id"].to_owned(),
        name: c["login"].to_owned(),
        file: c["file"].to_owned(),
        late: Some(c.name("late").is_some()),
        online_text: false,
    })
}

/// A loose file named by a course platform (a class archive's top folder holding such files wraps
/// the class).
pub(super) fn is_platform_file(name: &str) -> bool {
    platform_file(name).is_some()
}

/// The name a Canvas file had when it was handed in, and which resubmission it is: `main-2.c` is
/// (`main.c`, 2), `main.c` is (`main.c`, 0).
pub(super) fn canvas_original(file: &str) -> (String, u64) {
    match RESUBMITTED.captures(file) {
        Some(c) => match c["n"].parse() {
            Ok(n) => (format!("{}{}", &c["stem"], c.name("ext").map_or("", |e| e.as_str())), n),
            Err(_) => (file.to_owned(), 0),
        },
        None => (file.to_owned(), 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moodle_folders_give_the_id_the_name_and_whether_they_hold_an_online_text() {
        assert_eq!(
            moodle_folder("Ada Lovelace_12345_assignsubmission_file_"),
            Some(MoodleFolder { id: "12345".into(), name: "Ada Lovelace".into(), online_text: false })
        );
        assert_eq!(
            moodle_folder("Ada Lovelace_12345_assignsubmission_onlinetext_"),
            Some(MoodleFolder { id: "12345".into(), name: "Ada Lovelace".into(), online_text: true })
        );
        assert_eq!(moodle_folder("trouble-ada"), None);
    }

    #[test]
    fn a_moodle_flat_file_gives_the_id_the_name_and_the_file() {
        let file = platform_file("Xavier Dupont_10019_assignsubmission_file_main.c").unwrap();
        assert_eq!(
            (file.platform, file.id.as_str(), file.name.as_str(), file.file.as_str(), file.late),
            (Platform::Moodle, "10019", "Xavier Dupont", "main.c", None)
        );
        let text = platform_file("Xavier Dupont_10019_assignsubmission_onlinetext_onlinetext.html").unwrap();
        assert!(text.online_text);
    }

    #[test]
    fn canvas_file_names_give_the_id_the_login_the_file_and_the_late_mark() {
        let file = platform_file("lovelace_LATE_12345_678_main.c").unwrap();
        assert_eq!(
            (file.platform, file.name.as_str(), file.id.as_str(), file.file.as_str(), file.late),
            (Platform::Canvas, "lovelace", "12345", "main.c", Some(true))
        );
        let file = platform_file("lovelace_12345_678_my_game.c").unwrap();
        assert_eq!((file.id.as_str(), file.file.as_str(), file.late), ("12345", "my_game.c", Some(false)));
        assert_eq!(platform_file("lovelace_late_1_2_x.c").unwrap().late, Some(true));
        assert!(platform_file("main.c").is_none());
    }

    #[test]
    fn a_canvas_resubmission_is_mapped_back_to_the_name_it_was_handed_in_as() {
        assert_eq!(canvas_original("backgammon-1.h"), ("backgammon.h".to_owned(), 1));
        assert_eq!(canvas_original("main-12.c"), ("main.c".to_owned(), 12));
        assert_eq!(canvas_original("Makefile-2"), ("Makefile".to_owned(), 2));
        assert_eq!(canvas_original("main.c"), ("main.c".to_owned(), 0));
        assert_eq!(canvas_original("two-player.c"), ("two-player.c".to_owned(), 0));
    }
}
