//! The mutation operators: single-place defects of a C or Java source, found on its tree-sitter
//! syntax tree (never by matching text), each kept with its file, line, operator and function.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser};

/// The languages whose sources are mutated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// C sources and headers (`.c`, `.h`).
    C,
    /// Java sources (`.java`).
    Java,
}

impl Language {
    /// The language of a file, by its extension; `None` for a file that is not mutated (a jar).
    pub fn of(file_name: &str) -> Option<Language> {
        match file_name.rsplit_once('.').map(|(_, ext)| ext) {
            Some("c" | "h") => Some(Language::C),
            Some("java") => Some(Language::Java),
            _ => None,
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }
}

/// A mutation operator: the kind of defect a mutant has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operator {
    /// A relational operator replaced by another (`<` by `<=`, `==` by `!=`).
    Relational,
    /// An arithmetic operator replaced by another (`+` by `-`), `++` by `--`.
    Arithmetic,
    /// `&&` and `||` swapped, a `!` removed.
    Logical,
    /// An assignment operator replaced by another (`+=` by `-=`, `=` by `+=`).
    Assignment,
    /// An integer constant changed by one either way, or to 0.
    Constant,
    /// The condition of an `if`, a loop or a `?:` negated.
    NegateCondition,
    /// A statement deleted (an expression statement, `break`, `continue`, a bare `return`).
    DeleteStatement,
    /// The value of a `return` replaced by a constant.
    ReturnConstant,
    /// The bound of a loop condition moved by one (`i < n` to `i < n + 1`).
    LoopBound,
    /// A mutant made by another tool (`--mutant-files`), its kind unknown.
    External,
}

impl Operator {
    /// Every operator this module applies, in the order reports list them.
    pub const GENERATED: [Operator; 9] = [
        Operator::Relational,
        Operator::Arithmetic,
        Operator::Logical,
        Operator::Assignment,
        Operator::Constant,
        Operator::NegateCondition,
        Operator::DeleteStatement,
        Operator::ReturnConstant,
        Operator::LoopBound,
    ];

    /// The operator's name in reports (`relational`).
    pub fn name(self) -> &'static str {
        match self {
            Operator::Relational => "relational",
            Operator::Arithmetic => "arithmetic",
            Operator::Logical => "logical",
            Operator::Assignment => "assignment",
            Operator::Constant => "constant",
            Operator::NegateCondition => "negate-condition",
            Operator::DeleteStatement => "delete-statement",
            Operator::ReturnConstant => "return-constant",
            Operator::LoopBound => "loop-bound",
            Operator::External => "external",
        }
    }

    /// The prefix of a mutant id made by this operator (the classic abbreviations: `ror-...`).
    pub fn short(self) -> &'static str {
        match self {
            Operator::Relational => "ror",
            Operator::Arithmetic => "aor",
            Operator::Logical => "lcr",
            Operator::Assignment => "asr",
            Operator::Constant => "crp",
            Operator::NegateCondition => "neg",
            Operator::DeleteStatement => "sdl",
            Operator::ReturnConstant => "rtc",
            Operator::LoopBound => "lbs",
            Operator::External => "ext",
        }
    }
}

/// Where a function's mutants go when it has no name: code outside any function is not mutated.
pub const NO_FUNCTION: &str = "(outside any function)";

/// One single-place defect of one file: the bytes `start..end` of the file replaced by `replacement`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mutant {
    /// Stable id: the operator's abbreviation and a hash of the file, function, operator, the text
    /// changed and its occurrence there (`ror-3fa2c1d0`), so that a re-audit of the same source
    /// finds the same ids (the cases README marks equivalent mutants by id).
    pub id: String,
    /// The file, as the submission names it (`main.c`, `src/game/Board.java`).
    pub file: String,
    /// 1-based line of the change.
    pub line: usize,
    /// 1-based column (in bytes) of the change.
    pub column: usize,
    /// The enclosing function (`movePiece`; `Board.apply` in Java).
    pub function: String,
    /// What kind of defect.
    pub operator: Operator,
    /// The text replaced.
    pub original: String,
    /// The text put in its place.
    pub replacement: String,
    /// The lines around the change as a one-place diff (`-` original lines, `+` mutated ones).
    pub diff: String,
    /// For another tool's mutant: the file it was read from (`main.mutant.12.c`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made_by: Option<String>,
    /// How the mutated file is made.
    #[serde(skip)]
    pub change: Change,
}

/// How a mutant's file is made from the original.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// The bytes `start..end` replaced by the mutant's `replacement`.
    Splice {
        /// First byte replaced.
        start: usize,
        /// The byte after the last one replaced.
        end: usize,
    },
    /// The whole file given (a mutant of another tool).
    Whole(Vec<u8>),
}

impl Default for Change {
    fn default() -> Self {
        Change::Splice { start: 0, end: 0 }
    }
}

impl Mutant {
    /// The file's bytes with this mutant's change made.
    pub fn apply(&self, source: &[u8]) -> Vec<u8> {
        match &self.change {
            Change::Whole(bytes) => bytes.clone(),
            Change::Splice { start, end } => {
                let mut out = Vec::with_capacity(source.len() + self.replacement.len());
                out.extend_from_slice(&source[..*start]);
                out.extend_from_slice(self.replacement.as_bytes());
                out.extend_from_slice(&source[*end..]);
                out
            }
        }
    }
}

/// Where a mutant changes its file, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// A function of a source file, for mapping mutants to rubric categories.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Its name (`movePiece`; `Board.apply` in Java).
    pub name: String,
    /// The file.
    pub file: String,
    /// 1-based line where it starts.
    pub line: usize,
    /// Lines it spans (first and last, 1-based).
    pub last_line: usize,
    /// The functions it calls, by their bare names (`targetLocation`, `apply`).
    pub calls: BTreeSet<String>,
    /// Every identifier its body names: the functions it calls, and those it passes as values (a
    /// `qsort` comparator, a method reference), with local names too (a superset, for reachability).
    pub mentions: BTreeSet<String>,
    /// Called from outside the sources by convention: C's `main`; in Java a `main` method, a
    /// constructor, or a method marked `@Override` (called through its interface or superclass).
    pub entry: bool,
}

impl Function {
    /// The name without its classes (`apply` for `Board.apply`).
    pub fn bare_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// A Java constructor (`Board.Board`): named after its class, not after what it does.
    pub fn is_constructor(&self) -> bool {
        let mut parts = self.name.rsplit('.');
        matches!((parts.next(), parts.next()), (Some(name), Some(class)) if name == class)
    }
}

/// The mutants and functions of one file.
#[derive(Debug, Clone, Default)]
pub struct FileMutants {
    /// Every mutant, in source order.
    pub mutants: Vec<Mutant>,
    /// Every function defined in the file.
    pub functions: Vec<Function>,
    /// Identifiers named outside every function, in the initial values of globals and fields and
    /// in Java's initializer blocks (a table of function pointers, a field set by a method's call).
    pub mentioned_outside: BTreeSet<String>,
}

/// Parses a file and makes every mutant of it. A file that is not C or Java gives nothing; code the
/// parser cannot read (an `ERROR` node: a macro it does not know) is left alone, the rest mutated.
pub fn mutate_file(file: &str, source: &[u8]) -> FileMutants {
    let Some(language) = Language::of(file) else { return FileMutants::default() };
    let mut parser = Parser::new();
    if parser.set_language(&language.grammar()).is_err() {
        return FileMutants::default();
    }
    let Some(tree) = parser.parse(source, None) else { return FileMutants::default() };
    let mut walker = Walker {
        language,
        source,
        file,
        found: Vec::new(),
        functions: Vec::new(),
        mentioned_outside: BTreeSet::new(),
    };
    walker.walk(tree.root_node(), &Scope::default());
    walker.finish()
}

/// The functions of a file without its mutants (where another tool made the mutants).
pub fn functions_of(file: &str, source: &[u8]) -> Vec<Function> {
    mutate_file(file, source).functions
}

/// A mutant before its id: what it changes and where.
struct Found {
    span: Span,
    operator: Operator,
    replacement: String,
    function: String,
}

/// What encloses a node: the function (its name and return type) and the classes (Java).
#[derive(Debug, Clone, Default)]
struct Scope {
    classes: Vec<String>,
    function: Option<String>,
    /// What a `return` gives back here, for the constant that replaces it.
    returns: Returns,
    /// Inside a Java lambda: its `return`s are not the method's.
    in_lambda: bool,
}

/// The kind of value a function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Returns {
    /// Nothing (`void`), or unknown: returns are not replaced.
    #[default]
    Nothing,
    /// A number (every C function that returns something: 0 is also the null pointer there).
    Number,
    /// A Java `boolean`.
    Boolean,
    /// A Java reference.
    Reference,
}

struct Walker<'a> {
    language: Language,
    source: &'a [u8],
    file: &'a str,
    found: Vec<Found>,
    functions: Vec<Function>,
    mentioned_outside: BTreeSet<String>,
}

const RELATIONAL: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];
const ORDERING: [&str; 4] = ["<", "<=", ">", ">="];
const ARITHMETIC: [&str; 5] = ["+", "-", "*", "/", "%"];
const COMPOUND: [&str; 5] = ["+=", "-=", "*=", "/=", "%="];

impl Walker<'_> {
    fn text(&self, node: Node) -> &str {
        std::str::from_utf8(&self.source[node.byte_range()]).unwrap_or("")
    }

    fn push(&mut self, scope: &Scope, node: Node, operator: Operator, replacement: impl Into<String>) {
        let Some(function) = &scope.function else { return };
        let replacement = replacement.into();
        if replacement == self.text(node) {
            return;
        }
        self.found.push(Found {
            span: Span { start: node.start_byte(), end: node.end_byte() },
            operator,
            replacement,
            function: function.clone(),
        });
    }

    fn walk(&mut self, node: Node, scope: &Scope) {
        // The parser could not read this part: leave it as it is.
        if node.is_error() || node.is_missing() {
            return;
        }
        let mut inner = scope.clone();
        match node.kind() {
            "function_definition" => {
                let name = node.child_by_field_name("declarator").and_then(|d| self.declared_name(d));
                inner.function = Some(name.unwrap_or_else(|| NO_FUNCTION.to_owned()));
                // `void *f()` returns a pointer, not nothing.
                let pointer =
                    node.child_by_field_name("declarator").is_some_and(|d| d.kind() == "pointer_declarator");
                let void = node.child_by_field_name("type").is_some_and(|t| self.text(t) == "void");
                inner.returns = if void && !pointer { Returns::Nothing } else { Returns::Number };
                self.function(node, &inner);
            }
            "class_declaration" | "enum_declaration" | "interface_declaration" | "record_declaration" => {
                if let Some(name) = node.child_by_field_name("name") {
                    inner.classes.push(self.text(name).to_owned());
                }
            }
            "method_declaration" | "constructor_declaration" => {
                let name =
                    node.child_by_field_name("name").map(|n| self.text(n).to_owned()).unwrap_or_default();
                let mut qualified = inner.classes.join(".");
                if !qualified.is_empty() {
                    qualified.push('.');
                }
                qualified.push_str(&name);
                inner.function = Some(qualified);
                inner.in_lambda = false;
                inner.returns = match node.child_by_field_name("type").map(|t| t.kind()) {
                    None | Some("void_type") => Returns::Nothing,
                    Some("integral_type" | "floating_point_type") => Returns::Number,
                    Some("boolean_type") => Returns::Boolean,
                    Some(_) => Returns::Reference,
                };
                self.function(node, &inner);
            }
            "lambda_expression" => inner.in_lambda = true,
            _ => {}
        }
        if inner.function.is_none() {
            self.initial_value(node);
        }
        if inner.function.is_some() {
            self.operators(node, &inner);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.walk(child, &inner);
        }
    }

    /// Records a function, the names it calls and the identifiers it names.
    fn function(&mut self, node: Node, scope: &Scope) {
        let mut calls = BTreeSet::new();
        let mut mentions = BTreeSet::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" {
                mentions.insert(self.text(n).to_owned());
            }
            let callee = match n.kind() {
                "call_expression" => n.child_by_field_name("function").filter(|f| f.kind() == "identifier"),
                "method_invocation" => n.child_by_field_name("name"),
                _ => None,
            };
            if let Some(callee) = callee {
                calls.insert(self.text(callee).to_owned());
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        let name = scope.function.clone().unwrap_or_default();
        let bare = name.rsplit('.').next().unwrap_or(&name);
        let entry = bare == "main"
            || node.kind() == "constructor_declaration"
            || (self.language == Language::Java && self.overrides(node));
        self.functions.push(Function {
            file: self.file.to_owned(),
            line: node.start_position().row + 1,
            last_line: node.end_position().row + 1,
            calls,
            mentions,
            entry,
            name,
        });
    }

    /// Whether a Java method is marked `@Override`.
    fn overrides(&self, method: Node) -> bool {
        let mut cursor = method.walk();
        let modifiers = method.children(&mut cursor).find(|c| c.kind() == "modifiers");
        let Some(modifiers) = modifiers else { return false };
        let mut cursor = modifiers.walk();
        let found = modifiers.children(&mut cursor).any(|a| {
            matches!(a.kind(), "marker_annotation" | "annotation")
                && a.child_by_field_name("name").is_some_and(|n| {
                    let name = self.text(n);
                    name == "Override" || name.ends_with(".Override")
                })
        });
        found
    }

    /// Outside functions: the identifiers named by an initial value (a C global's or a Java
    /// field's) or a Java initializer block, which run without any function calling them.
    fn initial_value(&mut self, node: Node) {
        let value = match node.kind() {
            "init_declarator" | "variable_declarator" => node.child_by_field_name("value"),
            "static_initializer" => Some(node),
            "block" if node.parent().is_some_and(|p| p.kind() == "class_body") => Some(node),
            _ => None,
        };
        let Some(value) = value else { return };
        let mut stack = vec![value];
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" {
                self.mentioned_outside.insert(self.text(n).to_owned());
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
    }

    /// The identifier a C declarator declares (through pointers and parentheses).
    fn declared_name(&self, declarator: Node) -> Option<String> {
        let mut node = declarator;
        loop {
            if node.kind() == "identifier" {
                return Some(self.text(node).to_owned());
            }
            node = node.child_by_field_name("declarator").or_else(|| node.named_child(0))?;
        }
    }

    /// Every mutant whose change is rooted at this node.
    fn operators(&mut self, node: Node, scope: &Scope) {
        match node.kind() {
            "binary_expression" => self.binary(node, scope),
            "assignment_expression" => self.assignment(node, scope),
            "update_expression" => {
                if let Some(op) = operator_token(node, &["++", "--"]) {
                    let other = if self.text(op) == "++" { "--" } else { "++" };
                    self.push(scope, op, Operator::Arithmetic, other);
                }
            }
            "unary_expression" => {
                if let Some(op) = operator_token(node, &["!"]) {
                    self.push(scope, op, Operator::Logical, "");
                }
            }
            "number_literal"
            | "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => self.constant(node, scope),
            "if_statement" | "while_statement" | "do_statement" | "for_statement" => {
                if let Some(condition) = node.child_by_field_name("condition") {
                    let inside = if condition.kind() == "parenthesized_expression" {
                        condition.named_child(0).filter(|_| condition.named_child_count() == 1)
                    } else {
                        Some(condition)
                    };
                    if let Some(inside) = inside {
                        let negated = format!("!({})", self.text(inside));
                        self.push(scope, inside, Operator::NegateCondition, negated);
                    }
                    if node.kind() != "if_statement" {
                        self.loop_bounds(condition, scope);
                    }
                }
            }
            "conditional_expression" | "ternary_expression" => {
                if let Some(condition) = node.child_by_field_name("condition") {
                    let negated = format!("!({})", self.text(condition));
                    self.push(scope, condition, Operator::NegateCondition, negated);
                }
            }
            "expression_statement" | "break_statement" | "continue_statement" => {
                // Java's switch rules (`case 1 -> f();`) take a block, not an empty statement.
                let empty = if self.language == Language::Java { "{}" } else { ";" };
                self.push(scope, node, Operator::DeleteStatement, empty);
            }
            "return_statement" => self.return_statement(node, scope),
            _ => {}
        }
    }

    fn binary(&mut self, node: Node, scope: &Scope) {
        let Some(op) = node.child_by_field_name("operator") else { return };
        let text = self.text(op).to_owned();
        let (set, operator): (&[&str], _) = if RELATIONAL.contains(&text.as_str()) {
            (&RELATIONAL, Operator::Relational)
        } else if ARITHMETIC.contains(&text.as_str()) {
            (&ARITHMETIC, Operator::Arithmetic)
        } else if text == "&&" || text == "||" {
            (&["&&", "||"], Operator::Logical)
        } else {
            return;
        };
        for other in set.iter().filter(|o| **o != text) {
            self.push(scope, op, operator, *other);
        }
    }

    fn assignment(&mut self, node: Node, scope: &Scope) {
        let Some(op) = node.child_by_field_name("operator") else { return };
        let text = self.text(op).to_owned();
        let others: Vec<&str> = if text == "=" {
            vec!["+=", "-="]
        } else if COMPOUND.contains(&text.as_str()) {
            COMPOUND.iter().copied().filter(|o| *o != text).chain(["="]).collect()
        } else {
            // `&=`, `<<=` and the like: only plain assignment in their place.
            vec!["="]
        };
        for other in others {
            self.push(scope, op, Operator::Assignment, other);
        }
    }

    fn constant(&mut self, node: Node, scope: &Scope) {
        // An array's size in a C declaration: one more or less is almost always equivalent.
        if node.parent().is_some_and(|p| p.kind() == "array_declarator") {
            return;
        }
        let Some(literal) = IntegerLiteral::parse(self.text(node)) else { return };
        let mut seen = BTreeSet::new();
        for value in [literal.value.wrapping_add(1), literal.value.wrapping_sub(1), 0] {
            if value != literal.value && seen.insert(value) {
                self.push(scope, node, Operator::Constant, literal.with_value(value));
            }
        }
    }

    /// `i < n` to `i < n + 1` and `i < n - 1`, for each ordering comparison of a loop's condition
    /// (through `&&`, `||` and parentheses).
    fn loop_bounds(&mut self, condition: Node, scope: &Scope) {
        let mut stack = vec![condition];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "parenthesized_expression" => stack.extend(node.named_child(0)),
                "binary_expression" => {
                    let Some(op) = node.child_by_field_name("operator") else { continue };
                    let op = self.text(op);
                    if op == "&&" || op == "||" {
                        stack.extend(node.child_by_field_name("left"));
                        stack.extend(node.child_by_field_name("right"));
                    } else if ORDERING.contains(&op) {
                        let Some(bound) = node.child_by_field_name("right") else { continue };
                        let text = self.text(bound);
                        let simple = matches!(
                            bound.kind(),
                            "identifier"
                                | "number_literal"
                                | "decimal_integer_literal"
                                | "field_access"
                                | "field_expression"
                                | "call_expression"
                                | "method_invocation"
                                | "subscript_expression"
                                | "array_access"
                                | "parenthesized_expression"
                        );
                        let bound_text = if simple { text.to_owned() } else { format!("({text})") };
                        self.push(scope, bound, Operator::LoopBound, format!("{bound_text} + 1"));
                        self.push(scope, bound, Operator::LoopBound, format!("{bound_text} - 1"));
                    }
                }
                _ => {}
            }
        }
    }

    fn return_statement(&mut self, node: Node, scope: &Scope) {
        let value = node.named_children(&mut node.walk()).find(|c| c.kind() != "comment");
        let Some(value) = value else {
            // A bare `return;` deleted: the function goes on.
            self.push(scope, node, Operator::DeleteStatement, ";");
            return;
        };
        if scope.in_lambda {
            return;
        }
        let text = self.text(value);
        let constant = match scope.returns {
            Returns::Nothing => return,
            // `NULL` is 0 already, and 1 is no pointer.
            Returns::Number if text == "NULL" => return,
            Returns::Number => {
                if IntegerLiteral::parse(text).is_some_and(|l| l.value == 0) {
                    "1"
                } else {
                    "0"
                }
            }
            Returns::Boolean => {
                if text == "false" {
                    "true"
                } else {
                    "false"
                }
            }
            Returns::Reference => "null",
        };
        self.push(scope, value, Operator::ReturnConstant, constant);
    }

    /// Gives each mutant its id, line and diff, in source order, without duplicates (two operators
    /// making the same change).
    fn finish(self) -> FileMutants {
        let Walker { source, file, mut found, functions, mentioned_outside, .. } = self;
        found.sort_by_key(|f| (f.span.start, f.span.end));
        let mut seen = BTreeSet::new();
        found.retain(|f| seen.insert((f.span.start, f.span.end, f.replacement.clone())));
        let line_starts = line_starts(source);
        let mut occurrences: BTreeMap<(String, Operator, String, String), usize> = BTreeMap::new();
        let mut out = FileMutants { functions, mentioned_outside, ..FileMutants::default() };
        for f in found {
            let original = String::from_utf8_lossy(&source[f.span.start..f.span.end]).into_owned();
            let occurrence = occurrences
                .entry((f.function.clone(), f.operator, original.clone(), f.replacement.clone()))
                .or_default();
            *occurrence += 1;
            let id = mutant_id(file, &f.function, f.operator, &original, &f.replacement, *occurrence);
            let line = line_starts.partition_point(|&s| s <= f.span.start);
            let column = f.span.start - line_starts[line - 1] + 1;
            out.mutants.push(Mutant {
                id,
                file: file.to_owned(),
                line,
                column,
                function: f.function,
                operator: f.operator,
                diff: splice_diff(source, &line_starts, f.span, &f.replacement),
                original,
                replacement: f.replacement,
                made_by: None,
                change: Change::Splice { start: f.span.start, end: f.span.end },
            });
        }
        out
    }
}

/// The operator token among a node's unnamed children.
fn operator_token<'t>(node: Node<'t>, tokens: &[&str]) -> Option<Node<'t>> {
    if let Some(op) = node.child_by_field_name("operator") {
        return tokens.contains(&op.kind()).then_some(op);
    }
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| !c.is_named() && tokens.contains(&c.kind()));
    found
}

/// An integer literal as written: its value, radix and suffix (`0x1Fu`), so that a changed value
/// keeps its form.
struct IntegerLiteral {
    value: i64,
    radix: u32,
    suffix: String,
}

impl IntegerLiteral {
    fn parse(text: &str) -> Option<IntegerLiteral> {
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest.trim_start()),
            None => (false, text),
        };
        let body = body.replace('_', "");
        let lower = body.to_ascii_lowercase();
        let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
            (16, d.to_owned())
        } else if let Some(d) = lower.strip_prefix("0b") {
            (2, d.to_owned())
        } else if lower.len() > 1 && lower.starts_with('0') {
            (8, lower[1..].to_owned())
        } else {
            (10, lower.clone())
        };
        let end = digits.find(|c: char| !c.is_digit(radix)).unwrap_or(digits.len());
        let (number, suffix) = digits.split_at(end);
        // A float (`1.5`, `1e3`) or an unusual suffix: not an integer constant.
        if number.is_empty() || !suffix.chars().all(|c| matches!(c, 'u' | 'l')) {
            return None;
        }
        let magnitude = i64::from_str_radix(number, radix).ok()?;
        let suffix = body[body.len() - suffix.len()..].to_owned();
        Some(IntegerLiteral { value: if negative { -magnitude } else { magnitude }, radix, suffix })
    }

    /// The literal with another value, in the same radix where it is not negative; a negative
    /// value in parentheses, so that `a-0` becomes `a-(-1)`, never `a--1`.
    fn with_value(&self, value: i64) -> String {
        let digits = match (self.radix, value < 0) {
            (16, false) => format!("0x{value:X}"),
            (2, false) => format!("0b{value:b}"),
            (8, false) if value != 0 => format!("0{value:o}"),
            _ => value.to_string(),
        };
        let literal = format!("{digits}{}", self.suffix);
        if value < 0 {
            format!("({literal})")
        } else {
            literal
        }
    }
}

fn mutant_id(
    file: &str,
    function: &str,
    operator: Operator,
    original: &str,
    replacement: &str,
    occurrence: usize,
) -> String {
    let mut hasher = blake3::Hasher::new();
    for field in [file, function, operator.name(), original, replacement, &occurrence.to_string()] {
        hasher.update(&(field.len() as u64).to_le_bytes());
        hasher.update(field.as_bytes());
    }
    format!("{}-{}", operator.short(), &hasher.finalize().to_hex()[..8])
}

/// Byte offsets where each line starts (the first is 0).
fn line_starts(source: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(source.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1))
        .collect()
}

/// The lines a splice touches, before (`-`) and after (`+`), with the line number of the first.
fn splice_diff(source: &[u8], line_starts: &[usize], span: Span, replacement: &str) -> String {
    let first = line_starts.partition_point(|&s| s <= span.start) - 1;
    let last = line_starts.partition_point(|&s| s <= span.end.saturating_sub(1).max(span.start)) - 1;
    let from = line_starts[first];
    let to = line_starts.get(last + 1).map_or(source.len(), |&s| s.saturating_sub(1));
    let before = String::from_utf8_lossy(&source[from..to]);
    let mut after = String::from_utf8_lossy(&source[from..span.start]).into_owned();
    after.push_str(replacement);
    after.push_str(&String::from_utf8_lossy(&source[span.end..to.max(span.end)]));
    let mut diff = String::new();
    for line in before.lines() {
        let _ = writeln!(diff, "-{line}");
    }
    for line in after.lines() {
        let _ = writeln!(diff, "+{line}");
    }
    diff
}

/// A mutant of another tool: the whole mutated file, described by the lines that differ from the
/// original and attributed to the function around the first of them; `made_by` names the file it
/// came from. `None` when nothing differs.
pub fn external_mutant(
    file: &str,
    original: &[u8],
    mutated: Vec<u8>,
    functions: &[Function],
    made_by: &str,
) -> Option<Mutant> {
    let before = String::from_utf8_lossy(original).into_owned();
    let after = String::from_utf8_lossy(&mutated).into_owned();
    let diff = similar::TextDiff::from_lines(&before, &after);
    let mut text = String::new();
    let mut first_line = None;
    let (mut removed, mut added) = (String::new(), String::new());
    for change in diff.iter_all_changes() {
        let (sign, into) = match change.tag() {
            similar::ChangeTag::Equal => continue,
            similar::ChangeTag::Delete => ('-', &mut removed),
            similar::ChangeTag::Insert => ('+', &mut added),
        };
        if first_line.is_none() {
            first_line = change.old_index().or(change.new_index()).map(|i| i + 1);
        }
        let line = change.value().trim_end_matches('\n');
        let _ = writeln!(text, "{sign}{line}");
        if !into.is_empty() {
            into.push('\n');
        }
        into.push_str(line.trim());
    }
    let line = first_line?;
    let function = functions
        .iter()
        .filter(|f| f.file == file && f.line <= line && line <= f.last_line)
        .max_by_key(|f| f.line)
        .map_or_else(|| NO_FUNCTION.to_owned(), |f| f.name.clone());
    let mut hasher = blake3::Hasher::new();
    hasher.update(file.as_bytes());
    hasher.update(&[0]);
    hasher.update(&mutated);
    Some(Mutant {
        id: format!("{}-{}", Operator::External.short(), &hasher.finalize().to_hex()[..8]),
        file: file.to_owned(),
        line,
        column: 1,
        function,
        operator: Operator::External,
        original: removed,
        replacement: added,
        diff: text,
        made_by: Some(made_by.to_owned()),
        change: Change::Whole(mutated),
    })
}

#[cfg(test)]
mod tests;
