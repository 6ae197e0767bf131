//! Each operator on small C and Java sources: the mutants it makes, as one-place diffs.

use super::*;

const C_SOURCE: &str = "\
int limit = 5;
int clamp(int a, int n) {
    int i, s = 0;
    char buf[16];
    for (i = 0; i < n; i++) {
        s += a * 2;
    }
    if (s > 10 && a != 0) return 10;
    return s;
}
void reset(int *p) {
    *p = 0;
    if (!p) return;
}
";

const JAVA_SOURCE: &str = "\
package demo;
class Counter {
    private int n = 3;
    boolean over(int limit) {
        return n >= limit || limit == -1;
    }
    String name() { return \"c\"; }
    int sum(int[] xs) {
        int s = 0;
        for (int i = 0; i < xs.length; i++) { s += xs[i]; }
        Runnable r = () -> { System.out.println(s); };
        return s;
    }
}
";

fn c() -> FileMutants {
    mutate_file("demo.c", C_SOURCE.as_bytes())
}

fn java() -> FileMutants {
    mutate_file("src/demo/Counter.java", JAVA_SOURCE.as_bytes())
}

/// The mutants of `operator` that replace `original` by `replacement`.
fn find<'m>(made: &'m FileMutants, operator: Operator, original: &str, replacement: &str) -> Vec<&'m Mutant> {
    made.mutants
        .iter()
        .filter(|m| m.operator == operator && m.original == original && m.replacement == replacement)
        .collect()
}

/// The one mutant of `operator` replacing `original` by `replacement` on `line`: its diff, and the
/// mutated source differing from the original exactly there.
fn one(
    made: &FileMutants,
    source: &str,
    line: usize,
    operator: Operator,
    original: &str,
    replacement: &str,
) -> String {
    let mut found = find(made, operator, original, replacement);
    found.retain(|m| m.line == line);
    assert_eq!(found.len(), 1, "{operator:?} {original} -> {replacement}: {found:#?}");
    let mutant = found[0];
    let mutated = String::from_utf8(mutant.apply(source.as_bytes())).unwrap();
    let changed: Vec<(&str, &str)> = source.lines().zip(mutated.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(source.lines().count(), mutated.lines().count(), "{mutated}");
    assert_eq!(changed.len(), 1, "one line changes: {changed:?}");
    assert_eq!(
        mutant.diff,
        format!("-{}\n+{}\n", changed[0].0, changed[0].1),
        "the diff is that line before and after"
    );
    mutant.diff.clone()
}

#[test]
fn relational_operators_are_replaced_by_each_other() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 5, Operator::Relational, "<", "<="),
        "-    for (i = 0; i < n; i++) {\n+    for (i = 0; i <= n; i++) {\n"
    );
    for other in ["<=", ">", ">=", "==", "!="] {
        assert_eq!(find(&made, Operator::Relational, "<", other).len(), 1, "{other}");
    }
    assert_eq!(
        one(&made, C_SOURCE, 8, Operator::Relational, "!=", "=="),
        "-    if (s > 10 && a != 0) return 10;\n+    if (s > 10 && a == 0) return 10;\n"
    );
}

#[test]
fn arithmetic_operators_and_increments_are_replaced() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 6, Operator::Arithmetic, "*", "+"),
        "-        s += a * 2;\n+        s += a + 2;\n"
    );
    assert_eq!(find(&made, Operator::Arithmetic, "*", "%").len(), 1);
    assert_eq!(
        one(&made, C_SOURCE, 5, Operator::Arithmetic, "++", "--"),
        "-    for (i = 0; i < n; i++) {\n+    for (i = 0; i < n; i--) {\n"
    );
}

#[test]
fn logical_connectives_are_swapped_and_negations_removed() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 8, Operator::Logical, "&&", "||"),
        "-    if (s > 10 && a != 0) return 10;\n+    if (s > 10 || a != 0) return 10;\n"
    );
    assert_eq!(
        one(&made, C_SOURCE, 13, Operator::Logical, "!", ""),
        "-    if (!p) return;\n+    if (p) return;\n"
    );
}

#[test]
fn assignment_operators_are_replaced() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 6, Operator::Assignment, "+=", "-="),
        "-        s += a * 2;\n+        s -= a * 2;\n"
    );
    assert_eq!(find(&made, Operator::Assignment, "+=", "=").len(), 1);
    assert_eq!(one(&made, C_SOURCE, 12, Operator::Assignment, "=", "+="), "-    *p = 0;\n+    *p += 0;\n");
    // Initialisers are declarations, not assignments.
    assert!(made.mutants.iter().all(|m| m.line != 3 || m.operator != Operator::Assignment));
}

#[test]
fn constants_move_by_one_and_to_zero_and_negative_ones_are_parenthesised() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 6, Operator::Constant, "2", "3"),
        "-        s += a * 2;\n+        s += a * 3;\n"
    );
    assert_eq!(find(&made, Operator::Constant, "2", "1").len(), 1);
    assert_eq!(find(&made, Operator::Constant, "2", "0").len(), 1);
    assert_eq!(one(&made, C_SOURCE, 12, Operator::Constant, "0", "(-1)"), "-    *p = 0;\n+    *p = (-1);\n");
    // Outside functions, and an array's declared size, nothing changes.
    assert!(made.mutants.iter().all(|m| m.line != 1), "the global's initialiser");
    assert!(made.mutants.iter().all(|m| m.original != "16"), "the array size");
}

#[test]
fn integer_literals_keep_their_form() {
    for (literal, plus_one) in [("0x1F", "0x20"), ("10u", "11u"), ("2L", "3L"), ("017", "020")] {
        assert_eq!(
            IntegerLiteral::parse(literal)
                .unwrap()
                .with_value(IntegerLiteral::parse(literal).unwrap().value + 1),
            plus_one
        );
    }
    assert!(IntegerLiteral::parse("1.5").is_none());
    assert!(IntegerLiteral::parse("1e3").is_none());
    assert_eq!(IntegerLiteral::parse("-1").unwrap().value, -1);
}

#[test]
fn conditions_are_negated() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 8, Operator::NegateCondition, "s > 10 && a != 0", "!(s > 10 && a != 0)"),
        "-    if (s > 10 && a != 0) return 10;\n+    if (!(s > 10 && a != 0)) return 10;\n"
    );
    assert_eq!(
        one(&made, C_SOURCE, 5, Operator::NegateCondition, "i < n", "!(i < n)"),
        "-    for (i = 0; i < n; i++) {\n+    for (i = 0; !(i < n); i++) {\n"
    );
}

#[test]
fn statements_are_deleted() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 6, Operator::DeleteStatement, "s += a * 2;", ";"),
        "-        s += a * 2;\n+        ;\n"
    );
    assert_eq!(
        one(&made, C_SOURCE, 13, Operator::DeleteStatement, "return;", ";"),
        "-    if (!p) return;\n+    if (!p) ;\n"
    );
    // Declarations stay: deleting one would not build.
    assert!(made.mutants.iter().all(|m| !(m.operator == Operator::DeleteStatement && m.line == 3)));
}

#[test]
fn returned_values_are_replaced_by_a_constant() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 9, Operator::ReturnConstant, "s", "0"),
        "-    return s;\n+    return 0;\n"
    );
    assert_eq!(
        one(&made, C_SOURCE, 8, Operator::ReturnConstant, "10", "0"),
        "-    if (s > 10 && a != 0) return 10;\n+    if (s > 10 && a != 0) return 0;\n"
    );
}

#[test]
fn loop_bounds_shift_by_one() {
    let made = c();
    assert_eq!(
        one(&made, C_SOURCE, 5, Operator::LoopBound, "n", "n + 1"),
        "-    for (i = 0; i < n; i++) {\n+    for (i = 0; i < n + 1; i++) {\n"
    );
    assert_eq!(find(&made, Operator::LoopBound, "n", "n - 1").len(), 1);
    // An if's comparison is not a loop bound.
    assert!(find(&made, Operator::LoopBound, "10", "10 + 1").is_empty());
}

#[test]
fn c_mutants_know_their_function_line_and_column() {
    let made = c();
    let m = find(&made, Operator::Relational, "<", "<=")[0];
    assert_eq!((m.file.as_str(), m.line, m.column, m.function.as_str()), ("demo.c", 5, 19, "clamp"));
    let m = find(&made, Operator::Assignment, "=", "+=").into_iter().find(|m| m.line == 12).unwrap();
    assert_eq!(m.function, "reset");
    let names: Vec<&str> = made.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["clamp", "reset"]);
    assert_eq!((made.functions[0].line, made.functions[0].last_line), (2, 10));
}

#[test]
fn ids_are_stable_unique_and_shaped_for_the_readme() {
    let first = c();
    let again = c();
    let ids: Vec<&str> = first.mutants.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, again.mutants.iter().map(|m| m.id.as_str()).collect::<Vec<_>>());
    let unique: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len());
    assert!(ids.iter().all(|id| crate::audit::marks::is_mutant_id(id)), "{ids:?}");
    // An edit in another function leaves a function's ids as they were.
    let edited = C_SOURCE.replace("*p = 0;", "*p = 1;");
    let edited = mutate_file("demo.c", edited.as_bytes());
    let clamp = |made: &FileMutants| -> Vec<String> {
        made.mutants.iter().filter(|m| m.function == "clamp").map(|m| m.id.clone()).collect()
    };
    assert_eq!(clamp(&first), clamp(&edited));
}

#[test]
fn java_methods_are_named_with_their_class_and_returns_replaced_by_type() {
    let made = java();
    let names: Vec<&str> = made.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["Counter.over", "Counter.name", "Counter.sum"]);
    assert_eq!(
        one(&made, JAVA_SOURCE, 5, Operator::ReturnConstant, "n >= limit || limit == -1", "false"),
        "-        return n >= limit || limit == -1;\n+        return false;\n"
    );
    assert_eq!(
        one(&made, JAVA_SOURCE, 7, Operator::ReturnConstant, "\"c\"", "null"),
        "-    String name() { return \"c\"; }\n+    String name() { return null; }\n"
    );
    assert_eq!(
        one(&made, JAVA_SOURCE, 12, Operator::ReturnConstant, "s", "0"),
        "-        return s;\n+        return 0;\n"
    );
    assert_eq!(find(&made, Operator::ReturnConstant, "s", "0")[0].function, "Counter.sum");
    // The field's initialiser is outside any method.
    assert!(made.mutants.iter().all(|m| m.line != 3));
}

#[test]
fn java_operators_constants_deletions_and_loop_bounds() {
    let made = java();
    assert_eq!(
        one(&made, JAVA_SOURCE, 5, Operator::Relational, ">=", ">"),
        "-        return n >= limit || limit == -1;\n+        return n > limit || limit == -1;\n"
    );
    assert_eq!(
        one(&made, JAVA_SOURCE, 5, Operator::Logical, "||", "&&"),
        "-        return n >= limit || limit == -1;\n+        return n >= limit && limit == -1;\n"
    );
    assert_eq!(
        one(&made, JAVA_SOURCE, 5, Operator::Constant, "1", "2"),
        "-        return n >= limit || limit == -1;\n+        return n >= limit || limit == -2;\n"
    );
    // Java deletes a statement as an empty block: a switch rule takes no empty statement.
    assert_eq!(
        one(&made, JAVA_SOURCE, 10, Operator::DeleteStatement, "s += xs[i];", "{}"),
        "-        for (int i = 0; i < xs.length; i++) { s += xs[i]; }\n+        for (int i = 0; i < xs.length; i++) { {} }\n"
    );
    assert_eq!(
        one(&made, JAVA_SOURCE, 10, Operator::LoopBound, "xs.length", "xs.length + 1"),
        "-        for (int i = 0; i < xs.length; i++) { s += xs[i]; }\n+        for (int i = 0; i < xs.length + 1; i++) { s += xs[i]; }\n"
    );
    assert_eq!(
        one(&made, JAVA_SOURCE, 10, Operator::Assignment, "+=", "*="),
        "-        for (int i = 0; i < xs.length; i++) { s += xs[i]; }\n+        for (int i = 0; i < xs.length; i++) { s *= xs[i]; }\n"
    );
    assert!(made.functions.iter().find(|f| f.name == "Counter.sum").unwrap().calls.contains("println"));
}

#[test]
fn what_the_parser_cannot_read_is_left_alone() {
    let source = "int f(int a) { return a + 1; }\nint g(int b) { return b @@@ 2 ; }\n";
    let made = mutate_file("odd.c", source.as_bytes());
    assert!(!find(&made, Operator::Arithmetic, "+", "-").is_empty(), "f is mutated");
    assert!(made.mutants.iter().all(|m| !m.original.contains('@')));
    assert!(mutate_file("notes.txt", b"a < b").mutants.is_empty());
}

#[test]
fn a_statement_over_several_lines_is_shown_whole() {
    let source = "void f(int a) {\n    g(a,\n      a + 1);\n}\n";
    let made = mutate_file("multi.c", source.as_bytes());
    let deleted = find(&made, Operator::DeleteStatement, "g(a,\n      a + 1);", ";");
    assert_eq!(deleted[0].diff, "-    g(a,\n-      a + 1);\n+    ;\n");
    assert_eq!(deleted[0].line, 2);
}

#[test]
fn another_tools_mutant_is_described_by_the_lines_that_differ() {
    let functions = functions_of("demo.c", C_SOURCE.as_bytes());
    let mutated = C_SOURCE.replace("s += a * 2;", "s += a * 2 + 1;").into_bytes();
    let mutant =
        external_mutant("demo.c", C_SOURCE.as_bytes(), mutated.clone(), &functions, "demo.mutant.3.c")
            .unwrap();
    assert_eq!(mutant.operator, Operator::External);
    assert_eq!((mutant.line, mutant.function.as_str()), (6, "clamp"));
    assert_eq!(mutant.diff, "-        s += a * 2;\n+        s += a * 2 + 1;\n");
    assert_eq!(mutant.apply(C_SOURCE.as_bytes()), mutated);
    assert_eq!(mutant.made_by.as_deref(), Some("demo.mutant.3.c"));
    assert!(external_mutant("demo.c", C_SOURCE.as_bytes(), C_SOURCE.as_bytes().to_vec(), &functions, "x")
        .is_none());
}

#[test]
fn a_java_constructor_is_known_as_one() {
    let made = mutate_file(
        "Protocol.java",
        b"class Protocol {\n    Protocol() { x = 1; }\n    void protocol() { x = 2; }\n}\n",
    );
    let constructors: Vec<(&str, bool)> =
        made.functions.iter().map(|f| (f.name.as_str(), f.is_constructor())).collect();
    assert_eq!(constructors, [("Protocol.Protocol", true), ("Protocol.protocol", false)]);
}
