//! The vocabulary's names round-trip, and attacks answer by type.

#[test]
fn problem_ids_sort_by_their_numbers() {
    let mut ids = vec!["d/test/10", "d/test/9", "d/test/100", "c/test/2"];
    ids.sort_by_key(|s| natural_key(s));
    assert_eq!(ids, ["c/test/2", "d/test/9", "d/test/10", "d/test/100"]);
}

use super::*;

#[test]
fn attack_names_round_trip() {
    for name in [
        "original",
        "m1",
        "m2",
        "m3",
        "punct10",
        "punct50",
        "m3+punct30",
        "rephrase",
        "names",
        "noop",
        "names+noop",
        "m3+names",
        "m1+names+noop",
        "digits",
        "digits+names",
        "digits+noop",
        "digits+punct30",
        "missing",
        "m3+missing",
        "missing+names",
        "decimals+missing+names+noop",
    ] {
        let attack: Attack = name.parse().unwrap();
        assert_eq!(attack.to_string(), name);
    }
    for bad in [
        "",
        "m4",
        "punct",
        "punctx",
        "m1+m2",
        "m1+punct",
        "Original",
        "names+m3",
        "noop+names",
        "names+missing",
        "missing+missing",
        "missing+punct10",
        "names+names",
        "names+punct10",
    ] {
        assert!(bad.parse::<Attack>().is_err(), "{bad:?} parsed");
    }
    assert_eq!("m2+punct10".parse::<Attack>().unwrap().noise_level(), 10);
}

#[test]
fn attack_specs_parse_and_print() {
    for (text, shown) in [("m1", "m1"), (" M3+punct ", "m3+punct"), ("punct", "punct")] {
        assert_eq!(AttackSpec::parse(text).unwrap().to_string(), shown);
    }
    assert!(AttackSpec::parse("m4").unwrap_err().contains("m4"));
    for (text, shown) in [
        ("names+m3", "m3+names"),
        ("noop+m3", "m3+noop"),
        ("names+noop+m3", "m3+names+noop"),
        ("noop", "noop"),
        ("names+missing+m1", "m1+missing+names"),
    ] {
        assert_eq!(AttackSpec::parse(text).unwrap().to_string(), shown);
    }
    for bad in ["names+m3+m2", "noop+noop", "names+punct"] {
        assert!(AttackSpec::parse(bad).is_err(), "{bad}");
    }
    let spec = AttackSpec::parse("m2+punct").unwrap();
    assert_eq!(spec.at_level(30).to_string(), "m2+punct30");
}

#[test]
fn an_attack_answers_by_type() {
    let of = |name: &str| Attack::of(name).unwrap();
    assert_eq!(
        of("m3+names+noop").families(),
        [Family::Numeric(Method::M3), Family::Names, Family::Noop]
    );
    assert_eq!(
        of("digits+punct10").families(),
        [Family::Numeric(Method::Digits), Family::Punct]
    );
    assert!(of("m3+punct30").has(Family::Punct) && of("m3+punct30").is_composed());
    assert!(of("m3+punct30").changes_numbers() && !of("punct30").changes_numbers());
    assert!(of("m3+names").has_kind(Kind::Text) && of("guided").changes_numbers());
    assert!(!of("original").is_composed() && of("original").families().is_empty());
    assert_eq!(of("rephrase").families(), [Family::Rephrase]);
    assert_eq!(
        of("m3+missing+names").families(),
        [Family::Numeric(Method::M3), Family::Missing, Family::Names]
    );
    assert!(!of("m3+missing").answerable() && of("m3+names").answerable());
    assert_eq!(Attack::of("m4"), None);
    assert_eq!(of("digits").method(), Some(Method::Digits));
    assert!(!Method::Digits.is_xie() && Method::XIE.iter().all(|m| m.is_xie()));
    let spec = AttackSpec::parse("m2+punct").unwrap();
    assert_eq!(
        spec.attacks(&[10, 30]),
        [of("m2+punct10"), of("m2+punct30")]
    );
    assert_eq!(
        AttackSpec::parse("digits").unwrap().attacks(&[10]),
        [of("digits")]
    );
}

#[test]
fn simulated_models() {
    assert!(SIMULATED_MODELS.iter().all(|m| is_simulated(m)));
    assert!(!is_simulated("gpt-4o") && !is_simulated("oracle-2") && !is_simulated("simple"));
}
