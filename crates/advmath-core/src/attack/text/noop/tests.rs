use super::*;

#[test]
fn an_item_sentence_follows_the_sentence_that_counts_the_items() {
    let text = "Oliver picks 44 kiwis on Friday. Then he bakes 58 cookies. How many does he have?";
    let mut seen = [false; 2];
    for seed in 0..40 {
        let n = insert_noop(text, seed).unwrap();
        let kiwis = n.sentence.contains("of the kiwis");
        let expected = if kiwis {
            format!("Oliver picks 44 kiwis on Friday. {} Then he bakes 58 cookies. How many does he have?", n.sentence)
        } else {
            format!("Oliver picks 44 kiwis on Friday. Then he bakes 58 cookies. {} How many does he have?", n.sentence)
        };
        assert_eq!(n.text, expected);
        seen[kiwis as usize] = true;
    }
    assert_eq!(seen, [true, true]);
    let n = insert_noop(text, 3).unwrap();
    assert!((2..=12).contains(&n.number));
    assert!(n.sentence.starts_with(SMALL_WORDS[n.number as usize]));
}

#[test]
fn the_number_is_never_one_the_question_writes() {
    let text = "Ann has 3 apples. She buys 4 more, then 2 more. How many apples does she have?";
    for seed in 0..100 {
        // The parts of 3 apples are 1 and 2, and the question writes 2: one apple, singular.
        let n = insert_noop(text, seed).unwrap();
        assert!(![2, 3, 4].contains(&n.number), "{} {}", n.number, n.text);
        assert_eq!(n.number, 1);
        assert!(
            n.sentence.starts_with("One of the apples was "),
            "{}",
            n.sentence
        );
    }
}

#[test]
fn a_person_fact_when_no_items_are_counted() {
    let text = "Weng earns $12 an hour for babysitting. Yesterday, she did 50 minutes. How much did she earn?";
    let n = insert_noop(text, 1).unwrap();
    assert!(n.sentence.starts_with("Weng "), "{}", n.sentence);
    assert!(n
        .text
        .starts_with("Weng earns $12 an hour for babysitting. Weng "));
    assert!(!text.contains(&n.number.to_string()));
}

#[test]
fn a_form_whose_topic_the_question_mentions_is_never_used() {
    let text = "Tim has 20 cookies. 5 of the cookies are smaller than average. How many big cookies does Tim have?";
    for seed in 0..50 {
        if let Ok(n) = insert_noop(text, seed) {
            assert!(!n.sentence.contains("smaller"), "{}", n.sentence);
        }
    }
}

#[test]
fn a_question_without_items_or_people_is_refused() {
    assert_eq!(
        insert_noop("What is 5 times 7?", 0),
        Err(NoopRefusal::NoPlace)
    );
}

#[test]
fn a_count_in_words_takes_an_item_sentence_too() {
    let text = "Four books are arranged on a shelf. The first book is 31 mm thick while the \
                second book is 50 mm thick. What is the total thickness of the four books?";
    let n = insert_noop(text, 1).unwrap();
    assert!(
        n.sentence.ends_with("of the books were blue."),
        "{}",
        n.sentence
    );
    assert!(n.text.starts_with("Four books are arranged on a shelf. "));
}

#[test]
fn a_question_that_sorts_items_by_quality_gets_no_property_of_them() {
    let text =
        "A basket has 25 oranges. 1 is bad and 2 are sour; the rest are good. How many are good?";
    for seed in 0..20 {
        if let Ok(n) = insert_noop(text, seed) {
            assert!(!n.sentence.contains("oranges"), "{}", n.sentence);
        }
    }
}

#[test]
fn no_fact_goes_before_a_sentence_that_could_take_it_over() {
    let text = "Tom has 4 bedrooms in his house. They measure 20 by 12 feet each. The living room \
                is 5 times bigger than one bedroom. What is the total area of the house?";
    for seed in 0..40 {
        if let Ok(n) = insert_noop(text, seed) {
            let at = n.text.find(&n.sentence).unwrap();
            let next = crate::cut::after(&n.text, at + n.sentence.len());
            let plural = ["cousins", "houseplants", "countries"]
                .iter()
                .any(|w| n.sentence.contains(w));
            assert!(
                !(plural && next.trim_start().starts_with("They")),
                "{}",
                n.text
            );
        }
    }
    let text =
        "A company sold 4000 gallons of milk to Mr. Marcellus' store. He returned 20. How many?";
    for seed in 0..20 {
        if let Ok(n) = insert_noop(text, seed) {
            assert!(!n.text.contains("Mr. Mr."), "{}", n.text);
            assert!(n
                .text
                .starts_with("A company sold 4000 gallons of milk to Mr. Marcellus' store."));
        }
    }
}
