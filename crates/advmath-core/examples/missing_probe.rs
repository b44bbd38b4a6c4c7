use advmath_core::attack::text::missing::{needed_slots, withhold};
use advmath_core::program::Program;
use advmath_core::question::find_slots;
use std::io::BufRead;
fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let q = v["question"].as_str().unwrap();
        let p = Program::from_json(v["tree"].as_str().unwrap()).unwrap();
        let slots = find_slots(q);
        let values: Vec<_> = slots.iter().map(|s| s.value).collect();
        let needed = needed_slots(&p, &values);
        let mut parts = Vec::new();
        for (i, s) in slots.iter().enumerate() {
            let one: Vec<bool> = (0..slots.len()).map(|j| j == i).collect();
            let ok = withhold(q, &slots, &one, 1).is_ok();
            let ctx_start = s.start.saturating_sub(25);
            let ctx_end = (s.end + 25).min(q.len());
            let ctx = q
                .get(ctx_start..ctx_end)
                .or(q.get(s.start..s.end))
                .unwrap_or("?");
            parts.push(format!(
                "[{i} need={} phr={} «{}»]",
                needed[i] as u8,
                ok as u8,
                ctx.replace('\n', " ")
            ));
        }
        println!("{}\t{}", v["id"].as_str().unwrap(), parts.join(" "));
    }
}
