//! The teaching assistants' guide (`docs/tas.md`) runs as written: the example class graded, a split
//! file, an overlapping one refused, hand grades and a rubric item given in a CSV, a typo refused;
//! then `grader review` as its console block starts it with the split, and the guide's `curl` grade
//! saved through the API: answered as the guide shows, refused when sent again, kept with the
//! grader's name.

use super::*;

#[test]
fn the_tas_guide_runs_as_written() {
    let ran = run("tas");
    let (stdout, stderr) = (&ran.stdout, &ran.stderr);
    assert!(stderr.contains("6 students: 6 graded"), "{stderr}");
    // An overlapping split is refused before anything is served.
    assert!(stderr.contains("error: overlap.toml: 10003 is given to both ann and bo"), "{stderr}");
    assert!(stdout.contains("exit status 2"), "{stdout}");
    // Hand grades in a CSV, with a rubric item from the file beside it.
    assert!(
        stderr.contains("hand grades: 2 given now, 0 kept from earlier runs; all in graded/hand-grades.csv"),
        "{stderr}"
    );
    assert!(
        stdout.lines().any(|l| l.trim_start().starts_with("style")
            && l.contains("8.00 /  10.00")
            && l.ends_with("-2.00: no header comment")),
        "{stdout}"
    );
    let graded = ran.path("graded");
    let hand = std::fs::read_to_string(graded.join("hand-grades.csv")).unwrap();
    assert!(hand.starts_with("id,category,points,comment,ta,items\n"), "{hand}");
    assert!(hand.contains("10002,style,6,no function comments,bo,\n"), "{hand}");
    assert!(hand.contains("10003,style,8,,bo,1\n"), "{hand}");
    let items = std::fs::read_to_string(graded.join("rubric-items.csv")).unwrap();
    assert_eq!(items, "category,item,points,title\nstyle,1,-2,no header comment\n");
    // A typo in an id is refused, naming the id meant.
    assert!(
        stderr.contains("error: typo.csv:2: no student `1005` in the class: did you mean `10005`?"),
        "{stderr}"
    );

    // The review as the guide starts it with the split (on any free port).
    let text = guide("tas");
    let console: Vec<String> = blocks(&text, "console");
    let review = console
        .iter()
        .flat_map(|b| b.lines())
        .find_map(|l| l.strip_prefix("$ grader ").filter(|c| c.contains("--split")))
        .expect("a console block starts grader review with a split");
    assert_eq!(review, "review graded --split split.toml");
    let mut args: Vec<&str> = review.split_whitespace().collect();
    args.extend(["--port", "0"]);
    let server = common::Review::start(ran.dir.path(), &args);
    assert_eq!(server.request("GET", "/api/students", None, None).0, 401);
    assert_eq!(server.request("GET", "/api/students", None, Some("not-the-token")).0, 403);
    let (status, _, body) = server.request("GET", "/api/students", None, Some(&server.token));
    assert_eq!(status, 200, "{body}");
    let class: serde_json::Value = serde_json::from_str(&body).unwrap();
    let assigned = |id: &str| {
        class["students"].as_array().unwrap().iter().find(|s| s["id"] == id).unwrap()["assigned_to"].clone()
    };
    assert_eq!(assigned("10003"), "ann");
    assert_eq!(assigned("10004"), "bo");

    // The guide's curl request, and the answer it shows.
    let curl = console.iter().find(|b| b.contains("$ curl")).expect("the curl example");
    let request = curl.split("-d '").nth(1).and_then(|r| r.split('\'').next()).unwrap();
    let answer = curl.lines().find(|l| l.starts_with('{')).expect("the answer the guide shows");
    let (status, _, body) = server.request("POST", "/api/hand-grades", Some(request), Some(&server.token));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, answer);
    // Sent again, it is refused as the guide says; with `replaces`, it replaces.
    let (status, _, body) = server.request("POST", "/api/hand-grades", Some(request), Some(&server.token));
    assert_eq!(status, 409, "{body}");
    let refused: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(refused["error"], "ann saved a grade of 10005 in style meanwhile; yours was not saved");
    let version = refused["current"]["version"].as_str().unwrap();
    assert!(text.contains(&format!("send `\"replaces\":\"{version}\"`")), "the guide names {version}");
    let replacing = request.replace("\"ta\":\"ann\"", &format!("\"ta\":\"ann\",\"replaces\":\"{version}\""));
    let (status, _, body) = server.request("POST", "/api/hand-grades", Some(&replacing), Some(&server.token));
    assert_eq!(status, 200, "{body}");
    let hand = std::fs::read_to_string(graded.join("hand-grades.csv")).unwrap();
    assert!(hand.contains("10005,style,8,tidy,ann,"), "{hand}");
    assert!(hand.contains("10003,style,8,,bo,1"), "{hand}");
}
