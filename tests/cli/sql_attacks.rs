//! The SQL files choose attacks by type: no file of `sql/` compares an `attack` column with a
//! written name; they join the `attacks` view the vocabulary writes and select by its columns.

use std::fs;
use std::path::Path;

/// A token of SQL text outside its comments.
#[derive(Debug, PartialEq)]
enum SqlToken {
    Word(String),
    Literal(String),
    Symbol(String),
}

fn sql_tokens(sql: &str) -> Vec<SqlToken> {
    let mut out = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '-' if chars.peek() == Some(&'-') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '\'' => {
                let mut text = String::new();
                while let Some(c) = chars.next() {
                    if c == '\'' {
                        if chars.peek() == Some(&'\'') {
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    text.push(c);
                }
                out.push(SqlToken::Literal(text));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut word = c.to_string();
                while let Some(&c) = chars.peek().filter(|c| c.is_alphanumeric() || **c == '_') {
                    word.push(c);
                    chars.next();
                }
                out.push(SqlToken::Word(word.to_ascii_lowercase()));
            }
            c if c.is_whitespace() => {}
            c => {
                let mut symbol = c.to_string();
                if let Some(&next) = chars.peek().filter(|n| {
                    matches!((c, **n), ('<', '>') | ('!', '=') | ('<', '=') | ('>', '='))
                }) {
                    symbol.push(next);
                    chars.next();
                }
                out.push(SqlToken::Symbol(symbol));
            }
        }
    }
    out
}

/// The places where SQL compares an `attack` column with a written name (`attack = 'm3'`,
/// `'m3' <> g.attack`, `attack IN ('m1', ...)`, `attack LIKE 'punct%'`), as the literal.
fn attack_spellings(sql: &str) -> Vec<String> {
    use SqlToken::*;
    let tokens = sql_tokens(sql);
    let is_attack = |t: Option<&SqlToken>| matches!(t, Some(Word(w)) if w == "attack");
    let is_compare = |t: Option<&SqlToken>| matches!(t, Some(Symbol(s)) if ["=", "<>", "!="].contains(&s.as_str()));
    let mut found = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let Literal(text) = t else { continue };
        let before = |k: usize| i.checked_sub(k).and_then(|j| tokens.get(j));
        let after = |k: usize| tokens.get(i + k);
        let compared = (is_compare(before(1)) && is_attack(before(2)))
            || (is_compare(after(1)) && is_attack(after(2)));
        // `attack [NOT] LIKE 'x'` and `attack [NOT] IN ('x', 'y')`: walk back over the list.
        let mut j = i;
        while j > 0
            && matches!(&tokens[j - 1], Literal(_) | Symbol(_))
            && !matches!(&tokens[j - 1], Symbol(s) if s == ")")
        {
            j -= 1;
        }
        let keyword = j.checked_sub(1).and_then(|k| tokens.get(k));
        let listed = matches!(keyword, Some(Word(w)) if w == "in" || w == "like")
            && {
                let k = j - 1;
                let subject = if matches!(k.checked_sub(1).and_then(|m| tokens.get(m)), Some(Word(w)) if w == "not")
                {
                    k.checked_sub(2)
                } else {
                    k.checked_sub(1)
                };
                is_attack(subject.and_then(|m| tokens.get(m)))
            };
        if compared || listed {
            found.push(text.clone());
        }
    }
    found
}

#[test]
fn no_sql_file_selects_an_attack_by_its_name() {
    let spelled = |sql: &str| attack_spellings(sql);
    assert_eq!(
        spelled("WHERE g.attack = 'original' -- attack = 'm1'"),
        ["original"]
    );
    assert_eq!(
        spelled("WHERE 'm3' <> attack AND attack IN ('m1', 'm2')"),
        ["m3", "m1", "m2"]
    );
    assert_eq!(
        spelled("WHERE attack NOT LIKE 'punct%' OR a.families = 'm3'"),
        ["punct%"]
    );
    assert!(spelled("SELECT 'original' AS role, a.kind = 'noise' FROM attacks a").is_empty());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.join("sql")];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "sql") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 20, "{files:?}");
    let mut found = Vec::new();
    for path in files {
        // The catalogue the others select through: the vocabulary, written out.
        if path.ends_with("views/00_attacks.sql") {
            continue;
        }
        let sql = fs::read_to_string(&path).unwrap();
        for text in attack_spellings(&sql) {
            found.push(format!(
                "{}: '{text}'",
                path.strip_prefix(root).unwrap().display()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "SQL that selects an attack by its name (join the `attacks` view and select by its \
         columns: is_original, kind, families, method, gsm_plus, ...):\n{}",
        found.join("\n")
    );
}

/// The `attacks` view is the vocabulary written out: its file is what `advmath::vocab` renders.
#[test]
fn attacks_view_is_the_vocabulary() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sql/views/00_attacks.sql");
    let expected = advmath::vocab::catalogue_sql(advmath::vocab::CATALOGUE_COMMENT);
    if std::env::var_os("ADVMATH_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        expected,
        "sql/views/00_attacks.sql is not the vocabulary as advmath::vocab writes it: rerun with \
         ADVMATH_UPDATE_DOCS=1"
    );
    // The engine holds the same rows (built from the vocabulary, not planned from the file).
    let (_dir, tables) = crate::util::small_tables();
    let from_file = expected
        .split_once("FROM (VALUES")
        .map(|(_, values)| {
            format!(
                "SELECT * FROM (VALUES{}",
                values.trim_end().trim_end_matches(';')
            )
        })
        .unwrap();
    let held = crate::util::sql_csv(&tables, "SELECT * FROM attacks ORDER BY attack");
    assert_eq!(
        held,
        crate::util::sql_csv(&tables, &format!("{from_file} ORDER BY attack"))
    );
    assert_eq!(held.lines().count(), 1 + advmath::vocab::catalogue().len());
    // Every attack a default run makes is in it, typed.
    let typed = crate::util::sql_csv(
        &tables,
        "SELECT COUNT(DISTINCT v.attack) AS made, COUNT(DISTINCT a.attack) AS typed \
         FROM variants v LEFT JOIN attacks a ON a.attack = v.attack",
    );
    let row: Vec<&str> = typed.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[0], row[1], "{typed}");
    assert!(row[0].parse::<usize>().unwrap() > 3, "{typed}");
}
