//! Why a question gets no `names` variant: the refusals, each with the name
//! `generation_stats.refused` gives it.

/// Why a question gets no `names` variant (the `generation_stats.refused` values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamesRefusal {
    /// The question names no person.
    NoName,
    /// Every listed name of the gender needed is already a word of the question.
    NoNameLeft,
    /// A capitalised word that may be a person, or may not, besides the people named: renaming
    /// the others could split one person in two.
    UnsureName,
    /// Two names one letter apart: perhaps one person spelled two ways.
    NamesAlike,
}

impl NamesRefusal {
    pub const ALL: [NamesRefusal; 4] = [
        NamesRefusal::NoName,
        NamesRefusal::NoNameLeft,
        NamesRefusal::UnsureName,
        NamesRefusal::NamesAlike,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            NamesRefusal::NoName => "no_name",
            NamesRefusal::NoNameLeft => "no_name_left",
            NamesRefusal::UnsureName => "unsure_name",
            NamesRefusal::NamesAlike => "names_alike",
        }
    }
}
