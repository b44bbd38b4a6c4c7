//! The reader's rules on the questions whose variants blind readers flagged: each rule is found,
//! and the flagged numbers break it while the original numbers keep it.

use super::*;
use crate::num::wide::Value;
use crate::program::{validate_program, AlignMode, Links};
use crate::question::find_slots;

struct Case {
    question: &'static str,
    rules: Vec<ReaderRule>,
    program: Program,
    originals: Vec<Num>,
}

fn case(question: &'static str, src: &str, gold: &str) -> Case {
    let slots = find_slots(question);
    let program = validate_program(
        src,
        question,
        &slots,
        Value::parse_decimal(gold),
        AlignMode::Given,
        Links::DIGITS,
    )
    .unwrap();
    let originals: Vec<Num> = slots.iter().map(|s| s.value).collect();
    let mut nodes = vec![Num::ZERO; program.nodes.len()];
    program.eval_into(&originals, &mut nodes).unwrap();
    Case {
        question,
        rules: reader_rules(question, &slots, &program, &nodes),
        program,
        originals,
    }
}

impl Case {
    /// The first rule the question breaks with these numbers changed (each named as the
    /// question writes it), described.
    fn broken(&self, changes: &[(&str, i128)]) -> Option<String> {
        let found = find_slots(self.question);
        let mut slots = self.originals.clone();
        for &(written, v) in changes {
            let i = found
                .iter()
                .position(|s| s.written_in(self.question) == written)
                .unwrap_or_else(|| panic!("{written} is not a number of the question"));
            slots[i] = Num::int(v);
        }
        self.program.apply_ties(&mut slots);
        let mut nodes = vec![Num::ZERO; self.program.nodes.len()];
        self.program.eval_into(&slots, &mut nodes).ok()?;
        let mut before = vec![Num::ZERO; self.program.nodes.len()];
        self.program
            .eval_into(&self.originals, &mut before)
            .unwrap();
        self.rules
            .iter()
            .find(|r| !r.holds(&slots, &nodes))
            .map(|r| r.describe(self.question, &found, &before))
    }

    /// The changes break one of the rules (the rules are printed when they do not).
    #[track_caller]
    fn breaks(&self, changes: &[(&str, i128)]) {
        assert!(self.broken(changes).is_some(), "{:?}", self.described());
    }

    /// The changes break none of the rules (the one broken is printed when they do).
    #[track_caller]
    fn keeps(&self, changes: &[(&str, i128)]) {
        if let Some(rule) = self.broken(changes) {
            panic!("{rule} is broken; the rules: {:?}", self.described());
        }
    }

    fn described(&self) -> Vec<String> {
        let slots = find_slots(self.question);
        let mut nodes = vec![Num::ZERO; self.program.nodes.len()];
        self.program.eval_into(&self.originals, &mut nodes).unwrap();
        self.rules
            .iter()
            .map(|r| r.describe(self.question, &slots, &nodes))
            .collect()
    }
}

#[test]
fn men_who_stayed_are_no_more_than_the_men() {
    // GSM8K test 320.
    let c = case(
        "At the beginning of the party, there were 25 men and 15 women. After an hour, 1/4 of \
         the total number of people left. How many women are left if 22 men stayed at the party?",
        "step1 = 25 + 15\nstep2 = step1 / 4\nstep3 = step1 - step2\nstep4 = step3 - 22\nprint(step4)",
        "8",
    );
    c.keeps(&[]);
    let why = c
        .broken(&[("25", 20), ("15", 12), ("22", 21)])
        .expect("21 men stayed of 20");
    assert!(why.starts_with("22 <= 25"), "{why}");
}

#[test]
fn what_came_back_is_no_more_than_what_dropped() {
    // GSM8K test 1247.
    let c = case(
        "Brendan has a bag of marbles with 10 inside. He tripped over a pebble while carrying it \
         and dropped half of them. He scrambled to search for them but only came up with 3. When \
         he went back home, he inspected the marbles further. One of them he picked up wasn't a \
         marble, but actually a bead so he got rid of it. How many marbles did Brendan end up \
         with?",
        "step1 = 10 / 2\nstep2 = step1 + 3\nstep3 = step2 - 1\nprint(step3)",
        "7",
    );
    c.keeps(&[]);
    c.breaks(&[("10", 34), ("3", 91)]);
    // Half of 34 is 17: 20 found is more than dropped.
    c.breaks(&[("10", 34), ("3", 20)]);
    c.keeps(&[("10", 34), ("3", 17)]);
}

#[test]
fn candy_eaten_is_no_more_than_candy_scored() {
    // MultiArith 141.
    let c = case(
        "For Halloween Haley scored 33 pieces of candy. She ate 17 pieces the first night and \
         then her sister gave her 19 more pieces. How many pieces of candy does Haley have now?",
        "step1 = 33 + 19\nstep2 = step1 - 17\nprint(step2)",
        "35",
    );
    c.keeps(&[]);
    c.breaks(&[("33", 22), ("17", 23)]);
    // The 19 more pieces are added, not taken out of the 33.
    c.keeps(&[("33", 22), ("17", 5), ("19", 40)]);
}

#[test]
fn the_second_biggest_slide_stays_shorter() {
    // GSM8K test 1099.
    let c = case(
        "The biggest waterslide at Five Flags is 300 feet long, and people slide down at 60 \
         feet/minute. The second biggest waterslide is 240 feet long, but steeper, so people \
         slide down at 80 feet/minute. How much longer does it take to ride the biggest slide \
         compared to the second biggest slide?",
        "step1 = 300 / 60\nstep2 = 240 / 80\nstep3 = step1 - step2\nprint(step3)",
        "2",
    );
    assert!(c.broken(&[]).is_none());
    assert!(
        c.broken(&[("300", 100), ("60", 20), ("240", 140), ("80", 70)])
            .is_some(),
        "{:?}",
        c.described()
    );
}

#[test]
fn a_work_week_has_at_most_seven_days() {
    // GSM8K test 1063.
    let c = case(
        "James gets 80 emails a day.  20% of those emails don't require any response.  He \
         responds to the rest of them.  How many emails does he respond to in a 5 day work week?",
        "e = 80\nstep1 = e * 20 / 100\nstep2 = e - step1\nprint(step2 * 5)",
        "320",
    );
    assert!(c.broken(&[]).is_none());
    let why = c.broken(&[("5", 98)]).expect("a 98 day work week");
    assert!(why.contains("days per week"), "{why}");
}

#[test]
fn hours_per_month_fit_in_a_month() {
    // GSM8K train 7087.
    let c = case(
        "To earn an airplane pilot certificate, Sangita is required to fly 1,500 hours. She has \
         already completed 50 hours of day flying, 9 hours of night flying, and 121 hours flying \
         cross-country. To meet her goal in exactly 6 months, how many hours per month must \
         Sangita fly?",
        "step1 = 50 + 9\nstep2 = step1 + 121\nstep3 = 1500 - step2\nstep4 = step3 / 6\nprint(step4)",
        "220",
    );
    assert!(c.broken(&[]).is_none());
    let why = c
        .broken(&[("1,500", 10044)])
        .expect("1,644 hours per month");
    assert!(why.contains("hours per month"), "{why}");
}

#[test]
fn a_person_is_at_most_120_years_old() {
    // GSM8K test 566.
    let c = case(
        "Shiloh is 44 years old today.  In 7 years, he will be three times as old as his \
         nephew.  How old is his nephew today?",
        "y = 7\nstep1 = 44 + y\nstep2 = step1 / 3\nprint(step2 - y)",
        "10",
    );
    assert!(c.broken(&[]).is_none());
    c.breaks(&[("44", 300293)]);
    // GSM8K test 992: three times the age of a father who saw the comet at 70 is no age.
    let c = case(
        "Comet Halley orbits the sun every 75 years. Bill's dad saw the Comet when he was 30 \
         years old. Bill saw the comet a second time when he was three times the age his father \
         was when he saw the Comet. How old was Bill when he saw the Comet for the first time?",
        "step1 = 30 * 3\nstep2 = step1 - 75\nprint(step2)",
        "15",
    );
    c.keeps(&[]);
    c.breaks(&[("30", 60)]);
}

#[test]
fn a_bill_is_one_that_exists() {
    // Xie et al.'s GSM8K 22.
    let c = case(
        "Sally bought 3 photograph frames, each costing her $3. She paid with a $20 bill. How \
         much change did she get?",
        "cost = 3\nframes = 3\ntotal = cost * frames\npaid = 20\nprint(paid - total)",
        "11",
    );
    assert!(c.broken(&[]).is_none());
    let why = c.broken(&[("20", 31)]).expect("a $31 bill");
    assert!(why.contains("bill"), "{why}");
    assert!(c.broken(&[("20", 50)]).is_none());
}

#[test]
fn counts_of_one_noun_are_free_unless_the_question_ranks_them() {
    // GSM8K test 1001: the batter's minutes may outlast the baking's.
    let c = case(
        "It takes 20 minutes to make the batter and 30 minutes to bake the cake. How many \
         minutes in all?",
        "print(20 + 30)",
        "50",
    );
    assert!(c.rules.is_empty(), "{:?}", c.described());
}

#[test]
fn a_rule_the_original_numbers_break_is_not_kept() {
    // 5 apples eaten of 3 apples: the text is not about that order, so there is no rule.
    let c = case(
        "Tom had 3 apples and bought 9 more. He ate 5 apples. How many apples are left?",
        "a = 3 + 9\nprint(a - 5)",
        "7",
    );
    let mut nodes = vec![Num::ZERO; c.program.nodes.len()];
    c.program.eval_into(&c.originals, &mut nodes).unwrap();
    assert!(c.rules.iter().all(|r| r.holds(&c.originals, &nodes)));
    // The 5 eaten is at most the 12 Tom had, not the 3 he started with.
    c.keeps(&[]);
    c.breaks(&[("5", 13)]);
}

#[test]
fn what_blind_readers_flagged_next_is_kept_too() {
    // GSM8K test 171: a spider's legs are a fact; the mutants' are not.
    let c = case(
        "Jake sees 80 spiders with 8 legs each, 90 insects with 6 legs each, and 3 rare mutant \
         invertebrates with 10 legs each. How many legs does Jake see total?",
        "print(80 * 8 + 90 * 6 + 3 * 10)",
        "1210",
    );
    assert!(c.broken(&[]).is_none());
    c.breaks(&[("8", 1)]);
    c.breaks(&[("6", 39)]);
    c.keeps(&[("10", 22)]);
    // GSM8K train 4479: "only" puts Jerry's bushels below Terry's.
    let c = case(
        "Bob ended up with 50 bushels. His friend Terry took 8 bushels, while Jerry only took 3. \
         How many bushels are left?",
        "print(50 - 8 - 3)",
        "39",
    );
    c.keeps(&[("3", 7)]);
    c.breaks(&[("3", 9)]);
    // GSM8K train 6051: four puppies that each weigh 7 kilograms stay more than one.
    let c = case(
        "Hartley has 4 puppies that each weigh 7 kilograms. The rescue center has 14 cats that \
         each weigh 2.5 kilograms. How many kilograms more do the cats weigh than the puppies?",
        "print(14 * 2.5 - 4 * 7)",
        "7",
    );
    c.keeps(&[("4", 2)]);
    c.breaks(&[("4", 1)]);
    // A unit may become one: "1 hour" reads well.
    assert!(c.described().iter().all(|d| !d.contains("kilograms")));
}

#[test]
fn a_count_of_the_people_the_question_names_stays() {
    // GSM8K test 561.
    let c = case(
        "If Mark weighs 150 pounds and Susan weighs 15 pounds less than Mark.  And their friend \
         Bob weighs twice as much as Susan.  What is the average weight of the 3 friends?",
        "m = 150\ns = m - 15\nprint((m + s + 2 * s) / 3)",
        "185",
    );
    assert!(c.broken(&[]).is_none());
    c.breaks(&[("3", 10)]);
    assert!(c.described().iter().any(|d| d.contains("Bob, Mark, Susan")));
}

#[test]
fn the_ages_a_question_gives_keep_their_order() {
    let c = case(
        "Jane is 40 years old and her daughter is 12 years old. How old will they be together \
         in 5 years?",
        "print(40 + 12 + 5 * 2)",
        "62",
    );
    c.keeps(&[("40", 30), ("12", 20)]);
    let why = c
        .broken(&[("40", 30), ("12", 35)])
        .expect("a daughter older than her mother");
    assert!(why.contains("two ages"), "{why}");
}

#[test]
fn a_school_day_lasts_at_most_a_day() {
    // GSM8K test 622 once gave "a school day that lasts 81 hours".
    let c = case(
        "Jim chews a piece of gum every 2 hours over a school day that lasts 8 hours. How many \
         pieces does he chew?",
        "print(8 / 2)",
        "4",
    );
    c.keeps(&[("8", 24)]);
    let why = c.broken(&[("8", 81)]).expect("an 81 hour school day");
    assert!(why.contains("hours per day"), "{why}");
}
