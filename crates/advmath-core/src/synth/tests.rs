//! Tests of program synthesis from GSM8K annotations and MultiArith equations.

use super::*;
use crate::question::find_slots;

#[test]
fn janet() {
    let q = "Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg.";
    let a = "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day.\n#### 18";
    let slots = find_slots(q);
    // 16 and 2 by default; "three" and "four" too when number words are linked.
    let p = from_gsm8k(q, &slots, a, Num::int(18), Links::DIGITS).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 3]);
    let words = Links {
        number_words: true,
        ..Links::DIGITS
    };
    let p = from_gsm8k(q, &slots, a, Num::int(18), words).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2, 3]);
    let v = p
        .eval(&[Num::int(20), Num::int(3), Num::int(4), Num::int(3)])
        .unwrap();
    assert_eq!(v, Num::int(39));
}

#[test]
fn percent_increase() {
    let q = "He buys a house for $80,000 and then puts in $50,000 in repairs. This increased the value of the house by 150%.";
    let a = "<<80000+50000=130000>>\n<<80000*1.5=120000>>\n<<120000+80000=200000>>\n<<200000-130000=70000>>\n#### 70000";
    let slots = find_slots(q);
    // By default 1.5 stays, as "150%" does in the text.
    let p = from_gsm8k(q, &slots, a, Num::int(70000), Links::DIGITS).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1]);
    let percentages = Links {
        percentages: true,
        ..Links::DIGITS
    };
    let p = from_gsm8k(q, &slots, a, Num::int(70000), percentages).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
    // 100% increase: 100000 + 100000 - 150000 = 50000
    let v = p
        .eval(&[Num::int(100000), Num::int(50000), Num::int(100)])
        .unwrap();
    assert_eq!(v, Num::int(50000));
}

/// gsm8k/test/1241: "12 x 5" after "2.40 x 5 = 12" in a question about dozens.
#[test]
fn a_literal_that_is_a_result_and_a_stated_number_is_refused() {
    let q = "Rose bought five dozens of eggs for $2.40 a dozen. She will sell them for $1 for 3 eggs. How much profit?";
    let a = "$2.40 x 5 = $<<2.40*5=12>>12.\n12 x 5 = <<12*5=60>>60 eggs.\n60/3 = <<60/3=20>>20\n20 x $1 = $<<20*1=20>>20\n$20 - $12 = $<<20-12=8>>8.\n#### 8";
    let slots = find_slots(q);
    let e = from_gsm8k(q, &slots, a, Num::int(8), Links::DIGITS).unwrap_err();
    assert_eq!(e.kind, ErrorKind::AmbiguousOperand, "{e}");
    // Without the step that reads "$1", the program ignores a number the question writes.
    let a = "$2.40 x 5 = $<<2.40*5=12>>12.\n12 x 5 = <<12*5=60>>60 eggs.\n60/3 = <<60/3=20>>20\n$20 - $12 = $<<20-12=8>>8.\n#### 8";
    let e = from_gsm8k(q, &slots, a, Num::int(8), Links::DIGITS).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::AmbiguousOperand | ErrorKind::UnusedNumber
        ),
        "{e}"
    );
}

/// gsm8k/test/1200 writes "m=<<8=8>>8": a restated number is no step, so no answer is a bare
/// question number.
#[test]
fn a_restated_number_is_no_step() {
    let q = "Eight more than four times the number of mugs is 40. How many mugs are there?";
    let a = "4*m=40-8=32\n4m=<<32=32>>32\nm=<<8=8>>8\n#### 8";
    let slots = find_slots(q);
    let words = Links {
        number_words: true,
        ..Links::DIGITS
    };
    assert!(from_gsm8k(q, &slots, a, Num::int(8), words).is_err());
}

/// gsm8k/test/1022: the last step cannot be linked, and an earlier one (4 x 3 = 12) happens
/// to equal the answer: refused, not answered by coincidence.
#[test]
fn an_answer_before_a_failed_step_is_refused() {
    let q = "Large toys cost three times the price of small ones. She sold twice as many small toys as large ones and earned $120. Each small toy costs $4. How many small toys did she sell?";
    let a = "3 * 4 = $<<3*4=12>>12.\nA = 120 / 20 = <<120/20=6>>6\n6 * 2 = <<6*2=12>>12\n#### 12";
    let slots = find_slots(q);
    assert!(from_gsm8k(q, &slots, a, Num::int(12), Links::DIGITS).is_err());
}

#[test]
fn unexplained_constant_is_rejected() {
    let q = "Tom has 5 apples.";
    let slots = find_slots(q);
    let e = from_gsm8k(
        q,
        &slots,
        "<<5*17=85>>\n#### 85",
        Num::int(85),
        Links::DIGITS,
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnresolvedConstant);
}

#[test]
fn multiarith_uses_alignments() {
    let q = " For Halloween Debby and her sister combined the candy they received. Debby had 32 pieces of candy while her sister had 42. If they ate 35 pieces the first night, how many pieces do they have left? ";
    let slots = find_slots(q);
    let p = from_multiarith(
        q,
        &slots,
        "X=((32.0+42.0)-35.0)",
        &[80, 120, 136],
        Num::int(39),
        Links::DIGITS,
    )
    .unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2]);
}

#[test]
fn cleans_calculator_syntax() {
    assert_eq!(clean_expression("$1,000 x 2"), "1000*2");
    assert_eq!(clean_expression("20%*50"), "20/100*50");
    assert_eq!(clean_expression("05+0.5"), "5+0.5");
}

#[test]
fn an_operand_two_earlier_steps_could_give_refuses_the_problem() {
    // Both steps give 20: the third step's 20 could be either box, and the answers differ.
    let q = "A shop has 4 red boxes with 5 pens each and 2 blue boxes with 10 pens each. It sells the red pens at $3 each and the blue pens at $6 each. How much does it get?";
    let a = "4*5=<<4*5=20>>20 red pens.\n2*10=<<2*10=20>>20 blue pens.\n20*3=<<20*3=60>>60 dollars.\n20*6=<<20*6=120>>120 dollars.\n60+120=<<60+120=180>>180\n#### 180";
    let slots = find_slots(q);
    let err = from_gsm8k(q, &slots, a, Num::int(180), Links::DIGITS).unwrap_err();
    assert_eq!(err.kind, ErrorKind::AmbiguousOperand, "{err}");
}

#[test]
fn equal_steps_read_once_each_are_one_reading() {
    let q = "A shop has 4 red boxes with 5 pens each and 2 blue boxes with 10 pens each. How many pens does it have?";
    let a = "4*5=<<4*5=20>>20 red pens.\n2*10=<<2*10=20>>20 blue pens.\n20+20=<<20+20=40>>40 pens.\n#### 40";
    let slots = find_slots(q);
    let p = from_gsm8k(q, &slots, a, Num::int(40), Links::DIGITS).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 1, 2, 3]);
    let v = p
        .eval(&[Num::int(3), Num::int(5), Num::int(2), Num::int(10)])
        .unwrap();
    assert_eq!(v, Num::int(35));
}

#[test]
fn the_unit_the_solution_writes_decides_between_two_earlier_quantities() {
    // The same problem, where the solution says which 20 it multiplies.
    let q = "A shop has 4 red boxes with 5 pens each and 2 blue boxes with 10 pens each. It sells the red pens at $3 each and the blue pens at $6 each. How much does it get?";
    let a = "4*5=<<4*5=20>>20 red pens.\n2*10=<<2*10=20>>20 blue pens.\n20 red pens x $3 = <<20*3=60>>60 dollars.\n20 blue pens x $6 = <<20*6=120>>120 dollars.\n60+120=<<60+120=180>>180\n#### 180";
    let slots = find_slots(q);
    let p = from_gsm8k(q, &slots, a, Num::int(180), Links::DIGITS).unwrap();
    let v = p.eval(&[4, 7, 2, 10, 3, 6].map(Num::int)).unwrap();
    assert_eq!(v, Num::int(4 * 7 * 3 + 2 * 10 * 6));
}

#[test]
fn a_step_result_and_a_percentage_of_one_value_are_told_apart_by_their_units() {
    // 40 is the question's 40% and the minutes of step 2; 100 is step 3's minutes and, in a
    // question of percentages, the constant of one.
    let q = "Ana downloads a 600 GB file at 6 GB/minute. At 40% of the way a restart takes 15 minutes, and she starts again from the beginning. How many minutes does it take?";
    let a = "600 GB * 40% = <<600*40*.01=240>>240 GB\n240 GB / 6 GB/minute = <<240/6=40>>40 minutes\n600 GB / 6 GB/minute = <<600/6=100>>100 minutes\nIn all 40 minutes + 100 minutes + 15 minutes = <<40+100+15=155>>155 minutes\n#### 155";
    let slots = find_slots(q);
    let p = from_gsm8k(q, &slots, a, Num::int(155), Links::DIGITS).unwrap();
    let v = p.eval(&[400, 4, 25, 10].map(Num::int)).unwrap();
    assert_eq!(v, Num::int(400 / 4 / 4 + 400 / 4 + 10));
    // Bare numbers say nothing, but reading the 40 as the question's would leave step 2's
    // minutes unread: only one reading has every worked step feed the answer.
    let bare = a.replace("40 minutes + 100 minutes + 15 minutes", "40 + 100 + 15");
    let p = from_gsm8k(q, &slots, &bare, Num::int(155), Links::DIGITS).unwrap();
    assert_eq!(
        p.eval(&[400, 4, 25, 10].map(Num::int)).unwrap(),
        Num::int(400 / 4 / 4 + 400 / 4 + 10)
    );
}

#[test]
fn a_rate_is_not_a_count_of_its_unit() {
    // "100 hours" is step 2's result, not the question's "$100 an hour"; the bare "100 - 80"
    // must then be the price, since the program has to read every number the question states.
    let q = "A clinic sees 300 people a day, each for 20 minutes. Doctors cost $80 an hour and patients pay $100 an hour. What is the clinic's profit?";
    let a = "300*20=<<300*20=6000>>6000 minutes a day\n6000/60=<<6000/60=100>>100 hours a day\nThe profit is 100-80=$<<100-80=20>>20 per hour\nSo 100 hours * $20/hour = $<<100*20=2000>>2000\n#### 2000";
    let slots = find_slots(q);
    let p = from_gsm8k(q, &slots, a, Num::int(2000), Links::DIGITS).unwrap();
    let v = p.eval(&[200, 30, 50, 90].map(Num::int)).unwrap();
    assert_eq!(v, Num::int(200 * 30 / 60 * (90 - 50)));
}

#[test]
fn prose_equations_are_read_with_their_units() {
    let steps = gsm8k_steps(
        "Dean has $38 − $17 = $21 left.\nThat is 90 minutes / 450 minutes * 100% = 20%\n#### 20",
    );
    let read: Vec<(&str, &str)> = steps
        .iter()
        .map(|s| (s.expr.as_str(), s.result.as_str()))
        .collect();
    assert_eq!(read, vec![("$38 − $17", "21"), ("90 / 450 * 100", "20")]);
    // A percentage or a fraction is the value it writes.
    let steps = gsm8k_steps("She keeps 100% - 10% = 90% of it, 3/3 - 2/3 = 1/3 of the cake.");
    let results: Vec<&str> = steps.iter().map(|s| s.result.as_str()).collect();
    assert_eq!(results, vec!["90%", "1/3"]);
}

#[test]
fn algebra_and_unfinished_equations_are_not_steps() {
    let steps = gsm8k_steps("So A + A - 2 + A + 4 = 3A + 2 = 35.\nHarry: 5+2(3)=5+6=11 trees\n");
    let read: Vec<(&str, &str)> = steps
        .iter()
        .map(|s| (s.expr.as_str(), s.result.as_str()))
        .collect();
    // A chain's first expression holds the numbers the solution read.
    assert_eq!(read, vec![("5+2(3)", "11")]);
    let steps = gsm8k_steps("Gerry needs (36/3) x 2 = 12 x 2 = 24 sticks");
    assert_eq!(steps[0].expr, "(36/3) x 2");
}

#[test]
fn a_final_step_the_solution_only_writes_in_prose_gives_the_answer() {
    let q = "Dora has $16 and gets $2 more. A rope costs $6 and a game $11. How much more does she need?";
    let a = "She needs $6 + $11 = $<<6+11=17>>17.\nShe has $16 + $2 = $<<16+2=18>>18.\nShe needs $17 − $18 = $-1, so nothing: she has $18 − $17 = $1 left.\n#### 1";
    let slots = find_slots(q);
    let p = from_gsm8k(q, &slots, a, Num::int(1), Links::DIGITS).unwrap();
    let v = p.eval(&[20, 3, 7, 9].map(Num::int)).unwrap();
    assert_eq!(v, Num::int(20 + 3 - 7 - 9));
}

#[test]
fn a_solution_that_computes_on_from_the_answer_is_refused() {
    // The dataset's answer, 16, is the canes; the question asks for the cavities, 4.
    let q = "Andy gets a cavity for every 4 candy canes he eats. He gets 2 candy canes from his parents and 3 candy canes each from 4 teachers. Then he buys 1/7 as many candy canes as he was given. How many cavities does he get?";
    let a = "3 canes/teacher * 4 teachers = <<3*4=12>>12 canes\n12 canes + 2 canes = <<12+2=14>>14 canes\n14 canes / 7 = <<14/7=2>>2 canes\n2 canes + 14 canes = <<2+14=16>>16 canes\n16 canes / 4 canes/cavity = <<16/4=4>>4 cavities\n#### 16";
    let slots = find_slots(q);
    let e = from_gsm8k(q, &slots, a, Num::int(16), Links::DIGITS).unwrap_err();
    assert_eq!(e.kind, ErrorKind::WrongAnswer, "{e}");
    assert!(
        e.detail.contains("computes on from the final answer 16"),
        "{e}"
    );
}

#[test]
fn a_percentage_a_step_gives_is_its_fraction_and_its_number() {
    // "60%" is 0.6 of the school, and "60 x 6" reads its number.
    let q =
        "How many girls are in the school if 40% of a school population is made up of 240 boys?";
    let a = "100% - 40% = 60% of the school's population are girls.\nSince 40% is equal to 240 students, then 1% is equal to 240/40 = <<240/40=6>>6 students.\nHence, there are 60 x 6 = <<60*6=360>>360 girls.\n#### 360";
    let slots = find_slots(q);
    let p = from_gsm8k(q, &slots, a, Num::int(360), Links::DIGITS).unwrap();
    assert_eq!(p.eval(&[47, 799].map(Num::int)).unwrap(), Num::int(53 * 17));
}

#[test]
fn a_fraction_a_step_writes_is_not_read_as_the_question_s_numbers() {
    // "45 x (1/3)" reads the step's 1/3, not the 3 of the question's "2/3".
    let q = "Ariel has 45 fish. 2/3 are male. How many female fish does she have?";
    let a = "1 - (2/3) = 1/3 of her fish are female.\nShe has 45 x (1/3) = <<45*(1/3)=15>>15 female fish.\n#### 15";
    let slots = find_slots(q);
    let e = from_gsm8k(q, &slots, a, Num::int(15), Links::DIGITS).unwrap_err();
    assert_eq!(e.kind, ErrorKind::AmbiguousOperand, "{e}");
}

#[test]
fn a_worked_step_the_answer_never_reads_refuses_the_problem() {
    // The beds' "4 * 25 = 100" is never read: the sum took the question's 200 (the plot's width)
    // where the solution meant its unwritten "2 * 100".
    let q = "The yard is 200 feet by 50 feet. Two flower beds are 4 feet by 25 feet each. How much of the yard is not flower beds?";
    let a = "200 * 50 = <<200*50=10000>>10000\nEach bed is 4 * 25 = <<4*25=100>>100 sq ft, and two are 200 sq ft.\n10000 - 200 = <<10000-200=9800>>9800\n#### 9800";
    let slots = find_slots(q);
    let e = from_gsm8k(q, &slots, a, Num::int(9800), Links::DIGITS).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnusedNumber, "{e}");
    assert!(e.detail.contains("never reads the result 100"), "{e}");
}

/// gsm8k/test/783: "3*x = 24" after "2*x + x = 24" divides by the solution's 3 (twice and once),
/// not by the question's "3 were orange"; a variant with 1 orange fish would divide by 1.
#[test]
fn a_coefficient_the_solution_derives_is_not_a_question_number() {
    let q = "Bob had 7 fish in his ornamental fish pond. 3 were orange, and 4 were white. He decided he wanted to get some more, so he went to the pet store. He had a sales assistant at the pet shop dip out 17 fish out of a mixed tank of both white and orange fish. When he got them home and added them to his pond, he found that he now had twice as many orange fish as white fish. How many white fish did Bob buy at the store?";
    let a = "Bob started with 7 fish and bought seventeen, so he had 7 + 17 = <<7+17=24>>24 fish.\nLet x = the number of white fish.\nBob has twice as many orange fish as white fish, so 2*x + x = 24 fish\n3*x = 24\nx = 24/3 = <<24/3=8>>8 white fish.\nBob started with 4 white fish, so he bought 8 - 4 = 4 white fish at the store.\n#### 4";
    let slots = find_slots(q);
    let e = from_gsm8k(q, &slots, a, Num::int(4), Links::DIGITS).unwrap_err();
    assert_eq!(e.kind, ErrorKind::AmbiguousOperand, "{e}");
    assert!(e.detail.contains("(2*x + x gives 3 times"), "{e}");
    // Where the solution shows no algebra, its 3 is the question's.
    let plain = a.replace("2*x + x = 24 fish\n3*x = 24\n", "\n");
    let p = from_gsm8k(q, &slots, &plain, Num::int(4), Links::DIGITS);
    assert!(p.is_ok_and(|p| p.variable_slots().contains(&1)));
}

#[test]
fn a_coefficient_derived_from_a_question_number_is_never_a_constant() {
    // 6 = 5 + 1 changes with the question's 5: no constant 6 may stand for it.
    let q = "Jackson has 5 times as much money as Williams. Together they have $150 and a 6 dollar coupon. How much does Jackson have?";
    let a = "Let x be the money Williams has.\n5*x + x = 150\n6*x = 150\nx = 150/6 = <<150/6=25>>25\nJackson has 25*5 = <<25*5=125>>125 dollars.\n#### 125";
    let slots = find_slots(q);
    let e = from_gsm8k(q, &slots, a, Num::int(125), Links::DIGITS).unwrap_err();
    assert_eq!(e.kind, ErrorKind::AmbiguousOperand, "{e}");
    assert!(e.detail.contains("5*x + x"), "{e}");
}

#[test]
fn a_derived_coefficient_read_as_a_constant_of_its_own_value_stands() {
    // C + 2C = 3C, and the question's 3 is a word that stays: the constant 3 is right whatever
    // it stands for, and the counts vary.
    let q = "A zoo had 20 animals and took in three rhinos. Then it had twice as many meerkats as lion cubs, and 32 animals in all. How many lion cubs were born?";
    let a = "The zoo had 20 + 3 = <<20+3=23>>23 animals.\nIt gained 32 - 23 = <<32-23=9>>9 cubs and meerkats.\nLet C be the cubs: C + 2C = 9\nC = 9/3 = <<9/3=3>>3 cubs.\n#### 3";
    let slots = find_slots(q);
    let p = from_gsm8k(q, &slots, a, Num::int(3), Links::DIGITS).unwrap();
    assert_eq!(p.variable_slots(), vec![0, 2]);
    let v = p.eval(&[40, 3, 73].map(Num::int)).unwrap();
    assert_eq!(v, Num::int(10));
}
