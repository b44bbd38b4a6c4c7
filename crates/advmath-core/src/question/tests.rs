//! Tests of number slots, templates, rendering, number words and the text's constraints.

use super::rendering::*;
use super::shown::text_constraints;
use super::*;

fn values(text: &str) -> Vec<String> {
    find_slots(text)
        .iter()
        .map(|s| s.value.to_string())
        .collect()
}

#[test]
fn finds_money_thousands_decimals_fractions() {
    assert_eq!(
        values("He paid $1,200 for 2.5 kg and 2/3 of a $.50 cake, 40% off."),
        ["1200", "2.5", "2", "3", "0.5", "40"]
    );
    assert_eq!(values("It ends in 5."), ["5"]);
    assert_eq!(
        values("On the 3rd day, 1st place, A4 paper"),
        Vec::<String>::new()
    );
    assert_eq!(values("walks 5km at 10am"), ["5", "10"]);
    assert_eq!(values("a model 1/10th the size"), ["1", "10"]);
    assert_eq!(values("the 10th of 1/4"), ["1", "4"]);
    assert_eq!(values("1,2,3 and 12,345,678"), ["1", "2", "3", "12345678"]);
}

#[test]
fn a_cardinal_counts_on_its_own_or_not_at_all() {
    let plain = |q: &str| {
        let slots = find_slots(q);
        let i = slots.iter().position(|s| s.word).unwrap();
        is_plain_cardinal(q, &slots, i)
    };
    assert!(plain("Four friends share 20 apples."));
    assert!(!plain("Three fourths of the 20 beans are red."));
    assert!(!plain("Michael has six 5 dollar bills."));
    assert!(!plain(
        "Scores of 89, 71, 92, 100 and 86 on the first five tests."
    ));
    assert!(plain("Scores of 89 and 71 on the first five tests."));
}

#[test]
fn the_text_constrains_its_fractions_and_percentages() {
    let q = "She smashes 3/4ths of 64 windows, 1/6 of 12 cups, eighty percent and 40% of 90.";
    let slots = find_slots(q);
    let text = text_constraints(q, &slots);
    let kinds: Vec<String> = text.iter().map(|c| format!("{c:?}")).collect();
    // 1/6, 3/4ths, "eighty percent" (a percentage and a plural count), 40%.
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    let mut values: Vec<Num> = slots.iter().map(|s| s.value).collect();
    assert!(text.iter().all(|c| c.holds(&values)));
    values[0] = Num::int(4); // 4/4ths
    assert_eq!(text.iter().filter(|c| !c.holds(&values)).count(), 1);
}

#[test]
fn template_round_trips() {
    let q = "Tom has {x} 1,200 apples and $3.50, and 7.";
    let slots = find_slots(q);
    let t = template(q, &slots);
    assert_eq!(t, "Tom has {{x}} {0} apples and ${1}, and {2}.");
    let orig: Vec<String> = ["1,200", "3.50", "7"].map(String::from).to_vec();
    assert_eq!(render(&t, &orig), q);
}

#[test]
fn formats_like_the_original() {
    let q = "1,200 and 3.50 and 2.5 and 7";
    let s = find_slots(q);
    assert_eq!(format_like(Num::int(34567), &s[0]), "34,567");
    assert_eq!(
        format_like(Num::parse_decimal("4.7").unwrap(), &s[1]),
        "4.70"
    );
    assert_eq!(format_like(Num::int(4), &s[1]), "4.00");
    assert_eq!(format_like(Num::int(4), &s[2]), "4");
    assert_eq!(
        format_like(
            Num::parse_decimal("0.1")
                .unwrap()
                .add(Num::parse_decimal("0.2").unwrap())
                .unwrap(),
            &s[3]
        ),
        "0.3"
    );
    assert_eq!(format_like(Num::ratio(10, 3).unwrap(), &s[3]), "3.333");
}

#[test]
fn writes_a_part_as_a_mixed_number() {
    let s = find_slots("1,200 and 7");
    assert_eq!(format_mixed(Num::ratio(7, 2).unwrap(), &s[1]), "3 1/2");
    assert_eq!(format_mixed(Num::ratio(3, 4).unwrap(), &s[1]), "3/4");
    assert_eq!(
        format_mixed(Num::ratio(4803, 4).unwrap(), &s[0]),
        "1,200 3/4"
    );
    assert_eq!(format_mixed(Num::int(4), &s[1]), "4");
}
